# RUN: %PYTHON %s
"""Sequence ops resolved at import (SplitToSequence with sizes, a chunk and keepdims = 0,
SequenceConstruct/Empty/Insert/Erase/At/Length, ConcatFromSequence with and without new_axis),
compiled and run against ONNX Runtime.

ONNX Runtime gives the expected values; decoda-compile compiles the same file; every case prints
PASS/FAIL with its largest absolute error (harness.py)."""

import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
from harness import run_group  # noqa: E402

run_group("ops", "sequence")
