"""Usage: store-jobs.py STORE

Prints how many evaluations in the rollout store name Slurm jobs, and the
first job of the first such evaluation (docs/RolloutStore.md)."""
import json
import sqlite3
import sys

rows = sqlite3.connect(sys.argv[1]).execute(
    "select evaluation from nodes order by run_id, id").fetchall()
jobs = [json.loads(r[0]).get("slurm_jobs", []) for r in rows]
with_jobs = [j for j in jobs if j]
print("evaluations with jobs:", len(with_jobs))
if with_jobs:
    print("first job:", with_jobs[0][0])
