#!/usr/bin/env python3
"""interrupt.py [--signal INT] WAITFILE -- CMD...: runs CMD, sends it the
signal once WAITFILE is not empty (a search's --progress-file: an evaluation
is done, the next under way), waits for it to end and prints
"exit=CODE" and how long it took to stop."""
import os
import signal
import subprocess
import sys
import time

args = sys.argv[1:]
sig = signal.SIGINT
if args[0] == "--signal":
    sig = getattr(signal, "SIG" + args[1])
    args = args[2:]
wait_file, cmd = args[0], args[2:]
p = subprocess.Popen(cmd)
deadline = time.monotonic() + 600
while time.monotonic() < deadline and p.poll() is None:
    if os.path.exists(wait_file) and os.path.getsize(wait_file) > 0:
        break
    time.sleep(0.05)
time.sleep(0.5)  # well inside the next evaluation
sent = time.monotonic()
p.send_signal(sig)
try:
    code = p.wait(timeout=120)
except subprocess.TimeoutExpired:
    p.kill()
    print("did not stop")
    sys.exit(1)
print(f"exit={code if code >= 0 else 128 - code}")
print(f"stopped in {time.monotonic() - sent:.0f} s", file=sys.stderr)
