#!/usr/bin/env bash
# four_gpu_round.sh: issue 35's GPU figures in one device command on a machine of four GPUs (nvidia-h100-x4 or
# nvidia-h200-x4), so that every figure of a before/after comparison comes from the same machine and the same call.
#
#   bash bench/gpu/four_gpu_round.sh [--labs "lab6 lab7 lab5 lab8"] [--no-class] [--no-counters-run] [--selftest]
#                                                                                  with carry [".carry"]
# Graders: NEW (default .carry/bin/grader, this branch) and, where carried, OLD (default .carry/main/bin/grader with
# its course tree .carry/mainroot: main's grader before this branch).
#
# Phase A, the four GPUs used one each, at once (the machine has 64 cores: the jobs do not share a core's worth):
#   GPU 0: the class of 16 lab5 submissions, `grader batch --gpus 1`, OLD's (bench/gpu/class_on_gpus.py --run 1);
#          then with --selftest, `grader selftest lab5` and lab 5's attack replays (tests/e2e/e2e.py) by NEW
#   GPU 1: the same class, `--gpus 1`, NEW's; then with --selftest, `grader selftest lab6`
#   GPU 2: each GPU lab's reference graded in full, warm, GPU calibrated, --no-counters, OLD and NEW interleaved
#          (bench/grading_seconds.py); then with --selftest, lab 6's and lab 7's attack replays by NEW
#   GPU 3: the same gradings with counters on (the default; --no-counters-run leaves them out); then with
#          --selftest, `grader selftest lab7 lab8` by NEW
# Phase B, every GPU: the class with `--gpus 4`, OLD's then NEW's, and each grader's speedup over its own --gpus 1;
# with --selftest, batch.gpus_real's check (tests/batch/gpus_e2e.py real) by NEW.
# Each class run's lab build is warmed first, so neither run pays for it inside its wall time. LABS_OLD=0 grades the
# labs with NEW only (a shorter command).
# Logs under $OUT (default /tmp/four-gpu-round); the summary lines last.
#
# What it costs, and what to trust (four H100s, 2026-11-28): without --selftest, about 6 minutes; with --selftest and
# LABS_OLD=0 --no-counters-run, phase A alone took 460 s, so phase B needs a second command (class_on_gpus.py --reuse
# --run 4 on the same warm machine). Phase A's figures are taken beside each other: the one-GPU class ran 186 s beside
# the lab gradings and 231 s beside them and the selftests, so a --gpus 1 figure is only comparable with one taken
# beside the same jobs, and the lab gradings' seconds are higher than on a quiet machine.
set -uo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
labs="lab6 lab7 lab5 lab8" class=1 counters_run=1 selftest=0
while [ $# -gt 0 ]; do
  case "$1" in
    --labs) labs=$2; shift ;;
    --no-class) class=0 ;;
    --no-counters-run) counters_run=0 ;;
    --selftest) selftest=1 ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
  shift
done
OUT=${OUT:-/tmp/four-gpu-round}
mkdir -p "$OUT"
export GRADER_ROOT=$root NO_COLOR=1
export LD_LIBRARY_PATH=$root/.carry/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
export LD_LIBRARY_PATH=$LD_LIBRARY_PATH:$(dirname "$NVCC")/../lib64  # workers link cuBLAS dynamically
NEW=${NEW:-$root/.carry/bin/grader}
OLD=${OLD:-$root/.carry/main/bin/grader}
OLD_ROOT=${OLD_ROOT:-$root/.carry/mainroot}
began=$SECONDS
nvidia-smi --query-gpu=index,name,memory.total --format=csv,noheader || { echo "no GPU"; exit 77; }
gpus=$(nvidia-smi --query-gpu=index --format=csv,noheader | wc -l)
echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2-) x $(nproc); $gpus GPU(s)"
have_old=0
[ -x "$OLD" ] && [ -d "$OLD_ROOT/labs" ] && have_old=1
sides="new"; [ $have_old = 1 ] && sides="old new"
echo "new: $NEW; old: $([ $have_old = 1 ] && echo "$OLD on $OLD_ROOT" || echo none)"

grader_of() { [ "$1" = old ] && echo "$OLD" || echo "$NEW"; }
root_of() { [ "$1" = old ] && echo "$OLD_ROOT" || echo "$root"; }

# One class, one calibration of every GPU and one cache for both graders (the calibration's format is the same on
# both sides); each grader's class script is its own tree's (it reads reference/ and skeletons/ from its ROOT).
class_run() {  # side gpus-visible runs...
  local side=$1 visible=$2; shift 2
  local r; r=$(root_of "$side")
  env ${visible:+CUDA_VISIBLE_DEVICES=$visible} GRADER_CACHE=$OUT/cache-class python3 "$r/bench/gpu/class_on_gpus.py" \
    --grader "$(grader_of "$side")" --out "$OUT/class-$side" --reuse "$@"
}

class_prepare() {  # every GPU calibrated and lab5 built by each grader, outside any timed run; the class made
  mkdir -p "$OUT/cache-class"
  GRADER_CACHE=$OUT/cache-class "$NEW" calibrate --gpus all >"$OUT/class-prepare.log" 2>&1
  echo "class-prepare: calibrated, exit $? after $((SECONDS - began)) s"
  for side in $sides; do
    local r; r=$(root_of "$side")
    [ "$side" = old ] && cp "$root/bench/gpu/class_on_gpus.py" "$r/bench/gpu/class_on_gpus.py"
    GRADER_CACHE=$OUT/cache-class "$(grader_of "$side")" --root "$r" grade lab5 --submission \
      "$r/reference/lab5-gemv-warps" --quick >>"$OUT/class-prepare.log" 2>&1
    python3 -c 'import sys; sys.path.insert(0, sys.argv[1]); import class_on_gpus as c; c.make_class(sys.argv[2], 16)' \
      "$r/bench/gpu" "$OUT/class-$side/class"
  done
  echo "class-prepare: lab5 built, classes made after $((SECONDS - began)) s"
}

labs_run() {  # gpu args...: one GPU lab after another, both graders interleaved
  local gpu=$1; shift
  local old=()
  [ $have_old = 1 ] && [ "${LABS_OLD:-1}" = 1 ] && old=(--old-grader "$OLD" --old-root "$OLD_ROOT")
  mkdir -p "$OUT/labs-gpu$gpu/cache-new"
  CUDA_VISIBLE_DEVICES=$gpu GRADER_CACHE=$OUT/labs-gpu$gpu/cache-new "$NEW" calibrate --gpus all >"$OUT/labs-gpu$gpu.calibrate.log" 2>&1
  # shellcheck disable=SC2086
  CUDA_VISIBLE_DEVICES=$gpu python3 bench/grading_seconds.py --grader "$NEW" "${old[@]}" --labs $labs --kinds reference \
    --rounds 1 --parallel-warm --share-calibration --out "$OUT/labs-gpu$gpu" --json "$OUT/labs-gpu$gpu.json" "$@"
}

selftest_run() {  # gpu labs...
  local gpu=$1; shift
  for lab in "$@"; do
    local start=$SECONDS
    CUDA_VISIBLE_DEVICES=$gpu GRADER_CACHE=$OUT/selftest-gpu$gpu "$NEW" selftest "$lab" >"$OUT/selftest-$lab.log" 2>&1
    echo "selftest $lab: exit $? after $((SECONDS - start)) s" | tee -a "$OUT/selftest-$lab.log"
  done
}

attacks_run() {  # gpu checks...: GPU attack replays of tests/e2e/e2e.py (device_selftest.sh --attacks), by NEW
  local gpu=$1 check start
  shift
  for check in "$@"; do
    start=$SECONDS
    # shellcheck disable=SC2086
    CUDA_VISIBLE_DEVICES=$gpu GRADER_CACHE=$OUT/attacks-gpu$gpu python3 tests/e2e/e2e.py --grader "$NEW" --root "$root" \
      $check >"$OUT/attack-${check// /-}.log" 2>&1
    echo "attack $check: exit $? after $((SECONDS - start)) s" | tee -a "$OUT/attack-${check// /-}.log"
  done
}

echo "== phase A (one GPU each)"
pids=()
[ $class = 1 ] && class_prepare
# GPU 0 and 1: each grader's class on one GPU (then, with --selftest, lab5's and lab6's selftest by NEW)
if [ $class = 1 ]; then
  if [ $have_old = 1 ]; then
    ( class_run old 0 --run 1 >"$OUT/class-old-1.log" 2>&1
      [ $selftest = 1 ] && selftest_run 0 lab5 && attacks_run 0 "gpu-replays lab5" "lab5-side-stream timed" ) & pids+=($!)
  fi
  ( class_run new 1 --run 1 >"$OUT/class-new-1.log" 2>&1; [ $selftest = 1 ] && selftest_run 1 lab6 ) & pids+=($!)
fi
# GPU 2: the labs without counters, both graders (then, with --selftest, the attack replays by NEW)
( labs_run 2 --new-arg=--no-counters >"$OUT/labs-nocounters.log" 2>&1
  [ $selftest = 1 ] && attacks_run 2 "gpu-replays lab6" "gpu-replays lab7" ) & pids+=($!)
# GPU 3: the labs with counters on (the default), then with --selftest lab7's and lab8's selftest by NEW
if [ $counters_run = 1 ] || [ $selftest = 1 ]; then
  ( [ $counters_run = 1 ] && labs_run 3 --new-arg=--submission-label=counters >"$OUT/labs-counters.log" 2>&1
    [ $selftest = 1 ] && selftest_run 3 lab7 lab8 ) & pids+=($!)
fi
for pid in "${pids[@]}"; do wait "$pid"; done
echo "phase A done after $((SECONDS - began)) s"

if [ $class = 1 ]; then
  echo "== phase B (every GPU)"
  for side in $sides; do
    class_run "$side" "" --run "$gpus" >"$OUT/class-$side-$gpus.log" 2>&1
    echo "class $side: exit $? after $((SECONDS - began)) s"
  done
fi

if [ $selftest = 1 ]; then  # batch.gpus_real's check (tests/batch/gpus_e2e.py real) on every GPU, by NEW
  start=$SECONDS
  mkdir -p "$OUT/gpus-real"
  GRADER_CACHE=$OUT/cache-class python3 tests/batch/gpus_e2e.py --grader "$NEW" --root "$root" --work "$OUT/gpus-real" real \
    >"$OUT/gpus-real.log" 2>&1
  echo "gpus_e2e.py real: exit $? after $((SECONDS - start)) s" | tee -a "$OUT/gpus-real.log"
fi

echo
echo "################ summary ($((SECONDS - began)) s)"
for f in "$OUT"/class-*-"$gpus".log; do [ -f "$f" ] && { echo "--- $(basename "$f")"; grep -E '^(--gpus|PASS|FAIL|  s[0-9])' "$f"; }; done
for f in "$OUT"/labs-nocounters.log "$OUT"/labs-counters.log; do
  [ -f "$f" ] && { echo "--- $(basename "$f")"; sed -n '/^median seconds/,$p' "$f"; }
done
for f in "$OUT"/selftest-*.log; do [ -f "$f" ] && { echo "--- $(basename "$f")"; tail -4 "$f"; }; done
for f in "$OUT"/gpus-real.log "$OUT"/attack-*.log; do [ -f "$f" ] && { echo "--- $(basename "$f")"; tail -3 "$f"; }; done
