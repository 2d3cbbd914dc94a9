# RUN: %PYTHON %s
"""One-op ONNX graphs: Reshape (0, -1), Transpose, Unsqueeze, Squeeze, Expand, Concat, Slice
(negative, steps, reverse), Split (13 and 18), Gather, Shape (start/end), Range, ConstantOfShape,
Trilu, Tile, compiled and run against ONNX Runtime.

ONNX Runtime gives the expected values; decoda-compile compiles the same file; every case prints
PASS/FAIL with its largest absolute error (harness.py)."""

import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
from harness import run_group  # noqa: E402

run_group("ops", "shape")
