"""Usage: write-spec.py STEM WALL_SECONDS ARG...

Writes STEM.spec.json for maxcode-job: run ARGs with a wall-clock limit of
WALL_SECONDS (0 for none), in the current folder, stdin from /dev/null."""
import json
import os
import sys

stem, wall, argv = sys.argv[1], float(sys.argv[2]), sys.argv[3:]
with open(stem + ".spec.json", "w") as f:
    json.dump({"argv": argv, "working_dir": os.getcwd(), "env": [["MSG", "hi"]],
               "clear_env": False, "stdin": "", "wall_seconds": wall}, f)
