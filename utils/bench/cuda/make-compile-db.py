#!/usr/bin/env python3
# ===-- make-compile-db.py - compile_commands.json for the CUDA suite ------===#
#
# Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
#
# ===----------------------------------------------------------------------===#
"""Writes an nvcc compile_commands.json for the problems of utils/bench/cuda.

A compile database holds absolute paths, so it is generated for the checkout
at hand rather than committed:

  make-compile-db.py --out build/bench-cuda
  clang-maxcode --list-targets -p build/bench-cuda utils/bench/cuda/relu.cu

With --build it then runs every entry (compiling each problem to an object
file in the output folder, as the database says) and links each object into
an executable of the problem's name there, so the database is exercised
exactly as written.
"""

import argparse
import concurrent.futures
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))

# The flags every problem is built with; sm_90 is the H100/H200.
NVCC_FLAGS = ["-O3", "-std=c++17", "--expt-relaxed-constexpr"]


def problems(source_dir):
    return sorted(f for f in os.listdir(source_dir) if f.endswith(".cu"))


def entries(source_dir, out_dir, nvcc, arch):
    result = []
    for name in problems(source_dir):
        stem = name[: -len(".cu")]
        source = os.path.join(source_dir, name)
        obj = os.path.join(out_dir, stem + ".o")
        args = [nvcc] + NVCC_FLAGS + ["-arch=" + arch,
                                      "-I" + os.path.join(source_dir,
                                                          "include"),
                                      "-c", source, "-o", obj]
        result.append({"directory": out_dir, "arguments": args,
                       "file": source, "output": obj})
    return result


def build_one(entry, nvcc, arch):
    """Compiles one entry as the database says, then links it."""
    steps = [entry["arguments"],
             [nvcc, "-arch=" + arch, entry["output"], "-o",
              entry["output"][: -len(".o")]]]
    for argv in steps:
        proc = subprocess.run(argv, cwd=entry["directory"],
                              capture_output=True, text=True)
        if proc.returncode != 0:
            return "%s: %s failed:\n%s%s" % (
                os.path.basename(entry["file"]), os.path.basename(argv[0]),
                proc.stdout, proc.stderr)
    return None


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", required=True,
                        help="folder for compile_commands.json (and objects)")
    parser.add_argument("--source-dir", default=HERE,
                        help="the suite's folder in the checkout "
                             "(default: this script's folder)")
    parser.add_argument("--cuda-path",
                        default=os.environ.get("MAXCODE_CUDA_PATH",
                                               "/usr/local/cuda"))
    parser.add_argument("--arch", default="sm_90",
                        help="GPU architecture (default: sm_90)")
    parser.add_argument("--build", action="store_true",
                        help="also compile and link every problem")
    parser.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 1)
    args = parser.parse_args()

    source_dir = os.path.abspath(args.source_dir)
    out_dir = os.path.abspath(args.out)
    nvcc = os.path.join(os.path.abspath(args.cuda_path), "bin", "nvcc")
    os.makedirs(out_dir, exist_ok=True)
    db = entries(source_dir, out_dir, nvcc, args.arch)
    if not db:
        sys.exit("make-compile-db.py: no .cu files in %s" % source_dir)
    with open(os.path.join(out_dir, "compile_commands.json"), "w") as f:
        json.dump(db, f, indent=2)
        f.write("\n")
    if not args.build:
        return 0

    with concurrent.futures.ThreadPoolExecutor(max(1, args.jobs)) as pool:
        failures = [msg for msg in pool.map(
            lambda e: build_one(e, nvcc, args.arch), db) if msg]
    for msg in failures:
        sys.stderr.write(msg + "\n")
    print("built %d of %d problems in %s" % (len(db) - len(failures), len(db),
                                             out_dir))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
