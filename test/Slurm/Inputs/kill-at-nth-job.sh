#!/usr/bin/env bash
# Usage: kill-at-nth-job.sh NAME N PIDFILE OUT [SECONDS]
# Waits until the controller has seen N jobs named NAME and the Nth (in
# submission order) is running, then kills the process in PIDFILE with
# SIGKILL (a search interrupted without warning: its jobs go on) and writes
# the job's id to OUT. Fails after SECONDS (default 120).
set -euo pipefail
Name="$1"
N="$2"
PidFile="$3"
Out="$4"
Deadline=$((SECONDS + ${5:-120}))
while [ $SECONDS -lt $Deadline ]; do
  Line="$(squeue --noheader --states=all --name="$Name" --format='%A %T' |
    sort -n | sed -n "${N}p")"
  if [ "${Line#* }" = RUNNING ] && [ -s "$PidFile" ]; then
    kill -KILL "$(cat "$PidFile")"
    echo "${Line%% *}" >"$Out"
    exit 0
  fi
  sleep 0.1
done
echo "job $N named $Name never ran within the time given" >&2
exit 1
