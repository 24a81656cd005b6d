#!/usr/bin/env bash
# counters_check.sh: the GPU half of issue 33 ("Look inside") on a machine with a GPU, in one command.
#
#   bash bench/gpu/counters_check.sh            (GRADER, GRADER_CACHE, OUT as in device_selftest.sh)
#
# Prints: the ncu the grader finds and its version, whether the driver lets non-administrators profile, whether the
# FP64 pipe's metric answers on this chip; then, for labs 5 to 8, the counters of one timed item of the reference and
# of the skeleton as the grader's report has them (graded with --only ITEM --format json, counters on, as a
# student's grading has them), and the seconds the profiled call added to each grading (stage_seconds' "counters"),
# with the lab's count of timed measurements, so a whole grading's extra time is that many times it. Last,
# tests/gpu/grading_counters.py (the ctest `gpu.grading_counters`), whose checks must all say ok.
# About 5 minutes on an H100 or H200: the four labs build (and the machine calibrates) at once, then eight gradings
# of one item each, then the test's three.
# With the device tool, as device_selftest.sh: build the grader here, copy it to .carry/bin/ with the shared
# libraries the GPU machine lacks in .carry/lib/ and build/lib/*.a beside, and run
#   bash bench/gpu/counters_check.sh        with carry [".carry"]
set -uo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
OUT=${OUT:-/tmp/counters-check}
mkdir -p "$OUT"
export GRADER_ROOT=$root GRADER_CACHE=${GRADER_CACHE:-/tmp/gcache} NO_COLOR=1
export LD_LIBRARY_PATH=$root/.carry/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
GRADER=${GRADER:-$root/.carry/bin/grader}
[ -x "$GRADER" ] || GRADER=$(command -v grader || true)
[ -n "$GRADER" ] || { echo "no grader binary (.carry/bin/grader or on PATH)" >&2; exit 3; }
NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
export LD_LIBRARY_PATH=$LD_LIBRARY_PATH:$(dirname "$NVCC")/../lib64

echo "################ machine"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
NCU=${GRADER_NCU:-$(dirname "$NVCC")/ncu}
[ -x "$NCU" ] || NCU=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
echo "ncu: $NCU -> $(readlink -f "$NCU" 2>/dev/null)"
"$NCU" --version 2>&1 | tail -1
grep -H RmProfilingAdminOnly /proc/driver/nvidia/params 2>/dev/null || echo "RmProfilingAdminOnly: not readable here"
echo "running as: $(id -un) (a root grader runs each worker as a user of its own)"
command -v bwrap >/dev/null && echo "bwrap: $(bwrap --version)" || echo "bwrap: none (no sandbox)"
timeout 60 "$NCU" --query-metrics --chip gh100 2>/dev/null | grep -o '^sm__pipe_fp64_cycles_active' | head -1 |
  sed 's/$/: answers on gh100 (not yet in the grader'"'"'s list)/' || true

# lab: the item graded alone (one per lab, each a lesson the counters show).
declare -A item=(
  [lab5-gemv-warps]="square 10000: speedup over one thread per row"
  [lab6-streams]="square 1 GiB: speedup over the synchronous program on pageable memory"
  [lab7-tiled-gemm]="02 shared tiles: speedup over the naive kernel, 4096"
  [lab8-reductions]="03 sequential addressing: speedup over 01"
)
labs=(lab5-gemv-warps lab6-streams lab7-tiled-gemm lab8-reductions)

echo "################ building the labs and calibrating (at once)"
start=$SECONDS
"$GRADER" calibrate >"$OUT/calibrate.log" 2>&1 &
for lab in "${labs[@]}"; do
  "$GRADER" "$lab" --submission "skeletons/$lab" --quick --no-counters >"$OUT/build-$lab.log" 2>&1 &
done
wait
echo "ready after $((SECONDS - start)) s"

echo "################ one item of each lab, reference and skeleton"
for lab in "${labs[@]}"; do
  for tree in reference skeletons; do
    t0=$SECONDS
    timeout 300 "$GRADER" "$lab" --submission "$tree/$lab" --only "${item[$lab]}" --format json \
      -o "$OUT/$lab-$tree.json" >"$OUT/$lab-$tree.log" 2>&1
    echo "$lab $tree: exit $? after $((SECONDS - t0)) s" >>"$OUT/runs.txt"
  done
done
cat "$OUT/runs.txt"
python3 - "$OUT" "$root" <<'PY'
import json, os, sys, tomllib
out, root = sys.argv[1], sys.argv[2]
keys = ["profiled_kernels", "sectors_per_load", "sectors_per_store", "dram_throughput", "bank_conflicts",
        "launch_occupancy", "achieved_occupancy", "thread_efficiency", "fma_pipe", "tensor_executed"]
short = ["kern", "sect/ld", "sect/st", "dram", "conflicts", "occ(launch)", "occ(achv)", "thr/inst", "fma", "tensor"]
print("\n%-16s %-10s " % ("lab", "tree") + " ".join("%11s" % s for s in short) + " %9s %6s" % ("counters", "points"))
notes = []
for lab in ["lab5-gemv-warps", "lab6-streams", "lab7-tiled-gemm", "lab8-reductions"]:
    spec = tomllib.load(open(os.path.join(root, "labs", lab, "lab.toml"), "rb"))
    measurements = {(p["variant"], json.dumps(p.get("params"), sort_keys=True), json.dumps(p.get("baseline"), sort_keys=True))
                    for p in spec.get("performance", [])}
    for tree in ["reference", "skeletons"]:
        path = os.path.join(out, f"{lab}-{tree}.json")
        if not os.path.exists(path):
            print("%-16s %-10s no report" % (lab, tree)); continue
        report = json.load(open(path))
        stage = {s["stage"]: s["seconds"] for s in report.get("stage_seconds", [])}
        timed = [t for t in report["tests"] if t.get("kind") == "performance" and t.get("verdict") != "not_run"]
        test = timed[0] if timed else None
        look = (test or {}).get("look") or {}
        values = {r["key"]: r.get("yours_value") for r in look.get("facts", [])}
        cells = []
        for k in keys:
            v = values.get(k)
            cells.append("%11s" % ("-" if v is None else (("%.0f%%" % (100 * v)) if k in ("dram_throughput", "launch_occupancy", "achieved_occupancy", "fma_pipe") else ("%.2f" % v if k in ("sectors_per_load", "sectors_per_store", "thread_efficiency") else "%.0f" % v))))
        points = "%.1f/%.0f" % (test["score"], test["max_score"]) if test else "-"
        print("%-16s %-10s " % (lab, tree) + " ".join(cells) + " %8.1fs %6s" % (stage.get("counters", 0), points))
        notes.append(f"  {lab} {tree}: {look.get('counters', '(no counters line: ' + str((test or {}).get('verdict')) + ')')}")
        if tree == "reference":
            notes.append(f"    whole grading: {len(measurements)} timed measurements x {stage.get('counters', 0):.1f} s = "
                         f"about {len(measurements) * stage.get('counters', 0):.0f} s of profiling; this grading's wall {report.get('wall_seconds', 0):.0f} s")
print("\n".join(notes))
PY

echo "################ tests/gpu/grading_counters.py"
timeout 600 python3 tests/gpu/grading_counters.py "$GRADER" "$root"
echo "grading_counters: exit $?"
