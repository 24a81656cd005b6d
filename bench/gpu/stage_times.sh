#!/usr/bin/env bash
# stage_times.sh: where the time of GPU gradings goes, on a machine with an NVIDIA GPU (issue 13).
#
#   bench/gpu/stage_times.sh [--calibrate N] [--warm] [--selftest] LAB...
#
# --calibrate N runs `grader calibrate` N times first and keeps each calibration's GPU lines (how stable the
# ceilings are). For each lab, a full grading of its reference (--hidden, JSON): the wall time and the grader's
# own stage_seconds (build, correctness, expected outputs, timing, ...). --warm builds the lab first (a --quick
# grading, not timed), so the figure is a grading's as a class sees it after its first student, without the
# lab's one-time build of its harness and judge. --selftest also runs `grader selftest
# LAB` and gives its wall time and verdict. Logs and reports go under OUT (default /tmp/stage-times).
# Same environment as device_selftest.sh: GRADER (default .carry/bin/grader), GRADER_CACHE, .carry/lib.
set -uo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
calibrations=0 selftest=0 warm=0
labs=()
while [ $# -gt 0 ]; do
  case "$1" in
    --calibrate) calibrations=$2; shift ;;
    --selftest) selftest=1 ;;
    --warm) warm=1 ;;
    -*) echo "unknown option $1" >&2; exit 2 ;;
    *) labs+=("$1") ;;
  esac
  shift
done
OUT=${OUT:-/tmp/stage-times}
mkdir -p "$OUT"
export GRADER_ROOT=$root GRADER_CACHE=${GRADER_CACHE:-/tmp/gcache} NO_COLOR=1
export LD_LIBRARY_PATH=$root/.carry/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
export LD_LIBRARY_PATH=$LD_LIBRARY_PATH:$(dirname "$NVCC")/../lib64
GRADER=${GRADER:-$root/.carry/bin/grader}
[ -x "$GRADER" ] || GRADER=$(command -v grader)

nvidia-smi --query-gpu=index,name,uuid,driver_version --format=csv,noheader
since() { awk -v a="$1" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }'; }
for i in $(seq 1 "$calibrations"); do
  start=$EPOCHREALTIME
  "$GRADER" calibrate >"$OUT/calibrate-$i.log" 2>&1
  echo "calibration $i ($(since "$start") s):"
  grep -E '^(gpu|  )' "$OUT/calibrate-$i.log" | sed 's/^/  /'
done

full_name() { (cd labs && ls -d "$1" "$1"-* 2>/dev/null | head -1); }
for lab in "${labs[@]}"; do
  name=$(full_name "$lab")
  [ $warm = 1 ] && "$GRADER" "$name" --submission "reference/$name" --quick >/dev/null 2>&1
  start=$EPOCHREALTIME
  "$GRADER" "$name" --submission "reference/$name" --hidden --format json -o "$OUT/$name.json" 2>"$OUT/$name.stderr"
  rc=$?
  seconds=$(since "$start")
  python3 - "$OUT/$name.json" "$name" "$rc" "$seconds" <<'PY'
import json, sys
path, name, rc, seconds = sys.argv[1:]
try:
    report = json.load(open(path))
except (OSError, ValueError) as e:
    print("%s: exit %s after %.1f s, no report (%s)" % (name, rc, float(seconds), e)); sys.exit()
stages = ", ".join("%s %.1f" % (s["stage"], s["seconds"]) for s in report.get("stage_seconds", []))
print("%s: exit %s, %.1f s wall, score %.1f/%g; stages: %s" % (name, rc, float(seconds), report["score"], report["max_score"], stages or "(not reported)"))
for test in report["tests"]:
    if test.get("kind") == "performance":
        print("  %-44s %5.1f/%-4g %s" % (test["name"][:44], test.get("score", 0), test.get("max_score", 0), test.get("status", "")))
PY
  if [ $selftest = 1 ]; then
    start=$EPOCHREALTIME
    "$GRADER" selftest "$name" >"$OUT/selftest-$name.log" 2>&1
    rc=$?
    echo "selftest $name: exit $rc after $(since "$start") s"
    tail -4 "$OUT/selftest-$name.log" | sed 's/^/  /'
  fi
done
