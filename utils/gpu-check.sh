#!/usr/bin/env bash
#===-- utils/gpu-check.sh - Everything that needs a GPU, in one run -------===#
#
# Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
#
# For a lent GPU machine (one call, a few minutes): configures and builds
# with CUDA, runs the lit tests of test/CUDA (the REQUIRES: cuda-gpu ones
# run only here), runs every problem of utils/bench/cuda once plainly and
# once under libmaxcode-cupti.so (timing pass), runs one metrics pass, runs
# the rules search (--measure=cuda-kernel, small budget) on a few problems,
# and prints a table last. It reads GPU settings and never changes them.
#
# Usage: utils/gpu-check.sh [--build-dir DIR] [--out DIR] [--jobs N]
#   MAXCODE_CUDA_PATH   CUDA toolkit (default /usr/local/cuda)
#   GPU_CHECK_PROBLEMS  problems to run (default: every .cu of the suite)
#   GPU_CHECK_METRICS   the problem of the metrics pass and its kernel
#                       (default: "matmul matmulKernel")
#   GPU_CHECK_SEARCH    problems searched (default: "relu softmax matmul
#                       transpose"); GPU_CHECK_BUDGET evaluations each
#                       (default 4)
#
# Exit status: 0 when the build, the tests and every problem passed.
#
#===-----------------------------------------------------------------------===#

set -u -o pipefail

SRC=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD="$SRC/build-gpu"
OUT_DIR=""
JOBS=$(nproc 2>/dev/null || echo 4)
while [ $# -gt 0 ]; do
  case "$1" in
    --build-dir) BUILD=$2; shift 2 ;;
    --out) OUT_DIR=$2; shift 2 ;;
    --jobs) JOBS=$2; shift 2 ;;
    -h|--help) sed -n '2,20p' "$0"; exit 0 ;;
    *) echo "gpu-check: unknown argument '$1'" >&2; exit 2 ;;
  esac
done
OUT_DIR=${OUT_DIR:-$BUILD/gpu-check}
CUDA=${MAXCODE_CUDA_PATH:-/usr/local/cuda}
SUITE="$SRC/utils/bench/cuda"
read -r METRICS_PROBLEM METRICS_KERNEL \
  <<< "${GPU_CHECK_METRICS:-matmul matmulKernel}"
START=$(date +%s)
FAILED=0

mkdir -p "$OUT_DIR" || exit 2
LOG="$OUT_DIR/gpu-check.log"
: > "$LOG"

say() { echo "gpu-check: $*" | tee -a "$LOG"; }
elapsed() { echo $(( $(date +%s) - START ))s; }
# Runs a step, its output to the log; a failure is remembered, not fatal.
step() {
  local name=$1; shift
  say "$name ($(elapsed))"
  if ! "$@" >> "$LOG" 2>&1; then
    say "FAILED: $name (see $LOG)"
    FAILED=1
    return 1
  fi
}

#===-- The machine --------------------------------------------------------===#

say "source $SRC, build $BUILD, output $OUT_DIR"
if command -v nvidia-smi > /dev/null; then
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm \
             --format=csv,noheader 2>&1 | tee -a "$LOG" \
    | sed 's/^/gpu-check: gpu: /'
  grep -h RmProfilingAdminOnly /proc/driver/nvidia/params 2>/dev/null \
    | sed 's/^/gpu-check: /' | tee -a "$LOG"
else
  say "no nvidia-smi: the GPU tests will be skipped and the runs will fail"
fi
for tool in cmake ninja "$CUDA/bin/nvcc" python3; do
  command -v "$tool" > /dev/null || { say "missing $tool"; exit 2; }
done

#===-- Build --------------------------------------------------------------===#

# A failed build still leaves the plain runs of the suite, which need only
# nvcc: the GPU time is not wasted.
CUPTI_LIB="$BUILD/lib/libmaxcode-cupti.so"
REPORT="$BUILD/bin/maxcode-cupti-report"
BUILT=0
if step "configure" cmake -G Ninja -S "$SRC" -B "$BUILD" \
     -DCMAKE_BUILD_TYPE=Release -DMAXCODE_CUDA_PATH="$CUDA" &&
   step "build" ninja -C "$BUILD" -j "$JOBS" clang-maxcode maxcode-cupti \
     maxcode-cupti-report; then
  if [ -f "$CUPTI_LIB" ]; then
    BUILT=1
  else
    say "FAILED: no $CUPTI_LIB (CUPTI not found under $CUDA)"
    FAILED=1
  fi
fi

#===-- lit tests of test/CUDA (the GPU ones run here) ---------------------===#

LIT=${LIT:-/usr/lib/llvm-22/bin/lit}
if [ $BUILT = 1 ]; then
  say "lit test/CUDA ($(elapsed))"
  python3 "$LIT" -v "$BUILD/test" --filter 'CUDA/' > "$OUT_DIR/lit.txt" 2>&1
  LIT_STATUS=$?
  cat "$OUT_DIR/lit.txt" >> "$LOG"
  grep -E '^(PASS|FAIL|UNSUPPORTED|XFAIL|XPASS|UNRESOLVED):' \
    "$OUT_DIR/lit.txt" | sed 's/^/gpu-check: lit: /'
  if [ $LIT_STATUS -ne 0 ]; then
    say "FAILED: lit (see $OUT_DIR/lit.txt)"
    FAILED=1
  fi
fi

#===-- The suite ----------------------------------------------------------===#

BENCH="$OUT_DIR/bench"
step "build the suite" python3 "$SUITE/make-compile-db.py" --out "$BENCH" \
  --cuda-path "$CUDA" --build -j "$JOBS"

if [ -n "${GPU_CHECK_PROBLEMS:-}" ]; then
  PROBLEMS=($GPU_CHECK_PROBLEMS)
else
  PROBLEMS=()
  for f in "$SUITE"/*.cu; do PROBLEMS+=("$(basename "$f" .cu)"); done
fi

# One row per problem; each column is an associative array keyed by problem,
# so a new column (best time, speedup) is one array and one COLUMNS entry.
declare -A STATUS EVENT_MS CUPTI_MS LAUNCHES SEARCH BEST_MS SPEEDUP
COLUMNS=(STATUS EVENT_MS CUPTI_MS LAUNCHES SEARCH BEST_MS SPEEDUP)
HEADERS=(status events_ms cupti_ms launches search best_ms speedup)

# The harness prints "<problem>: median X ms over N launches" to stderr.
event_ms() { sed -n 's/.*: median \([0-9.]*\) ms over.*/\1/p' "$1" | tail -1; }

run_problem() {
  local p=$1 exe="$BENCH/$1"
  if [ ! -x "$exe" ]; then
    STATUS[$p]=build-error
    return
  fi
  # Plain: correctness and the harness's own CUDA-event timing. The
  # harness exits 1 on a wrong output and 2 on a CUDA error.
  timeout 120 "$exe" > "$BENCH/$p.out" 2> "$BENCH/$p.err"
  case $? in
    0) ;;
    1) STATUS[$p]=wrong-output; return ;;
    124) STATUS[$p]=timeout; return ;;
    *) STATUS[$p]=crash; return ;;
  esac
  EVENT_MS[$p]=$(event_ms "$BENCH/$p.err")
  if [ $BUILT = 0 ]; then
    STATUS[$p]=ok-plain-only
    return
  fi
  # Under the injection library: every kernel's GPU time, summed.
  if ! CUDA_INJECTION64_PATH="$CUPTI_LIB" \
       MAXCODE_CUPTI_OUTPUT="$BENCH/$p.json" timeout 120 "$exe" \
       > "$BENCH/$p.cupti.out" 2> "$BENCH/$p.cupti.err"; then
    STATUS[$p]=cupti-crash
    return
  fi
  if ! cmp -s "$BENCH/$p.out" "$BENCH/$p.cupti.out"; then
    STATUS[$p]=cupti-changed-output
    return
  fi
  local total launches
  total=$("$REPORT" --total-ns "$BENCH/$p.json" 2>> "$LOG") || {
    STATUS[$p]=bad-report
    return
  }
  "$REPORT" "$BENCH/$p.json" > "$BENCH/$p.summary" 2>> "$LOG"
  launches=$(sed -n 's/^total kernel time: .* over \([0-9]*\) launches.*/\1/p' \
             "$BENCH/$p.summary")
  LAUNCHES[$p]=$launches
  if [ "${launches:-0}" -gt 0 ] && [ "$total" -gt 0 ]; then
    CUPTI_MS[$p]=$(python3 -c "print('%.4f' % ($total / $launches / 1e6))")
    STATUS[$p]=ok
    grep -q '(incomplete)' "$BENCH/$p.summary" && STATUS[$p]=ok-incomplete
  else
    STATUS[$p]=no-kernel-time
  fi
}

for p in "${PROBLEMS[@]}"; do
  say "run $p ($(elapsed))"
  run_problem "$p"
  [ "${STATUS[$p]:-}" = ok ] || FAILED=1
done

#===-- One metrics pass ---------------------------------------------------===#

METRICS_SUMMARY="$OUT_DIR/metrics-$METRICS_PROBLEM.txt"
METRICS_JSON="$BENCH/$METRICS_PROBLEM.metrics.json"
say "metrics pass on $METRICS_PROBLEM ($(elapsed))"
if [ $BUILT = 1 ] &&
   CUDA_INJECTION64_PATH="$CUPTI_LIB" MAXCODE_CUPTI_PASS=metrics \
     MAXCODE_CUPTI_OUTPUT="$METRICS_JSON" timeout 180 \
     "$BENCH/$METRICS_PROBLEM" 1 > "$BENCH/$METRICS_PROBLEM.metrics.out" \
     2>> "$LOG" &&
   "$REPORT" --kernel="$METRICS_KERNEL" "$METRICS_JSON" \
     > "$METRICS_SUMMARY" 2>> "$LOG"; then
  sed 's/^/gpu-check: metrics: /' "$METRICS_SUMMARY"
else
  say "FAILED: metrics pass on $METRICS_PROBLEM"
  FAILED=1
fi

#===-- The rules search on a few problems ---------------------------------===#

# Program mode: the harness reads nothing and its stdout is identical
# between correct runs, so one empty input and the plain run's output are
# the test. The search verifies its winner before reporting it. The scope
# is the file: launch-configuration rules edit the launcher beside the
# kernel (the rules never touch the harness's check).
search_problem() {
  local p=$1 tests="$BENCH/tests-$1"
  mkdir -p "$tests" && : > "$tests/input.0.txt" &&
    cp "$BENCH/$p.out" "$tests/output.0.txt" || return
  if ! timeout 150 "$BUILD/bin/clang-maxcode" -p "$BENCH" "$SUITE/$p.cu" \
       --tests="$tests" --measure=cuda-kernel --policy=rules --scope=file \
       --budget="${GPU_CHECK_BUDGET:-4}" --repetitions=3 --seed=1 \
       --store="$BENCH/store.sqlite" --format=json \
       > "$BENCH/$p.search.json" 2>> "$LOG"; then
    SEARCH[$p]=error
    FAILED=1
    return
  fi
  read -r SEARCH[$p] SPEEDUP[$p] < <(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
print(d["status"], "%.3f" % d["speedup"])' "$BENCH/$p.search.json")
  if [ -n "${CUPTI_MS[$p]:-}" ]; then
    BEST_MS[$p]=$(python3 -c "print('%.4f' % (${CUPTI_MS[$p]} / ${SPEEDUP[$p]}))")
  fi
}

if [ $BUILT = 1 ]; then
  for p in ${GPU_CHECK_SEARCH:-relu softmax matmul transpose}; do
    [ "${STATUS[$p]:-}" = ok ] || continue
    say "search $p ($(elapsed))"
    search_problem "$p"
  done
fi

#===-- The table, last ----------------------------------------------------===#

print_table() {
  local row col i
  printf '%-18s' problem
  for i in "${!HEADERS[@]}"; do printf ' %14s' "${HEADERS[$i]}"; done
  printf '\n'
  for row in "${PROBLEMS[@]}"; do
    printf '%-18s' "$row"
    for col in "${COLUMNS[@]}"; do
      local cell="$col[$row]"
      printf ' %14s' "${!cell:--}"
    done
    printf '\n'
  done
}

say "done in $(elapsed): $([ $FAILED = 0 ] && echo ok || echo FAILED)"
echo "gpu-check: $(date -u '+%Y-%m-%d %H:%M UTC'), times are per launch (ms)"
print_table | tee "$OUT_DIR/table.txt"
exit $FAILED
