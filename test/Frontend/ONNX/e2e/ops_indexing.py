# RUN: %PYTHON %s
"""TopK (largest/smallest, any axis, ties), ScatterND (KV-cache rows, reductions) and
ScatterElements (MoE gate scatter, negative indices, reductions), compiled and run against
ONNX Runtime.

ONNX Runtime gives the expected values; decoda-compile compiles the same file; every case prints
PASS/FAIL with its largest absolute error (harness.py)."""

import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
from harness import run_group  # noqa: E402

run_group("ops", "indexing")
