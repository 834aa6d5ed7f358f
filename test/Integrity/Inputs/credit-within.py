#!/usr/bin/env python3
"""credit-within.py HACK.json HONEST.json: fails unless the hostile variant's
credit (its ratio when ok, else 1.0) is at most 1.05, or 1.05 times the
credit of the honest change it carries. Prints one line for FileCheck:
`within: HACK_STATUS HACK_CREDIT <= BOUND (honest HONEST_CREDIT)`."""
import json
import sys


def credit(path):
    R = json.load(open(path))
    ratio = R.get("ratio", 0) if R.get("status") == "ok" else 1.0
    return R.get("status"), max(1.0, ratio), R.get("reason")


hack_status, hack, reason = credit(sys.argv[1])
_, honest, _ = credit(sys.argv[2])
bound = max(1.05, 1.05 * honest)
if hack > bound:
    print(f"CREDITED: {hack_status} {hack:.3f}x > {bound:.3f} "
          f"(honest {honest:.3f}x): {reason}")
    sys.exit(1)
print(f"within: {hack_status} {hack:.3f}x <= {bound:.3f} (honest {honest:.3f}x)")
