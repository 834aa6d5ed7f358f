#!/usr/bin/env bash
#===-- utils/build.sh - Configure and build clang-maxcode -----------------===#
#
# Installs missing packages, configures with Ninja into ${BUILD_DIR:-build}
# and builds the given targets (default: everything). MAXCODE_WERROR=1 makes
# every warning an error (CI sets it; it takes effect when BUILD_DIR is first
# configured).
#
#===-----------------------------------------------------------------------===#
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD_DIR="${BUILD_DIR:-$ROOT/build}"

bash "$ROOT/utils/setup.sh"
# A folder configured before the move from LLVM 19 is configured again.
if [ -f "$BUILD_DIR/CMakeCache.txt" ] &&
   grep -q "^LLVM_DIR:PATH=/usr/lib/llvm-19/" "$BUILD_DIR/CMakeCache.txt"; then
  rm -rf "$BUILD_DIR/CMakeCache.txt" "$BUILD_DIR/CMakeFiles" "$BUILD_DIR/build.ninja"
fi
if [ ! -f "$BUILD_DIR/build.ninja" ]; then
  WERROR=OFF
  [ "${MAXCODE_WERROR:-0}" = 1 ] && WERROR=ON
  cmake -G Ninja -S "$ROOT" -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=Release \
    "-DMAXCODE_ENABLE_WERROR=$WERROR" >/dev/null
fi
ninja -C "$BUILD_DIR" "$@"
