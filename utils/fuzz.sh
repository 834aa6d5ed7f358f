#!/usr/bin/env bash
#===-- utils/fuzz.sh - Build and run one of the fuzzers in fuzz/ ----------===#
#
#   utils/fuzz.sh NAME SECONDS [libFuzzer options...]
#   utils/fuzz.sh NAME 0        # only run the seed corpus, once
#   utils/fuzz.sh --list        # the names
#
# Builds maxcode-NAME-fuzzer with clang-22, ASan and UBSan (and ccache when
# there is one) into ${FUZZ_BUILD_DIR:-build-fuzz}, then fuzzes for SECONDS,
# starting from the seeds in fuzz/corpus/NAME. New inputs go to
# <build>/corpus/NAME (kept between runs), crashes to <build>/artifacts/NAME.
# Exits non-zero when the fuzzer finds a crash, a leak or a hang
# (docs/Fuzzing.md).
#
#===-----------------------------------------------------------------------===#
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD_DIR="${FUZZ_BUILD_DIR:-$ROOT/build-fuzz}"

names() {
  sed -n 's/^add_maxcode_fuzzer(\([a-z-]*\) .*/\1/p' "$ROOT/fuzz/CMakeLists.txt"
}

if [ "${1:-}" = "--list" ]; then
  names
  exit 0
fi
if [ $# -lt 2 ] || ! names | grep -qx -- "$1" ||
   ! [[ "$2" =~ ^[0-9]+$ ]]; then
  echo "usage: utils/fuzz.sh NAME SECONDS [libFuzzer options...]" >&2
  echo "NAME is one of: $(names | tr '\n' ' ')" >&2
  exit 2
fi
NAME="$1"
SECONDS_TO_RUN="$2"
shift 2

bash "$ROOT/utils/setup.sh"
if ! [ -e /usr/lib/llvm-22/lib/clang/22/lib/linux/libclang_rt.fuzzer-x86_64.a ]; then
  echo "fuzz: libFuzzer is missing; install it with" \
    "'apt-get install libclang-rt-22-dev'" >&2
  exit 1
fi
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
    "${LAUNCHER[@]}" -DMAXCODE_INCLUDE_TESTS=OFF \
    -DMAXCODE_BUILD_FUZZERS=ON "-DMAXCODE_SANITIZERS=address;undefined" \
    >/dev/null
fi
ninja -C "$BUILD_DIR" "maxcode-$NAME-fuzzer"

FUZZER="$BUILD_DIR/bin/maxcode-$NAME-fuzzer"
SEEDS="$ROOT/fuzz/corpus/$NAME"
CORPUS="$BUILD_DIR/corpus/$NAME"
ARTIFACTS="$BUILD_DIR/artifacts/$NAME"
mkdir -p "$CORPUS" "$ARTIFACTS"
if [ -z "${ASAN_SYMBOLIZER_PATH:-}" ] &&
   [ -x /usr/lib/llvm-22/bin/llvm-symbolizer ]; then
  export ASAN_SYMBOLIZER_PATH=/usr/lib/llvm-22/bin/llvm-symbolizer
fi
OPTIONS=(-timeout=20 -print_final_stats=1 "-artifact_prefix=$ARTIFACTS/")
if [ -f "$ROOT/fuzz/$NAME.dict" ]; then
  OPTIONS+=("-dict=$ROOT/fuzz/$NAME.dict")
fi

if [ "$SECONDS_TO_RUN" = 0 ]; then
  # Each seed once: the crashes fixed so far stay fixed.
  exec "$FUZZER" "${OPTIONS[@]}" -runs=0 "$@" "$SEEDS"
fi
# The first folder receives the new inputs; the seeds are only read.
exec "$FUZZER" "${OPTIONS[@]}" "-max_total_time=$SECONDS_TO_RUN" "$@" \
  "$CORPUS" "$SEEDS"
