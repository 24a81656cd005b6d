#!/usr/bin/env bash
# Sets up a fresh Debian or Ubuntu machine for the course labs: installs the distribution packages the
# grader builds against, configures and builds everything into build/. Safe to run again.
#   bash grader/setup.sh
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(
  g++ make cmake binutils pkg-config        # compilers and nm/readelf/objcopy for the link policy
  libcli11-dev libtomlplusplus-dev nlohmann-json3-dev doctest-dev libarchive-dev
  libopenblas-dev                           # the professional CPU figures in benchmarks
  python3                                   # end-to-end test drivers
  bubblewrap                                # the sandbox every grading runs in
  slurmctld slurmd slurm-client             # grader batch --slurm, and its end-to-end test on localhost
)
# Root (CI, containers) runs apt-get itself; everyone else goes through sudo.
as_root=()
if [ "$(id -u)" -ne 0 ]; then as_root=(sudo); fi
"${as_root[@]}" apt-get update
DEBIAN_FRONTEND=noninteractive "${as_root[@]}" apt-get install -y --no-install-recommends "${packages[@]}"

# Every grading runs in a bubblewrap sandbox where the kernel lets an unprivileged user build one. Say so now,
# not at the first grading, where it cannot (docs/ta-guide.md, "The sandbox", says how to enable it).
if ! bwrap --ro-bind / / --unshare-all --new-session true 2>/dev/null; then
  echo "warning: bubblewrap is installed but cannot build a sandbox on this machine (unprivileged user"
  echo "         namespaces are off, or restricted by AppArmor as on Ubuntu 24.04): gradings will run without it."
  echo "         docs/ta-guide.md, section \"The sandbox\", says how to enable it."
fi

cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo
cmake --build build -j "$(nproc)"
echo
echo "built: $(pwd)/build/bin/grader"
echo "put it on your PATH:  export PATH=\"$(pwd)/build/bin:\$PATH\"   then run: grader list"
