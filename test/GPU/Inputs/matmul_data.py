"""Inputs (arg0, arg1, ...) and NumPy reference outputs (out0) for tensorcore-sim.mlir.

  matmul_data.py linear-bf16|linear-f16-bias|accumulate-bf16 IN.npz OUT.npz
"""
import sys

import numpy as np

rng = np.random.default_rng(7)


def bf16(a):
    u = a.astype(np.float32).view(np.uint32).astype(np.uint64)
    return ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16)


def f(b):
    return (b.astype(np.uint32) << 16).view(np.float32).astype(np.float64)


kind, inp, out = sys.argv[1:]
if kind == "linear-bf16":  # [1, 37, 128] x [136, 128]^T: M and N ragged, 4 k-steps
    x, w = bf16(rng.standard_normal((1, 37, 128))), bf16(rng.standard_normal((136, 128)) * 0.2)
    np.savez(inp, arg0=x, arg1=w)
    np.savez(out, out0=bf16(np.einsum("btk,nk->btn", f(x), f(w))))
elif kind == "linear-f16-bias":  # two lead dims, bias added after the f32 contraction
    x = rng.standard_normal((2, 19, 64)).astype(np.float16)
    w = (rng.standard_normal((72, 64)) * 0.2).astype(np.float16)
    b = rng.standard_normal(72).astype(np.float16)
    acc = np.einsum("btk,nk->btn", x.astype(np.float64), w.astype(np.float64)).astype(np.float32)
    np.savez(inp, arg0=x, arg1=w, arg2=b)
    np.savez(out, out0=(acc.astype(np.float16) + b).astype(np.float16))
elif kind == "accumulate-bf16":  # C starts from an input: M = 130 (two row blocks), N = 40
    x, w = bf16(rng.standard_normal((130, 96))), bf16(rng.standard_normal((40, 96)) * 0.2)
    c = rng.standard_normal((130, 40)).astype(np.float32)
    np.savez(inp, arg0=x, arg1=w, arg2=c)
    np.savez(out, out0=(f(x) @ f(w).T + c).astype(np.float32))
else:
    raise SystemExit(f"unknown kind {kind}")
