#!/usr/bin/env bash
# speed_check.sh: how long a GPU lab's full grading takes, and where the seconds go (issue 35), on a machine with an
# NVIDIA GPU: main's grader and this branch's, on the same GPU, in the same run, interleaved.
#
#   bench/gpu/speed_check.sh [--budget SECONDS] [--rounds N] [--class] [LAB...]     (default: lab6 lab7 lab5 lab8)
#
# For each lab, its reference and its skeleton are graded in full (--hidden, JSON, one seed), warm (each lab's
# harness and judge are built first, for both graders at once, untimed), by main's grader and by this one in turn;
# bench/grading_seconds.py prints per grading the wall time, score and `stage_seconds`, and per timed item its
# calls and `measurement.seconds` (setup, rounds, checks, compare, bound, cross_check), then the medians and the
# ratio new/old. The GPU is calibrated once, by this grader, and main's gets a copy. --budget (default 390) is when
# no further grading starts, so the command ends within the device tool's 10 minutes; the labs come in the order
# given, the issue's first two first.
#
# --class, when more than one GPU is visible, then grades a class of lab5 submissions with --gpus 1 and --gpus N
# (every GPU) with this grader (bench/gpu/class_on_gpus.py) and prints the speedup. It takes about 5 more minutes;
# run it as a second command (with --class and no lab, it skips the gradings).
#
# The carry (built here; no GPU is needed to build):
#   .carry/bin/grader, .carry/lib/ (*.so the GPU machine lacks, and this build's build/lib/*.a)   this branch
#   .carry/old/bin/grader, .carry/old/lib/*.a                                                    main's grader
#   .carry/oldroot/                                                                               main's course tree
# e.g. with the device tool:  bash bench/gpu/speed_check.sh          with carry [".carry"]
# Environment: OUT (default /tmp/speed-check), OLD_GRADER, OLD_ROOT, GRADER (defaults: the carry above), NEW_ARGS
# (one option for this grader's gradings only, e.g. --no-counters), OLD_ARGS (one for main's: --no-counters too where
# main's grader has it); without an older grader only this one is graded.
set -uo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
budget=390 rounds=1 class=0
labs=()
while [ $# -gt 0 ]; do
  case "$1" in
    --budget) budget=$2; shift ;;
    --rounds) rounds=$2; shift ;;
    --class) class=1 ;;
    -*) echo "unknown option $1" >&2; exit 2 ;;
    *) labs+=("$1") ;;
  esac
  shift
done
[ ${#labs[@]} -gt 0 ] || [ $class = 1 ] || labs=(lab6 lab7 lab5 lab8)

OUT=${OUT:-/tmp/speed-check}
mkdir -p "$OUT"
export GRADER_ROOT=$root NO_COLOR=1
export LD_LIBRARY_PATH=$root/.carry/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
# Workers link cuBLAS dynamically and get only LD_LIBRARY_PATH from the grader's environment.
export LD_LIBRARY_PATH=$LD_LIBRARY_PATH:$(dirname "$NVCC")/../lib64
GRADER=${GRADER:-$root/.carry/bin/grader}
[ -x "$GRADER" ] || GRADER=$root/build/bin/grader
OLD_GRADER=${OLD_GRADER:-$root/.carry/old/bin/grader}
OLD_ROOT=${OLD_ROOT:-$root/.carry/oldroot}

nvidia-smi --query-gpu=index,name,driver_version,memory.total --format=csv,noheader || { echo "no GPU (nvidia-smi failed)"; exit 77; }
echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2-) x $(nproc)"
echo "new: $GRADER ($("$GRADER" --version 2>/dev/null | head -1))"

if [ ${#labs[@]} -gt 0 ]; then
  old=()
  if [ -x "$OLD_GRADER" ] && [ -d "$OLD_ROOT/labs" ]; then
    echo "old: $OLD_GRADER on $OLD_ROOT ($("$OLD_GRADER" --version 2>/dev/null | head -1))"
    old=(--old-grader "$OLD_GRADER" --old-root "$OLD_ROOT")
  else
    echo "old: none ($OLD_GRADER or $OLD_ROOT/labs missing): this grader only"
  fi
  python3 bench/grading_seconds.py --grader "$GRADER" "${old[@]}" --labs "${labs[@]}" --kinds reference skeleton \
    --rounds "$rounds" --parallel-warm --share-calibration --budget "$budget" --out "$OUT" --json "$OUT/seconds.json" \
    ${NEW_ARGS:+--new-arg=$NEW_ARGS} ${OLD_ARGS:+--old-arg=$OLD_ARGS}
fi

if [ $class = 1 ]; then
  gpus=$(nvidia-smi --query-gpu=index --format=csv,noheader | wc -l)
  if [ "$gpus" -lt 2 ]; then
    echo "class: one GPU visible, no class on GPUs"
  else
    python3 bench/gpu/class_on_gpus.py --grader "$GRADER" --out "$OUT/class" --run 1 --run "$gpus"
  fi
fi
