#!/usr/bin/env bash
# ncu_counters.sh: Nsight Compute's counters on planted kernels (tests/gpu/ncu_planted.cu), with the metric names the
# issue "Look inside" lists for sm_90: each must answer, and each planted kernel must read as planted (coalesced 4
# sectors per request, strided about 32; 32-way bank conflicts; divergent about 16 threads per warp instruction).
# Prints the ncu version and every value. Skipped (77) without a GPU, nvcc or ncu; where ncu may not profile (no
# permission to the counters), it says so and skips too.
set -u
command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1 || { echo "skipped: no CUDA GPU"; exit 77; }
NVCC=${CUDA_HOME:-/usr/local/cuda}/bin/nvcc
command -v "$NVCC" >/dev/null || NVCC=$(command -v nvcc) || { echo "skipped: no nvcc"; exit 77; }
NCU=$(dirname "$NVCC")/ncu
[ -x "$NCU" ] || NCU=$(command -v ncu) || { echo "skipped: no ncu beside nvcc or on PATH"; exit 77; }
"$NCU" --version | tail -1
work=$(mktemp -d) && trap 'rm -rf "$work"' EXIT
arch=sm_$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -1 | tr -d .)
"$NVCC" -O3 -arch="$arch" "$(dirname "$0")/ncu_planted.cu" -o "$work/planted" || exit 1
metrics=dram__throughput.avg.pct_of_peak_sustained_elapsed,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__thread_inst_executed_per_inst_executed.ratio,sm__inst_executed_pipe_tensor_op_hmma.sum,sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active
start=$(date +%s.%N)
"$NCU" --metrics "$metrics" --csv --log-file "$work/ncu.csv" "$work/planted" > "$work/run.txt" 2>&1
status=$?
echo "ncu took $(python3 -c "print(round($(date +%s.%N) - $start, 1))") s for four kernels"
if grep -q "ERR_NVGPUCTRPERM\|does not have permission" "$work/run.txt" "$work/ncu.csv" 2>/dev/null; then
  echo "skipped: this user may not read the GPU's performance counters (ERR_NVGPUCTRPERM)"; exit 77
fi
[ $status -eq 0 ] || { cat "$work/run.txt"; exit 1; }
python3 - "$work/ncu.csv" "$metrics" <<'PY'
import csv, sys
rows = [r for r in csv.reader(l for l in open(sys.argv[1]) if not l.startswith("=="))]
header, rows = rows[0], rows[1:]
k, m, v = header.index("Kernel Name"), header.index("Metric Name"), header.index("Metric Value")
values = {}
for r in rows:
    values.setdefault(r[k].split("(")[0], {})[r[m]] = float(r[v].replace(",", "")) if r[v] not in ("", "n/a") else None
failed = []
for metric in sys.argv[2].split(","):
    if not any(metric in kv for kv in values.values()): failed.append("metric does not answer: " + metric)
for kernel, kv in values.items():
    print(kernel, {name: kv[name] for name in sorted(kv)})
def spr(kernel):
    kv = values[kernel]
    return kv["l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"] / kv["l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"]
checks = [
    ("coalesced: about 4 sectors per request", 3.5 <= spr("coalesced") <= 4.5),
    ("strided: 16 or more sectors per request", spr("strided") >= 16),
    ("conflicts: bank conflicts on shared loads", values["conflicts"]["l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"] > 1e5),
    ("coalesced: no bank conflicts", (values["coalesced"]["l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"] or 0) == 0),
    ("divergent: at most 20 threads per warp instruction", values["divergent"]["smsp__thread_inst_executed_per_inst_executed.ratio"] <= 20),
    ("coalesced: at least 28 threads per warp instruction", values["coalesced"]["smsp__thread_inst_executed_per_inst_executed.ratio"] >= 28),
]
for what, ok in checks:
    print(("ok   " if ok else "FAIL ") + what)
    if not ok: failed.append(what)
for f in failed: print("FAIL", f)
sys.exit(1 if failed else 0)
PY
