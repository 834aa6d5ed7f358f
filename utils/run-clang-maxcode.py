#!/usr/bin/env python3
# ===-- utils/run-clang-maxcode.py - clang-maxcode on a whole project -----===#
#
# Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
#
# ===-----------------------------------------------------------------------===#
"""Runs clang-maxcode on every translation unit of a compile database.

The counterpart of run-clang-tidy: the translation units of
compile_commands.json (all of them, or those whose path matches one of the
regular expressions given), their targets listed and ranked (by the measured
profile with -profile-cmd, else by clang-maxcode's static estimate), one
search per file on its hottest target, searches run in parallel, and their
fixes merged into one clang-apply-replacements YAML file (-export-fixes), or
applied (-fix). Arguments after "--" go to every clang-maxcode search (the
project's --build-cmd, --test-cmd, --bench-cmd, --budget, ...).

One search per file, because two searches of the same file would each
rewrite it from the original and their fixes could conflict.

Example:
  utils/run-clang-maxcode.py -p build -j 2 -export-fixes fixes.yaml 'src/' \\
    -- --build-cmd='make' --test-cmd='make test' --bench-cmd='./bench'
"""

import argparse
import concurrent.futures
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

try:
    import yaml
except ImportError:
    yaml = None


def find_compilation_database(start):
    """The folder holding compile_commands.json, searched upward."""
    path = os.path.abspath(start)
    while True:
        if os.path.isfile(os.path.join(path, "compile_commands.json")):
            return path
        parent = os.path.dirname(path)
        if parent == path:
            sys.exit("error: could not find compile_commands.json in '%s' "
                     "or any parent folder (give -p)" % start)
        path = parent


def translation_units(build_path, patterns):
    """Absolute paths of the database's files matching any of `patterns`."""
    with open(os.path.join(build_path, "compile_commands.json")) as f:
        entries = json.load(f)
    files = []
    for e in entries:
        name = e["file"]
        if not os.path.isabs(name):
            name = os.path.join(e.get("directory", build_path), name)
        name = os.path.normpath(name)
        if name not in files:
            files.append(name)
    regexes = [re.compile(p) for p in patterns] or [re.compile("")]
    return [f for f in files if any(r.search(f) for r in regexes)]


def list_targets(args, build_path, path):
    """clang-maxcode's targets of `path`, ranked, as its JSON gives them."""
    cmd = [args.clang_maxcode_binary, "--list-targets", "--format=json",
           "-p", build_path, path]
    if args.profile_cmd:
        cmd.append("--profile-cmd=" + args.profile_cmd)
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          universal_newlines=True)
    if proc.returncode != 0:
        return path, None, proc.stderr.strip()
    return path, json.loads(proc.stdout)["targets"], ""


def rank_key(target):
    """Measured share first; without a profile, clang-maxcode's static order
    (deeper loops and launched kernels first)."""
    share = target.get("share")
    return (share if share is not None else -1.0,
            len(target.get("launch_sites", [])), target.get("loop_depth", 0))


def search(args, build_path, path, target, fixes_dir, index):
    """One clang-maxcode search; returns (path, target, exit code, its JSON
    summary or None, stderr, the YAML file written)."""
    yaml_path = os.path.join(fixes_dir, "%04d.yaml" % index)
    cmd = [args.clang_maxcode_binary, "-p", build_path, path,
           "--target=" + target, "--export-fixes=" + yaml_path,
           "--format=json"] + args.maxcode_args
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          universal_newlines=True)
    summary = None
    if proc.stdout.strip():
        try:
            summary = json.loads(proc.stdout)
        except ValueError:
            summary = None
    return (path, target, proc.returncode, summary, proc.stderr,
            yaml_path if os.path.exists(yaml_path) else None)


class QuotedDumper(yaml.SafeDumper if yaml else object):
    """Writes strings that LLVM's YAML reader reads back exactly: any text
    with a newline, a quote or surrounding spaces in double quotes."""


def _represent_str(dumper, data):
    style = None
    if ("\n" in data or "'" in data or '"' in data or data != data.strip()
            or data == ""):
        style = '"'
    return dumper.represent_scalar("tag:yaml.org,2002:str", data, style=style)


def merge_fixes(yaml_files, merged_path):
    """One TranslationUnitDiagnostics document holding every file's
    diagnostics, as run-clang-tidy merges its fixes."""
    diagnostics = []
    for name in yaml_files:
        with open(name) as f:
            doc = yaml.safe_load(f) or {}
        diagnostics.extend(doc.get("Diagnostics") or [])
    QuotedDumper.add_representer(str, _represent_str)
    with open(merged_path, "w") as out:
        out.write("---\n")
        yaml.dump({"MainSourceFile": "", "Diagnostics": diagnostics}, out,
                  Dumper=QuotedDumper, default_flow_style=False,
                  sort_keys=False, width=float("inf"), allow_unicode=True)
        out.write("...\n")


def main():
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("-p", dest="build_path",
                        help="folder holding compile_commands.json (default: "
                        "searched upward from the current folder)")
    parser.add_argument("-j", type=int, default=0,
                        help="searches run at once (default: the number of "
                        "cores)")
    parser.add_argument("-clang-maxcode-binary", default=None,
                        help="the clang-maxcode to run (default: the one on "
                        "PATH)")
    parser.add_argument("-clang-apply-replacements-binary",
                        default="clang-apply-replacements-22",
                        help="the clang-apply-replacements for -fix")
    parser.add_argument("-profile-cmd", default="",
                        help="rank targets by running this command under "
                        "callgrind (clang-maxcode --profile-cmd)")
    parser.add_argument("-max-files", type=int, default=0,
                        help="search only the N files with the hottest "
                        "targets (default: all)")
    parser.add_argument("-export-fixes", metavar="FILE",
                        help="write every search's fixes, merged, to FILE")
    parser.add_argument("-fix", action="store_true",
                        help="apply the merged fixes with "
                        "clang-apply-replacements")
    parser.add_argument("-quiet", action="store_true",
                        help="print only the summary")
    parser.add_argument("files", nargs="*",
                        help="regular expressions; only files whose path "
                        "matches one are searched")
    argv = sys.argv[1:]
    maxcode_args = []
    if "--" in argv:
        at = argv.index("--")
        argv, maxcode_args = argv[:at], argv[at + 1:]
    args = parser.parse_args(argv)
    args.maxcode_args = maxcode_args

    if (args.export_fixes or args.fix) and yaml is None:
        sys.exit("error: -export-fixes and -fix need PyYAML (Debian: "
                 "python3-yaml)")
    if args.clang_maxcode_binary is None:
        args.clang_maxcode_binary = shutil.which("clang-maxcode")
        if args.clang_maxcode_binary is None:
            sys.exit("error: clang-maxcode is not on PATH (give "
                     "-clang-maxcode-binary)")
    build_path = find_compilation_database(args.build_path or os.getcwd())
    files = translation_units(build_path, args.files)
    if not files:
        sys.exit("error: no translation unit matches")
    jobs = args.j or os.cpu_count() or 1

    # Rank: each file's hottest target, files by that target.
    chosen = []
    with concurrent.futures.ThreadPoolExecutor(jobs) as pool:
        for path, targets, err in pool.map(
                lambda f: list_targets(args, build_path, f), files):
            if targets is None:
                print("clang-maxcode: cannot list the targets of %s: %s" %
                      (path, err), file=sys.stderr)
                continue
            if not targets:
                continue
            best = max(targets, key=rank_key)
            chosen.append((rank_key(best), path, best["name"]))
    chosen.sort(key=lambda c: c[0], reverse=True)
    if args.max_files:
        chosen = chosen[:args.max_files]
    if not chosen:
        sys.exit("error: no target found in the files matched")

    fixes_dir = tempfile.mkdtemp(prefix="run-clang-maxcode-")
    failed = 0
    yaml_files = []
    try:
        with concurrent.futures.ThreadPoolExecutor(jobs) as pool:
            futures = [pool.submit(search, args, build_path, path, target,
                                   fixes_dir, i)
                       for i, (_, path, target) in enumerate(chosen)]
            for fut in futures:
                path, target, code, summary, err, yaml_path = fut.result()
                if code != 0 or summary is None:
                    failed += 1
                    print("%s: %s: clang-maxcode failed (exit code %d)\n%s" %
                          (path, target, code, err.rstrip()),
                          file=sys.stderr)
                    continue
                if summary["status"] == "improved":
                    print("%s: %s: verified speedup %.3fx (%s)" %
                          (path, target, summary["speedup"],
                           summary["measure"]))
                elif not args.quiet:
                    print("%s: %s: no verified improvement" % (path, target))
                if yaml_path:
                    yaml_files.append(yaml_path)
        merged = os.path.join(fixes_dir, "merged", "fixes.yaml")
        os.makedirs(os.path.dirname(merged))
        if args.export_fixes or args.fix:
            merge_fixes(yaml_files, merged)
        if args.export_fixes:
            shutil.copyfile(merged, args.export_fixes)
            print("fixes written to %s" % args.export_fixes)
        if args.fix:
            proc = subprocess.run([args.clang_apply_replacements_binary,
                                   os.path.dirname(merged)])
            if proc.returncode != 0:
                print("error: clang-apply-replacements failed",
                      file=sys.stderr)
                failed += 1
            else:
                print("fixes applied")
    finally:
        shutil.rmtree(fixes_dir, ignore_errors=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
