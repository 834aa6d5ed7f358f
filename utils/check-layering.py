#!/usr/bin/env python3
#===-- utils/check-layering.py - The libraries' layering, enforced --------===#
#
# Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
#
#===-----------------------------------------------------------------------===#
"""Checks that the code keeps the layering docs/Architecture.md writes down.

Three things must agree, and this script fails naming each disagreement:

  1. the table "Layers" in docs/Architecture.md: each library and the
     libraries it may use;
  2. each lib/<Library>/CMakeLists.txt: the maxcode libraries it links
     (LINK_LIBS of add_maxcode_library), which must be exactly the table's;
  3. the includes: a file under lib/<Library>/ or include/maxcode/<Library>/
     may include "maxcode/<Other>/..." only when <Other> is the library
     itself or one the table lets it use.

The table must also be free of cycles. Tools (tools/), tests and fuzzers sit
above every library and are not checked.

Usage: check-layering.py [SOURCE_ROOT]   (default: this script's project)
"""

import os
import re
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s*[<"]maxcode/([A-Za-z]+)/', re.M)
ROW = re.compile(r'^\|\s*`?([A-Za-z]+)`?\s*\|\s*([^|]*)\|')


def read(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        return f.read()


def documented_layers(root, problems):
    """{library: set of libraries it may use} from docs/Architecture.md."""
    path = os.path.join(root, "docs", "Architecture.md")
    text = read(path)
    start = text.find("<!-- layers -->")
    end = text.find("<!-- /layers -->")
    if start < 0 or end < start:
        problems.append(f"{path}: no table between '<!-- layers -->' and "
                        "'<!-- /layers -->'")
        return {}
    layers = {}
    for line in text[start:end].splitlines():
        m = ROW.match(line)
        if not m or m.group(1) in ("library", "Library"):
            continue
        uses = {u.strip(" `") for u in m.group(2).split(",")}
        layers[m.group(1)] = {u for u in uses if u and u != "-"}
    return layers


def linked_layers(root, problems):
    """{library: set of maxcode libraries it links} from lib/*/CMakeLists."""
    linked = {}
    lib = os.path.join(root, "lib")
    for name in sorted(os.listdir(lib)):
        cmake = os.path.join(lib, name, "CMakeLists.txt")
        if not os.path.isfile(cmake):
            continue
        text = read(cmake)
        m = re.search(r"add_maxcode_library\((.*?)\)", text, re.S)
        if not m:
            problems.append(f"{cmake}: no add_maxcode_library")
            continue
        after = m.group(1).split("LINK_LIBS", 1)
        libs = after[1].split() if len(after) == 2 else []
        linked[name] = {l[len("maxcode"):] for l in libs
                        if re.fullmatch(r"maxcode[A-Z][A-Za-z]*", l)}
    return linked


def find_cycle(layers):
    state = {}

    def visit(node, path):
        state[node] = "open"
        for dep in sorted(layers.get(node, ())):
            if state.get(dep) == "open":
                return path + [node, dep]
            if dep not in state:
                cycle = visit(dep, path + [node])
                if cycle:
                    return cycle
        state[node] = "done"
        return None

    for node in sorted(layers):
        if node not in state:
            cycle = visit(node, [])
            if cycle:
                return cycle
    return None


def main():
    root = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else
                           os.path.join(os.path.dirname(__file__), ".."))
    problems = []
    layers = documented_layers(root, problems)
    linked = linked_layers(root, problems)

    for name in sorted(set(layers) | set(linked)):
        if name not in linked:
            problems.append(f"docs/Architecture.md: '{name}' is no library "
                            "under lib/")
            continue
        if name not in layers:
            problems.append(f"lib/{name}: not in docs/Architecture.md's table")
            continue
        if layers[name] != linked[name]:
            problems.append(
                f"lib/{name}/CMakeLists.txt links "
                f"{', '.join(sorted(linked[name])) or 'nothing'}; "
                f"docs/Architecture.md says "
                f"{', '.join(sorted(layers[name])) or 'nothing'}")
    cycle = find_cycle(layers)
    if cycle:
        problems.append("docs/Architecture.md: a cycle: " + " -> ".join(cycle))

    for name in sorted(linked):
        allowed = layers.get(name, set()) | {name}
        for top in (os.path.join(root, "lib", name),
                    os.path.join(root, "include", "maxcode", name)):
            for folder, _, files in os.walk(top):
                for f in sorted(files):
                    if not f.endswith((".h", ".cpp", ".inc", ".def")):
                        continue
                    path = os.path.join(folder, f)
                    text = read(path)
                    for m in INCLUDE.finditer(text):
                        if m.group(1) not in allowed:
                            line = text.count("\n", 0, m.start()) + 1
                            rel = os.path.relpath(path, root)
                            problems.append(
                                f"{rel}:{line}: {name} includes "
                                f"maxcode/{m.group(1)}/, which it may not "
                                "use (docs/Architecture.md)")

    for p in problems:
        print("layering: " + p)
    if problems:
        return 1
    print(f"layering: {len(linked)} libraries, as docs/Architecture.md says")
    return 0


if __name__ == "__main__":
    sys.exit(main())
