# RUN: %PYTHON %s
"""Exporter-style MoE (8 experts, top-2, one shared expert; softmax and sigmoid scoring, the
dense gpt-oss path with TopK and ScatterElements), DeepSeek-V2-style MLA (low-rank query and
latent KV, decoupled RoPE) and gpt-oss sliding-window attention with sinks, compiled and run
against ONNX Runtime (dynamic batch and sequence).

ONNX Runtime gives the expected values; decoda-compile compiles the same file; every case prints
PASS/FAIL with its largest absolute error (harness.py)."""

import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
from harness import run_group  # noqa: E402

run_group("blocks", "moe_mla_sinks")
