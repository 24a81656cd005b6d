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
  libseccomp-dev                            # the syscall filter every candidate runs under
  slurmctld slurmd slurm-client             # grader batch --slurm, and its end-to-end test on localhost
)
# Root (CI, containers) runs apt-get itself; everyone else goes through sudo.
as_root=()
if [ "$(id -u)" -ne 0 ]; then as_root=(sudo); fi
"${as_root[@]}" apt-get update
DEBIAN_FRONTEND=noninteractive "${as_root[@]}" apt-get install -y --no-install-recommends "${packages[@]}"

cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo
cmake --build build -j "$(nproc)"
echo
echo "built: $(pwd)/build/bin/grader"
echo "put it on your PATH:  export PATH=\"$(pwd)/build/bin:\$PATH\"   then run: grader list"
