#!/usr/bin/env bash
#===-- utils/evaluate-pie.sh - The evaluator on every PIE problem ---------===#
#
# For each problem of a PIE-layout folder (default ../shared/data/pie):
# slow.cpp evaluated against itself must be ok with ratio exactly 1.0 under
# --measure=instructions and count as 1.0 under --measure=time (10 pairs, as
# a winner's verification takes), and fast.cpp, where present, must be ok
# and faster (--scope=file --measure=instructions). Prints a table; exits
# non-zero if any problem breaks those expectations.
#
#===-----------------------------------------------------------------------===#
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PIE="${1:-$ROOT/../shared/data/pie}"
TOOL="${CLANG_MAXCODE:-$ROOT/build/bin/clang-maxcode}"
[ -x "$TOOL" ] || { echo "build the tool first (bash utils/build.sh)" >&2; exit 1; }

field() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(d.get(sys.argv[2], ''))" "$1" "$2"; }

bad=0
printf '%-8s %-10s %-8s %-10s %-8s %-10s %-8s %s\n' problem self self-ratio time time-ratio fast fast-ratio tests
for dir in "$PIE"/p*/; do
  p=$(basename "$dir")
  out=$(mktemp)
  "$TOOL" --evaluate="$dir/slow.cpp" "$dir/slow.cpp" --tests="$dir/tests" \
    --scope=file --measure=instructions --format=json -- -std=c++17 -O3 \
    > "$out" 2>/dev/null
  s_status=$(field "$out" status); s_ratio=$(field "$out" ratio)
  tests="$(field "$out" tests_passed)/$(field "$out" tests_total)+$(field "$out" held_out_passed)/$(field "$out" held_out_total)"
  python3 -c "import sys; sys.exit(0 if '$s_status' == 'ok' and float('${s_ratio:-0}') == 1.0 else 1)" || bad=1
  "$TOOL" --evaluate="$dir/slow.cpp" "$dir/slow.cpp" --tests="$dir/tests" \
    --scope=file --measure=time --repetitions=10 --format=json \
    -- -std=c++17 -O3 > "$out" 2>/dev/null
  t_status=$(field "$out" status); t_ratio=$(field "$out" ratio)
  python3 -c "import sys; sys.exit(0 if '$t_status' == 'ok' and float('${t_ratio:-0}') == 1.0 else 1)" || bad=1
  f_status=-; f_ratio=-
  if [ -f "$dir/fast.cpp" ]; then
    # The human solution is the reference, as written: some tie themselves
    # to the machine (a GCC target pragma), which a search may not unasked.
    "$TOOL" --evaluate="$dir/fast.cpp" "$dir/slow.cpp" --tests="$dir/tests" \
      --scope=file --measure=instructions --allow-isa=native --format=json \
      -- -std=c++17 -O3 \
      > "$out" 2>/dev/null
    f_status=$(field "$out" status); f_ratio=$(field "$out" ratio)
    python3 -c "import sys; sys.exit(0 if '$f_status' == 'ok' and float('${f_ratio:-0}') > 1 else 1)" || bad=1
  fi
  rm -f "$out"
  printf '%-8s %-10s %-8s %-10s %-8s %-10s %-8s %s\n' "$p" "$s_status" "$s_ratio" "$t_status" "$t_ratio" "$f_status" "$f_ratio" "$tests"
done
exit $bad
