#!/usr/bin/env bash
# fast_gpu_check.sh: issue 35's "GPU gradings under 15 s", in one device command of under 9 minutes: each GPU lab's
# reference graded in full (--hidden, --no-counters, warm, the GPU calibrated beforehand, as a TA's second grading
# finds it) by this branch's grader, and by main's where it is carried, interleaved, with per grading its wall time,
# score and `stage_seconds`, and per timed item its calls and `measurement.seconds` (setup, rounds, checks, compare,
# bound, cross_check), then the medians and the ratio new/old (bench/grading_seconds.py). Before that, two figures that
# need no grading:
#   - fill: what drawing lab 8's 2^28 floats and lab 6's 1 GiB A costs a worker's setup(), one uniform() call per
#     element (the old labkit::Rng::fill) against the threaded fill now (bench/gpu/input_fill_bench.cpp), same bits;
#   - nvidia-smi: the seconds of one ECC query, which `grader batch --gpus` makes three times per student while it
#     holds the student's GPU (batch/gpu_batch.cpp).
#
#   bash bench/gpu/fast_gpu_check.sh [--kinds "reference skeleton"] [--budget SECONDS] [LAB...]
#                                                        (default: reference; 330 s; lab6 lab7 lab8 lab5)
#
# The carry is speed_check.sh's (.carry/bin/grader and .carry/lib/ for this branch; .carry/old/ and .carry/oldroot/
# for main's, optional): with the device tool, command "bash bench/gpu/fast_gpu_check.sh", carry [".carry"].
# --budget is when no further grading starts (warm builds and calibration come first, about 2 minutes).
set -uo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
budget=330 kinds="reference"
labs=()
while [ $# -gt 0 ]; do
  case "$1" in
    --budget) budget=$2; shift ;;
    --kinds) kinds=$2; shift ;;
    -*) echo "unknown option $1" >&2; exit 2 ;;
    *) labs+=("$1") ;;
  esac
  shift
done
[ ${#labs[@]} -gt 0 ] || labs=(lab6 lab7 lab8 lab5)

OUT=${OUT:-/tmp/fast-gpu-check}
rm -rf "$OUT" && mkdir -p "$OUT"
export GRADER_ROOT=$root NO_COLOR=1
export LD_LIBRARY_PATH=$root/.carry/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
export LD_LIBRARY_PATH=$LD_LIBRARY_PATH:$(dirname "$NVCC")/../lib64  # workers link cuBLAS dynamically
GRADER=${GRADER:-$root/.carry/bin/grader}
[ -x "$GRADER" ] || GRADER=$root/build/bin/grader
OLD_GRADER=${OLD_GRADER:-$root/.carry/old/bin/grader}
OLD_ROOT=${OLD_ROOT:-$root/.carry/oldroot}
began=$SECONDS

nvidia-smi --query-gpu=index,name,driver_version,memory.total,persistence_mode --format=csv,noheader ||
  { echo "no GPU (nvidia-smi failed)"; exit 77; }
echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2-) x $(nproc)"
echo "new: $GRADER ($("$GRADER" --version 2>/dev/null | head -1))"

echo "== fill (no GPU)"
if g++ -std=c++17 -O2 -pthread -Igrader/labkit/include bench/gpu/input_fill_bench.cpp grader/labkit/src/rng.cpp \
     -o "$OUT/input_fill_bench"; then
  "$OUT/input_fill_bench" || echo "fill: FAILED (exit $?)"
else
  echo "fill: could not build bench/gpu/input_fill_bench.cpp"
fi

echo "== nvidia-smi"
uuid=$(nvidia-smi --query-gpu=uuid --format=csv,noheader | head -1)
for i in 1 2 3; do
  t0=$EPOCHREALTIME
  nvidia-smi -i "$uuid" --query-gpu=ecc.errors.uncorrected.volatile.total --format=csv,noheader,nounits >/dev/null
  awk -v a="$t0" -v b="$EPOCHREALTIME" -v i="$i" 'BEGIN { printf "nvidia-smi ECC query %d: %.2f s\n", i, b - a }'
done
# Four at once, as four gradings of a --gpus 4 batch may ask: do they wait for each other?
t0=$EPOCHREALTIME
for i in 1 2 3 4; do
  nvidia-smi -i "$uuid" --query-gpu=ecc.errors.uncorrected.volatile.total --format=csv,noheader,nounits >/dev/null &
done
wait
awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "nvidia-smi ECC query, 4 at once: %.2f s in all\n", b - a }'

echo "== gradings ($kinds; $GRADER ${NEW_ARGS:---no-counters})"
# The GPU's own calibration (by UUID) first, into the cache grading_seconds.py gives this grader: otherwise the first
# grading of a roofline lab (lab 5) measures it inside its own wall time (6.5 s on an H100).
mkdir -p "$OUT/cache-new"
t0=$SECONDS
GRADER_CACHE=$OUT/cache-new "$GRADER" calibrate --gpus all >"$OUT/calibrate-gpus.log" 2>&1
rc=$?
echo "per-GPU calibration: $((SECONDS - t0)) s (exit $rc)"; tail -3 "$OUT/calibrate-gpus.log"
old=()
if [ -x "$OLD_GRADER" ] && [ -d "$OLD_ROOT/labs" ]; then
  echo "old: $OLD_GRADER on $OLD_ROOT ($("$OLD_GRADER" --version 2>/dev/null | head -1))"
  old=(--old-grader "$OLD_GRADER" --old-root "$OLD_ROOT")
else
  echo "old: none ($OLD_GRADER or $OLD_ROOT/labs missing): this grader only"
fi
# shellcheck disable=SC2086  # $kinds is a list of words
python3 bench/grading_seconds.py --grader "$GRADER" "${old[@]}" --labs "${labs[@]}" --kinds $kinds --rounds 1 \
  --parallel-warm --share-calibration --budget "$((budget - (SECONDS - began)))" --out "$OUT" \
  --json "$OUT/seconds.json" --new-arg="${NEW_ARGS:---no-counters}"
echo "fast_gpu_check: $((SECONDS - began)) s in all"
