#!/usr/bin/env python3
# ===-- utils/corpus/rule-check.py - The rules' variants on real code -----===#
#
# Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
#
# ===-----------------------------------------------------------------------===#
"""Checks that the variants the rewrite rules propose on real code compile.

For each project (a checkout with a recipe in utils/corpus/recipes/, as
run-corpus.py takes them): its compile database is made as run-corpus.py
makes it, every Nth source file is kept (database order, --every), and for
each kept file:

  1. the original is checked the way the variants will be (below); a file
     whose original fails is reported and skipped: its variants say nothing
     about the rules;
  2. `clang-maxcode --list-targets --format=json` lists its targets; the
     first --targets of them that are not blocked (the tool's ranking: its
     static estimate, ties in source order) are taken;
  3. `clang-maxcode --list-variants --target=T --write-variants=DIR` writes
     every variant the rules propose for T, and its heading lines
     (`variant N [rule,...]: description`) say which rules made each. The
     tool proposes at most 16 variants a target; when it proposed that many,
     each rule seen only in combinations is asked again alone
     (`--rules=ID`). Variants of a file are counted once (by text), whichever
     target proposed them;
  4. each variant "parses" when `clang++-22 -fsyntax-only` accepts it with
     the file's compile flags, and "builds" when the project's compiler
     (`g++` for these projects) compiles it to an object file (`-c`, into a
     scratch folder) with the same flags. The variant is fed on stdin
     (`-x c++ -`) with `-iquote` the file's folder, so that its quoted
     includes resolve as the file's do; nothing is written beside the
     project's files. Only variants that parse are built.

It prints one row per rule (variants proposed by that rule alone, parse,
build, and the first failure: stage, file, error), one row for variants that
combine several rules, and the totals. docs/Rules.md, "Rules on real code",
has the table for leveldb and TheAlgorithms/C-Plus-Plus.

  nice -n 19 utils/corpus/rule-check.py --corpus ~/corpus \\
      --only leveldb,TheAlgorithms-C-Plus-Plus --every leveldb=2 \\
      --every TheAlgorithms-C-Plus-Plus=6 --json rule-check.json

Python 3 standard library only. One process at a time (it is meant to run
beside benchmarks). The projects are never changed: databases, CMake build
folders and variants go under --work.
"""

import argparse
import collections
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import corpus  # noqa: E402

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))

# What --list-variants proposes at most for one target (RuleTool.h).
VARIANT_CAP = 16

_HEADING = re.compile(r"^variant (\d+) \[([^\]]*)\]: (.*)$")
_ERROR = re.compile(r"^(?P<where>[^:\s]*:\d+:\d+): (?:fatal )?error: "
                    r"(?P<msg>.*)$")


def command_flags(entry, path):
    """The flags of a database entry: its compiler, output and dependency
    flags, -c and the source itself left out."""
    return [a for a in corpus.command_writing_nothing(entry)[1:]
            if a not in ("-c", "-fsyntax-only", entry["file"], path)]


def first_error(stderr, name):
    """'where: message' of the first error in a compiler's output, with
    <stdin> named as the variant."""
    for line in stderr.splitlines():
        m = _ERROR.match(line)
        if m:
            where = m.group("where").replace("<stdin>", name)
            return "%s: %s" % (where, m.group("msg"))
    for line in stderr.splitlines():
        if "error" in line:
            return line.strip()
    return stderr.strip().splitlines()[-1] if stderr.strip() else \
        "failed with no message"


def compile_text(compiler, flags, directory, path, text, mode, scratch,
                 timeout):
    """None when compiler accepts text as path's contents, else the first
    error. mode: "parse" (-fsyntax-only) or "build" (-c into scratch)."""
    cmd = [compiler] + flags + ["-iquote", os.path.dirname(path)]
    if mode == "parse":
        cmd += ["-fsyntax-only"]
    else:
        cmd += ["-c", "-o", os.path.join(scratch, "variant.o")]
    cmd += ["-x", "c++", "-"]
    try:
        p = subprocess.run(cmd, input=text, capture_output=True, text=True,
                           cwd=directory, timeout=timeout)
    except subprocess.TimeoutExpired:
        return "%s timed out after %ds" % (mode, timeout)
    except OSError as e:
        return "cannot run %s: %s" % (compiler, e)
    if p.returncode == 0:
        return None
    return first_error(p.stderr, os.path.basename(path))


def list_targets(tool, db_dir, path, timeout):
    """(names of the targets in the tool's order, error or None)."""
    try:
        p = subprocess.run([tool, "--list-targets", "--format=json", "-p",
                            db_dir, path], capture_output=True, text=True,
                           timeout=timeout)
    except subprocess.TimeoutExpired:
        return [], "--list-targets timed out"
    if p.returncode != 0:
        return [], "--list-targets: " + first_error(p.stderr, path)
    try:
        doc = json.loads(p.stdout)
    except ValueError:
        return [], "--list-targets printed no JSON"
    blocked = set(b.get("name") for b in doc.get("blocked", []))
    return [t["name"] for t in doc.get("targets", [])
            if t["name"] not in blocked], None


def list_variants(tool, db_dir, path, target, rules, timeout):
    """([(rules, description, text)], error or None) for one target."""
    out_dir = tempfile.mkdtemp(prefix="rule-check-variants-")
    try:
        cmd = [tool, "--list-variants", "--target=" + target,
               "--write-variants=" + out_dir, "-p", db_dir, path]
        if rules:
            cmd.insert(1, "--rules=" + rules)
        try:
            p = subprocess.run(cmd, capture_output=True, text=True,
                               timeout=timeout)
        except subprocess.TimeoutExpired:
            return [], "--list-variants timed out"
        if p.returncode != 0:
            return [], "--list-variants: " + first_error(p.stderr, path)
        ext = os.path.splitext(path)[1]
        variants = []
        for line in p.stdout.splitlines():
            m = _HEADING.match(line)
            if not m:
                continue
            name = os.path.join(out_dir, "variant-%s%s" % (m.group(1), ext))
            with open(name, encoding="utf-8", errors="surrogateescape") as f:
                text = f.read()
            variants.append((m.group(2).split(","), m.group(3), text))
        return variants, None
    finally:
        shutil.rmtree(out_dir, ignore_errors=True)


def file_variants(args, db_dir, path):
    """Every variant the rules propose for the file's first targets, each
    text once: ([record], error or None)."""
    targets, err = list_targets(args.tool, db_dir, path, args.timeout)
    if err:
        return [], err
    seen, records = set(), []

    def add(target, found):
        for rules, description, text in found:
            digest = hashlib.sha256(text.encode("utf-8",
                                                "surrogateescape")).hexdigest()
            if digest in seen:
                continue
            seen.add(digest)
            records.append({"target": target, "rules": rules,
                            "description": description, "text": text})

    for target in targets[:args.targets]:
        found, err = list_variants(args.tool, db_dir, path, target,
                                   args.rules, args.timeout)
        if err:
            return records, "%s: %s" % (target, err)
        add(target, found)
        if len(found) < VARIANT_CAP:
            continue
        # Capped: the rules seen only combined may have had edits alone left
        # out; ask for each of them alone.
        alone = set(r[0] for r, _d, _t in found if len(r) == 1)
        combined = sorted(set(x for r, _d, _t in found if len(r) > 1
                              for x in r) - alone)
        for rule in combined:
            more, err = list_variants(args.tool, db_dir, path, target, rule,
                                      args.timeout)
            if err:
                return records, "%s (--rules=%s): %s" % (target, rule, err)
            add(target, more)
    return records, None


def check_project(args, folder, recipe, every, scratch, out):
    """One project: its records, one per file."""
    name = recipe["name"]
    db_dir, sources, _headers = corpus.make_database(recipe, folder,
                                                     args.work,
                                                     args.corpus_root)
    with open(os.path.join(db_dir, "compile_commands.json"),
              encoding="utf-8") as f:
        entries = {}
        for e in json.load(f):
            p = e["file"]
            if not os.path.isabs(p):
                p = os.path.normpath(os.path.join(e["directory"], p))
            entries.setdefault(p, e)
    sample = sources[::every]
    if args.limit:
        sample = sample[:args.limit]
    out.write("%s: %d of %d files (every %d), commit %s\n" % (
        name, len(sample), len(sources), every,
        corpus.checkout_commit(folder) or "unknown"))
    out.flush()
    files = []
    for path in sample:
        entry = entries[path]
        flags = command_flags(entry, path)
        rel = os.path.relpath(path, folder)
        record = {"project": name, "file": rel, "variants": []}
        files.append(record)
        start = time.time()
        with open(path, encoding="utf-8", errors="surrogateescape") as f:
            original = f.read()
        for mode, compiler in (("parse", args.clang), ("build", args.gcc)):
            err = compile_text(compiler, flags, entry["directory"], path,
                               original, mode, scratch, args.timeout)
            if err:
                record["baseline_error"] = "%s: %s" % (mode, err)
                break
        if "baseline_error" in record:
            out.write("  %s: original fails (%s), skipped\n" % (
                rel, record["baseline_error"]))
            continue
        variants, err = file_variants(args, db_dir, path)
        if err:
            record["tool_error"] = err
        for v in variants:
            text = v.pop("text")
            v["parse_error"] = compile_text(args.clang, flags,
                                            entry["directory"], path, text,
                                            "parse", scratch, args.timeout)
            v["build_error"] = None if v["parse_error"] else compile_text(
                args.gcc, flags, entry["directory"], path, text, "build",
                scratch, args.timeout)
            record["variants"].append(v)
        record["seconds"] = round(time.time() - start, 1)
        bad = sum(1 for v in record["variants"]
                  if v["parse_error"] or v["build_error"])
        out.write("  %s: %d variants, %d fail%s (%.0fs)\n" % (
            rel, len(record["variants"]), bad,
            ("; tool: " + err) if err else "", record["seconds"]))
        out.flush()
    return files


def print_table(files, rule_ids, out):
    """The per-rule table (Markdown) of every file's variants."""
    rows = collections.OrderedDict((r, [0, 0, 0, ""]) for r in rule_ids)
    combined = [0, 0, 0, ""]
    for record in files:
        for v in record["variants"]:
            row = combined if len(v["rules"]) > 1 else rows.setdefault(
                v["rules"][0], [0, 0, 0, ""])
            row[0] += 1
            if not v["parse_error"]:
                row[1] += 1
            if not v["parse_error"] and not v["build_error"]:
                row[2] += 1
            if not row[3] and (v["parse_error"] or v["build_error"]):
                stage = "parse" if v["parse_error"] else "build"
                row[3] = "%s, %s (%s): %s" % (
                    stage, record["file"], v["target"],
                    v["parse_error"] or v["build_error"])
    out.write("| rule | proposed | parse | build | first failure |\n")
    out.write("| --- | ---: | ---: | ---: | --- |\n")
    total = [0, 0, 0]
    for rule, row in list(rows.items()) + [("(several rules)", combined)]:
        for i in range(3):
            total[i] += row[i]
        out.write("| %s | %d | %d | %d | %s |\n" % (
            rule, row[0], row[1], row[2],
            row[3].replace("|", "\\|") or "-"))
    out.write("| all | %d | %d | %d | |\n" % tuple(total))


def rule_list(tool):
    """The rule ids of --list-rules, in its order."""
    p = subprocess.run([tool, "--list-rules"], capture_output=True,
                       text=True, check=True)
    return [line.split()[0] for line in p.stdout.splitlines() if line.strip()]


def main():
    ap = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("folders", nargs="*", help="checkouts of projects")
    ap.add_argument("--corpus", help="folder of checkouts (with --only)")
    ap.add_argument("--only", default="",
                    help="projects to check, comma-separated recipe names")
    ap.add_argument("--recipes", default=corpus.RECIPE_DIR,
                    help="folder of recipes (default: utils/corpus/recipes)")
    ap.add_argument("--corpus-root",
                    help="what {corpus} means in recipes (default: the "
                         "folder holding the checkout)")
    ap.add_argument("--tool", default=os.path.join(REPO_ROOT, "build", "bin",
                                                   "clang-maxcode"))
    ap.add_argument("--work", default=os.path.join(tempfile.gettempdir(),
                                                   "maxcode-rule-check"),
                    help="databases and CMake build folders go here")
    ap.add_argument("--every", action="append", default=[],
                    help="N, or NAME=N for one project: every Nth file of "
                         "the project's sources in database order, from "
                         "the first (default 1)")
    ap.add_argument("--limit", type=int, default=0,
                    help="at most this many files per project")
    ap.add_argument("--targets", type=int, default=2,
                    help="the first N targets of each file (default 2)")
    ap.add_argument("--rules", default="",
                    help="the rules the tool may use, as its --rules "
                         "(default: all)")
    ap.add_argument("--clang", default="clang++-22",
                    help="the compiler that checks a variant parses")
    ap.add_argument("--gcc", default="g++",
                    help="the compiler that checks a variant builds")
    ap.add_argument("--timeout", type=int, default=300,
                    help="seconds one tool or compiler run may take")
    ap.add_argument("--json", help="write every variant's record here")
    args = ap.parse_args()

    if not os.access(args.tool, os.X_OK):
        ap.error("no clang-maxcode at '%s' (build it, or give --tool)"
                 % args.tool)
    args.tool = os.path.abspath(args.tool)
    every, default_every = {}, 1
    for e in args.every:
        name, _, n = e.rpartition("=")
        if not n.isdigit() or int(n) < 1:
            ap.error("--every wants N or NAME=N with N >= 1, not '%s'" % e)
        if name:
            every[name] = int(n)
        else:
            default_every = int(n)
    try:
        recipes = corpus.load_recipes(args.recipes)
    except corpus.RecipeError as e:
        ap.error(str(e))
    only = [n for n in args.only.split(",") if n]
    folders = list(args.folders)
    if not folders:
        if not args.corpus or not only:
            ap.error("give project folders, or --corpus and --only")
        for n in only:
            if n not in recipes:
                ap.error("no recipe '%s' in %s" % (n, args.recipes))
            folders.append(os.path.join(args.corpus, recipes[n]["folder"]))
    projects = []
    for folder in folders:
        if not os.path.isdir(folder):
            ap.error("'%s' is not a folder" % folder)
        recipe = corpus.recipe_for_folder(folder, recipes)
        if recipe is None:
            try:
                recipe = corpus.default_recipe(folder)
            except corpus.RecipeError as e:
                ap.error(str(e))
        if recipe["kind"] != "cpp":
            ap.error("'%s' is a %s project: this check builds C++ with g++"
                     % (folder, recipe["kind"]))
        projects.append((os.path.abspath(folder), recipe))

    start = time.time()
    files = []
    scratch = tempfile.mkdtemp(prefix="rule-check-")
    try:
        for folder, recipe in projects:
            try:
                files += check_project(
                    args, folder, recipe,
                    every.get(recipe["name"], default_every), scratch,
                    sys.stdout)
            except (corpus.RecipeError, OSError, ValueError,
                    subprocess.SubprocessError) as e:
                sys.stderr.write("rule-check: %s: %s\n" % (recipe["name"], e))
                return 1
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    sys.stdout.write("\n")
    print_table(files, rule_list(args.tool), sys.stdout)
    skipped = sum(1 for f in files if "baseline_error" in f)
    sys.stdout.write("\n%d files, %d skipped (the original fails), %.0fs\n" % (
        len(files), skipped, time.time() - start))
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump({"tool": args.tool, "files": files}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
