#!/usr/bin/env bash
# build.sh: builds the PrairieLearn grading image's contents in place (the Dockerfile runs it as root in
# /opt/course-grader): installs the packages, builds the grader, then the lab's harness and judge once.
# GRADER_PREBUILT (platform/common.sh) skips the install and the build.
set -euo pipefail
image_dir=$(cd "$(dirname "$0")" && pwd)
. "$image_dir/platform/common.sh"
. "$image_dir/platform/export.env"

if [ -z "${GRADER_PREBUILT:-}" ] && [ "$(id -u)" -eq 0 ]; then
  apt-get update  # a fresh base image has no package lists; grader/setup.sh installs from them
fi
build_grader "$image_dir/course"
prebuild_lab "$image_dir/course" "$(cpu_cache_dir "$image_dir")"
