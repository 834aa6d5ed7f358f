#!/usr/bin/env bash
# Usage: wait-job-state.sh JOBID SECONDS STATE...
# Polls the controller until job JOBID is in one of the STATEs, then prints
# that state; fails, printing the job, if it is not within SECONDS.
set -euo pipefail
Job="$1"
Seconds="$2"
Deadline=$((SECONDS + Seconds))
shift 2
while :; do
  State="$(scontrol -o show job "$Job" |
    sed -n 's/.* JobState=\([A-Z_]*\) .*/\1/p')"
  for Want in "$@"; do
    if [ "$State" = "$Want" ]; then
      echo "$State"
      exit 0
    fi
  done
  if [ $SECONDS -ge $Deadline ]; then
    echo "job $Job is $State, not $*, after $Seconds seconds:" >&2
    scontrol show job "$Job" >&2
    exit 1
  fi
  sleep 0.5
done
