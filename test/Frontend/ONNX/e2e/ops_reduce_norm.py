# RUN: %PYTHON %s
"""One-op ONNX graphs: ReduceMean/ReduceSum/ReduceMax (attribute axes of opset 13, input axes
of opset 18, keepdims 0/1), Softmax, LayerNormalization, RMSNormalization-23, compiled and run
against ONNX Runtime.

ONNX Runtime gives the expected values; decoda-compile compiles the same file; every case prints
PASS/FAIL with its largest absolute error (harness.py)."""

import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
from harness import run_group  # noqa: E402

run_group("ops", "reduce_norm")
