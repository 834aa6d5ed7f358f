#!/usr/bin/env python3
"""usage: line-endings.py crlf FILE   (rewrites FILE with CRLF line endings)
          line-endings.py check FILE  (prints how FILE's lines end; exits 1
                                       when they are mixed)"""
import sys

Mode, Path = sys.argv[1:3]
Data = open(Path, "rb").read()
if Mode == "crlf":
    open(Path, "wb").write(Data.replace(b"\r\n", b"\n").replace(b"\n", b"\r\n"))
    sys.exit(0)
CRLF, LF = Data.count(b"\r\n"), Data.count(b"\n")
print("%s: %d lines, %d with CRLF, %d with LF alone" %
      (Path.rsplit("/", 1)[-1], LF, CRLF, LF - CRLF))
sys.exit(0 if CRLF in (0, LF) else 1)
