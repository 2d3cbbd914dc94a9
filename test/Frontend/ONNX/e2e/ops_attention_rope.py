# RUN: %PYTHON %s
"""One-op ONNX graphs: Attention-23 (4-D GQA causal, 3-D with float mask, bool mask + softcap,
KV cache) and RotaryEmbedding-23 (half-split, interleaved, partial), compiled and run against
ONNX Runtime.

ONNX Runtime gives the expected values; decoda-compile compiles the same file; every case prints
PASS/FAIL with its largest absolute error (harness.py)."""

import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
from harness import run_group  # noqa: E402

run_group("ops", "attention_rope")
