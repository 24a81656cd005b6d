#!/usr/bin/env bash
# ncu_cost.sh: where the seconds of the counters stage go (issue 35), on a machine with an NVIDIA GPU. Grades one
# item of lab 6 and one of lab 8 with counters on, with ncu behind a wrapper that logs when each ncu command starts
# and ends (the profiled run, then `ncu --import`), and with --launch-count 8, 2 and 1 for lab 6.
#   bench/gpu/ncu_cost.sh          with the carry of bench/gpu/speed_check.sh
set -uo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
OUT=${OUT:-/tmp/ncu-cost}
mkdir -p "$OUT"
# The profiled worker runs as a user of its own: the wrapper and its log lie where that user can reach them.
wrap=$(mktemp -d /tmp/ncu-wrap.XXXXXX)
chmod 755 "$wrap"
export GRADER_ROOT=$root NO_COLOR=1 GRADER_CACHE=$OUT/cache
export LD_LIBRARY_PATH=$root/.carry/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
export LD_LIBRARY_PATH=$LD_LIBRARY_PATH:$(dirname "$NVCC")/../lib64
GRADER=${GRADER:-$root/.carry/bin/grader}
real_ncu=$(command -v ncu || echo "$(dirname "$NVCC")/ncu")
log=$wrap/calls.log
cat > "$wrap/ncu" <<WRAP
#!/usr/bin/env bash
args=("\$@")
# The grader gives its workers a clean environment: the count comes through a file.
LAUNCH_COUNT=\$(cat "$wrap/launch_count" 2>/dev/null)
if [ -n "\${LAUNCH_COUNT:-}" ]; then
  for i in "\${!args[@]}"; do [ "\${args[\$i]}" = --launch-count ] && args[\$((i+1))]=\$LAUNCH_COUNT; done
fi
start=\$(date +%s.%N)
"$real_ncu" "\${args[@]}"
rc=\$?
echo "\$(date +%s.%N) \$start rc=\$rc \${args[0]} \${args[1]}" >> "$log"
exit \$rc
WRAP
chmod 755 "$wrap/ncu"
touch "$log"; chmod 666 "$log"
export GRADER_NCU=$wrap/ncu
"$GRADER" calibrate > "$OUT/calibrate.log" 2>&1
grade() {  # lab submission item launch_count
  : > "$log"
  echo "$4" > "$wrap/launch_count"
  local began=$(date +%s.%N)
  "$GRADER" grade "$1" --submission "$2" --only "$3" --format json --seed 35035 > "$OUT/report.json" 2> "$OUT/err.log"
  local ended=$(date +%s.%N)
  python3 - "$OUT/report.json" "$1" "$3" "$4" "$began" "$ended" "$log" <<'PY'
import json, sys
path, lab, item, lc, began, ended, log = sys.argv[1:]
try:
    r = json.load(open(path))
except ValueError:
    print(lab, item, "no report"); sys.exit()
stages = {s["stage"]: s["seconds"] for s in r.get("stage_seconds", [])}
print("%s | %s | launch-count %s | wall %.1f s | counters stage %.1f s" % (lab, item[:40], lc, float(ended) - float(began), stages.get("counters", 0)))
for t in r.get("tests", []):
    words = (t.get("look") or {}).get("counters")
    if words: print("   ", words[:300])
for line in open(log):
    end, start, rc, *what = line.split()
    print("    ncu %-24s %.1f s %s" % (" ".join(what[1:])[:24], float(end) - float(start), rc))
PY
}
for count in ${COUNTS:-8 2 1}; do
  grade lab6 reference/lab6-streams "square 1 GiB: fraction of the transfer bound" "$count"
  grade lab6 reference/lab6-streams "tall 2^25 x 4: fraction of the transfer bound" "$count"
  grade lab8 reference/lab8-reductions "03 sequential addressing: speedup over 01" "$count"
done
