#!/usr/bin/env bash
# The whole test suite: builds, then runs lit (FileCheck tests, Python tests) and the GoogleTest
# unit tests in one lit invocation, and ends with the line "N passed, N failed".
set -uo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh || { echo "0 passed, 1 failed"; exit 1; }

results=build/test-results.json
rm -f "$results"
/usr/lib/llvm-22/bin/lit -sv --no-progress-bar --order=lexical -j "$(nproc)" -o "$results" \
  build/test build/test/unittests "$@"
rc=$?
/usr/bin/python3 - "$results" <<'PY'
import json, sys
try:
    tests = json.load(open(sys.argv[1]))["tests"]
except Exception as exc:  # lit died before writing results
    print(f"could not read lit results: {exc}")
    print("0 passed, 1 failed")
    sys.exit(0)
ok = {"PASS", "XFAIL"}
skip = {"UNSUPPORTED", "SKIPPED"}
passed = sum(t["code"] in ok for t in tests)
skipped = sum(t["code"] in skip for t in tests)
failed = len(tests) - passed - skipped
print(f"{passed} passed, {failed} failed, {skipped} skipped")
PY
exit $rc
