# RUN: %PYTHON %s
"""One-op ONNX graphs: MatMul (2-D weight, batched 4-D, broadcast batch) and Gemm (transB,
alpha/beta, bias), compiled and run against ONNX Runtime.

ONNX Runtime gives the expected values; decoda-compile compiles the same file; every case prints
PASS/FAIL with its largest absolute error (harness.py)."""

import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
from harness import run_group  # noqa: E402

run_group("ops", "matmul")
