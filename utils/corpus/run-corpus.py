#!/usr/bin/env python3
"""Runs clang-maxcode --list-targets on every source file of real projects.

For each project folder: makes its compile database (its recipe in
utils/corpus/recipes/, or its own compile_commands.json, or a CMake
configure), runs `clang-maxcode --list-targets --format=json -p DB FILE` on
each source, and prints one line per project: files, files parsed (with no
error, and with errors that block only some targets), files that failed,
kernels and functions found, and then the first error of each failure grouped
by cause, with the project's own compiler's verdict on each such file.
docs/CUDA.md, "Real code: the corpus", says more.

  utils/corpus/run-corpus.py --corpus ~/corpus
  utils/corpus/run-corpus.py ~/corpus/llm.c ~/corpus/leveldb -j2

Python 3 standard library only. The projects are never changed: databases,
CMake build folders and per-file outputs go under --work.
"""

import argparse
import collections
import concurrent.futures
import json
import os
import re
import shlex
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import corpus  # noqa: E402

REPO_ROOT = os.path.normpath(os.path.join(os.path.dirname(__file__), "..",
                                          ".."))

# "path:12:3: fatal error: 'omp.h' file not found" -> the message.
_DIAG = re.compile(r"^(?P<where>[^:\s][^:]*:\d+:\d+): (?:fatal )?error: "
                   r"(?P<msg>.*)$")
_TOOL_ERROR = re.compile(r"^(?:clang-maxcode|clang\S*): error: (?P<msg>.*)$")


def first_error(stderr):
    """(where, message) of the first error in the tool's stderr."""
    tool = None
    for line in stderr.splitlines():
        m = _DIAG.match(line)
        if m:
            return m.group("where"), m.group("msg")
        m = _TOOL_ERROR.match(line)
        if m and tool is None:
            tool = ("", m.group("msg"))
    return tool or ("", "no error message (see the output file)")


def cause_of(message):
    """The group a first error falls in: its text without the places and
    line numbers that differ from file to file."""
    message = re.sub(r"'[^']*/([^/']+)'", r"'\1'", message)
    return re.sub(r"\s+", " ", message).strip()


# nvcc's architecture flags, with or without a separate value.
_NVCC_ARCH_FLAGS = ("-arch", "--gpu-architecture", "-code", "--gpu-code",
                    "-gencode", "--generate-code", "--gpu-name")
_NVCC_OUTPUT_FLAGS = ("-c", "--compile", "-dc", "--device-c", "-cuda",
                      "--cuda")
_INFERRED = re.compile(r"using inferred from (?P<file>\S+)\s*$", re.M)


def nvcc_check_command(entry, path, nvcc, output):
    """The entry's nvcc command turned into a whole compile of path (nvcc -c,
    host and device: the front end alone, nvcc -cuda, lets the host
    compiler's errors pass) into output, for sm_90: CUDA 13's nvcc knows no
    architecture older than sm_75, and the check is about the code."""
    args = entry.get("arguments") or shlex.split(
        entry["command"])
    out = [nvcc]
    skip = False
    for a in args[1:]:
        if skip:
            skip = False
            continue
        if a in ("-o", "--output-file") or a in _NVCC_ARCH_FLAGS:
            skip = True
            continue
        if a.split("=", 1)[0] in _NVCC_ARCH_FLAGS or \
                a.startswith("--output-file=") or a in _NVCC_OUTPUT_FLAGS:
            continue
        if os.path.normpath(os.path.join(entry["directory"], a)) == \
                os.path.normpath(os.path.join(entry["directory"],
                                              entry["file"])):
            continue
        out.append(a)
    return out + ["-arch=sm_90", "-c", "-x", "cu", path, "-o", output]


def gcc_check_command(entry):
    """The entry's GCC command with -fsyntax-only, writing nothing."""
    return corpus.command_writing_nothing(entry) + ["-fsyntax-only"]


def _is_gcc(argv0):
    base = os.path.basename(argv0)
    return "clang" not in base and "nvcc" not in base and (
        "g++" in base or "gcc" in base or base in ("c++", "cc"))


def compiler_verdict(record, stderr, db, nvcc, timeout):
    """Runs the project's own compiler on a file clang-maxcode did not parse
    cleanly: nvcc -c for nvcc commands, GCC's -fsyntax-only for GCC ones.
    Does that compiler accept the file?"""
    entry = db.get(os.path.normpath(record["file"]))
    if entry is None:
        m = _INFERRED.search(stderr)
        if m:
            entry = db.get(os.path.normpath(m.group("file")))
    if entry is None:
        return {"compiler": "", "accepts": None,
                "error": "no command to check with"}
    argv0 = (entry.get("arguments") or shlex.split(entry["command"]))[0]
    with tempfile.TemporaryDirectory(prefix="corpus-check-") as scratch:
        if os.path.basename(argv0).startswith("nvcc") and nvcc:
            name, cmd = "nvcc", nvcc_check_command(
                entry, record["file"], nvcc, os.path.join(scratch, "check.o"))
        elif _is_gcc(argv0) and not record["header"]:
            name, cmd = os.path.basename(argv0), gcc_check_command(entry)
        else:
            return {"compiler": "", "accepts": None, "error": "not checked"}
        try:
            p = subprocess.run(cmd, capture_output=True, text=True,
                               timeout=timeout, cwd=entry["directory"])
        except subprocess.TimeoutExpired:
            return {"compiler": name, "accepts": None, "error": "timed out"}
        except OSError as e:
            return {"compiler": name, "accepts": None, "error": str(e)}
    if p.returncode == 0:
        return {"compiler": name, "accepts": True, "error": ""}
    first = ""
    for line in (p.stdout + p.stderr).splitlines():
        if "error" in line:
            first = line.strip()
            break
    return {"compiler": name, "accepts": False, "error": first}


def run_file(tool, db_dir, path, timeout, out_dir, index):
    """Lists one file's targets; returns its result record."""
    cmd = [tool, "--list-targets", "--format=json", "-p", db_dir, path]
    start = time.monotonic()
    try:
        p = subprocess.run(cmd, capture_output=True, text=True,
                           timeout=timeout)
        rc, stdout, stderr = p.returncode, p.stdout, p.stderr
    except subprocess.TimeoutExpired as e:
        rc = None
        stdout = e.stdout.decode() if isinstance(e.stdout, bytes) else ""
        stderr = e.stderr.decode() if isinstance(e.stderr, bytes) else ""
    seconds = time.monotonic() - start
    stem = "%04d-%s" % (index, os.path.basename(path))
    with open(os.path.join(out_dir, stem + ".stderr"), "w",
              encoding="utf-8") as f:
        f.write(stderr)
    record = {"file": path, "seconds": round(seconds, 2), "rc": rc,
              "kernels": 0, "kernels_launched": 0, "functions": 0,
              "blocked": 0, "device_only": 0, "parse_errors": 0,
              "first_error": None}
    if rc is None:
        record["status"] = "timeout"
        record["first_error"] = {"where": "", "message":
                                 "timed out after %d s" % timeout}
        return record
    listing = None
    if rc == 0:
        try:
            listing = json.loads(stdout)
        except ValueError:
            listing = None
    if listing is None:
        where, msg = first_error(stderr)
        record["status"] = "failed"
        record["first_error"] = {"where": where, "message": msg}
        return record
    for t in listing.get("targets", []):
        if t["kind"] == "cuda-kernel":
            record["kernels"] += 1
            if t["launch_sites"]:
                record["kernels_launched"] += 1
        else:
            record["functions"] += 1
        if t.get("pass") == "device":
            record["device_only"] += 1
    record["blocked"] = len(listing.get("blocked", []))
    record["parse_errors"] = listing.get("parse_errors", 0)
    if record["parse_errors"]:
        where, msg = first_error(stderr)
        record["status"] = "errors"
        record["first_error"] = {"where": where, "message": msg}
    else:
        record["status"] = "clean"
    return record


# What --without can leave out of the tool's additions to a parse command:
# (name, option, what its value ends with).
_ADDITIONS = {
    "texture-shim": ("-isystem", "/cuda-shim"),
    "compat": ("-include", "/maxcode_cuda_compat.h"),
    "omp-wrapper": ("-isystem", "/host-compat"),
    "gcc-include": ("-idirafter", "/include"),
}


def driver_command(args, db_dir, path):
    """The tool's parse command for path, for the Clang driver --clang
    names: its own resource folder, -fsyntax-only, --without's parts out."""
    p = subprocess.run([args.tool, "--print-parse-command", "--format=json",
                        "-p", db_dir, path], capture_output=True, text=True,
                       timeout=120)
    if p.returncode != 0:
        raise RuntimeError(p.stderr.strip().splitlines()[-1] if p.stderr
                           else "no parse command")
    entry = json.loads(p.stdout)["commands"][0]
    argv = entry["arguments"]
    # First: a header's command ends in "-- FILE".
    out = [args.clang, "-fsyntax-only"]
    i = 1
    while i < len(argv):
        a = argv[i]
        dropped = False
        for name in args.without:
            opt, suffix = _ADDITIONS[name]
            if a == opt and i + 1 < len(argv) and \
                    argv[i + 1].rstrip("/").endswith(suffix):
                i += 2
                dropped = True
                break
        if dropped:
            continue
        if a.startswith("-resource-dir"):
            a = "-resource-dir=" + args.clang_resource_dir
        out.append(a)
        i += 1
    return entry["directory"], out


def run_file_driver(args, db_dir, path, out_dir, index):
    """Parses one file with the --clang driver; a record as run_file's, with
    no targets (the driver lists none)."""
    record = {"file": path, "rc": None, "kernels": 0, "kernels_launched": 0,
              "functions": 0, "blocked": 0, "device_only": 0,
              "parse_errors": 0, "first_error": None}
    start = time.monotonic()
    try:
        directory, cmd = driver_command(args, db_dir, path)
        p = subprocess.run(cmd, capture_output=True, text=True,
                           timeout=args.timeout, cwd=directory)
        rc, stderr = p.returncode, p.stderr
    except subprocess.TimeoutExpired:
        rc, stderr = None, ""
    except (RuntimeError, OSError, ValueError) as e:
        rc, stderr = -1, "clang-maxcode: error: %s\n" % e
    record["seconds"] = round(time.monotonic() - start, 2)
    record["rc"] = rc
    stem = "%04d-%s" % (index, os.path.basename(path))
    with open(os.path.join(out_dir, stem + ".stderr"), "w",
              encoding="utf-8") as f:
        f.write(stderr)
    errors = [l for l in stderr.splitlines() if _DIAG.match(l)]
    record["parse_errors"] = len(errors)
    if rc is None:
        record["status"] = "timeout"
        record["first_error"] = {"where": "", "message": "timed out"}
    elif rc == 0:
        record["status"] = "clean"
    else:
        where, msg = first_error(stderr)
        # As the tool does: a fatal error (or none at all) lists nothing.
        fatal = "fatal error:" in stderr or not errors
        record["status"] = "failed" if fatal else "errors"
        record["first_error"] = {"where": where, "message": msg}
    return record


def check_file(args, db_dir, db, path, out_dir, index, header):
    """One file: the tool's listing (or the --clang driver's parse) and, when
    it was not clean, its own compiler's verdict on the same command."""
    if args.clang:
        record = run_file_driver(args, db_dir, path, out_dir, index)
    else:
        record = run_file(args.tool, db_dir, path, args.timeout, out_dir,
                          index)
    record["header"] = header
    record["compiler"] = None
    if record["status"] != "clean" and args.check_compiler:
        stem = "%04d-%s" % (index, os.path.basename(path))
        with open(os.path.join(out_dir, stem + ".stderr"),
                  encoding="utf-8") as f:
            stderr = f.read()
        record["compiler"] = compiler_verdict(record, stderr, db, args.nvcc,
                                              args.timeout)
    return record


def run_project(folder, recipe, args):
    """Every source of one project; returns its summary record."""
    name = recipe["name"]
    out_dir = os.path.join(args.work, name, "out")
    os.makedirs(out_dir, exist_ok=True)
    summary = {"name": name, "repo": recipe.get("repo", ""),
               "kind": recipe["kind"], "recipe_commit": recipe.get("commit"),
               "commit": corpus.checkout_commit(folder), "files": [],
               "driver": args.clang, "without": args.without}
    try:
        db_dir, sources, headers = corpus.make_database(
            recipe, folder, args.work, args.corpus_root, args.cuda_arch)
    except (corpus.RecipeError, OSError, ValueError,
            subprocess.SubprocessError) as e:
        summary["error"] = str(e)
        return summary
    if args.every > 1:
        sources = sources[::args.every]
        headers = headers[::args.every]
    if args.limit:
        sources = sources[:args.limit]
        headers = headers[:args.limit]
    summary["sampled"] = {"every": args.every, "limit": args.limit,
                          "cuda_arch": args.cuda_arch}
    with open(os.path.join(db_dir, "compile_commands.json"),
              encoding="utf-8") as f:
        db = {}
        for e in json.load(f):
            db.setdefault(os.path.normpath(os.path.join(e["directory"],
                                                        e["file"])), e)
    check_args = args
    work = [(p, False) for p in sources] + [(p, True) for p in headers]
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        futures = [pool.submit(check_file, check_args, db_dir, db, path,
                               out_dir, i, header)
                   for i, (path, header) in enumerate(work)]
        for f in futures:
            summary["files"].append(f.result())
    if args.variants and recipe["kind"] == "cuda":
        summary["variants"] = count_variants(args, db_dir, sources, headers,
                                             folder, name)
    for r in summary["files"]:
        r["file"] = os.path.relpath(r["file"], folder)
    return summary


def count_variants(args, db_dir, sources, headers, folder, name):
    """The rules' variants of the GPU targets of the sources and headers
    (each header's compiled inside a source that includes it), counted by
    count-variants.py --verify: listed, rejected by the project's compiler
    and dropped by the tool, dropped as unchanged code, and listed ones that
    the project's compiler fails on its own (the promise: none). Its table
    per file, and each rejected or failing variant with the compiler's first
    error, go to variants.log beside variants.json."""
    out = os.path.join(args.work, name, "variants.json")
    argv = [sys.executable, os.path.join(os.path.dirname(__file__),
                                         "count-variants.py"),
            "-p", db_dir, "--tool", args.tool, "--verify", "--json", out,
            "--timeout", str(args.timeout), "--root", folder]
    argv += [s for s in sources if s.endswith(".cu")] + headers
    p = subprocess.run(argv, capture_output=True, text=True)
    # Which variants were rejected or failed, and why: beside the counts.
    with open(os.path.join(args.work, name, "variants.log"), "w",
              encoding="utf-8") as f:
        f.write(p.stdout + p.stderr)
    try:
        with open(out, encoding="utf-8") as f:
            return json.load(f)["total"]
    except (OSError, ValueError, KeyError):
        return {"error": (p.stderr.strip().splitlines() or
                          ["exit %d" % p.returncode])[-1]}


def totals(files):
    t = collections.Counter()
    for r in files:
        t["files"] += 1
        t[r["status"]] += 1
        for k in ("kernels", "kernels_launched", "functions", "blocked",
                  "device_only"):
            t[k] += r.get(k, 0)
        t["seconds"] += r["seconds"]
        verdict = r.get("compiler") or {}
        if verdict.get("accepts") is False:
            t["compiler_rejects"] += 1
        elif verdict.get("accepts"):
            t["compiler_accepts"] += 1
    t["listed"] = t["clean"] + t["errors"]
    return t


def summary_line(label, t, out, seconds=None):
    pct = 100.0 * t["clean"] / t["files"] if t["files"] else 0.0
    line = ("%-28s files %4d  parsed %4d (%5.1f%%)  with errors %3d  "
            "failed %3d  kernels %4d (launched here %4d)  functions %5d  "
            "blocked %3d  device-only %3d"
            % (label, t["files"], t["clean"], pct, t["errors"],
               t["failed"] + t["timeout"], t["kernels"],
               t["kernels_launched"], t["functions"], t["blocked"],
               t["device_only"]))
    if t["compiler_rejects"] or t["compiler_accepts"]:
        accepted = t["files"] - t["compiler_rejects"]
        line += "  its compiler rejects %3d, parsed of the rest %5.1f%%" % (
            t["compiler_rejects"],
            100.0 * t["clean"] / accepted if accepted else 0.0)
    if seconds is not None:
        line += "  %6.0f s" % seconds
    out.write(line + "\n")


def print_project(s, out):
    if "error" in s:
        out.write("%s: not run: %s\n" % (s["name"], s["error"]))
        return
    units = [r for r in s["files"] if not r["header"]]
    headers = [r for r in s["files"] if r["header"]]
    t = totals(units)
    summary_line(s["name"], t, out, totals(s["files"])["seconds"])
    if s.get("driver"):
        out.write("    (parsed by %s%s: no targets listed)\n"
                  % (s["driver"], ", without " + ",".join(s["without"])
                     if s["without"] else ""))
    if headers:
        summary_line("  + headers with kernels", totals(headers), out)
    v = s.get("variants")
    if v and "error" in v:
        out.write("    variants: not counted: %s\n" % v["error"])
    elif v:
        out.write("    variants of %d GPU targets: %d listed, %d rejected by "
                  "the project's nvcc (never listed), %d unchanged code "
                  "(dropped), %d listed that nvcc fails (of files that "
                  "build; %d do not), %d listings failed\n"
                  % (v["targets"], v["variants"], v["rejected"],
                     v["unchanged"], v["failed"], v["original_fails"],
                     v["errors"]))
        if v.get("headers"):
            out.write("    of which %d headers, each compiled inside a "
                      "source that includes it (%d included by none that "
                      "builds: not compiled)\n"
                      % (v["headers"], v.get("no_includer", 0)))
    groups = collections.OrderedDict()
    for r in s["files"]:
        if r["status"] == "clean":
            continue
        verdict = ""
        c = r.get("compiler") or {}
        if c.get("accepts") is False:
            verdict = c["compiler"] + " rejects too"
        elif c.get("accepts"):
            verdict = c["compiler"] + " accepts"
        key = (r["status"], "header" if r["header"] else "", verdict,
               cause_of(r["first_error"]["message"]))
        groups.setdefault(key, []).append(r)
    for (status, header, verdict, cause), rs in sorted(
            groups.items(), key=lambda kv: -len(kv[1])):
        example = rs[0]
        where = example["first_error"]["where"] or example["file"]
        label = {"errors": "listed, errors", "failed": "failed",
                 "timeout": "timeout"}[status]
        tags = ", ".join(x for x in (header, verdict) if x)
        out.write("    %3d %-15s %s%s  (first: %s)\n"
                  % (len(rs), label, "[%s] " % tags if tags else "", cause,
                     where))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("folders", nargs="*",
                    help="checkouts of projects (default: every folder of "
                         "--corpus that has a recipe)")
    ap.add_argument("--corpus", help="folder holding the checkouts")
    ap.add_argument("--tool", default=os.path.join(REPO_ROOT, "build", "bin",
                                                   "clang-maxcode"),
                    help="the clang-maxcode to run (default: build/bin's)")
    ap.add_argument("--recipes", default=corpus.RECIPE_DIR,
                    help="folder of recipes (default: utils/corpus/recipes)")
    ap.add_argument("--only", default="",
                    help="comma-separated project names to run")
    ap.add_argument("--work", default=os.path.join(REPO_ROOT, "build",
                                                   "corpus"),
                    help="where databases and outputs go "
                         "(default: build/corpus)")
    ap.add_argument("-j", "--jobs", type=int, default=1,
                    help="files parsed at once (default 1)")
    ap.add_argument("--timeout", type=int, default=900,
                    help="seconds per file (default 900)")
    ap.add_argument("--limit", type=int, default=0,
                    help="at most this many files per project (0: all)")
    ap.add_argument("--every", type=int, default=1,
                    help="only every Nth file of each project, in database "
                         "order (a sample of a large project; default 1)")
    ap.add_argument("--json", help="write every result to this file")
    ap.add_argument("--clang",
                    help="parse with this Clang driver instead (clang++-22, "
                         "say), given the command line the tool would give "
                         "its own Clang (--print-parse-command); no targets "
                         "are listed then")
    ap.add_argument("--without", default="",
                    help="with --clang: leave out of that command these of "
                         "the tool's additions, comma-separated: "
                         + ", ".join(sorted(_ADDITIONS)))
    ap.add_argument("--nvcc", default="/usr/local/cuda/bin/nvcc",
                    help="nvcc whose whole compile (nvcc -c) checks every CUDA "
                         "file not parsed cleanly (GCC commands are checked "
                         "with the command's GCC and -fsyntax-only); '' for "
                         "no check of either")
    ap.add_argument("--variants", action="store_true",
                    help="also count the rules' variants of each CUDA "
                         "project's kernels and device functions, each "
                         "compiled with the project's command "
                         "(count-variants.py --verify; slow: nvcc per "
                         "variant)")
    ap.add_argument("--cuda-arch",
                    help="build GPU code for this architecture alone (90, "
                         "say): of a command's --generate-code flags the "
                         "one for it is kept, or its architecture flags "
                         "give way to one for it (the database is "
                         "rewritten)")
    args = ap.parse_args()
    args.check_compiler = bool(args.nvcc)
    if args.nvcc and not os.access(args.nvcc, os.X_OK):
        sys.stderr.write("run-corpus: no nvcc at '%s': CUDA files are not "
                         "checked with it\n" % args.nvcc)
        args.nvcc = None
    args.corpus_root = os.path.abspath(args.corpus) if args.corpus else None
    args.without = [w for w in args.without.split(",") if w]
    for w in args.without:
        if w not in _ADDITIONS:
            ap.error("--without: '%s' is none of %s" % (w, ", ".join(
                sorted(_ADDITIONS))))
    if args.without and not args.clang:
        ap.error("--without needs --clang")
    if args.clang:
        try:
            args.clang_resource_dir = subprocess.run(
                [args.clang, "-print-resource-dir"], capture_output=True,
                text=True, timeout=60, check=True).stdout.strip()
        except (OSError, subprocess.SubprocessError) as e:
            ap.error("cannot run --clang '%s': %s" % (args.clang, e))

    if not os.access(args.tool, os.X_OK):
        ap.error("no clang-maxcode at '%s' (build it, or give --tool)"
                 % args.tool)
    args.tool = os.path.abspath(args.tool)
    args.work = os.path.abspath(args.work)
    try:
        recipes = corpus.load_recipes(args.recipes)
    except corpus.RecipeError as e:
        ap.error(str(e))
    only = set(n for n in args.only.split(",") if n)

    projects = []
    folders = list(args.folders)
    if not folders:
        if not args.corpus:
            ap.error("give project folders, or --corpus")
        for r in recipes.values():
            path = os.path.join(args.corpus, r["folder"])
            if os.path.isdir(path):
                folders.append(path)
            elif not only or r["name"] in only:
                sys.stderr.write("run-corpus: no checkout of %s at %s "
                                 "(%s at %s)\n" % (r["name"], path, r["repo"],
                                                   r["commit"]))
    for folder in folders:
        if not os.path.isdir(folder):
            ap.error("'%s' is not a folder" % folder)
        recipe = corpus.recipe_for_folder(folder, recipes)
        if recipe is None:
            try:
                recipe = corpus.default_recipe(folder)
            except corpus.RecipeError as e:
                ap.error(str(e))
        if only and recipe["name"] not in only:
            continue
        projects.append((os.path.abspath(folder), recipe))

    results = []
    for folder, recipe in projects:
        s = run_project(folder, recipe, args)
        if s.get("commit") and recipe.get("commit") and \
                s["commit"] != recipe["commit"]:
            sys.stderr.write("run-corpus: %s is checked out at %s, its "
                             "recipe names %s\n" % (recipe["name"],
                                                    s["commit"],
                                                    recipe["commit"]))
        print_project(s, sys.stdout)
        sys.stdout.flush()
        results.append(s)

    for kind in ("cuda", "cpp"):
        files = [r for s in results if s["kind"] == kind
                 for r in s.get("files", []) if not r["header"]]
        if files:
            summary_line("all " + kind, totals(files), sys.stdout)
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump({"tool": args.tool, "projects": results}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
