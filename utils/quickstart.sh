#!/usr/bin/env bash
#===-- utils/quickstart.sh - Build and run the main job on the example ----===#
#
# Builds clang-maxcode, then runs the complete loop on the bundled example
# program (examples/histogram) with the built-in defaults: the rules policy,
# no LLM, no GPU. Instructions are counted with callgrind, so the speedup is
# the same on any machine and holds up when re-measured. Prints the verified
# speedup and the winning diff; the example itself is not changed.
#
#===-----------------------------------------------------------------------===#
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD_DIR="${BUILD_DIR:-$ROOT/build}"
bash "$ROOT/utils/build.sh" clang-maxcode maxcode-timer
EX="$ROOT/examples/histogram"
STORE="$(mktemp -d)"
trap 'rm -rf "$STORE"' EXIT
set -x
"$BUILD_DIR/bin/clang-maxcode" "$EX/histogram.cpp" --tests="$EX/tests" \
  --measure=instructions --budget=16 --store="$STORE/rollouts.sqlite" \
  -- -std=c++17 -O2
