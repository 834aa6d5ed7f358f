#!/usr/bin/env bash
# Usage: job-record.sh JOBID
# Prints the accounting record of finished job JOBID as "JobID Name State
# ExitCode NodeList", waiting up to 30 seconds for the controller to write
# it. Without slurmdbd (utils/slurm-cluster.sh) the record is the job
# completion log, which `sacct --completion` reads; with slurmdbd it is sacct's
# own, the batch and step lines left out.
set -euo pipefail
Job="$1"
Args=()
if ! scontrol show config |
  grep -Eq '^AccountingStorageType += accounting_storage/slurmdbd'; then
  Args+=(--completion)
fi
for _ in $(seq 60); do
  Record="$(sacct "${Args[@]}" --noheader --parsable2 --jobs="$Job" \
    --format=JobID,JobName,State,ExitCode,NodeList |
    awk -F'|' -v J="$Job" '$1 == J' | tail -n 1)"
  if [ -n "$Record" ]; then
    tr '|' ' ' <<<"$Record"
    exit 0
  fi
  sleep 0.5
done
echo "no accounting record of job $Job after 30 seconds" >&2
exit 1
