#!/usr/bin/env python3
"""Writes a scripted-llm-server script for a search with the LLM roles.

The proposer is answered with PROGRAM (a whole faster program) in a fenced
block, the critic with a short diagnosis, the reward-to-go model with a bin.
--fault NAME (repeatable) puts that fault, in order, before the proposer's
reply; --unauthorized first answers one proposer request with HTTP 401
echoing the Authorization header, as hosted APIs do.
"""
import argparse
import json

PROPOSER = "Make `"          # proposer-cpp.md / proposer-cuda.md
CRITIC = "# Your diagnosis"  # critic.md
RTG = "BIN: <label>"         # rtg.md
SIMPLIFY = "# The change"    # simplify.md

p = argparse.ArgumentParser()
p.add_argument("--program", required=True)
p.add_argument("--fault", action="append", default=[])
p.add_argument("--unauthorized", action="store_true")
p.add_argument("--always-fail", action="store_true",
               help="every proposer request gets HTTP 500")
args = p.parse_args()

with open(args.program) as f:
    program = f.read()

replies = []
if args.unauthorized:
    replies.append({"match": PROPOSER, "status": 401,
                    "error": "Incorrect API key provided: {authorization}"})
for fault in args.fault:
    entry = {"match": PROPOSER, "fault": fault}
    if fault == "http-429":
        entry["retry_after"] = 1
    if fault == "slow":
        entry["delay"] = 3
    replies.append(entry)
if args.always_fail:
    replies.append({"match": PROPOSER, "fault": "http-500", "times": 0})
replies += [
    {"match": PROPOSER, "times": 0,
     "content": "The triple loop can stop as soon as the sum exceeds n.\n\n"
                "```cpp\n" + program.rstrip("\n") + "\n```\n",
     "usage": {"prompt_tokens": 900, "completion_tokens": 300}},
    {"match": CRITIC, "times": 0,
     "content": "- Correct on every test.\n- The loops now stop at n; the "
                "remaining cost is the output.",
     "usage": {"prompt_tokens": 500, "completion_tokens": 40}},
    {"match": RTG, "times": 0, "content": "BIN: much-faster",
     "usage": {"prompt_tokens": 400, "completion_tokens": 5}},
    # Asked for a plainer winner: the same program, which is not plainer.
    {"match": SIMPLIFY, "times": 0,
     "content": "Idea: nothing to remove\n\n```cpp\n" +
                program.rstrip("\n") + "\n```\n",
     "usage": {"prompt_tokens": 700, "completion_tokens": 300}},
]
print(json.dumps({"replies": replies}, indent=1))
