#!/usr/bin/env bash
#===-- utils/build.sh - Configure and build clang-maxcode -----------------===#
#
# Installs missing packages, configures with Ninja into ${BUILD_DIR:-build}
# and builds the given targets (default: everything).
#
#===-----------------------------------------------------------------------===#
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD_DIR="${BUILD_DIR:-$ROOT/build}"

bash "$ROOT/utils/setup.sh"
if [ ! -f "$BUILD_DIR/build.ninja" ]; then
  cmake -G Ninja -S "$ROOT" -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=Release >/dev/null
fi
ninja -C "$BUILD_DIR" "$@"
