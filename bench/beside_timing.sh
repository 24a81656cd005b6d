#!/usr/bin/env bash
# beside_timing.sh: does a class's other work, on other cores, disturb the one student being timed? (issue 35)
#
#   bench/beside_timing.sh [--rounds N]
#
# A batch times one student at a time and, on main, runs nothing of the class beside that timing
# (pipeline/timing_gate.h): another student's compile or correctness run on the next core shares the memory bus,
# the last-level cache and the turbo budget, which no busy check sees. Running that work beside the timing, on cores
# the timing does not use, is only fair where it does not slow the timed code; this measures it, on this machine:
#   1. lab 1's matvec (bench/lab1_matvec_bandwidth.cpp: memory-bound, the most sensitive kind of timing) pinned to
#      CPU 0, the rest of the machine idle;
#   2. the same with compiles on every other CPU (g++ -O2 of lab 4's reference and harness, in a loop: a student's
#      build);
#   3. the same with correctness-like work on every other CPU (the lab 1 bench itself, unpinned to CPU 0: streaming
#      a matrix far larger than the caches, as lab 1's and lab 4's correctness cases and judges do).
# Prints each figure (GB/s of the reference's matvec, and of a STREAM triad) and the slowdown against (1). A slowdown
# under the timing's own noise (about 2%) would let that kind of work share the machine with a timing, on disjoint
# cores; anything more says: one at a time. Needs OpenBLAS (the bench's dgemv row) and taskset.
# The grader's own form of this measurement, which `grader batch` reads to choose how timings share the cores, is
# `grader calibrate --interference` (calibrate/interference.h, batch/timing_plan.h); this script keeps lab 1's own
# kernel as the timed program, to check that probe against the real thing.
# Environment: OUT (default /tmp/beside-timing).
set -uo pipefail
cd "$(dirname "$0")/.."
root=$PWD
rounds=3
while [ $# -gt 0 ]; do
  case "$1" in
    --rounds) rounds=$2; shift ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
  shift
done
OUT=${OUT:-/tmp/beside-timing}
mkdir -p "$OUT"
cpus=$(nproc)
[ "$cpus" -ge 2 ] || { echo "SKIP: one CPU, nothing can run beside a timing"; exit 77; }
others="1-$((cpus - 1))"
echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2-) x $cpus; timed on CPU 0, load on CPUs $others"

g++ -O2 -march=native -Ilabs/lab1-matvec bench/lab1_matvec_bandwidth.cpp reference/lab1-matvec/matvec.cpp -lopenblas \
  -o "$OUT/matvec_bench" || { echo "the bench does not build (OpenBLAS missing?)"; exit 3; }

# timed LABEL: the bench on CPU 0; prints the reference's and the triad's GB/s.
timed() {
  taskset -c 0 "$OUT/matvec_bench" >"$OUT/$1.txt" 2>&1
  local reference triad
  reference=$(awk '/^reference/ { print $(NF-1) }' "$OUT/$1.txt" | head -1)
  triad=$(awk '/^triad/ { print $(NF-1) }' "$OUT/$1.txt" | head -1)
  echo "$reference $triad"
}

compile_loop() {  # a student's build, again and again
  while :; do
    g++ -O2 -std=c++17 -Ilabs/lab4-blocking -c reference/lab4-blocking/blocking.cpp -o "$OUT/load-$1.o" 2>/dev/null
  done
}

stream_loop() {  # correctness-like work: streaming a matrix far beyond the caches
  while :; do "$OUT/matvec_bench" >/dev/null 2>&1; done
}

# with LOOP LABEL: the load on every other CPU while the bench runs on CPU 0.
with() {
  local loop=$1 label=$2 pids=() cpu
  for cpu in $(seq 1 $((cpus - 1))); do
    # A process group of its own (setsid), so the loop and whatever it started end together, by that group's id.
    taskset -c "$cpu" setsid bash -c "$(declare -f "$loop"); cd '$root'; OUT='$OUT' $loop $cpu" &
    pids+=($!)
  done
  sleep 2  # the load under way
  timed "$label"
  for pid in "${pids[@]}"; do kill -- "-$pid" 2>/dev/null; done
  wait 2>/dev/null
}

declare -A reference triad
for round in $(seq 1 "$rounds"); do
  for kind in alone compiles streaming; do
    case $kind in
      alone) figures=$(timed "alone-$round") ;;
      compiles) figures=$(with compile_loop "compiles-$round") ;;
      streaming) figures=$(with stream_loop "streaming-$round") ;;
    esac
    read -r r t <<<"$figures"
    reference[$kind]="${reference[$kind]:-} $r"
    triad[$kind]="${triad[$kind]:-} $t"
    echo "round $round, $kind: reference matvec $r GB/s, triad $t GB/s"
  done
done

median() { tr ' ' '\n' | grep -v '^$' | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
alone_r=$(echo "${reference[alone]}" | median)
alone_t=$(echo "${triad[alone]}" | median)
echo
echo "medians over $rounds round(s), CPU 0 timed:"
for kind in alone compiles streaming; do
  r=$(echo "${reference[$kind]}" | median)
  t=$(echo "${triad[$kind]}" | median)
  awk -v k="$kind" -v r="$r" -v t="$t" -v ar="$alone_r" -v at="$alone_t" 'BEGIN {
    printf "  %-10s reference matvec %7.2f GB/s (%+5.1f%%)   triad %7.2f GB/s (%+5.1f%%)\n", k, r, 100 * (r / ar - 1), t, 100 * (t / at - 1) }'
done
