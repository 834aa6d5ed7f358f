#!/usr/bin/env bash
# A batch script for sbatch: says who ran it and leaves a file behind.
echo "batch job $SLURM_JOB_ID on $SLURMD_NODENAME says $1"
echo "$SLURM_JOB_ID" > made-by-job
