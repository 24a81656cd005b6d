#!/usr/bin/env bash
# compare_graders.sh: what a change to the grader costs, measured the only fair way: an older grader (with the
# course tree of its own commit) and this one, on the same machine, in the same run, interleaved.
#
#   bench/compare_graders.sh [--rounds N] [--attack LAB=SUBMISSION]... OLD_GRADER OLD_ROOT LAB...
#
# For each lab and round: the lab's reference graded in full (--hidden, JSON) by the old grader on OLD_ROOT, then
# by this one on this tree, each warm (a --quick grading of the lab first, untimed, so the lab's one-time build of
# its harness and judge is left out) and each with a calibration cache of its own, calibrated before anything is
# timed. Prints the wall time and score of each grading, then the medians. --attack grades SUBMISSION (a folder
# of this tree, e.g. tests/submissions/lab5/replays_cached_answer) with both graders and prints both reports'
# scores: what an attack earned before a defence and after it.
# Environment: OUT (logs and reports; default /tmp/compare-graders), GRADER (default .carry/bin/grader, then
# build/bin/grader), LD_LIBRARY_PATH as the graders need it (.carry/lib is added).
# Example, issue 16's "before" (644abb5^, the last commit without fresh inputs and the syscall filter):
#   git worktree add /tmp/old 644abb5^ && (build it) ... bench/compare_graders.sh /tmp/old/build/bin/grader /tmp/old lab1
set -uo pipefail
cd "$(dirname "$0")/.."
root=$PWD
rounds=1
attacks=()
while [ $# -gt 0 ]; do
  case "$1" in
    --rounds) rounds=$2; shift ;;
    --attack) attacks+=("$2"); shift ;;
    -*) echo "unknown option $1" >&2; exit 2 ;;
    *) break ;;
  esac
  shift
done
[ $# -ge 2 ] || { sed -n 4,5p "$0" >&2; exit 2; }
old_grader=$(realpath "$1") old_root=$(realpath "$2")
shift 2
labs=("$@")
OUT=${OUT:-/tmp/compare-graders}
mkdir -p "$OUT"
export NO_COLOR=1
export LD_LIBRARY_PATH=$root/.carry/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
if command -v nvcc >/dev/null || [ -x /usr/local/cuda/bin/nvcc ]; then
  export LD_LIBRARY_PATH=$LD_LIBRARY_PATH:/usr/local/cuda/lib64
fi
GRADER=${GRADER:-$root/.carry/bin/grader}
[ -x "$GRADER" ] || GRADER=$root/build/bin/grader
new_grader=$(realpath "$GRADER")

# side NAME: the grader, root and cache of one side.
side() {
  case "$1" in
    old) echo "$old_grader" "$old_root" "$OUT/cache-old" ;;
    new) echo "$new_grader" "$root" "$OUT/cache-new" ;;
  esac
}
since() { awk -v a="$1" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }'; }
full_name() { (cd "$root/labs" && ls -d "$1" "$1"-* 2>/dev/null | head -1); }
score_of() { python3 -c 'import json,sys
try:
    r = json.load(open(sys.argv[1])); print("%.1f/%g" % (r["score"], r["max_score"]))
except Exception as e:
    print("no report (%s)" % e)' "$1"; }

for s in old new; do
  read -r grader tree cache <<<"$(side $s)"
  mkdir -p "$cache"
  start=$EPOCHREALTIME
  GRADER_ROOT=$tree GRADER_CACHE=$cache "$grader" calibrate >"$OUT/calibrate-$s.log" 2>&1
  echo "$s: calibrated in $(since "$start") s"
done

results=$OUT/times.txt
: >"$results"
for lab in "${labs[@]}"; do
  name=$(full_name "$lab")
  for s in old new; do
    read -r grader tree cache <<<"$(side $s)"
    GRADER_ROOT=$tree GRADER_CACHE=$cache "$grader" "$name" --submission "$tree/reference/$name" --quick >/dev/null 2>&1
  done
  for round in $(seq 1 "$rounds"); do
    for s in old new; do
      read -r grader tree cache <<<"$(side $s)"
      report=$OUT/$name-$s-$round.json
      start=$EPOCHREALTIME
      GRADER_ROOT=$tree GRADER_CACHE=$cache "$grader" "$name" --submission "$tree/reference/$name" --hidden \
        --format json -o "$report" 2>"$OUT/$name-$s-$round.stderr"
      seconds=$(since "$start")
      echo "$name $s $seconds" >>"$results"
      echo "$name round $round $s: $seconds s, $(score_of "$report")"
    done
  done
done

python3 - "$results" <<'PY'
import statistics, sys
times = {}
for line in open(sys.argv[1]):
    lab, side, seconds = line.split()
    times.setdefault(lab, {}).setdefault(side, []).append(float(seconds))
for lab, sides in times.items():
    old, new = statistics.median(sides["old"]), statistics.median(sides["new"])
    print("%-18s old %7.1f s   new %7.1f s   new/old %.2f   (medians of %d)" % (lab, old, new, new / old, len(sides["new"])))
PY

for attack in "${attacks[@]}"; do
  lab=${attack%%=*} submission=$(realpath "${attack#*=}")
  name=$(full_name "$lab")
  for s in old new; do
    read -r grader tree cache <<<"$(side $s)"
    report=$OUT/attack-$(basename "$submission")-$name-$s.json
    GRADER_ROOT=$tree GRADER_CACHE=$cache "$grader" "$name" --submission "$submission" --hidden --format json \
      -o "$report" 2>"$report.stderr"
    echo "attack $name $(basename "$submission") $s: $(score_of "$report")"
  done
done
