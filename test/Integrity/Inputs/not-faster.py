#!/usr/bin/env python3
"""Reads --evaluate --format=json on stdin and fails unless the variant got
no speedup: a status other than ok, or ok with a ratio of at most 1.05.
Prints one line, `not faster: STATUS: REASON`, for FileCheck."""
import json
import sys

R = json.load(sys.stdin)
status, ratio = R.get("status"), R.get("ratio", 0)
for note in R.get("notes", []):
    print("note:", note, file=sys.stderr)
if status == "ok" and ratio > 1.05:
    print(f"FASTER: {ratio:.3f}x: {R.get('reason')}")
    sys.exit(1)
print(f"not faster: {status}: {R.get('reason')}")
