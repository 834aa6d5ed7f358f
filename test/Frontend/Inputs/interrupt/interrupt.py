"""Starts a command, sends it a signal once it has run for a while, and says
how long it took to end after the signal and how it ended.

  interrupt.py SIGNAL DELAY COMMAND [ARG...]

DELAY is seconds, or FILE~TEXT: the signal is then sent 0.3 s after FILE
(a search's --progress-file) first holds TEXT (a regular expression).

Prints "ended N.NN s after SIGTERM: killed by SIGTERM" (or "exit N") and
"within a second: yes|no"; the command's own output goes to the files
interrupt.out and interrupt.err in the current folder. Exits 1 if the
command was still running 10 s after the signal (it is then killed).
"""
import os
import re
import signal
import subprocess
import sys
import time

sig = getattr(signal, sys.argv[1])
watched = wanted = None
delay = 0.0
if "~" in sys.argv[2]:
    watched, wanted = sys.argv[2].split("~", 1)
else:
    delay = float(sys.argv[2])
with open("interrupt.out", "wb") as out, open("interrupt.err", "wb") as err:
    proc = subprocess.Popen(sys.argv[3:], stdout=out, stderr=err)
    try:
        if watched is None:
            proc.wait(timeout=delay)
        else:
            deadline = time.monotonic() + 600
            while proc.poll() is None and time.monotonic() < deadline:
                if os.path.exists(watched) and re.search(
                        wanted, open(watched, errors="replace").read()):
                    break
                time.sleep(0.05)
            proc.wait(timeout=0.3)
        print("ended before the signal: exit %d" % proc.returncode)
        sys.exit(1)
    except subprocess.TimeoutExpired:
        pass
    proc.send_signal(sig)
    sent = time.monotonic()
    try:
        code = proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
        print("still running 10 s after %s" % sys.argv[1])
        sys.exit(1)
    took = time.monotonic() - sent
how = ("killed by %s" % signal.Signals(-code).name if code < 0
       else "exit %d" % code)
print("ended %.2f s after %s: %s" % (took, sys.argv[1], how))
print("within a second: %s" % ("yes" if took < 1.0 else "no"))
