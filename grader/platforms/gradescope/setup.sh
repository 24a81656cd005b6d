#!/usr/bin/env bash
# setup.sh: Gradescope runs this once, as root, when it builds the autograder's image from autograder.zip
# (written by `grader export gradescope`). It installs the packages on Gradescope's Ubuntu base image (24.04:
# the grader needs CMake 3.25 and toml++), builds the grader, then builds the lab's harness and judge once, so
# each submission compiles only the student's files. GRADER_PREBUILT (common.sh) skips the install and the build.
set -euo pipefail
source_dir=$(cd "$(dirname "$0")" && pwd)
. "$source_dir/platform/common.sh"
. "$source_dir/platform/export.env"

build_grader "$source_dir/course"
prebuild_lab "$source_dir/course" "$(cpu_cache_dir "$source_dir")"
# The lab's hidden cases and datasets: the grader (root) reads them; the student's code is compiled as the
# grader's build user and runs as `nobody`, who must not (docs/threat-model.md). The grader copies the lab's
# public headers out for the compiler itself.
chmod -R go-rwx "$source_dir/course/labs" "$source_dir/course/datasets"
