#!/bin/bash
# slurm_down.sh DIR: stops the daemons slurm_up.sh DIR started (CTest fixture "slurm", FIXTURES_CLEANUP), by
# the pids it recorded and no others; then any job step they left behind is gone with them.
set -u
dir=${1:?usage: slurm_down.sh DIR}
for daemon in slurmd slurmctld; do
  file="$dir/$daemon.own-pid"
  [ -f "$file" ] || continue
  pid=$(cat "$file")
  if kill -0 "$pid" 2> /dev/null; then
    kill -TERM "$pid"
    for _ in $(seq 1 20); do
      kill -0 "$pid" 2> /dev/null || break
      sleep 0.5
    done
    kill -0 "$pid" 2> /dev/null && kill -KILL "$pid"
  fi
  rm -f "$file"
  echo "stopped $daemon ($pid)"
done
exit 0
