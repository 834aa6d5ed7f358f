#!/usr/bin/env bash
#===-- utils/quickstart.sh - Build and run the main job on the example ----===#
#
# Builds clang-maxcode, then runs it on the bundled example program
# (examples/histogram) with the built-in defaults: no LLM, no GPU.
#
#===-----------------------------------------------------------------------===#
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD_DIR="${BUILD_DIR:-$ROOT/build}"
bash "$ROOT/utils/build.sh" clang-maxcode
EX="$ROOT/examples/histogram"
OUT="$(mktemp -d)"
trap 'rm -rf "$OUT"' EXIT
g++ -O1 -g -std=c++17 "$EX/histogram.cpp" -o "$OUT/histogram"
set -x
"$BUILD_DIR/bin/clang-maxcode" --list-targets "$EX/histogram.cpp" \
  --profile-cmd="$OUT/histogram < $EX/tests/input.1.txt > /dev/null" \
  -- -std=c++17 -O2
