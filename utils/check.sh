#!/usr/bin/env bash
#===-- utils/check.sh - Build clang-maxcode and run every test ------------===#
#
# The project's test command (README, .ci/run): lit tests and gtest, through
# the check-maxcode target. Exits non-zero if any test fails.
#
#===-----------------------------------------------------------------------===#
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
export LIT_OPTS="${LIT_OPTS:-} --xunit-xml-output=${BUILD_DIR:-$ROOT/build}/test-results.xml"
status=0
bash "$ROOT/utils/build.sh" check-maxcode || status=$?
# One closing line any CI reads: "N passed, N failed".
python3 - "${BUILD_DIR:-$ROOT/build}/test-results.xml" <<'PY' || true
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
