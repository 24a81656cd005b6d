#!/usr/bin/env bash
# Sets up a fresh Debian or Ubuntu machine for the course labs: installs the distribution packages the
# grader builds against, configures and builds everything into build/. Safe to run again.
#   bash grader/setup.sh               course staff and CI: everything, the test suite's needs included
#   bash grader/setup.sh --student     a student's laptop: only what grading needs (no SLURM daemons, no
#                                      OpenBLAS for the benchmarks)
#   bash grader/setup.sh --no-install  configure and build only, with packages already there (no sudo)
#   bash grader/setup.sh --grader-only the grader alone, without the test suite (the Gradescope and PrairieLearn
#                                      images that `grader export` writes)
set -euo pipefail
cd "$(dirname "$0")/.."

profile=staff
install=1
targets=()
testing=ON
for arg in "$@"; do
  case "$arg" in
    --student) profile=student ;;
    --no-install) install=0 ;;
    --grader-only) targets=(--target grader); testing=OFF ;;
    *) echo "usage: bash grader/setup.sh [--student] [--no-install] [--grader-only]" >&2; exit 2 ;;
  esac
done

# What grading itself needs, on every machine.
packages=(
  g++ make cmake binutils pkg-config        # compilers and nm/readelf/objcopy for the link policy
  libcli11-dev libtomlplusplus-dev nlohmann-json3-dev doctest-dev libarchive-dev
  bubblewrap                                # the sandbox every grading runs in
  libseccomp-dev                            # the syscall filter every candidate runs under
)
# What course staff and CI add: the test suite, the benchmarks and batch grading through SLURM.
if [ "$profile" = staff ]; then
  packages+=(
    python3                                 # end-to-end test drivers
    libopenblas-dev                         # the professional CPU figures in benchmarks
    slurmctld slurmd slurm-client           # grader batch --slurm, and its end-to-end test on localhost
    chromium-headless-shell                 # the browser tests of the HTML reports (ctest -L browser)
    similarity-tester                       # sim_c++, the engine of `grader similarity` (docs/design.md says why)
  )
fi

# Each profile's reader has one guide, and the closing lines point there. A student's copy of the course
# (`grader release`) holds no TA guide, so it points to the student guide whichever profile ran.
if [ "$profile" = student ] || [ ! -f docs/ta-guide.md ]; then
  guide=docs/student-guide.md
  sandbox_section="Set up"
  next_step="grader lab1 --quick   (each lab's handout is labs/<lab>/README.md)"
else
  guide=docs/ta-guide.md
  sandbox_section="The sandbox"
  next_step="grader list   (docs/ta-guide.md grades a class, docs/instructor-guide.md writes labs)"
  if [ $testing = ON ]; then next_step="ctest --test-dir build -j 2   then: $next_step"; fi
fi

# Root (CI, containers) runs apt-get itself; everyone else goes through sudo.
if [ $install = 1 ]; then
  as_root=()
  if [ "$(id -u)" -ne 0 ]; then as_root=(sudo); fi
  "${as_root[@]}" apt-get update
  DEBIAN_FRONTEND=noninteractive "${as_root[@]}" apt-get install -y --no-install-recommends "${packages[@]}"
fi

# Every grading runs in a bubblewrap sandbox where the kernel lets an unprivileged user build one. Say so now,
# not at the first grading, where it cannot; the profile's guide says how to enable it.
if ! bwrap --ro-bind / / --unshare-all --new-session true 2>/dev/null; then
  echo "warning: bubblewrap is installed but cannot build a sandbox on this machine (unprivileged user"
  echo "         namespaces are off, or restricted by AppArmor as on Ubuntu 24.04): gradings will run without it."
  echo "         $guide, section \"$sandbox_section\", says how to enable it."
fi

cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=$testing
cmake --build build -j "$(nproc)" "${targets[@]}"
echo
echo "built: $(pwd)/build/bin/grader"
echo "put it on your PATH:  export PATH=\"$(pwd)/build/bin:\$PATH\"   then run: grader list"
echo "next: $next_step"
echo "your guide: $guide"
