#!/usr/bin/env python3
"""The evaluator's overhead against the bare compile-and-run floor.

For one program with tests (a PIE-layout folder: slow.cpp, tests/, and a
variant, fast.cpp or slow.cpp itself) this times, side by side in one run:

  bare  the same work done by hand: compile the original and the variant with
        g++ -std=c++17 -O3, run every test of both, and run the measured
        inputs the way the chosen measure does (callgrind for instructions)
  tool  clang-maxcode --evaluate doing that work (plus parsing, the sandbox,
        output checking, the cache key)

and prints the overhead per evaluation, (tool - bare) / bare. Standard
library only. Example:

  utils/bench/eval_overhead.py ../shared/data/pie/p02608 --measure=instructions
"""
import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def tests_of(folder):
    pairs = []
    for name in os.listdir(folder):
        if name.startswith("input.") and name.endswith(".txt"):
            pairs.append(os.path.join(folder, name))
    return sorted(pairs)


def bare(problem, variant, measure, measure_tests):
    """Compile and run by hand what one evaluation compiles and runs."""
    work = tempfile.mkdtemp(prefix="maxcode-bare-")
    try:
        inputs = tests_of(os.path.join(problem, "tests"))
        largest = sorted(inputs, key=os.path.getsize, reverse=True)[:measure_tests]
        start = time.monotonic()
        for tag, src in (("base", os.path.join(problem, "slow.cpp")), ("var", variant)):
            exe = os.path.join(work, tag)
            subprocess.run(["g++", "-std=c++17", "-O3", src, "-o", exe]
                           + (["-g"] if measure == "instructions" else []),
                           check=True, capture_output=True)
            for path in inputs:
                with open(path, "rb") as f:
                    subprocess.run([exe], stdin=f, capture_output=True)
            for path in largest:
                with open(path, "rb") as f:
                    if measure == "instructions":
                        subprocess.run(["valgrind", "--tool=callgrind",
                                        "--callgrind-out-file=" + os.path.join(work, "cg.out"),
                                        exe], stdin=f, capture_output=True)
                    else:
                        subprocess.run([exe], stdin=f, capture_output=True)
        return time.monotonic() - start
    finally:
        shutil.rmtree(work, ignore_errors=True)


def tool(binary, problem, variant, measure, measure_tests, sandbox):
    start = time.monotonic()
    out = subprocess.run([binary, "--evaluate=" + variant,
                          os.path.join(problem, "slow.cpp"),
                          "--tests=" + os.path.join(problem, "tests"),
                          "--scope=file", "--measure=" + measure,
                          "--repetitions=1", "--measure-tests=%d" % measure_tests,
                          "--sandbox=" + sandbox, "--format=json",
                          "--", "-std=c++17", "-O3"],
                         capture_output=True, text=True)
    elapsed = time.monotonic() - start
    if out.returncode != 0:
        sys.exit("clang-maxcode failed: " + out.stderr)
    return elapsed


def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("problem", help="a PIE-layout problem folder")
    p.add_argument("--variant", help="the variant (default: fast.cpp, else slow.cpp)")
    p.add_argument("--measure", default="instructions", choices=["instructions", "time"])
    p.add_argument("--measure-tests", type=int, default=4)
    p.add_argument("--sandbox", default="auto", choices=["auto", "bwrap", "none"])
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--tool", default=os.path.join(ROOT, "build", "bin", "clang-maxcode"))
    a = p.parse_args()
    variant = a.variant or os.path.join(a.problem, "fast.cpp")
    if not os.path.exists(variant):
        variant = os.path.join(a.problem, "slow.cpp")
    b, t = [], []
    for _ in range(a.repeat):  # interleaved, so drift hits both alike
        b.append(bare(a.problem, variant, a.measure, a.measure_tests))
        t.append(tool(a.tool, a.problem, variant, a.measure, a.measure_tests, a.sandbox))
    mb, mt = statistics.median(b), statistics.median(t)
    print("| problem | measure | sandbox | tests | bare (s) | clang-maxcode (s) | overhead |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    print("| %s | %s | %s | %d | %.2f | %.2f | %+.0f%% |" % (
        os.path.basename(os.path.normpath(a.problem)), a.measure, a.sandbox,
        len(tests_of(os.path.join(a.problem, "tests"))), mb, mt, 100 * (mt - mb) / mb))


if __name__ == "__main__":
    main()
