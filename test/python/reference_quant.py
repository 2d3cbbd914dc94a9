# RUN: %PYTHON %s
"""quantize, dequantize and qlinear of decoda.reference: round half to even, clamping, the
broadcasting rule of scale/zero_point, round-trip error <= scale/2, exact int32 accumulation, and
qlinear = float linear of the dequantised operands (SmoothQuant W8A8)."""

import numpy as np

from decoda import reference as R
from decoda import testing as T


def test_rounding_and_clamping():
    x = np.array([0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 3.5, 0.49999997], np.float32)
    T.assert_equal(R.quantize(x, np.float32(1.0)), np.array([0, 2, 2, 0, -2, -2, 4, 0], np.int8),
                   op="quantize", what="round half to even")
    T.check(R.quantize(x, np.float32(1.0)).dtype == np.int8, "quantize gives int8")
    big = np.array([1000.0, -1000.0, np.inf, -np.inf, 127.4, -128.4], np.float32)
    T.assert_equal(R.quantize(big, np.float32(1.0)), np.array([127, -128, 127, -128, 127, -128],
                                                              np.int8),
                   op="quantize", what="clamp")
    # The zero point is added after rounding, before clamping.
    zp = np.int8(10)
    T.assert_equal(R.quantize(np.array([2.5, 200.0, -140.0], np.float32), np.float32(1.0), zp),
                   np.array([12, 127, -128], np.int8), op="quantize", what="zero point")
    # x / scale is an f32 division: f32(0.25) / f32(0.1) rounds to exactly 2.5 -> 2 (even), and
    # f32(-11.85) / f32(0.1) to exactly -118.5 -> -118, where the float64 quotient
    # -118.500002 would give -119.
    T.assert_equal(R.quantize(np.array([0.3, 0.25, -11.85], np.float32), np.float32(0.1)),
                   np.array([3, 2, -118], np.int8), op="quantize", what="f32 division")


def test_round_trip_error():
    g = T.rng(80)
    x = T.randn(g, (2, 6, 32), scale=3.0)
    cases = {
        "per-tensor": np.float32(np.abs(x).max() / 127),
        "per-token": (np.abs(x).max(-1, keepdims=True) / 127).astype(np.float32),
        "per-channel": (np.abs(x).max(axis=(0, 1), keepdims=True) / 127).astype(np.float32),
    }
    for name, s in cases.items():
        q = R.quantize(x, s)
        back = R.dequantize(q, s)
        T.check(back.dtype == np.float32, "dequantize gives f32 by default")
        err = np.abs(back.astype(np.float64) - x)
        bound = np.broadcast_to(s, x.shape).astype(np.float64) / 2
        T.check(np.all(err <= bound * (1 + 1e-6) + 1e-12),
                f"{name}: |deq(q(x)) - x| <= scale/2 (worst excess {np.max(err - bound):.3g})")
    # Weight [N, K] with a per-output-channel scale [N, 1].
    w = T.randn(g, (16, 32))
    ws = (np.abs(w).max(-1, keepdims=True) / 127).astype(np.float32)
    err = np.abs(R.dequantize(R.quantize(w, ws), ws).astype(np.float64) - w)
    T.check(np.all(err <= ws / 2 * (1 + 1e-6)), "per-channel weight round trip")
    # Asymmetric: x in [0, 6] with scale 6/255 and zero point -128 uses the whole int8 range.
    xa = T.uniform(g, (1000,), 0.0, 6.0)
    s = np.float32(6.0 / 255)
    q = R.quantize(xa, s, np.int8(-128))
    err = np.abs(R.dequantize(q, s, np.int8(-128)).astype(np.float64) - xa)
    T.check(np.all(err <= s / 2 * (1 + 1e-6)), "asymmetric round trip")
    T.check(q.min() >= -128 and q.max() <= 127 and q.max() > 100, "asymmetric range used")


def test_grid_values_are_exact():
    # Values on the quantisation grid, s (q - zp) with s a power of two, survive exactly.
    s = np.float32(2.0 ** -5)
    zp = np.int8(3)
    q = np.arange(-128, 128).astype(np.int8)
    x = R.dequantize(q, s, zp)
    T.assert_equal(x, (np.arange(-128, 128) - 3) * 2.0 ** -5, op="dequantize", what="grid")
    T.assert_equal(R.quantize(x, s, zp), q, op="quantize", what="grid")
    T.check(R.dequantize(q, s, dtype="f16").dtype == np.float16, "dequantize to f16")
    T.check(R.is_bf16(R.dequantize(q, np.float32(0.0123), dtype="bf16")), "dequantize to bf16")


def test_broadcasting_rule():
    x = np.ones((4, 6), np.float32)
    T.assert_raises(ValueError, R.quantize, x, np.ones(4, np.float32), op="quantize",
                    what="scale of a lower rank")
    T.assert_raises(ValueError, R.quantize, x, np.ones((3, 1), np.float32), op="quantize",
                    what="scale not broadcastable")
    T.assert_raises(TypeError, R.quantize, x, np.ones((4, 1), np.float32),
                    np.zeros((4, 1), np.int32), op="quantize", what="int32 zero point")
    T.assert_raises(ValueError, R.quantize, x, np.ones((4, 1), np.float32),
                    np.zeros((1, 1), np.int8), op="quantize", what="zero point shape != scale")
    s = np.array([[1.0], [2.0], [4.0], [0.5]], np.float32)
    T.assert_equal(R.quantize(x * 2, s), np.array([[2], [1], [0], [4]], np.int8).repeat(6, 1),
                   op="quantize", what="per-row scale")


def dequantized_linear(x, w, xs, ws, xzp, bias):
    xf = (x.astype(np.float64) - (0 if xzp is None else np.asarray(xzp, np.float64))) * xs
    wf = w.astype(np.float64) * np.asarray(ws, np.float64).reshape(-1, 1)
    y = xf @ wf.T
    return y if bias is None else y + bias


def test_qlinear_equals_dequantized_float_linear():
    g = T.rng(81)
    x = g.integers(-128, 128, size=(2, 5, 64)).astype(np.int8)
    w = g.integers(-128, 128, size=(32, 64)).astype(np.int8)
    xs = g.uniform(0.001, 0.02, size=(2, 5, 1)).astype(np.float32)
    ws = g.uniform(0.001, 0.02, size=(32,)).astype(np.float32)
    bias = T.randn(g, (32,))
    xzp = g.integers(-20, 20, size=(2, 5, 1)).astype(np.int8)
    for zp in (None, xzp, np.int8(-7)):
        for b in (None, bias):
            want = dequantized_linear(x, w, xs, ws, zp, b)
            got = R.qlinear(x, w, xs, ws, x_zero_point=zp, bias=b)
            T.check(got.dtype == np.float32, "qlinear gives f32")
            T.assert_allclose(got, want, rtol=1e-6, atol=1e-6 * np.abs(want).max(),
                              op="qlinear", what=f"zp={None if zp is None else zp.shape} "
                                                 f"bias={b is not None}")
    # Per-tensor scales (rank 0).
    T.assert_allclose(R.qlinear(x, w, np.float32(0.01), np.float32(0.02)),
                      dequantized_linear(x, w, 0.01, np.full(32, 0.02), None, None), rtol=1e-6,
                      op="qlinear", what="per-tensor")
    for st in ("f16", "bf16"):
        y = R.qlinear(x, w, xs, ws, bias=bias, out_dtype=st)
        T.assert_close_to_fp32(y, R.qlinear(x, w, xs, ws, bias=bias), st, op="qlinear",
                               tol=2 ** -8 if st == "f16" else 2 ** -6)


def test_int32_accumulation_is_exact():
    # 2000 terms of +127*127, 2000 of -127*127, then 1*1: the partial sums pass 2^24, where f32
    # could not add 1, but the int32 accumulator is exact: acc = 1.
    k = 4001
    x = np.concatenate([np.full(2000, 127), np.full(2000, -127), [1]]).astype(np.int8)[None]
    w = np.concatenate([np.full(4000, 127), [1]]).astype(np.int8)[None]
    T.assert_equal(R.qlinear(x, w, np.float32(1), np.float32(1)), np.ones((1, 1), np.float32),
                   op="qlinear", what="exact cancellation")
    T.check(x.shape[1] == k, "K")
    # The largest sum without zero point, K = 2^17 - 1 terms of (-128)(-128), fits in int32.
    kmax = 2 ** 17 - 1
    y = R.qlinear(np.full((1, kmax), -128, np.int8), np.full((1, kmax), -128, np.int8),
                  np.float32(1), np.float32(1))
    T.assert_equal(y, np.full((1, 1), np.float32(kmax * 16384)), op="qlinear",
                   what="K = 2^17 - 1 worst case")
    # With a zero point a term reaches 255 * 128: K = 70000 < 2^17 already leaves int32.
    T.assert_raises(OverflowError, R.qlinear, np.full((1, 70000), 127, np.int8),
                    np.full((1, 70000), 127, np.int8), np.float32(1), np.float32(1),
                    x_zero_point=np.int8(-128), op="qlinear", what="int32 overflow")


def test_requantize():
    x = np.array([[1], [1], [1], [100]], np.int8)
    w = np.array([[5], [7]], np.int8)
    # y = acc * 1 * 0.5: 2.5 and 3.5 -> 2 and 4 (half to even); 250, 350 -> clamp 127.
    got = R.qlinear(x, w, np.float32(1), np.float32(0.5), out_scale=np.float32(1))
    T.assert_equal(got, np.array([[2, 4]] * 3 + [[127, 127]], np.int8), op="qlinear",
                   what="requantize")
    g = T.rng(82)
    xq = g.integers(-128, 128, size=(3, 16)).astype(np.int8)
    wq = g.integers(-128, 128, size=(8, 16)).astype(np.int8)
    bias = T.randn(g, (8,))
    y = R.qlinear(xq, wq, np.float32(0.01), np.float32(0.01), bias=bias)
    T.assert_equal(R.qlinear(xq, wq, np.float32(0.01), np.float32(0.01), bias=bias,
                             out_scale=np.float32(0.05)),
                   R.quantize(y, np.float32(0.05)), op="qlinear",
                   what="requantize = quantize(y) (bias included)")


def test_w8a8_error_bound():
    # SmoothQuant W8A8: per-token activations, per-channel weights. Each operand moves by at most
    # half its scale, so |y_q - y| <= sum_k (|x_k| sw/2 + |w_nk| sx/2 + sx sw/4).
    g = T.rng(83)
    x = T.randn(g, (4, 7, 64))
    w = T.randn(g, (24, 64), scale=0.2)
    sx = (np.abs(x).max(-1, keepdims=True) / 127).astype(np.float32)
    sw = (np.abs(w).max(-1) / 127).astype(np.float32)
    y = R.qlinear(R.quantize(x, sx), R.quantize(w, sw[:, None]), sx, sw)
    exact = x.astype(np.float64) @ w.astype(np.float64).T
    bound = (np.abs(x).astype(np.float64) @ np.ones((64, 1)) * sw / 2
             + sx * (np.abs(w).astype(np.float64).sum(-1) / 2) + 64 * sx * sw / 4)
    T.check(np.all(np.abs(y - exact) <= bound * (1 + 1e-5)), "W8A8 error within the bound")
    T.check(np.abs(y - exact).max() > 0, "quantisation did change y")


if __name__ == "__main__":
    T.run_tests(globals())
