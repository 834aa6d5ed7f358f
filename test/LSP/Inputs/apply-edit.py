#!/usr/bin/env python3
"""Applies the workspace/applyEdit that maxcode-lsp sent, as an editor
would, to a file on disk.

  apply-edit.py OUTPUT FILE

OUTPUT is the server's framed output (as -lit-test prints it); the edits of
its first workspace/applyEdit request are applied to FILE in place. Positions
are LSP's: 0-based lines, UTF-16 code units.
"""
import json
import sys


def frames(data):
    """The JSON bodies of Content-Length frames in data."""
    while data:
        header, _, rest = data.partition(b"\r\n\r\n")
        length = None
        for line in header.split(b"\r\n"):
            name, _, value = line.partition(b":")
            if name.strip().lower() == b"content-length":
                length = int(value)
        yield json.loads(rest[:length])
        data = rest[length:]


def offset(text, position):
    lines = text.split("\n")
    start = sum(len(l) + 1 for l in lines[:position["line"]])
    line = lines[position["line"]]
    units = 0
    for i, ch in enumerate(line):
        if units >= position["character"]:
            return start + i
        units += 2 if ord(ch) > 0xFFFF else 1
    return start + len(line)


def main():
    output, path = sys.argv[1], sys.argv[2]
    with open(output, "rb") as f:
        messages = list(frames(f.read()))
    edit = next(m["params"]["edit"] for m in messages
                if m.get("method") == "workspace/applyEdit")
    if "documentChanges" in edit:
        edits = [e for change in edit["documentChanges"]
                 for e in change["edits"]]
    else:
        edits = [e for es in edit["changes"].values() for e in es]
    with open(path, encoding="utf-8") as f:
        text = f.read()
    # Non-overlapping edits, applied from the last to the first.
    for e in sorted(edits, key=lambda e: (e["range"]["start"]["line"],
                                          e["range"]["start"]["character"]),
                    reverse=True):
        begin = offset(text, e["range"]["start"])
        end = offset(text, e["range"]["end"])
        text = text[:begin] + e["newText"] + text[end:]
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


if __name__ == "__main__":
    main()
