#!/usr/bin/env bash
# cpu16_throughput.sh: a small class of each CPU lab graded on this machine, with the timing mode the batch chooses
# (batch/timing_plan.h) and, for comparison in the same run, with --one-at-a-time (issue 35). Made for the GPU
# machine's 16 cores (Ubuntu 24.04, no toml++, libarchive or bubblewrap there), in one device call of under 8 minutes.
#
#   bench/cpu16_throughput.sh [--students N] [--budget SECONDS] [LAB...]      default: 6 students, 420 s, lab1 lab2 lab4 lab3
#
# Steps: what the machine is; `grader calibrate` (the roofline) and `grader calibrate --interference` (what may run
# beside a timing, printed); then per lab, a class of N (copies of the reference, the mid-tier submission where
# bench/mid_tier/ has one, and the skeleton, in turn) graded warm with `grader batch --jobs <CPUs>`, first as the
# batch chooses, then --one-at-a-time (lab 3 only once: it times on every thread, always one at a time). Each line
# gives the wall time, students per minute and the pace for 100 students. No batch starts after --budget seconds
# (its lab then says "skipped") and none runs past it by more than 40 s (cut short, it counts the students stored by
# then), so one call fits the device's limit whatever the lab's pace.
#
# With the device tool, carry the grader as for bench/gpu/device_selftest.sh (.carry/bin/grader, .carry/lib/ with
# the libraries the machine lacks and build/lib/*.a; see that script's header), then
#   bash bench/cpu16_throughput.sh                       with carry [".carry"], timeout_s 480
# Environment: OUT (default /tmp/cpu16-throughput), GRADER (default .carry/bin/grader, then build/bin/grader),
# GRADER_CACHE (default $OUT/cache).
set -uo pipefail
cd "$(dirname "$0")/.."
root=$PWD

students=6 budget=420
labs=()
while [ $# -gt 0 ]; do
  case "$1" in
    --students) students=$2; shift ;;
    --budget) budget=$2; shift ;;
    -*) echo "unknown option $1" >&2; exit 2 ;;
    *) labs+=("$1") ;;
  esac
  shift
done
[ ${#labs[@]} -gt 0 ] || labs=(lab1 lab2 lab4 lab3)

OUT=${OUT:-/tmp/cpu16-throughput}
rm -rf "$OUT" && mkdir -p "$OUT"
export GRADER_ROOT=$root GRADER_CACHE=${GRADER_CACHE:-$OUT/cache} NO_COLOR=1
export LD_LIBRARY_PATH=$root/.carry/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
GRADER=${GRADER:-$root/.carry/bin/grader}
[ -x "$GRADER" ] || GRADER=$root/build/bin/grader
[ -x "$GRADER" ] || { echo "no grader binary (.carry/bin/grader or build/bin/grader)" >&2; exit 3; }
cpus=$(nproc)
summary=$OUT/summary.txt
: >"$summary"

echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//') x $cpus; load $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$summary"
start=$SECONDS
"$GRADER" calibrate >"$OUT/calibrate.log" 2>&1 || { echo "grader calibrate failed:"; tail -20 "$OUT/calibrate.log"; }
grep -E "memory|FP64|rounds" "$OUT/calibrate.log" | tee -a "$summary"
"$GRADER" calibrate --interference 2>&1 | tee -a "$summary"
echo "calibrations: $((SECONDS - start)) s" | tee -a "$summary"

full_name() {  # lab1 -> lab1-matvec
  local match
  match=$(ls -d "labs/$1"* 2>/dev/null | head -1)
  basename "${match:-$1}"
}

make_class() {  # make_class LAB FOLDER
  local lab=$1 folder=$2 sources=() i kind
  rm -rf "$folder" && mkdir -p "$folder"
  for kind in reference/$lab bench/mid_tier/$lab skeletons/$lab; do
    [ -d "$kind" ] && sources+=("$kind")
  done
  for ((i = 0; i < students; i++)); do
    kind=${sources[$((i % ${#sources[@]}))]}
    cp -r "$kind" "$folder/$(printf 's%03d' "$i")-$(basename "$(dirname "$kind")" | sed 's/mid_tier/mid/;s/reference/ref/;s/skeletons/skel/')"
  done
}

# grade LAB MODE EXTRA...: one timed batch of the class, its line in the summary.
grade() {
  local lab=$1 mode=$2
  shift 2
  local out=$OUT/$lab-$mode
  if [ $((SECONDS - start)) -ge "$budget" ]; then
    echo "$lab $mode: skipped (the budget of $budget s is spent)" | tee -a "$summary"
    return
  fi
  local t0=$SECONDS
  # Cut short at the budget and 40 s more: the students stored by then are counted (exit 124).
  timeout $((budget + 40 - (SECONDS - start))) \
    "$GRADER" batch "$lab" "$OUT/class-$lab" --out "$out" --jobs "$cpus" --seed 35016 --no-bundles "$@" >"$out.log" 2>&1
  local rc=$? seconds=$((SECONDS - t0))
  local graded
  graded=$(find "$out" -maxdepth 1 -name '*.json' ! -name '.*' 2>/dev/null | wc -l)
  grep '^timing: ' "$out.log" | cut -c1-400 | sed "s/^/  $lab $mode: /" | tee -a "$summary"
  awk -v l="$lab" -v m="$mode" -v g="$graded" -v n="$students" -v s="$seconds" -v rc="$rc" 'BEGIN {
    printf "%s %-14s %d of %d graded in %d s (exit %d): %.1f students/min, 100 students in ~%.1f min\n",
           l, m, g, n, s, rc, s ? 60 * g / s : 0, g ? 100 * s / g / 60 : 0 }' | tee -a "$summary"
  if [ -f "$out/grades.csv" ]; then cut -d, -f1-3 "$out/grades.csv" | tail -n +2 | tr '\n' ' ' | sed "s/^/  scores: /" >>"$summary"; echo >>"$summary"; fi
}

for lab in "${labs[@]}"; do
  if [ $((SECONDS - start)) -ge "$budget" ]; then
    echo "$lab: skipped (the budget of $budget s is spent)" | tee -a "$summary"
    continue
  fi
  name=$(full_name "$lab")
  make_class "$name" "$OUT/class-$lab"
  # Warm: the lab's own build, outside the clock.
  "$GRADER" grade "$lab" --submission "reference/$name" --quick >"$OUT/$lab-warm.log" 2>&1
  grade "$lab" chosen
  if grep -q "timing: one at a time" "$OUT/$lab-chosen.log" 2>/dev/null; then
    echo "$lab one-at-a-time: the same as chosen (the batch chose one at a time)" | tee -a "$summary"
  else
    grade "$lab" one-at-a-time --one-at-a-time
  fi
done
echo "total: $((SECONDS - start)) s" | tee -a "$summary"
echo
echo "=== summary ($summary)"
cat "$summary"
