#!/usr/bin/env python3
"""Reads --evaluate --format=json on stdin for a variant that is fast only on
the inputs the search saw (its held-out path is the original code), and fails
unless the result says so and credits the held-out ratio: at most 1.5x, what
a loaded machine can read from an unchanged program, far below the feedback
ratio. Prints one line, `shown only: REASON`, for FileCheck."""
import json
import sys

R = json.load(sys.stdin)
status, ratio = R.get("status"), R.get("ratio", 0)
feedback = R.get("feedback_ratio", 0)
if status != "ok" or not R.get("shown_inputs_only") or ratio > 1.5 or \
        feedback < 4 * ratio:
    print(f"NOT SHOWN ONLY: {status}: {ratio:.3f}x (feedback {feedback:.3f}x):"
          f" {R.get('reason')}")
    sys.exit(1)
print(f"shown only: {R.get('reason')}")
