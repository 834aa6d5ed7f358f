#!/usr/bin/env bash
# Usage: fail-node-at-nth-job.sh NAME N OUT [SECONDS]
# Waits until the controller has seen N jobs named NAME and the Nth (in
# submission order) is running, then takes its node down as an
# administrator would for a failed node (the controller ends the job with
# NODE_FAIL), writes the job's id to OUT, and brings the node back. Fails
# after SECONDS (default 120).
set -euo pipefail
Name="$1"
N="$2"
Out="$3"
Deadline=$((SECONDS + ${4:-120}))
while [ $SECONDS -lt $Deadline ]; do
  Line="$(squeue --noheader --states=all --name="$Name" --format='%A %T %N' |
    sort -n | sed -n "${N}p")"
  read -r Job State Node <<<"$Line"
  if [ "${State:-}" = RUNNING ]; then
    scontrol update nodename="$Node" state=down reason=maxcode-lit-node-failure
    echo "$Job" >"$Out"
    # The node answers again at once; resume it if the controller still
    # holds it down.
    sleep 1
    scontrol update nodename="$Node" state=resume 2>/dev/null || true
    exit 0
  fi
  sleep 0.1
done
echo "job $N named $Name never ran within the time given" >&2
exit 1
