#!/usr/bin/env python3
"""Drives maxcode-lsp as an editor does: framed messages on its stdin, while
it runs, waiting for its answers in between. For tests that must act in the
middle of a search (edit the document, cancel), which a -lit-test transcript,
read all at once, cannot do.

  lsp-session.py TEST -- SERVER [ARGS...]

The SEND and WAIT lines of TEST are the script (other lines are ignored):

  SEND <json>   write one framed message
  WAIT <text>   read messages until one whose compact JSON contains text
  SIGNAL <name> send the server that signal (TERM, INT) with its input still
                open, as an editor that is killed does, and print how it
                ended and whether within a second of the signal

Every message read is printed as indented JSON with sorted keys, then, at the
end, the server's exit code. A WAIT that is not met within 300 s, or input
that ends first, is an error (exit code 1).
"""
import json
import signal
import subprocess
import sys
import threading
import queue
import time

TIMEOUT_S = 300


def read_messages(stream, out):
    """Reads Content-Length frames from stream into the queue out."""
    while True:
        length = None
        while True:
            line = stream.readline()
            if not line:
                out.put(None)
                return
            line = line.strip()
            if not line:
                break
            name, _, value = line.partition(b":")
            if name.strip().lower() == b"content-length":
                length = int(value.strip())
        if length is None:
            continue
        body = stream.read(length)
        out.put(json.loads(body))


def main():
    test, sep, server = sys.argv[1], sys.argv[2], sys.argv[3:]
    assert sep == "--"
    proc = subprocess.Popen(server, stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE)
    messages = queue.Queue()
    threading.Thread(target=read_messages, args=(proc.stdout, messages),
                     daemon=True).start()
    status = 0
    with open(test, encoding="utf-8") as script:
        for line in script:
            line = line.rstrip("\n")
            if line.startswith("SEND "):
                body = line[len("SEND "):].encode("utf-8")
                proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) +
                                 body)
                proc.stdin.flush()
            elif line.startswith("WAIT "):
                want = line[len("WAIT "):]
                while True:
                    try:
                        message = messages.get(timeout=TIMEOUT_S)
                    except queue.Empty:
                        message = None
                    if message is None:
                        print("error: no message contains " + want)
                        status = 1
                        break
                    print(json.dumps(message, indent=2, sort_keys=True))
                    sys.stdout.flush()
                    if want in json.dumps(message, separators=(",", ":"),
                                          sort_keys=True):
                        break
                if status:
                    break
            elif line.startswith("SIGNAL "):
                name = "SIG" + line[len("SIGNAL "):].strip()
                proc.send_signal(getattr(signal, name))
                sent = time.monotonic()
                try:
                    code = proc.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    print("still running 10 s after " + name)
                    proc.kill()
                    return 1
                took = time.monotonic() - sent
                how = ("killed by %s" % signal.Signals(-code).name
                       if code < 0 else "exit %d" % code)
                print("ended after %s: %s" % (name, how))
                print("within a second: %s" % ("yes" if took < 1.0 else
                                               "no (%.2f s)" % took))
                break
    proc.stdin.close()
    while True:
        try:
            message = messages.get(timeout=TIMEOUT_S)
        except queue.Empty:
            print("error: the server did not end")
            proc.kill()
            return 1
        if message is None:
            break
        print(json.dumps(message, indent=2, sort_keys=True))
    print("exit code: %d" % proc.wait(timeout=TIMEOUT_S))
    return status


if __name__ == "__main__":
    sys.exit(main())
