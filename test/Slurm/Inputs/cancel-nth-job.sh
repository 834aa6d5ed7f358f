#!/usr/bin/env bash
# Usage: cancel-nth-job.sh NAME N OUT [SECONDS]
# Waits until the controller has seen N jobs named NAME and the Nth (in
# submission order) is running, cancels it with scancel, and writes its id
# to OUT. Fails after SECONDS (default 120).
set -euo pipefail
Name="$1"
N="$2"
Out="$3"
Deadline=$((SECONDS + ${4:-120}))
while [ $SECONDS -lt $Deadline ]; do
  Line="$(squeue --noheader --states=all --name="$Name" --format='%A %T' |
    sort -n | sed -n "${N}p")"
  if [ "${Line#* }" = RUNNING ]; then
    scancel "${Line%% *}"
    echo "${Line%% *}" >"$Out"
    exit 0
  fi
  sleep 0.1
done
echo "job $N named $Name never ran within the time given" >&2
exit 1
