"""A decode-shaped bf16 projection whose weight is a constant [K, N] (in_out, as ONNX MatMul
initializers are) and, beside it, RMSNorm + two in_out projections sharing the normalised row:
the model (.mlir, weights as dense_resource constants), its input x and the NumPy reference
(python/decoda/reference.py: linear with weight_layout="in_out", rms_norm) for the PTX
interpreter.

  in_out_model.py MODEL.mlir IN.npz OUT.npz
"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "python"))
from decoda import reference as R  # noqa: E402

model, inp, outp = sys.argv[1:4]
rng = np.random.default_rng(11)
K, N1, N2 = 256, 96, 40


def bf16(shape, scale):
    return R.to_bf16(rng.standard_normal(shape).astype(np.float32) * scale)


def bits(a):
    return (np.asarray(a, np.float32).view(np.uint32) >> 16).astype("<u2")


x = bf16((1, 1, K), 1.0)
g = bf16((K,), 1.0)
w1 = bf16((K, N1), 0.05)
w2 = bf16((K, N2), 0.05)
blob = lambda a: "0x04000000" + bits(a).tobytes().hex().upper()
open(model, "w").write(f"""
func.func @proj(%x: tensor<1x1x{K}xbf16>, %g: tensor<{K}xbf16>) -> (tensor<1x1x{N1}xbf16>, tensor<1x1x{N2}xbf16>) {{
  %w1 = arith.constant dense_resource<w1> : tensor<{K}x{N1}xbf16>
  %w2 = arith.constant dense_resource<w2> : tensor<{K}x{N2}xbf16>
  %n = decoda.rms_norm %x, %g {{eps = 1.0e-05 : f64}} : tensor<1x1x{K}xbf16>, tensor<{K}xbf16>
  %y1 = decoda.linear %n, %w1 {{weight_layout = #decoda.weight_layout<in_out>}} : tensor<1x1x{K}xbf16>, tensor<{K}x{N1}xbf16>
  %y2 = decoda.linear %n, %w2 {{weight_layout = #decoda.weight_layout<in_out>}} : tensor<1x1x{K}xbf16>, tensor<{K}x{N2}xbf16>
  return %y1, %y2 : tensor<1x1x{N1}xbf16>, tensor<1x1x{N2}xbf16>
}}
{{-#
  dialect_resources: {{
    builtin: {{
      w1: "{blob(w1)}",
      w2: "{blob(w2)}"
    }}
  }}
#-}}
""")
n = R.rms_norm(x, g, eps=1e-5, storage="bf16")
y1 = R.linear(n, w1, weight_layout="in_out", storage="bf16")
y2 = R.linear(n, w2, weight_layout="in_out", storage="bf16")
np.savez(inp, arg0=bits(x), arg1=bits(g))
np.savez(outp, out0=bits(y1), out1=bits(y2))
