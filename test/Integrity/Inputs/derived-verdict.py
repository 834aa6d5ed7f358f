#!/usr/bin/env python3
"""derived-verdict.py JSON|-: reads --evaluate --format=json and prints one
line for FileCheck: for a failure on a derived input, its status, whether the
user's tests passed, the reason, and whether the input and its answer are
where the reason says; for a pass, how many derived inputs were answered
alike and whether it was faster."""
import json
import os
import re
import sys

R = json.load(sys.stdin if sys.argv[1] == "-" else open(sys.argv[1]))
status, reason = R.get("status"), R.get("reason", "")
if status == "ok":
    faster = "faster" if R.get("ratio", 0) > 1.05 else "not faster"
    print(f"ok: derived {R.get('derived_passed')}/{R.get('derived_total')} "
          f"answered alike, {faster}")
    sys.exit(0)
users = R.get("tests_passed") == R.get("tests_total") and \
    R.get("held_out_passed") == R.get("held_out_total")
m = re.search(r"the input and its answer: (\S+), (\S+)\)", reason)
kept = "none"
if m:
    inp = m.group(1).rstrip(",")
    out = os.path.join(os.path.dirname(inp), m.group(2))
    kept = "input and answer" if os.path.exists(inp) and os.path.exists(out) \
        else "missing"
print(f"{status}: {'user' + chr(39) + 's tests passed' if users else 'a user test failed'}; "
      f"{reason}; kept: {kept}")
