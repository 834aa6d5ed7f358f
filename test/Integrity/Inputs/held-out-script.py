#!/usr/bin/env python3
"""Writes a scripted-llm-server script whose proposer answers its requests
with the given programs (--program, repeatable), one request each in order,
the last one for every later request, and whose critic gives a fixed
diagnosis."""
import argparse
import json

p = argparse.ArgumentParser()
p.add_argument("--program", action="append", required=True)
args = p.parse_args()
programs = []
for path in args.program:
    with open(path) as f:
        programs.append("Counting residues is enough.\n\n```cpp\n" +
                        f.read().rstrip("\n") + "\n```\n")
replies = [{"match": "Make `", "times": 1, "content": p} for p in programs]
replies[-1]["times"] = 0
print(json.dumps({"replies": replies + [
    {"match": "# Your diagnosis", "times": 0,
     "content": "- Correct on the tests shown."},
]}, indent=1))
