#!/usr/bin/env bash
# Usage: at-nth-job.sh ACTION NAME N OUT [SECONDS]
# Waits until the controller has seen N jobs named NAME and the Nth (in
# submission order) is running, does ACTION to it, and writes the job's id
# to OUT. Fails after SECONDS (default 120). ACTION is one of:
#   cancel        scancel the job.
#   kill=PIDFILE  kill the process in PIDFILE with SIGKILL (a search
#                 interrupted without warning: its jobs go on).
#   fail-node     take the job's node down as an administrator would for a
#                 failed node (the controller ends the job with NODE_FAIL),
#                 then bring the node back.
set -euo pipefail
Action="$1"
Name="$2"
N="$3"
Out="$4"
Deadline=$((SECONDS + ${5:-120}))
while [ $SECONDS -lt $Deadline ]; do
  Line="$(squeue --noheader --states=all --name="$Name" --format='%A %T %N' |
    sort -n | sed -n "${N}p")"
  read -r Job State Node <<<"$Line" || true
  if [ "${State:-}" = RUNNING ]; then
    case "$Action" in
    cancel)
      scancel "$Job"
      ;;
    kill=*)
      PidFile="${Action#kill=}"
      # The search may not have written its pid yet.
      [ -s "$PidFile" ] || { sleep 0.1; continue; }
      kill -KILL "$(cat "$PidFile")"
      ;;
    fail-node)
      scontrol update nodename="$Node" state=down reason=maxcode-lit-node-failure
      ;;
    *)
      echo "unknown action '$Action'" >&2
      exit 2
      ;;
    esac
    echo "$Job" >"$Out"
    if [ "$Action" = fail-node ]; then
      # The node answers again at once; resume it if the controller still
      # holds it down.
      sleep 1
      scontrol update nodename="$Node" state=resume 2>/dev/null || true
    fi
    exit 0
  fi
  sleep 0.1
done
echo "job $N named $Name never ran within the time given" >&2
exit 1
