#!/usr/bin/env python3
"""within.py SECONDS CMD...: runs CMD, passes its stdout and exit code on,
and fails (exit 124) if it takes longer than SECONDS, killing it."""
import subprocess
import sys
import time

limit = float(sys.argv[1])
start = time.monotonic()
try:
    p = subprocess.run(sys.argv[2:], timeout=limit, stdout=subprocess.PIPE)
except subprocess.TimeoutExpired:
    print(f"took more than {limit} s", file=sys.stderr)
    sys.exit(124)
sys.stdout.buffer.write(p.stdout)
print(f"returned in {time.monotonic() - start:.0f} s", file=sys.stderr)
sys.exit(p.returncode)
