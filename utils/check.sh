#!/usr/bin/env bash
#===-- utils/check.sh - Build clang-maxcode and run every test ------------===#
#
# The project's test command (README, .ci/run): lit tests and gtest, through
# the check-maxcode target. Exits non-zero if any test fails.
#
#   utils/check.sh              # into ${BUILD_DIR:-build}, with the default compiler
#   utils/check.sh --sanitize   # into ${BUILD_DIR:-build-asan}: clang-22, ASan
#                               # and UBSan, every report an error (docs/Fuzzing.md)
#
#===-----------------------------------------------------------------------===#
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
SANITIZE=0
for arg in "$@"; do
  case "$arg" in
  --sanitize) SANITIZE=1 ;;
  *)
    echo "usage: utils/check.sh [--sanitize]" >&2
    exit 2
    ;;
  esac
done
if [ "$SANITIZE" = 1 ]; then
  export BUILD_DIR="${BUILD_DIR:-$ROOT/build-asan}"
  bash "$ROOT/utils/setup.sh"
  # A folder configured before the move from LLVM 19 is configured again.
  if [ -f "$BUILD_DIR/CMakeCache.txt" ] &&
     grep -q "^LLVM_DIR:PATH=/usr/lib/llvm-19/" "$BUILD_DIR/CMakeCache.txt"; then
    rm -rf "$BUILD_DIR/CMakeCache.txt" "$BUILD_DIR/CMakeFiles" "$BUILD_DIR/build.ninja"
  fi
  if [ ! -f "$BUILD_DIR/build.ninja" ]; then
    LAUNCHER=()
    if command -v ccache >/dev/null; then
      LAUNCHER=(-DCMAKE_C_COMPILER_LAUNCHER=ccache
                -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
    fi
    cmake -G Ninja -S "$ROOT" -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=Release \
      -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22 \
      "${LAUNCHER[@]}" "-DMAXCODE_SANITIZERS=address;undefined" >/dev/null
  fi
  if [ -z "${ASAN_SYMBOLIZER_PATH:-}" ] &&
     [ -x /usr/lib/llvm-22/bin/llvm-symbolizer ]; then
    export ASAN_SYMBOLIZER_PATH=/usr/lib/llvm-22/bin/llvm-symbolizer
  fi
fi
BUILD_DIR="${BUILD_DIR:-$ROOT/build}"
export BUILD_DIR
export LIT_OPTS="${LIT_OPTS:-} --xunit-xml-output=$BUILD_DIR/test-results.xml"
status=0
bash "$ROOT/utils/build.sh" check-maxcode || status=$?
# One closing line any CI reads: "N passed, N failed".
python3 - "$BUILD_DIR/test-results.xml" <<'PY' || true
import sys, xml.etree.ElementTree as ET
try:
    root = ET.parse(sys.argv[1]).getroot()
except Exception:
    sys.exit(0)
total = failed = skipped = 0
for suite in root.iter("testsuite"):
    total += int(suite.get("tests", 0))
    failed += int(suite.get("failures", 0)) + int(suite.get("errors", 0))
    skipped += int(suite.get("skipped", 0))
print(f"{total - failed - skipped} passed, {failed} failed, {skipped} skipped")
PY
exit $status
