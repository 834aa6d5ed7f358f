#!/usr/bin/env python3
"""Counts what the rules propose for the GPU code of real projects.

For each source of a compile database: lists its targets
(`clang-maxcode --list-targets --format=json`), then, for each kernel and
device function, the rules' variants (`--list-variants --format=json
--target=NAME:LINE`), and prints per file and in all: targets, variants
listed, variants the build compiler rejected (dropped by the tool, blamed on
their rules), variants that build to the original's code (dropped: nothing
to measure). With --verify every listed variant is compiled again, apart
from the tool, with the database's own command (`-c`), and those that fail
are counted: the tool's promise is that there are none.

A header (a FILE no command names: a kernel defined in a `.cuh`) is listed
by the tool with the command it infers; with --verify its variants are
compiled as the project builds them: inside a source of the database that
includes it, in a copy of the project's tree made of hard links (--root)
where the header alone is replaced. A first compile with the header replaced
by an `#error` proves the source reads that copy; a header no source
includes has its variants left uncompiled, counted apart.

  utils/corpus/count-variants.py -p BUILD_DIR [FILE...] [--verify]
                                 [--root DIR] [--json F]

--json writes the per-file rows and the totals (utils/corpus/run-corpus.py
--variants reads them).

Python 3 standard library only. The project is never changed: variants are
written and compiled under a temporary folder.
"""

import argparse
import atexit
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile

REPO_ROOT = os.path.normpath(os.path.join(os.path.dirname(__file__), "..",
                                          ".."))
GPU_KINDS = ("cuda-kernel", "cuda-device-function")


def run_json(argv, timeout):
    try:
        p = subprocess.run(argv, capture_output=True, text=True,
                           timeout=timeout)
    except subprocess.TimeoutExpired:
        return None, "ran for more than %d s" % timeout
    if p.returncode != 0:
        return None, (p.stderr.strip().splitlines() or ["exit %d" %
                                                        p.returncode])[-1]
    return json.loads(p.stdout), None


def entry_argv(entry):
    if "arguments" in entry:
        return list(entry["arguments"])
    return shlex.split(entry["command"])


def compile_variant(entry, variant, timeout):
    """Compiles variant in place of entry's file; the first error or None."""
    argv = entry_argv(entry)
    src = os.path.normpath(os.path.join(entry["directory"], entry["file"]))
    out, skip = [], False
    for a in argv:
        if skip:
            skip = False
            continue
        # Nothing is written beside the project's objects: no dependency
        # file (a hard-linked tree copy shares the original's files).
        if a in ("-o", "--output-file", "-MF", "-MT", "-MQ",
                 "--dependency-output"):
            skip = True
            continue
        if a in ("-MD", "-MMD", "--generate-dependencies-with-compile",
                 "--generate-nonsystem-dependencies-with-compile") or (
                     a[:3] in ("-MF", "-MT", "-MQ") and len(a) > 3):
            continue
        if a.startswith("-o") and len(a) > 2:
            continue
        if a in ("-c", "--compile"):
            continue
        out.append(variant if os.path.normpath(
            os.path.join(entry["directory"], a)) == src else a)
    # The variant lies elsewhere: its quoted includes are looked for in the
    # original's folder, where the compiler would look first.
    if variant != src:
        out[1:1] = ["-I" + os.path.dirname(src)]
    with tempfile.TemporaryDirectory() as tmp:
        out += ["-c", "-o", os.path.join(tmp, "v.o")]
        env = dict(os.environ, TMPDIR=tmp)
        try:
            p = subprocess.run(out, cwd=entry["directory"],
                               capture_output=True, text=True,
                               timeout=timeout, env=env)
        except subprocess.TimeoutExpired:
            return "the compile ran for more than %d s" % timeout
    if p.returncode == 0:
        return None
    lines = [l for l in (p.stderr + p.stdout).splitlines()
             if "error" in l or "fatal" in l]
    return (lines or ["exit %d" % p.returncode])[0].strip()


_INCLUDE = re.compile(r'^[ \t]*#[ \t]*include[ \t]*["<]([^">]+)[">]', re.M)


def include_dirs(entry):
    """The folders entry's command searches for includes, in order."""
    argv, dirs = entry_argv(entry), []
    for i, a in enumerate(argv):
        for flag in ("-I", "-isystem", "--include-path", "-iquote"):
            if a == flag and i + 1 < len(argv):
                dirs.append(argv[i + 1])
            elif a.startswith(flag + "=") or (flag == "-I" and a.startswith(
                    "-I") and len(a) > 2):
                dirs.append(a[len(flag):].lstrip("="))
    return [os.path.normpath(os.path.join(entry["directory"], d))
            for d in dirs]


def includes_header(entry, header, root, depth=8):
    """Whether entry's source reaches header through includes resolved in
    its own folder, each includer's folder and the command's include
    folders, without leaving root."""
    search = include_dirs(entry)
    src = os.path.normpath(os.path.join(entry["directory"], entry["file"]))
    seen, todo = set(), [(src, 0)]
    while todo:
        path, level = todo.pop()
        if path in seen or level > depth:
            continue
        seen.add(path)
        try:
            with open(path, encoding="utf-8", errors="replace") as f:
                names = _INCLUDE.findall(f.read())
        except OSError:
            continue
        for name in names:
            for d in [os.path.dirname(path)] + search:
                cand = os.path.normpath(os.path.join(d, name))
                if os.path.isfile(cand):
                    if cand == header:
                        return True
                    if cand.startswith(root + os.sep):
                        todo.append((cand, level + 1))
                    break
    return False


class TreeCopy:
    """The project's tree (root) as hard links under a temporary folder,
    made once: a header replaced there (never through its link) is what a
    source compiled from the copy includes."""

    def __init__(self, root):
        self.root = root
        self.tmp = tempfile.mkdtemp(prefix="count-variants-tree-")
        # Removed at exit too, when a compile's error ends the count.
        atexit.register(shutil.rmtree, self.tmp, True)
        self.copy = os.path.join(self.tmp, "tree")
        os.mkdir(self.copy)
        for name in os.listdir(root):
            if name == ".git":
                continue
            # Hard links where the temporary folder shares the tree's file
            # system, a copy where it does not.
            src = os.path.join(root, name)
            if subprocess.run(["cp", "-al", src, self.copy],
                              stderr=subprocess.DEVNULL).returncode != 0:
                shutil.rmtree(os.path.join(self.copy, name),
                              ignore_errors=True)
                subprocess.run(["cp", "-a", src, self.copy], check=True)

    def mapped(self, text):
        return text.replace(self.root + os.sep, self.copy + os.sep) if (
            text != self.root) else self.copy

    def entry(self, entry):
        return {"directory": self.mapped(entry["directory"]),
                "file": self.mapped(os.path.normpath(os.path.join(
                    entry["directory"], entry["file"]))),
                "arguments": [self.mapped(a) for a in entry_argv(entry)]}

    def replace(self, header, text):
        path = self.mapped(header)
        if not path.startswith(self.copy + os.sep):
            raise ValueError("'%s' is not in '%s'" % (header, self.root))
        os.unlink(path)
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)

    def restore(self, header):
        path = self.mapped(header)
        os.unlink(path)
        try:
            os.link(header, path)
        except OSError:
            # Not ours to link (fs.protected_hardlinks): the copy is a copy.
            shutil.copy2(header, path)

    def close(self):
        shutil.rmtree(self.tmp, ignore_errors=True)


def compile_header_variant(tree, entry, header, text, timeout):
    """Compiles entry's source in tree with header's text replaced."""
    tree.replace(header, text)
    try:
        copied = tree.entry(entry)
        return compile_variant(copied, copied["file"], timeout)
    finally:
        tree.restore(header)


def header_includer(tree, by_file, header, timeout):
    """The command of a source whose compile includes header, from tree:
    (entry, None), or (None, why not)."""
    if not header.startswith(tree.root + os.sep):
        return None, "it is outside the project's folder '%s'" % tree.root
    for path, entry in sorted(by_file.items()):
        if not path.startswith(tree.root + os.sep) or not includes_header(
                entry, header, tree.root):
            continue
        copied = tree.entry(entry)
        if compile_variant(copied, copied["file"], timeout):
            continue  # It does not build as it is.
        marker = "count-variants: the header as replaced"
        why = compile_header_variant(tree, entry, header,
                                     '#error "%s"\n' % marker, timeout)
        if why and marker in why:
            return entry, None
    return None, "no source of the database that builds includes it"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-p", dest="build", required=True,
                    help="folder holding compile_commands.json")
    ap.add_argument("files", nargs="*",
                    help="sources (default: every .cu of the database)")
    ap.add_argument("--tool", default=os.path.join(REPO_ROOT, "build", "bin",
                                                   "clang-maxcode"))
    ap.add_argument("--verify", action="store_true",
                    help="compile every listed variant again, apart from "
                    "the tool")
    ap.add_argument("--root",
                    help="the project's folder, for headers' variants "
                    "(default: the folder holding BUILD_DIR's sources and "
                    "the files, in common)")
    ap.add_argument("--timeout", type=int, default=1800)
    ap.add_argument("--json", help="write the rows and totals to this file")
    args = ap.parse_args()

    db = json.load(open(os.path.join(args.build, "compile_commands.json")))
    by_file = {os.path.normpath(os.path.join(e["directory"], e["file"])): e
               for e in db}
    files = [os.path.abspath(f) for f in args.files] or sorted(
        f for f in by_file if f.endswith(".cu"))
    total = dict(targets=0, variants=0, rejected=0, unchanged=0, failed=0,
                 errors=0, original_fails=0, headers=0, no_includer=0)
    root = os.path.abspath(args.root) if args.root else os.path.commonpath(
        [p for p in by_file] + files)
    tree = None
    rows = []
    print("%-28s %7s %8s %8s %9s %s" % ("FILE", "TARGETS", "VARIANTS",
                                        "REJECTED", "UNCHANGED",
                                        "NVCC FAILS" if args.verify else ""))
    for f in files:
        row = dict(targets=0, variants=0, rejected=0, unchanged=0, failed=0,
                   errors=0, original_fails=0, headers=0, no_includer=0)
        # A variant of a file that does not build as it is cannot build
        # either: its failures are the file's, not the rules'.
        verify, includer = args.verify, None
        if verify and f in by_file:
            why = compile_variant(by_file[f], f, args.timeout)
            if why:
                print("%s: does not build as it is (%s): its variants are "
                      "not compiled" % (os.path.basename(f), why),
                      file=sys.stderr)
                row["original_fails"] = 1
                verify = False
        elif f not in by_file:
            row["headers"] = 1
        if verify and f not in by_file:
            if tree is None:
                tree = TreeCopy(root)
            includer, why = header_includer(tree, by_file, f, args.timeout)
            if includer is None:
                print("%s: %s: its variants are not compiled" %
                      (os.path.basename(f), why), file=sys.stderr)
                row["no_includer"] = 1
                verify = False
            else:
                row["includer"] = os.path.normpath(os.path.join(
                    includer["directory"], includer["file"]))
        listing, err = run_json([args.tool, "--list-targets", "--format=json",
                                 "-p", args.build, f], args.timeout)
        if err:
            print("%s: --list-targets failed: %s" % (f, err), file=sys.stderr)
            row["errors"] += 1
            listing = {"targets": []}
        for t in listing["targets"]:
            if t["kind"] not in GPU_KINDS:
                continue
            row["targets"] += 1
            with tempfile.TemporaryDirectory() as tmp:
                v, err = run_json(
                    [args.tool, "--list-variants", "--format=json", "-p",
                     args.build, f, "--target=%s:%d" % (t["name"], t["line"]),
                     "--write-variants=" + tmp], args.timeout)
                if err:
                    print("%s: %s:%d: --list-variants failed: %s" %
                          (f, t["name"], t["line"], err), file=sys.stderr)
                    row["errors"] += 1
                    continue
                row["variants"] += len(v["variants"])
                row["rejected"] += len(v["rejected"])
                row["unchanged"] += len(v.get("unchanged", []))
                for r in v["rejected"]:
                    print("%s: %s: rejected [%s] %s: %s" %
                          (os.path.basename(f), t["name"], ",".join(r["rules"]),
                           r["description"], r["error"]), file=sys.stderr)
                for r in v.get("unchanged", []):
                    print("%s: %s: unchanged [%s] %s: %s" %
                          (os.path.basename(f), t["name"], ",".join(r["rules"]),
                           r["description"], r["reason"]), file=sys.stderr)
                if not verify:
                    continue
                for n in range(1, len(v["variants"]) + 1):
                    path = os.path.join(tmp, "variant-%d%s" %
                                        (n, os.path.splitext(f)[1]))
                    if includer is None:
                        why = compile_variant(by_file[f], path, args.timeout)
                    else:
                        with open(path, encoding="utf-8") as vf:
                            why = compile_header_variant(
                                tree, includer, f, vf.read(), args.timeout)
                    if why:
                        row["failed"] += 1
                        print("%s: %s: variant %d fails: %s" %
                              (os.path.basename(f), t["name"], n, why),
                              file=sys.stderr)
        for k in total:
            total[k] += row[k]
        rows.append(dict(row, file=f))
        print("%-28s %7d %8d %8d %9d %s%s" % (
            os.path.basename(f), row["targets"], row["variants"],
            row["rejected"], row["unchanged"],
            row["failed"] if args.verify else "",
            "  (compiled in %s)" % os.path.basename(row["includer"])
            if "includer" in row else ""))
    print("%-28s %7d %8d %8d %9d %s" % (
        "all", total["targets"], total["variants"], total["rejected"],
        total["unchanged"], total["failed"] if args.verify else ""))
    if tree is not None:
        tree.close()
    if args.json:
        with open(args.json, "w", encoding="utf-8") as out:
            json.dump({"verified": args.verify, "files": rows,
                       "total": total}, out, indent=1)
    return 1 if total["errors"] or total["failed"] else 0


if __name__ == "__main__":
    sys.exit(main())
