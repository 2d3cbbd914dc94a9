"""Inputs (arg0, arg1, ...) and NumPy reference outputs (out0) for int8-tensorcore-sim.mlir.

  qlinear_data.py acc|epilogue IN.npz OUT.npz

The accumulator is int64 NumPy arithmetic on the int8 values (exact), the epilogue the
decoda.qlinear formula in float32: float32(acc) * x_scale * w_scale[n] + bias[n].
"""
import sys

import numpy as np

rng = np.random.default_rng(11)


def int8(shape):
    a = rng.integers(-128, 128, size=shape, dtype=np.int64)
    flat = a.reshape(-1)
    flat[:7] = [-128, -128, 127, -128, 127, 0, -1]  # extremes among the inputs
    return a.astype(np.int8)


def acc(x, w):
    return np.einsum("...k,nk->...n", x.astype(np.int64), w.astype(np.int64))


kind, inp, out = sys.argv[1:]
if kind == "acc":
    x, w = int8((130, 256)), int8((136, 256))
    # One row and one column of all -128 / +127: the largest magnitudes K * 128 * 128 reach.
    x[5, :], w[9, :] = -128, -128
    w[10, :] = 127
    a = acc(x, w)
    assert np.abs(a).max() < 2 ** 24
    np.savez(inp, arg0=x, arg1=w, arg2=np.float32(1), arg3=np.float32(1))
    np.savez(out, out0=a.astype(np.float32))
elif kind == "epilogue":
    x, w = int8((2, 19, 96)), int8((72, 96))
    xs = rng.uniform(0.001, 0.02, (2, 19, 1)).astype(np.float32)
    ws = rng.uniform(0.001, 0.02, 72).astype(np.float32)
    b = rng.standard_normal(72).astype(np.float32)
    y = a = acc(x, w).astype(np.float32)
    y = (a * xs).astype(np.float32) * ws + b
    np.savez(inp, arg0=x, arg1=w, arg2=xs, arg3=ws, arg4=b)
    np.savez(out, out0=y.astype(np.float32))
else:
    raise SystemExit(f"unknown kind {kind}")
