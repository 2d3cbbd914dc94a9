# RUN: %PYTHON %s
"""Whole decomposed blocks (dynamic batch and sequence): a Llama-style block and GPT-2-style pre-
and post-norm blocks, compiled and run against ONNX Runtime.

ONNX Runtime gives the expected values; decoda-compile compiles the same file; every case prints
PASS/FAIL with its largest absolute error (harness.py)."""

import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
from harness import run_group  # noqa: E402

run_group("blocks", "block")
