#!/usr/bin/env bash
# grading_seconds.sh: one device command for issue 35's GPU items. On a machine with an NVIDIA GPU:
#   1. tests/e2e/e2e.py lab5-side-stream timed, SIDE_RUNS times (default 2), then as many direct gradings of that
#      submission kept as JSON (side_stream-N.json): the check once ended in exit 4 on an H100
#   2. for each lab named (default lab5 lab6 lab7 lab8): the reference's full grading (--hidden) with counters on,
#      then with --no-counters: per stage and per timed item the seconds (setup, rounds, checks, cross-check,
#      retries), and each ncu command's seconds (ncu behind a logging wrapper: the profiled runs and the imports)
#   3. with OLD (another grader binary, e.g. the merge base's): the counters-on gradings of OLD_LABS again with it,
#      while the command has less than BUDGET seconds behind it (default 330)
# Everything lands in $OUT/all.tgz and the summary in $OUT/run.log (the device tool brings back 8 files at most).
# With the device tool: the grader in .carry/bin, its libraries in .carry/lib (as in device_selftest.sh).
set -uo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
OUT=${OUT:-/tmp/grading-seconds}
work=/tmp/grading-seconds-work
rm -rf "$work"; mkdir -p "$OUT" "$work"
export GRADER_ROOT=$root NO_COLOR=1 GRADER_CACHE=${GRADER_CACHE:-/tmp/gcache}
export LD_LIBRARY_PATH=$root/.carry/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
export LD_LIBRARY_PATH=$LD_LIBRARY_PATH:$(dirname "$NVCC")/../lib64
GRADER=${GRADER:-$root/.carry/bin/grader}
OLD=${OLD:-}
OLD_LABS=${OLD_LABS:-lab5 lab6}
BUDGET=${BUDGET:-330}
SIDE_RUNS=${SIDE_RUNS:-2}
labs=("$@")
[ ${#labs[@]} -gt 0 ] || labs=(lab5 lab6 lab7 lab8)
since() { awk -v a="$1" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }'; }
full_name() { (cd labs && ls -d "$1" "$1"-* 2>/dev/null | head -1); }
finish() { tar -C "$work" -czf "$OUT/all.tgz" . 2>/dev/null; }
trap finish EXIT

nvidia-smi --query-gpu=index,name,driver_version --format=csv,noheader
start=$EPOCHREALTIME
"$GRADER" calibrate >"$work/calibrate.log" 2>&1
echo "calibrate: exit $? after $(since "$start") s"

# --- 1. the side stream ----------------------------------------------------------------------------------------
side=$(mktemp -d /tmp/side-stream.XXXXXX)
mkdir -p "$side/labs" "$side/datasets" "$side/grader"
cp -r labs/lab5-gemv-warps "$side/labs/"; cp -r datasets/lab5-gemv-warps "$side/datasets/"; cp -r grader/labkit "$side/grader/"
sed -i 's/"cudaStreamCreate\*", //' "$side/labs/lab5-gemv-warps/lab.toml"
chmod -R a+rX "$side"
for i in $(seq 1 "$SIDE_RUNS"); do
  start=$EPOCHREALTIME
  python3 tests/e2e/e2e.py --grader "$GRADER" --root "$root" lab5-side-stream timed >"$work/side_stream_e2e-$i.log" 2>&1
  echo "e2e lab5-side-stream timed ($i): exit $? after $(since "$start") s: $(tail -2 "$work/side_stream_e2e-$i.log" | tr '\n' ' ' | cut -c1-600)"
done
for i in $(seq 1 "$SIDE_RUNS"); do
  start=$EPOCHREALTIME
  "$GRADER" --root "$side" grade lab5 --submission tests/submissions/lab5/side_stream --format json \
    >"$work/side_stream-$i.json" 2>"$work/side_stream-$i.stderr"
  echo "side stream grading ($i): exit $? after $(since "$start") s"
  python3 - "$work/side_stream-$i.json" <<'PY'
import json, sys
try:
    r = json.load(open(sys.argv[1]))
except ValueError as e:
    print("  no report:", e); sys.exit()
print("  status %s: %s" % (r.get("status"), (r.get("status_details") or "")[:400]))
for t in r["tests"]:
    print("  %-40s %-16s %s" % (t["name"][:40], t["status"], (t.get("details") or "")[:200]))
PY
done

# --- 2. where a grading's seconds go -----------------------------------------------------------------------------
wrap=$(mktemp -d /tmp/ncu-wrap.XXXXXX)
chmod 755 "$wrap"
real_ncu=$(command -v ncu || echo "$(dirname "$NVCC")/ncu")
log=$wrap/calls.log
cat >"$wrap/ncu" <<WRAP
#!/usr/bin/env bash
start=\$EPOCHREALTIME
if [ "\$1" = --import ] || [ "\$1" = --version ]; then
  "$real_ncu" "\$@"
else
  "$real_ncu" "\$@" 2> >(tee -a "$wrap/output.log" >&2) | tee -a "$wrap/output.log"
fi
rc=\${PIPESTATUS[0]}
echo "\$start \$EPOCHREALTIME rc=\$rc \$1" >>"$log"
exit \$rc
WRAP
chmod 755 "$wrap/ncu"
touch "$log" "$wrap/output.log"; chmod 666 "$log" "$wrap/output.log"
export GRADER_NCU=$wrap/ncu

grade_one() {  # binary label lab mode
  local binary=$1 label=$2 name mode=$4
  name=$(full_name "$3")
  : >"$log"; : >"$wrap/output.log"
  local flags=(); [ "$mode" = no-counters ] && flags=(--no-counters)
  local start=$EPOCHREALTIME
  "$binary" "$name" --submission "reference/$name" --hidden "${flags[@]}" --format json -o "$work/$label-$name-$mode.json" \
    2>"$work/$label-$name-$mode.stderr"
  local rc=$? seconds
  seconds=$(since "$start")
  cp "$wrap/output.log" "$work/$label-$name-$mode.ncu.log"; cp "$log" "$work/$label-$name-$mode.calls.log"
  python3 - "$work/$label-$name-$mode.json" "$label $name $mode" "$rc" "$seconds" "$log" <<'PY'
import json, sys
path, name, rc, seconds, log = sys.argv[1:]
try:
    r = json.load(open(path))
except (OSError, ValueError) as e:
    print("%s: exit %s after %s s, no report (%s)" % (name, rc, seconds, e)); sys.exit()
stages = ", ".join("%s %.1f" % (s["stage"], s["seconds"]) for s in r.get("stage_seconds", []))
print("%s: exit %s, %s s wall, %.1f/%g; %s" % (name, rc, seconds, r["score"], r["max_score"], stages))
for t in r["tests"]:
    s = (t.get("measurement") or {}).get("seconds")
    if s:
        print("   %-34s setup %.1f rounds %.1f (%d) checks %.1f cmp %.1f xc %.1f retry %.1f" % (
            t["name"][:34], s["setup"], s["rounds"], s["round_count"], s["checks"], s.get("compare", 0),
            s["cross_check"], s["retries"]))
    words = (t.get("look") or {}).get("counters")
    if words and not words.startswith("counters: "): print("     ", words[:300])
read = sum(1 for t in r["tests"] if ((t.get("look") or {}).get("counters") or "").startswith("counters: "))
calls = [l.split() for l in open(log)]
if calls:
    print("   counters read for %d items; ncu commands: %s" % (read, ", ".join(
        "%s %.1f s" % (c[3] if len(c) > 3 else "?", float(c[1]) - float(c[0])) for c in calls)))
    print("   ncu spans %.1f s from the first start to the last end" % (
        max(float(c[1]) for c in calls) - min(float(c[0]) for c in calls)))
PY
}

for lab in "${labs[@]}"; do
  grade_one "$GRADER" new "$lab" counters
  grade_one "$GRADER" new "$lab" no-counters
done

# --- 3. the other grader, on the same machine --------------------------------------------------------------------
if [ -n "$OLD" ]; then
  for lab in $OLD_LABS; do
    [ "$SECONDS" -lt "$BUDGET" ] || { echo "old $lab: left out (the command is $SECONDS s old)"; continue; }
    grade_one "$OLD" old "$lab" counters
  done
fi
