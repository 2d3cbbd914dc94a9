"""Inputs (arg0, arg1, ...) and NumPy reference outputs (out0) for epilogue-sim.mlir, the
functions of Inputs/epilogue_cases.mlir, written from the ops' formulas: a contraction in
float64 from the rounded inputs, rounded to float32 (the accumulator), then the elementwise
work in float32 with the bf16 roundings where the program has them (round to nearest even).

  epilogue_data.py res|mlp|mlpd|dec|odd|q8 T IN.npz OUT.npz
"""
import sys

import numpy as np

rng = np.random.default_rng(23)


def bf16(a):
    u = np.asarray(a, np.float32).view(np.uint32).astype(np.uint64)
    return ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16)


def f(b):
    return (b.astype(np.uint32) << 16).view(np.float32)


def proj(x, w):
    """float32 accumulator of x . w^T (bf16 bits in, float64 sum)."""
    return np.einsum("...k,nk->...n", f(x).astype(np.float64), f(w).astype(np.float64)).astype(np.float32)


kind, t, inp, out = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
if kind in ("res", "dec", "odd"):  # bf16(r + bf16(x . w^T)), the sum in float32
    (xs, n, k) = {"res": ((1, t, 128), 136, 128), "dec": ((2, 1, 200), 37, 200),
                  "odd": ((1, t, 200), 40, 200)}[kind]
    x, w = bf16(rng.standard_normal(xs)), bf16(rng.standard_normal((n, k)) * 0.2)
    r = bf16(rng.standard_normal(xs[:-1] + (n,)))
    y = bf16(proj(x, w))
    np.savez(inp, arg0=x, arg1=w, arg2=r)
    np.savez(out, out0=bf16(f(r) + f(y)))
elif kind in ("mlp", "mlpd"):  # down(bf16(silu(g) * u)), silu(g) = g * (1 / (1 + exp(-g)))
    # in float32; mlpd: the decode-shaped one (hidden 512, 200 features, T = 1)
    hid, ff = (64, 96) if kind == "mlp" else (512, 200)
    x = bf16(rng.standard_normal((1, t, hid)))
    wg = bf16(rng.standard_normal((ff, hid)) * 0.2 * 64 / hid)
    wu = bf16(rng.standard_normal((ff, hid)) * 0.2 * 64 / hid)
    wd = bf16(rng.standard_normal((hid, ff)) * 0.2)
    g, u = proj(x, wg), proj(x, wu)
    one = np.float32(1)
    h = bf16(g * (one / (one + np.exp(-g))) * u)
    np.savez(inp, arg0=x, arg1=wg, arg2=wu, arg3=wd)
    np.savez(out, out0=bf16(proj(h, wd)))
elif kind == "q8":  # bf16(float32(acc) * x_scale[t] * w_scale[n] + bias[n])
    x = rng.integers(-128, 128, size=(1, t, 128)).astype(np.int8)
    w = rng.integers(-128, 128, size=(40, 128)).astype(np.int8)
    w[0, :] = -128
    x[0, 0, :] = -128
    xs = rng.uniform(0.001, 0.02, (1, t, 1)).astype(np.float32)
    ws = rng.uniform(0.001, 0.02, 40).astype(np.float32)
    b = bf16(rng.standard_normal(40))
    acc = np.einsum("...k,nk->...n", x.astype(np.int64), w.astype(np.int64)).astype(np.float32)
    np.savez(inp, arg0=x, arg1=w, arg2=xs, arg3=ws, arg4=b)
    np.savez(out, out0=bf16((acc * xs).astype(np.float32) * ws + f(b)))
else:
    raise SystemExit(f"unknown kind {kind}")
