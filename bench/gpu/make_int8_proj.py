"""Writes a float projection with a constant weight (x [1, ?, 2048] -> [1, ?, 1024], f32) for
bench/gpu_check.sh, which compiles it with --quantize=int8 --no-smooth --quant-attention=false:
the weight is quantised per channel at compile time and the contraction runs on the INT8
tensor-core kernel (mma.sync m16n8k32 .s8, the dequantising epilogue fused; docs/GPU.md). The
CPU artifact of the same program (AVX-512 VNNI) gives the reference outputs.

  make_int8_proj.py OUT.mlir
"""
import sys

import numpy as np

K, N = 2048, 1024
rng = np.random.default_rng(0)
w = (rng.standard_normal((N, K)) * 0.05).astype(np.float32)
with open(sys.argv[1], "w") as f:
    f.write(f"""func.func @int8_proj(%x: tensor<1x?x{K}xf32> {{decoda.name = "x"}}) -> tensor<1x?x{N}xf32> {{
  %w = arith.constant dense<"0x{w.tobytes().hex().upper()}"> : tensor<{N}x{K}xf32>
  %y = decoda.linear %x, %w : tensor<1x?x{K}xf32>, tensor<{N}x{K}xf32>
  return %y : tensor<1x?x{N}xf32>
}}
""")
