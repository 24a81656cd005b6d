#!/usr/bin/env bash
# per_gpu_calibration.sh: proves, on a machine with NVIDIA GPUs, that a single grading of a GPU lab is held to the
# calibration of the GPU it ran on, kept by UUID (issue 37: `grader lab5 --slurm` on a node of several GPUs), and
# not to the machine's, which is some other GPU's.
#
#   bash bench/gpu/per_gpu_calibration.sh                 # every GPU nvidia-smi lists, one after another
#   bash bench/gpu/per_gpu_calibration.sh --slurm         # also once through `grader lab5 --slurm` (a course.toml
#                                                         # with [slurm], or GRADER_COURSE_SETTINGS, must exist)
#
# For each GPU index i: CUDA_VISIBLE_DEVICES=i grader lab5 --submission reference/lab5-gemv-warps --only
# "square 10000: fraction of the memory bandwidth" --format json. The first grading on a GPU calibrates it (kept in
# $GRADER_CACHE/calibration/<uuid>.json); the report must name that GPU (machine.gpu_uuid, nvidia-smi's UUID for
# index i) and carry that file's read bandwidth. Prints one line per GPU and PASS or FAIL last. With --slurm the
# job's report must name the GPU SLURM gave it and carry its file's figures likewise.
# Environment: GRADER (default .carry/bin/grader, then grader on PATH), GRADER_CACHE (default /tmp/gcache).
# A few minutes on a node of 2 to 8 GPUs (one roofline item each, plus each GPU's calibration the first time).
set -uo pipefail
cd "$(dirname "$0")/../.."
grader=${GRADER:-$( [ -x .carry/bin/grader ] && echo "$PWD/.carry/bin/grader" || command -v grader )}
export GRADER_CACHE=${GRADER_CACHE:-/tmp/gcache}
item="square 10000: fraction of the memory bandwidth"
out=$(mktemp -d)
failed=0

[ -n "$grader" ] || { echo "FAIL: no grader (GRADER=...)"; exit 1; }
command -v nvidia-smi > /dev/null || { echo "SKIP: no nvidia-smi here"; exit 77; }

# Reads machine.gpu_uuid and machine.gpu_read_bandwidth_gbps of a report, and the calibration file of that UUID.
check_report() {  # REPORT EXPECTED_UUID LABEL
  python3 - "$1" "$2" "$3" "$GRADER_CACHE" << 'EOF'
import json, os, sys
report, expected, label, cache = sys.argv[1:]
machine = json.load(open(report))["machine"]
uuid = machine.get("gpu_uuid", "")
path = os.path.join(cache, "calibration", uuid + ".json")
kept = json.load(open(path)) if uuid and os.path.exists(path) else {}
ok = uuid == expected and kept.get("uuid") == uuid and machine.get("gpu_read_bandwidth_gbps") == kept.get("gpu_read_bandwidth_gbps")
print("%s %s: report names %s, read bandwidth %s GB/s; %s holds %s GB/s" % (
    "ok  " if ok else "FAIL", label, uuid or "no GPU", machine.get("gpu_read_bandwidth_gbps"), path, kept.get("gpu_read_bandwidth_gbps")))
sys.exit(0 if ok else 1)
EOF
}

while IFS=, read -r index uuid; do
  index=${index// /} uuid=${uuid// /}
  CUDA_VISIBLE_DEVICES=$index "$grader" lab5 --submission reference/lab5-gemv-warps --only "$item" --format json \
    --output "$out/gpu$index.json" 2> "$out/gpu$index.log"
  check_report "$out/gpu$index.json" "$uuid" "GPU $index" || failed=1
done < <(nvidia-smi --query-gpu=index,uuid --format=csv,noheader)

if [ "${1:-}" = --slurm ]; then
  "$grader" lab5 --slurm --submission reference/lab5-gemv-warps --only "$item" --format json \
    --output "$out/slurm.json" 2> "$out/slurm.log"
  cat "$out/slurm.log"
  # The job's GPU, as the job's grader named it: the report must carry that GPU's own file.
  expected=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["machine"].get("gpu_uuid", ""))' "$out/slurm.json")
  [ -n "$expected" ] || { echo "FAIL --slurm: the job's report names no GPU"; failed=1; }
  [ -z "$expected" ] || check_report "$out/slurm.json" "$expected" "--slurm job" || failed=1
fi

echo "logs and reports: $out"
[ "$failed" = 0 ] && echo PASS || echo FAIL
exit "$failed"
