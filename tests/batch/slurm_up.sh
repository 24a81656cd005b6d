#!/bin/bash
# slurm_up.sh DIR [FAKE_GPUS]: starts a one-node SLURM cluster on this machine for the batch tests (CTest fixture
# "slurm", FIXTURES_SETUP; slurm_down.sh DIR stops it). Real daemons from the distribution's packages
# (Debian: slurmctld slurmd slurm-client), not a mock: DIR/slurm.conf with no authentication (auth/none,
# cred/none: nothing leaves localhost), process tracking through /proc (no cgroups needed), one node (this
# machine, all its CPUs) and one partition, on two free ports so a site's own SLURM is left alone.
#
# FAKE_GPUS (fixture "slurm_gpu"): the node also has that many GPUs as a generic resource (gres/gpu), each a
# character device that is not a GPU (/dev/null, /dev/zero, ...): SLURM allocates them and sets a job's
# CUDA_VISIBLE_DEVICES as it would for real ones, and nothing can run on them.
#
# Exits 77 (the test's SKIP_RETURN_CODE) with the reason in DIR/skip when this machine cannot run it: not root
# (slurmd starts jobs as their users), or SLURM is not installed. Tests needing the cluster read DIR/skip and
# skip with the same reason; they never pass without it.
set -u
dir=${1:?usage: slurm_up.sh DIR [FAKE_GPUS]}
fake_gpus=${2:-0}
rm -rf "$dir"
mkdir -p "$dir/state" "$dir/spool"

skip() {
  echo "$*" > "$dir/skip"
  echo "SKIPPED: $*"
  exit 77
}

[ "$(id -u)" = 0 ] || skip "not root: slurmd has to run as root to start jobs (run the tests as root to test SLURM)"
for tool in slurmctld slurmd sbatch squeue sinfo; do
  command -v "$tool" > /dev/null || skip "no $tool on PATH: install the packages slurmctld, slurmd and slurm-client"
done
command -v python3 > /dev/null || skip "no python3 (used to find free ports)"

read -r ctld_port slurmd_port < <(python3 -c '
import socket
ports = []
sockets = []
for _ in range(2):
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    sockets.append(s)
    ports.append(s.getsockname()[1])
print(*ports)')
host=$(hostname -s)
cpus=$(nproc)
memory_mb=$(awk '/MemTotal/ { print int($2 / 1024 / 2) }' /proc/meminfo)

gres_types= node_gres=
if [ "$fake_gpus" -gt 0 ]; then
  devices=(/dev/null /dev/zero /dev/full /dev/random /dev/urandom)
  [ "$fake_gpus" -le ${#devices[@]} ] || { echo "at most ${#devices[@]} fake GPUs"; exit 1; }
  gres_types="GresTypes=gpu"
  node_gres="Gres=gpu:$fake_gpus"
  for ((i = 0; i < fake_gpus; i++)); do echo "NodeName=$host Name=gpu File=${devices[$i]}"; done > "$dir/gres.conf"
fi

cat > "$dir/slurm.conf" << EOF
# Written by tests/batch/slurm_up.sh for the batch tests; removed by slurm_down.sh.
ClusterName=gradertest
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
AuthType=auth/none
CredType=cred/none
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
$gres_types
SlurmUser=root
SlurmdUser=root
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
NodeName=$host NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=$memory_mb $node_gres State=UNKNOWN
PartitionName=grader Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF

export SLURM_CONF="$dir/slurm.conf"
# In the foreground of their own sessions (-D), output to files and stdin from /dev/null, so CTest does not
# wait on pipes they hold; their pids are kept for slurm_down.sh.
setsid slurmctld -D -c -f "$SLURM_CONF" > "$dir/slurmctld.out" 2>&1 < /dev/null &
echo $! > "$dir/slurmctld.own-pid"
setsid slurmd -D -f "$SLURM_CONF" > "$dir/slurmd.out" 2>&1 < /dev/null &
echo $! > "$dir/slurmd.own-pid"

for _ in $(seq 1 60); do
  state=$(sinfo --noheader --format=%T 2> /dev/null | head -n 1)
  if [ "$state" = idle ]; then
    echo "SLURM is up: SLURM_CONF=$SLURM_CONF, node $host ($cpus CPUs, $fake_gpus fake GPUs), partition grader, ports" \
         "$ctld_port and $slurmd_port"
    exit 0
  fi
  sleep 0.5
done
echo "SLURM did not come up within 30 s (node state '${state:-none}'); its logs:"
tail -n 20 "$dir"/slurmctld.log "$dir"/slurmd.log "$dir"/*.out 2> /dev/null
bash "$(dirname "$0")/slurm_down.sh" "$dir"
exit 1
