#!/usr/bin/env bash
# lab6_lab7_device.sh: proves labs 6 and 7 on a machine with an NVIDIA GPU, in one command, logging everything.
#
#   bash bench/gpu/lab6_lab7_device.sh [--selftest] [--no-bench] [--datasets] [--ncu]
#
# In this order, each step under its own time limit, its output in $OUT/lab67.log:
#   1. the machine (GPU, driver, nvcc)
#   2. the standalone benchmarks, bench/gpu/lab7_sgemm_bench.cu and lab6_streams_bench.cu (prebuilt binaries in
#      .carry/bin/ are used when present: building them takes minutes of nvcc)
#      --ncu: Nsight Compute's view (speed of light, warp stalls, scheduler) of the reference's sgemm_best at 4096
#   3. grader calibrate
#   4. --datasets: grader datasets generate for both labs (the files come back in $OUT/datasets67.tar)
#   5. the reference's and the skeleton's full reports (grader LAB --submission ... --hidden), or with --selftest
#      `grader selftest LAB` and the reference's report
#   6. grader lab7 on tests/submissions/lab7/calls_cublas (must be refused, naming cublasSgemm_v2)
# and last a summary of the lines that matter, so the end of the output is what to read.
#
# Environment: OUT (default /tmp/lab67), GRADER (default .carry/bin/grader67, then .carry/bin/grader), GRADER_CACHE
# (default /tmp/gcache). With the device tool: build the grader here, copy it as .carry/bin/grader67 and the libraries
# it needs into .carry/lib, and run with carry [".carry"].
set -uo pipefail
cd "$(dirname "$0")/../.."
root=$PWD

selftest=0 bench=1 datasets=0 ncu=0
for arg in "$@"; do
  case "$arg" in
    --selftest) selftest=1 ;;
    --no-bench) bench=0 ;;
    --datasets) datasets=1 ;;
    --ncu) ncu=1 ;;
    *) echo "unknown option $arg" >&2; exit 2 ;;
  esac
done

OUT=${OUT:-/tmp/lab67}
mkdir -p "$OUT"
log=$OUT/lab67.log
summary=$OUT/summary67.txt
: >"$log"
: >"$summary"
steps=/tmp/lab67-steps
rm -rf "$steps" && mkdir -p "$steps"
export GRADER_ROOT=$root GRADER_CACHE=${GRADER_CACHE:-/tmp/gcache}
NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
export LD_LIBRARY_PATH=$root/.carry/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}:$(dirname "$NVCC")/../lib64
GRADER=${GRADER:-$root/.carry/bin/grader67}
[ -x "$GRADER" ] || GRADER=$root/.carry/bin/grader
export NO_COLOR=1

step() {  # step NAME SECONDS COMMAND...
  local name=$1 limit=$2
  shift 2
  local start=$SECONDS
  echo "=== $name: $*" | tee -a "$log"
  timeout "$limit" "$@" >"$steps/$name.log" 2>&1
  local rc=$?
  cat "$steps/$name.log" >>"$log"
  echo "=== $name: exit $rc after $((SECONDS - start)) s" | tee -a "$log"
  echo "$name: exit $rc after $((SECONDS - start)) s" >>"$summary"
  return $rc
}

bench_binary() {  # bench_binary NAME SOURCE INCLUDE: a prebuilt binary, or one built now
  if [ -x ".carry/bin/$1" ]; then
    echo ".carry/bin/$1"
  else
    "$NVCC" -std=c++20 -O3 -arch=sm_90 -I"$3" -Igrader/labkit/include -Ibench/gpu "$2" -lcublas -o "/tmp/$1" >>"$log" 2>&1 &&
      echo "/tmp/$1"
  fi
}

step machine 60 bash -c 'nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv; "$0" --version | tail -1' "$NVCC"

if [ $bench = 1 ]; then
  b7=$(bench_binary lab7_bench bench/gpu/lab7_sgemm_bench.cu labs/lab7-tiled-gemm)
  [ -n "$b7" ] && step bench-lab7 240 "$b7"
  if [ $ncu = 1 ] && [ -n "$b7" ]; then
    ncu_bin=$(command -v ncu || ls /usr/local/cuda/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
    step ncu-lab7 120 "$ncu_bin" --kernel-name regex:pipelined_kernel --launch-skip 1 --launch-count 1 \
      --section SpeedOfLight --section WarpStateStats --section SchedulerStats --section ComputeWorkloadAnalysis \
      --section MemoryWorkloadAnalysis --section Occupancy "$b7" --only "04 best"
  fi
  b6=$(bench_binary lab6_bench bench/gpu/lab6_streams_bench.cu labs/lab6-streams)
  [ -n "$b6" ] && step bench-lab6 180 "$b6"
fi

step calibrate 240 "$GRADER" calibrate

if [ $datasets = 1 ]; then
  step datasets-lab6 120 "$GRADER" datasets generate lab6-streams
  step datasets-lab7 120 "$GRADER" datasets generate lab7-tiled-gemm
  tar -cf "$OUT/datasets67.tar" datasets/lab6-streams datasets/lab7-tiled-gemm 2>>"$log"
fi

for lab in lab7-tiled-gemm lab6-streams; do
  step "reference-$lab" 300 "$GRADER" "$lab" --submission "reference/$lab" --hidden
  if [ $selftest = 1 ]; then
    step "selftest-$lab" 500 "$GRADER" selftest "$lab"
  else
    step "skeleton-$lab" 300 "$GRADER" "$lab" --submission "skeletons/$lab" --hidden
  fi
done

step calls-cublas 120 "$GRADER" lab7-tiled-gemm --submission tests/submissions/lab7/calls_cublas

{
  echo
  echo "################ summary"
  cat "$summary"
  grep -E '^(gpu|  device copy|  pinned)' "$steps/calibrate.log" 2>/dev/null
  for f in "$steps"/bench-*.log; do [ -f "$f" ] && grep -E 'cuBLAS SGEMM|of cuBLAS|WRONG|GB/s|us$|transfer bound' "$f" | head -80; done
  for f in "$steps"/reference-*.log "$steps"/skeleton-*.log; do
    [ -f "$f" ] && { echo "--- $(basename "$f" .log)"; grep -E '^(total|  [^ ])' "$f" | grep -v '^  \[' | head -60; }
  done
  for f in "$steps"/selftest-*.log; do [ -f "$f" ] && cat "$f"; done
  [ -f "$steps/ncu-lab7.log" ] && { echo "--- ncu"; grep -E 'Throughput|Stall|Issued|Eligible|Active Warps|Occupancy|Bank|Registers' "$steps/ncu-lab7.log" | head -40; }
  [ -f "$steps/calls-cublas.log" ] && { echo "--- calls-cublas"; head -30 "$steps/calls-cublas.log"; }
} >"$OUT/summary.tmp"
mv "$OUT/summary.tmp" "$summary"
cat "$summary"
