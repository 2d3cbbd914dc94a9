# RUN: %PYTHON %s
"""Decomposed attention and RoPE as exporters write them (dynamic batch and sequence): MHA/GQA/MQA
with Div/Mul/shape-derived scales, Trilu and Range/Less causal masks (additive or Where),
repeat-KV via Unsqueeze/Expand/Reshape, rotate-half and interleaved RoPE with in-graph tables,
Shape/Gather/Concat/Reshape chains, compiled and run against ONNX Runtime.

ONNX Runtime gives the expected values; decoda-compile compiles the same file; every case prints
PASS/FAIL with its largest absolute error (harness.py)."""

import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
from harness import run_group  # noqa: E402

run_group("blocks", "attention_rope")
