# RUN: %PYTHON %s
"""ONNX's backend node tests (Debian's libonnx-testdata) through decoda-compile and the runtime,
compared with their stored outputs. Tests of ops the importer does not have, of opsets outside
13..23 or of types the runtime cannot carry are not counted. The pass count may not fall below
the floor recorded here (README states the current figure); a crash counts as a failure."""

import os
import re
import subprocess
import sys
from pathlib import Path

FLOOR = 212  # of 252 supported-op tests, 2026-11-29 (TopK, ScatterND, ScatterElements and the sequence ops counted)

runner = Path(__file__).resolve().parents[4] / "python" / "tools" / "onnx_backend_tests.py"
proc = subprocess.run([sys.executable, str(runner), "-j", str(os.cpu_count() or 1), "--quiet"],
                      capture_output=True, text=True)
print(proc.stdout[-4000:])
m = re.search(r"(\d+) of (\d+) supported-op node tests pass", proc.stdout)
if not m:
    print(proc.stderr[-2000:])
    sys.exit("no summary line from the backend test runner")
passed, total = int(m.group(1)), int(m.group(2))
if passed < FLOOR:
    sys.exit(f"{passed} of {total} backend node tests pass, below the floor of {FLOOR}")
print(f"backend node tests: {passed} of {total} pass (floor {FLOOR})")
