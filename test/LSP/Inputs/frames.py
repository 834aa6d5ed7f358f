#!/usr/bin/env python3
"""Turns the FRAME and RAW lines of a lit test into LSP input bytes.

  FRAME <json>              one well-formed Content-Length frame
  FRAME-LENGTH <n> <json>   a frame whose header says n bytes, right or wrong
  RAW <text>                bytes as written, with \\r \\n \\x.. escapes

Other lines (RUN, CHECK, comments) are ignored, so the input lives in the
test beside what it expects.
"""
import sys

out = sys.stdout.buffer
with open(sys.argv[1], encoding="utf-8") as test:
    for line in test:
        line = line.rstrip("\n")
        if line.startswith("FRAME "):
            body = line[len("FRAME "):].encode("utf-8")
            out.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        elif line.startswith("FRAME-LENGTH "):
            length, body = line[len("FRAME-LENGTH "):].split(" ", 1)
            out.write(b"Content-Length: " + length.encode() + b"\r\n\r\n" +
                      body.encode("utf-8"))
        elif line.startswith("RAW "):
            text = line[len("RAW "):]
            out.write(text.encode("utf-8").decode("unicode_escape")
                      .encode("latin-1"))
