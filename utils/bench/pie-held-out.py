#!/usr/bin/env python3
"""Builds a held-out PIE suite: programs nobody here tuned the rules on.

The shared PIE folder holds one slow program per problem, the ones the rules
were developed against. Its pairs.jsonl holds other submissions to the same
problems (PIE's validation pairs). This script picks, for each problem, slow
programs from pairs.jsonl that are not the shared slow.cpp, keeps only those
that compile with PIE's flags and answer every test of the problem, and
writes them in the same layout (slow.cpp, fast.cpp = the pair's human
rewrite where it also passes, tests/ copied from the problem), so that
run-bench.py can run both suites side by side:

  utils/bench/pie-held-out.py ../shared/data/pie --out /tmp/pie-held-out
  utils/bench/run-bench.py ../shared/data/pie /tmp/pie-held-out --out bench

The choice is a pure function of --seed (a hash of the seed and the
submission's id), so a run can be repeated. Nothing under the PIE folder is
written.
"""

import argparse
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from importlib import import_module  # noqa: E402

bench = import_module("run-bench")


def normalised(text):
    return "".join(text.split())


def passes(source, tests, work):
    """True when \\p source compiles with PIE's flags and answers every test."""
    src = os.path.join(work, "p.cpp")
    exe = os.path.join(work, "p")
    with open(src, "w") as f:
        f.write(source)
    if subprocess.run(["g++", "-std=c++17", "-O3", "-o", exe, src],
                      capture_output=True).returncode != 0:
        return False
    for inp, outp in bench.test_pairs(tests):
        with open(inp) as i:
            try:
                r = subprocess.run([exe], stdin=i, capture_output=True,
                                   text=True, timeout=10)
            except (subprocess.TimeoutExpired, UnicodeDecodeError):
                return False
        with open(outp) as o:
            if r.returncode != 0 or not bench.same_output(o.read(), r.stdout):
                return False
    return True


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("pie", help="the shared PIE folder (with pairs.jsonl)")
    ap.add_argument("--out", required=True, help="folder to write")
    ap.add_argument("--per-problem", type=int, default=1)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()

    pairs_file = os.path.join(args.pie, "pairs.jsonl")
    if not os.path.isfile(pairs_file):
        sys.exit("pie-held-out: no pairs.jsonl under '%s'" % args.pie)
    by_src = {}
    with open(pairs_file) as f:
        for line in f:
            p = json.loads(line)
            best = by_src.get((p["problem_id"], p["src_id"]))
            if best is None or p["speedup"] > best["speedup"]:
                by_src[(p["problem_id"], p["src_id"])] = p

    os.makedirs(args.out, exist_ok=True)
    work = tempfile.mkdtemp(prefix="pie-held-out-")
    written = 0
    for problem in bench.pie_problems(args.pie):
        with open(problem.source) as f:
            shared = normalised(f.read())
        candidates = [p for (pid, _), p in by_src.items()
                      if pid == problem.name
                      and normalised(p["src_code"]) != shared]
        candidates.sort(key=lambda p: hashlib.sha256(
            ("%d:%s" % (args.seed, p["src_id"])).encode()).hexdigest())
        kept = 0
        for p in candidates:
            if kept == args.per_problem:
                break
            if not passes(p["src_code"], problem.tests, work):
                continue
            d = os.path.join(args.out, "%s-%s" % (problem.name, p["src_id"]))
            if os.path.exists(d):
                shutil.rmtree(d)
            shutil.copytree(problem.tests, os.path.join(d, "tests"))
            with open(os.path.join(d, "slow.cpp"), "w") as f:
                f.write(p["src_code"])
            if passes(p["tgt_code"], problem.tests, work):
                with open(os.path.join(d, "fast.cpp"), "w") as f:
                    f.write(p["tgt_code"])
            with open(os.path.join(d, "meta.json"), "w") as f:
                json.dump({"problem_id": problem.name, "src_id": p["src_id"],
                           "tgt_id": p["tgt_id"], "pie_speedup": p["speedup"],
                           "from": "pairs.jsonl", "seed": args.seed}, f,
                          indent=2)
            kept += 1
            written += 1
        print("%s: %d of %d other submissions kept" % (
            problem.name, kept, len(candidates)))
    shutil.rmtree(work)
    print("pie-held-out: %d programs under %s" % (written, args.out))


if __name__ == "__main__":
    main()
