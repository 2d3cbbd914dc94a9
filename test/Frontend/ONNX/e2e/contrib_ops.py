# RUN: %PYTHON %s
"""com.microsoft ops of LLM exports: SimplifiedLayerNormalization, Skip(Simplified)LayerNormalization,
RotaryEmbedding, GroupQueryAttention (prefill, decode, local window, softcap, rotary),
MultiHeadAttention, FastGelu, QuickGelu, BiasGelu, MatMulNBits (2/4/8-bit codes, packed and
float zero points, bias, f32 and f16), and a decoder layer as onnxruntime-genai exports an int4
Llama (all of these together, f32 and f16), compiled and run against ONNX Runtime.

ONNX Runtime gives the expected values; decoda-compile compiles the same file; every case prints
PASS/FAIL with its largest absolute error (harness.py)."""

import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
from harness import run_group  # noqa: E402

run_group("ms_ops", "contrib")
