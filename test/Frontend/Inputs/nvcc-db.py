"""Writes DIR/compile_commands.json with one entry: COMPILER FLAGS... -c SOURCE.

  nvcc-db.py DIR SOURCE COMPILER [FLAG...]

The entry runs in SOURCE's folder, as a Makefile's nvcc line would.
"""
import json
import os
import sys

out_dir, source, compiler = sys.argv[1], os.path.abspath(sys.argv[2]), \
    sys.argv[3]
os.makedirs(out_dir, exist_ok=True)
entry = {"directory": os.path.dirname(source), "file": source,
         "arguments": [compiler] + sys.argv[4:] + ["-c", source]}
with open(os.path.join(out_dir, "compile_commands.json"), "w") as f:
    json.dump([entry], f, indent=1)
