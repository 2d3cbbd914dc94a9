# RUN: %PYTHON %s
"""Decomposed norms and MLPs as exporters write them (dynamic batch and sequence): RMSNorm in its
Pow/ReduceMean/Sqrt/Div, Reciprocal, 1/x, x*x and Cast-to-fp32 forms, LayerNorm, SwiGLU, GELU erf
and tanh MLPs, compiled and run against ONNX Runtime.

ONNX Runtime gives the expected values; decoda-compile compiles the same file; every case prints
PASS/FAIL with its largest absolute error (harness.py)."""

import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
from harness import run_group  # noqa: E402

run_group("blocks", "norm_mlp")
