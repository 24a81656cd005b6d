#!/usr/bin/env bash
# device_selftest.sh: proves GPU labs on a machine with an NVIDIA GPU, in one command, logging everything.
#
#   bench/gpu/device_selftest.sh [options] LAB...        e.g.  bench/gpu/device_selftest.sh lab5 lab8
#
# For the labs named (lab5, lab5-gemv-warps, ...), in this order:
#   1. what the machine has: GPU, driver, nvcc, compute-sanitizer
#   2. grader calibrate (CPU and GPU ceilings; GPU labs need the GPU's)
#   3. --datasets: grader datasets generate LAB (runs the judge; the files come back in datasets.tar)
#   4. the standalone benchmark of each lab (bench/gpu/labN_*.cu; --explore adds its launch-shape search)
#   5. grader selftest LAB: the reference earns full marks, the skeleton no performance points
#   6. grader LAB --submission reference/LAB --hidden: the reference's full report, every item's figures
#   7. --sanitize-check: does compute-sanitizer pass the worker's protocol pipes (fds 3 and 4) through?
#   8. --attacks: the GPU end-to-end attack tests of tests/e2e/e2e.py for the labs named (lab5: a cached answer
#      and GPU work on a side stream; lab6, lab7: a cached answer), each of which must earn no points
# and last a summary (the lines that matter), so the end of the output is what to read.
#
# Options: --datasets --explore --sanitize-check --attacks --no-bench --no-reference --no-selftest
# Environment: OUT (where logs go; default /tmp/device-selftest), GRADER (the grader binary; default
# .carry/bin/grader, then grader on PATH), GRADER_CACHE (default /tmp/gcache), ARCH (default sm_90).
# With the device tool: build the grader here, copy it to .carry/bin/ and the shared libraries the GPU machine
# lacks to .carry/lib/ (from a Debian 12 build: libtomlplusplus.so.3, libarchive.so.13 and its libnettle,
# libacl, libxml2 and ICU 72, 38 MB in all; `ldd` says which) together with build/lib/*.a (the syscall filter
# every candidate is linked with, and libseccomp's static archive: the grader looks for them beside bin/), and run
#   bash bench/gpu/device_selftest.sh lab5 lab8        with carry [".carry"]
# About 5 minutes on an H100 for both labs (selftest lab8 2 min, lab5 1 min).
set -uo pipefail
cd "$(dirname "$0")/../.."
root=$PWD

datasets=0 explore=0 sanitize_check=0 attacks=0 bench=1 reference=1 selftest=1
labs=()
for arg in "$@"; do
  case "$arg" in
    --datasets) datasets=1 ;;
    --explore) explore=1 ;;
    --sanitize-check) sanitize_check=1 ;;
    --attacks) attacks=1 ;;
    --no-bench) bench=0 ;;
    --no-reference) reference=0 ;;
    --no-selftest) selftest=0 ;;
    -*) echo "unknown option $arg" >&2; exit 2 ;;
    *) labs+=("$arg") ;;
  esac
done
[ ${#labs[@]} -gt 0 ] || { echo "usage: $0 [options] LAB..." >&2; exit 2; }

OUT=${OUT:-/tmp/device-selftest}
mkdir -p "$OUT"
log=$OUT/device.log
summary=$OUT/summary.txt
: >"$log"
: >"$summary"
steps=/tmp/device-selftest-steps
rm -rf "$steps" && mkdir -p "$steps"
export GRADER_ROOT=$root GRADER_CACHE=${GRADER_CACHE:-/tmp/gcache}
export LD_LIBRARY_PATH=$root/.carry/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
GRADER=${GRADER:-$root/.carry/bin/grader}
[ -x "$GRADER" ] || GRADER=$(command -v grader || true)
[ -n "$GRADER" ] || { echo "no grader binary (.carry/bin/grader or on PATH)" >&2; exit 3; }
ARCH=${ARCH:-sm_90}
NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
# Workers link cuBLAS dynamically and get only LD_LIBRARY_PATH from the grader's environment.
export LD_LIBRARY_PATH=$LD_LIBRARY_PATH:$(dirname "$NVCC")/../lib64

# step NAME SECONDS COMMAND...: runs it under a time limit, output to the log, and notes how it ended.
step() {
  local name=$1 limit=$2
  shift 2
  local start=$SECONDS
  echo "=== $name: $*" | tee -a "$log"
  timeout "$limit" "$@" 2>&1 | tee "$steps/$name.log" >>"$log"  # streamed: a run cut short keeps its log
  local rc=${PIPESTATUS[0]}
  echo "=== $name: exit $rc after $((SECONDS - start)) s" | tee -a "$log"
  echo "$name: exit $rc after $((SECONDS - start)) s" >>"$summary"
  return $rc
}

full_name() {  # lab5 -> lab5-gemv-warps
  local match
  match=$(cd labs && ls -d "$1" "$1"-* 2>/dev/null | head -1)
  echo "${match:-$1}"
}

bench_source() {
  case "$1" in
    lab5-*) echo bench/gpu/lab5_gemv_bench.cu ;;
    lab8-*) echo bench/gpu/lab8_reduction_bench.cu ;;
  esac
}

step machine 60 bash -c 'nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv; "$0" --version | tail -1; command -v compute-sanitizer || ls /usr/local/cuda/bin/compute-sanitizer' "$NVCC"

# The benchmarks compile while the grader calibrates and builds the labs (CPU work beside GPU work).
declare -A bench_pid
if [ $bench = 1 ]; then
  mkdir -p /tmp/gpu-bench
  for lab in "${labs[@]}"; do
    name=$(full_name "$lab")
    src=$(bench_source "$name")
    [ -n "$src" ] || continue
    ( "$NVCC" -std=c++20 -O3 -arch="$ARCH" -I"labs/$name" -Igrader/labkit/include -Ibench/gpu "$src" -lcublas \
        -o "/tmp/gpu-bench/$name" >"/tmp/gpu-bench/$name.build.log" 2>&1 ) &
    bench_pid[$name]=$!
  done
fi

step calibrate 300 "$GRADER" calibrate
cp "$GRADER_CACHE"/calibration/*.json "$OUT/calibration.json" 2>/dev/null

if [ $datasets = 1 ]; then
  for lab in "${labs[@]}"; do step "datasets-$(full_name "$lab")" 300 "$GRADER" datasets generate "$(full_name "$lab")"; done
  tar -cf "$OUT/datasets.tar" $(for lab in "${labs[@]}"; do echo "datasets/$(full_name "$lab")"; done) 2>>"$log"
fi

if [ $bench = 1 ]; then
  for lab in "${labs[@]}"; do
    name=$(full_name "$lab")
    [ -n "${bench_pid[$name]:-}" ] || continue
    if wait "${bench_pid[$name]}"; then
      step "bench-$name" 300 "/tmp/gpu-bench/$name" $([ $explore = 1 ] && echo --explore)
    else
      echo "=== bench-$name: does not compile" | tee -a "$log" "$summary"
      cat "/tmp/gpu-bench/$name.build.log" >>"$log"
    fi
  done
fi

if [ $selftest = 1 ]; then
  for lab in "${labs[@]}"; do step "selftest-$(full_name "$lab")" 600 "$GRADER" selftest "$(full_name "$lab")"; done
fi

if [ $reference = 1 ]; then
  for lab in "${labs[@]}"; do
    name=$(full_name "$lab")
    step "reference-$name" 600 env NO_COLOR=1 "$GRADER" "$name" --submission "reference/$name" --hidden
  done
fi

if [ $sanitize_check = 1 ]; then
  # A judge under compute-sanitizer, talking the worker protocol on fds 3 and 4 as the grader would: if the
  # tool closes or keeps those fds, the replies never arrive.
  name=$(full_name "${labs[0]}")
  judge=$(ls -t "$GRADER_CACHE"/labs/"$name"-*/judge 2>/dev/null | head -1)
  sanitizer=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
  if [ -n "$judge" ]; then
    # setup + run make the sanitizer instrument real CUDA work; the parameters suit lab 5 and lab 8 alike.
    printf '%s\n' '{"op":"hello"}' '{"op":"setup","params":{"m":5,"n":1000,"block":256},"seed":1}' \
      '{"op":"run","variant":"baseline"}' '{"op":"quit"}' >/tmp/gpu-bench-commands
    step sanitize-fds 120 bash -c '"$0" --tool memcheck "$1" 3</tmp/gpu-bench-commands 4>/tmp/gpu-bench-replies; echo "replies on fd 4 (JSON lines; array bytes left out):"; strings -n 8 /tmp/gpu-bench-replies | grep "\"type\"" | cut -c1-300' "$sanitizer" "$judge"
    if grep -q '"bye"' /tmp/gpu-bench-replies; then
      echo "sanitize-fds: compute-sanitizer passes fds 3 and 4 through (hello and bye came back)" >>"$summary"
    else
      echo "sanitize-fds: NO reply came back through compute-sanitizer" >>"$summary"
    fi
  else
    echo "sanitize-fds: no judge binary of $name in $GRADER_CACHE to test with" >>"$summary"
  fi
fi

if [ $attacks = 1 ]; then
  for lab in "${labs[@]}"; do
    case "$(full_name "$lab")" in
      lab5-*) checks=("gpu-replays lab5" "lab5-side-stream timed") ;;
      lab6-*) checks=("gpu-replays lab6") ;;
      lab7-*) checks=("gpu-replays lab7") ;;
      *) checks=() ;;
    esac
    for check in "${checks[@]}"; do
      # shellcheck disable=SC2086  # the check's name and its argument are two words on purpose
      step "attack-${check// /-}" 600 python3 tests/e2e/e2e.py --grader "$GRADER" --root "$root" $check
    done
  done
fi

# The lines worth reading, last (the device tool returns the end of the output).
{
  echo
  echo "################ summary"
  cat "$summary"
  cat "$steps/calibrate.log" 2>/dev/null | grep -E '^(gpu|  device copy|  pinned)'
  for f in "$steps"/bench-*.log; do
    [ -f "$f" ] && grep -E ' on |gemv_best uses|cuBLAS dgemv  |reference gemv_best  |cub::DeviceReduce::Sum  |^  0[1-8] |WRONG' "$f"
  done
  for f in "$steps"/reference-*.log; do
    [ -f "$f" ] && { echo "--- $(basename "$f" .log)"; sed -n '/^performance/,$p' "$f"; }
  done
  for f in "$steps"/selftest-*.log; do [ -f "$f" ] && cat "$f"; done
  for f in "$steps"/attack-*.log; do [ -f "$f" ] && { echo "--- $(basename "$f" .log)"; tail -12 "$f"; }; done
} >"$OUT/summary.tmp"
mv "$OUT/summary.tmp" "$summary"
cat "$summary"
