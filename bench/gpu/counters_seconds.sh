#!/usr/bin/env bash
# counters_seconds.sh: the counters stage of a GPU grading, an older grader against this one (issue 35), on a machine
# with an NVIDIA GPU, in one command:
#   1. --probe: what ncu (the installed version) offers for profiling several calls in one process: its options
#      (ncu --help, kept), and a planted program (bench/gpu/ncu_ranges.cu) of three profiled ranges run under ncu
#      several ways: whether the raw CSV page carries a kernel's range or NVTX range, whether an import can filter by
#      them, how --launch-count counts across ranges, and the seconds of ncu's start, of a CUDA program's start, and
#      of one kernel profiled with 1 GiB allocated
#   2. both graders warm (each lab's harness and judge built, --quick, in parallel), this grader calibrates the GPU and
#      the older one gets a copy; LEAN=1 skips both (one cache for the two graders: the first grading of a lab builds
#      it and calibrates the GPU, and its whole seconds say so); PROBE=small runs the probe's first three runs alone
#   3. for each lab named (default lab8 lab5 lab7 lab6): its reference graded in full (--hidden, counters on, JSON,
#      one seed) by both graders, in turn (the first grader alternates from lab to lab), each ncu command logged by a
#      wrapper (start, end); no lab starts past BUDGET seconds (default 330)
#   4. the summary: per lab the whole grading's seconds and the counters stage's, old and new, the ncu commands, and
#      per timed item whether both graders read the same counters (the kernels, launch and the facts that do not
#      move from run to run exactly; the measured ones, DRAM throughput, achieved occupancy, FMA pipe, within 10
#      points or 10%)
# Carry (built here): .carry/new/bin/grader, .carry/old/bin/grader, each with its build/lib/*.a in ../lib, and the
# shared libraries the GPU machine lacks in .carry/lib (bench/gpu/device_selftest.sh says which). Logs and JSON
# reports land in $OUT/all.tgz, the summary in $OUT/summary.txt.
set -uo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
probe=0
labs=()
for arg in "$@"; do
  case "$arg" in
    --probe) probe=1 ;;
    -*) echo "unknown option $arg" >&2; exit 2 ;;
    *) labs+=("$arg") ;;
  esac
done
[ ${#labs[@]} -gt 0 ] || labs=(lab8 lab5 lab7 lab6)
OUT=${OUT:-/tmp/counters-seconds}
work=/tmp/counters-seconds-work
rm -rf "$work"; mkdir -p "$OUT" "$work"
summary=$OUT/summary.txt
: >"$summary"
say() { echo "$*" | tee -a "$summary"; }
finish() { tar -C "$work" --exclude="./cache-*" -czf "$OUT/all.tgz" . 2>/dev/null; }
trap finish EXIT
export GRADER_ROOT=$root NO_COLOR=1
export LD_LIBRARY_PATH=$root/.carry/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
export LD_LIBRARY_PATH=$LD_LIBRARY_PATH:$(dirname "$NVCC")/../lib64
NEW=${NEW:-$root/.carry/new/bin/grader}
OLD=${OLD:-$root/.carry/old/bin/grader}
BUDGET=${BUDGET:-330}
real_ncu=$(command -v ncu || echo "$(dirname "$NVCC")/ncu")
since() { awk -v a="$1" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.2f", b - a }'; }
full_name() { (cd labs && ls -d "$1" "$1"-* 2>/dev/null | head -1); }

say "gpu: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1); $("$real_ncu" --version | tail -1)"

# --- 1. the probe ------------------------------------------------------------------------------------------------
if [ $probe = 1 ]; then
  p=$work/probe; mkdir -p "$p"
  "$real_ncu" --help >"$p/ncu_help.txt" 2>&1
  grep -n -A10 -- "--filter-mode\|--range-filter\|--nvtx-include \|--print-nvtx-rename\|--launch-count\|--replay-mode" \
    "$p/ncu_help.txt" | cut -c1-200 >"$p/help_bits.txt"
  if "$NVCC" -O2 -arch=sm_90 bench/gpu/ncu_ranges.cu -o "$p/ranges" 2>"$p/nvcc.log"; then
    M=gpu__time_duration.sum,launch__grid_size,launch__block_size
    P=(--metrics $M --profile-from-start off --clock-control none -f)
    timed() { local s=$EPOCHREALTIME; "$@" >>"$p/runs.log" 2>&1; local rc=$?; say "  probe [$(since "$s") s rc=$rc] ${*##*/}" | cut -c1-220; }
    cd "$p"
    timed ./ranges noop
    timed ./ranges
    timed "$real_ncu" "${P[@]}" --export noop ./ranges noop
    timed "$real_ncu" "${P[@]}" --nvtx --export rA ./ranges
    if [ "${PROBE:-full}" = full ]; then
      timed "$real_ncu" "${P[@]}" --nvtx --export rBig ./ranges big
      timed "$real_ncu" "${P[@]}" --launch-count 4 --export rB ./ranges
      timed "$real_ncu" "${P[@]}" --range-filter :2: --export rC ./ranges
      timed "$real_ncu" "${P[@]}" --nvtx --nvtx-include "grader@call-2/" --export rE ./ranges
      timed "$real_ncu" "${P[@]}" --launch-count 2 --filter-mode per-launch-config --export rF ./ranges
    fi
    for r in rA rB rC rE rF; do
      [ -f $r.ncu-rep ] || { say "  probe $r: no report"; continue; }
      "$real_ncu" --import $r.ncu-rep --csv --page raw >$r.csv 2>&1
      say "  probe $r: $(grep -c '^"[0-9]' $r.csv) kernels: $(python3 - $r.csv <<'PY'
import csv, sys
rows = [r for r in csv.reader(l for l in open(sys.argv[1]) if not l.startswith("=="))]
h = rows[0]
k, g = h.index("Kernel Name"), h.index("Grid Size")
extra = [c for c in h if "nvtx" in c.lower() or "range" in c.lower()]
print(" ".join(r[k].split("(")[0] + r[g].replace(" ", "") for r in rows[1:] if r[0].isdigit()), "| columns naming nvtx/range:", extra[:6])
PY
)"
    done
    for how in "--print-nvtx-rename kernel" "--nvtx-include grader@call-2/" "--range-filter :2:"; do
      "$real_ncu" --import rA.ncu-rep $how --csv --page raw >imp.csv 2>&1
      say "  probe import rA $how: $(grep -c '^"[0-9]' imp.csv) rows: $(grep '^"[0-9]' imp.csv | cut -d, -f5 | tr '\n' ' ' | cut -c1-200) $(grep -m1 ERROR imp.csv | cut -c1-150)"
    done
    "$real_ncu" --import rA.ncu-rep --page details --print-details all >details.txt 2>&1
    say "  probe details of rA name NVTX: $(grep -c -i nvtx details.txt) lines"
    cd "$root"
  else
    say "  probe: nvcc failed ($(tail -1 "$p/nvcc.log"))"
  fi
fi

# --- 2. warm, calibrated (LEAN=1: neither; one cache for both graders, the first grading builds and calibrates) ---
start=$EPOCHREALTIME
for side in old new; do mkdir -p "$work/cache-$side"; done
if [ "${LEAN:-0}" = 1 ]; then
  rm -rf "$work/cache-old"; ln -s "$work/cache-new" "$work/cache-old"
else
  pids=()
  for lab in "${labs[@]}"; do
    name=$(full_name "$lab")
    GRADER_CACHE=$work/cache-old "$OLD" grade "$name" --submission "reference/$name" --quick >/dev/null 2>&1 & pids+=($!)
    GRADER_CACHE=$work/cache-new "$NEW" grade "$name" --submission "reference/$name" --quick >/dev/null 2>&1 & pids+=($!)
  done
  for pid in "${pids[@]}"; do wait "$pid"; done
  say "warm: ${labs[*]} built for both graders in $(since "$start") s"
  start=$EPOCHREALTIME
  GRADER_CACHE=$work/cache-new "$NEW" calibrate >"$work/calibrate.log" 2>&1
  say "calibrate: exit $? after $(since "$start") s"
  cp -r "$work/cache-new/calibration" "$work/cache-old/" 2>/dev/null
fi

# --- 3. the gradings -----------------------------------------------------------------------------------------------
wrap=$(mktemp -d /tmp/ncu-wrap.XXXXXX)
chmod 755 "$wrap"
log=$wrap/calls.log
cat >"$wrap/ncu" <<WRAP
#!/usr/bin/env bash
start=\$EPOCHREALTIME
"$real_ncu" "\$@"
rc=\$?
echo "\$start \$EPOCHREALTIME rc=\$rc \$1" >>"$log"
exit \$rc
WRAP
chmod 755 "$wrap/ncu"
touch "$log"; chmod 666 "$log"
export GRADER_NCU=$wrap/ncu
grade_one() {  # side lab
  local side=$1 name binary
  name=$(full_name "$2")
  [ "$side" = old ] && binary=$OLD || binary=$NEW
  : >"$log"
  local start=$EPOCHREALTIME
  GRADER_CACHE=$work/cache-$side "$binary" grade "$name" --submission "reference/$name" --hidden --seed 35035 \
    --format json -o "$work/$side-$2.json" 2>"$work/$side-$2.stderr"
  echo "$? $(since "$start")" >"$work/$side-$2.wall"
  cp "$log" "$work/$side-$2.calls"
}
n=0
for lab in "${labs[@]}"; do
  if [ "$SECONDS" -ge "$BUDGET" ]; then say "$lab: not graded (the command is $SECONDS s old)"; continue; fi
  order=(old new); [ $((n % 2)) = 1 ] && order=(new old); n=$((n + 1))
  for side in "${order[@]}"; do grade_one "$side" "$lab"; done
done

# --- 4. the summary ------------------------------------------------------------------------------------------------
python3 - "$work" "${labs[@]}" <<'PY' | tee -a "$summary"
import json, os, re, sys
work, labs = sys.argv[1], sys.argv[2:]
EXACT = ["profiled_kernels", "sectors_per_load", "sectors_per_store", "bank_conflicts", "launch_occupancy",
         "tensor_executed", "thread_efficiency"]
MEASURED = ["dram_throughput", "achieved_occupancy", "fma_pipe"]
def load(side, lab):
    try:
        report = json.load(open(os.path.join(work, "%s-%s.json" % (side, lab))))
    except (OSError, ValueError):
        return None
    rc, wall = open(os.path.join(work, "%s-%s.wall" % (side, lab))).read().split()
    calls = [l.split() for l in open(os.path.join(work, "%s-%s.calls" % (side, lab)))]
    return report, int(rc), float(wall), calls
def counters(test):
    look = test.get("look") or {}
    facts = {r["key"]: r.get("yours_value") for r in look.get("facts", []) if r["key"] in EXACT + MEASURED}
    return look.get("counters") or "", facts
for lab in labs:
    got = {side: load(side, lab) for side in ("old", "new")}
    if any(v is None for v in got.values()):
        print("%s: %s" % (lab, ", ".join("%s %s" % (s, "no report" if v is None else "graded") for s, v in got.items())))
        continue
    line = lab + ":"
    for side in ("old", "new"):
        report, rc, wall, calls = got[side]
        stages = {s["stage"]: s["seconds"] for s in report.get("stage_seconds", [])}
        profiled = [c for c in calls if len(c) > 3 and c[3] != "--import" and c[3] != "--version"]
        span = (max(float(c[1]) for c in profiled) - min(float(c[0]) for c in profiled)) if profiled else 0
        line += "  %s: exit %d, %.1f s, %.1f/%g points, counters stage %.1f s (%d profiled runs, %s s each; first start to last end %.1f s)" % (
            side, rc, wall, report["score"], report["max_score"], stages.get("counters", 0), len(profiled),
            "/".join("%.1f" % (float(c[1]) - float(c[0])) for c in profiled), span)
    print(line)
    old_tests = {t["name"]: t for t in got["old"][0]["tests"]}
    for test in got["new"][0]["tests"]:
        if test["name"] not in old_tests or not (test.get("look") or {}).get("counters"):
            continue
        (ow, of), (nw, nf) = counters(old_tests[test["name"]]), counters(test)
        strip = lambda w: re.sub(r"achieved \d+%", "achieved _", w)
        problems = []
        if strip(ow) != strip(nw): problems.append("words differ:\n        old %s\n        new %s" % (ow, nw))
        for key in EXACT:
            if of.get(key) != nf.get(key) and not (of.get(key) and nf.get(key) and abs(of[key] - nf[key]) <= 1e-6 * abs(of[key])):
                problems.append("%s %s against %s" % (key, of.get(key), nf.get(key)))
        for key in MEASURED:
            a, b = of.get(key), nf.get(key)
            if (a is None) != (b is None) or (a is not None and abs(a - b) > max(0.1, 0.1 * abs(a))):
                problems.append("%s %s against %s" % (key, a, b))
        print("   %-52s %s" % (test["name"][:52], "same counters" if not problems else "DIFFER: " + "; ".join(problems)))
        if not nw.startswith("counters: "): print("      new: " + nw[:300])
PY
