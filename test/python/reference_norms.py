# RUN: %PYTHON %s
"""Norms and residual adds of decoda.reference against independent facts."""

import math

import numpy as np

from decoda import reference as R
from decoda import testing as T


def test_rms_norm_constant_row():
    # A constant row c has rms |c|, so x / rms(x) = sign(c) everywhere (eps = 0).
    for c in (3.0, -0.25, 1e3):
        x = np.full((2, 5, 8), c, dtype=np.float64)
        y = R.rms_norm(x, np.ones(8), eps=0.0)
        T.assert_allclose(y, np.sign(c) * np.ones_like(x), rtol=1e-15, op="rms_norm",
                          what=f"constant row {c}")
    # With eps the denominator is sqrt(c^2 + eps).
    x = np.full((1, 4), 0.5, dtype=np.float64)
    y = R.rms_norm(x, np.ones(4), eps=0.75)
    T.assert_allclose(y, np.full((1, 4), 0.5), rtol=1e-15, op="rms_norm", what="eps")


def test_seed_example_ln_vs_rms():
    # The seed's example: x = (1, 3), g = (1, 1), eps ~ 0: LN -> (-1, 1), RMSNorm -> (1, 3)/sqrt(5).
    x = np.array([[1.0, 3.0]])
    T.assert_allclose(R.layer_norm(x, np.ones(2), eps=0.0), [[-1.0, 1.0]], rtol=1e-15,
                      op="layer_norm", what="(1, 3)")
    T.assert_allclose(R.rms_norm(x, np.ones(2), eps=0.0), [[1 / math.sqrt(5), 3 / math.sqrt(5)]],
                      rtol=1e-15, op="rms_norm", what="(1, 3)")
    # Adding 10 to both entries leaves LN unchanged but changes RMSNorm.
    T.assert_allclose(R.layer_norm(x + 10, np.ones(2), eps=0.0), [[-1.0, 1.0]], rtol=1e-14,
                      op="layer_norm", what="shift invariance")
    T.check(not np.allclose(R.rms_norm(x + 10, np.ones(2), eps=0.0),
                            R.rms_norm(x, np.ones(2), eps=0.0)), "rms_norm is not shift invariant")


def test_layer_norm_moments():
    g = T.rng(1)
    x = T.randn(g, (3, 7, 64), scale=5.0, mean=2.0)
    y = R.layer_norm(x, np.ones(64, np.float32), np.zeros(64, np.float32), eps=0.0)
    T.check(y.dtype == np.float32, "layer_norm keeps f32")
    y64 = y.astype(np.float64)
    T.assert_allclose(y64.mean(-1), np.zeros((3, 7)), atol=1e-6, op="layer_norm", what="row mean")
    T.assert_allclose(y64.var(-1), np.ones((3, 7)), rtol=1e-5, op="layer_norm", what="row var")
    # Affine part: weight and bias act per feature after normalisation.
    w = T.randn(g, (64,))
    b = T.randn(g, (64,))
    T.assert_allclose(R.layer_norm(x, w, b, eps=0.0), y64 * w + b, rtol=1e-5, atol=1e-5,
                      op="layer_norm", what="affine")
    # Without bias equals bias = 0.
    T.assert_equal(R.layer_norm(x, w, None, eps=1e-5), R.layer_norm(x, w, np.zeros(64), eps=1e-5),
                   op="layer_norm", what="optional bias")


def test_rms_norm_properties():
    g = T.rng(2)
    x = T.randn(g, (4, 32), scale=3.0)
    y = R.rms_norm(x, np.ones(32, np.float32), eps=0.0).astype(np.float64)
    # Unit weight: every row has mean square 1.
    T.assert_allclose((y * y).mean(-1), np.ones(4), rtol=1e-5, op="rms_norm", what="row ms")
    # Scale invariance (eps = 0): rms_norm(a x) = rms_norm(x) for a > 0.
    T.assert_allclose(R.rms_norm(x * 8, np.ones(32), eps=0.0), y, rtol=1e-6, atol=1e-7,
                      op="rms_norm", what="scale invariance")
    # weight_offset: Gemma's (1 + gamma) equals passing gamma + 1 as the weight.
    gamma = T.randn(g, (32,), scale=0.1)
    T.assert_allclose(R.rms_norm(x, gamma, eps=1e-6, weight_offset=1.0),
                      R.rms_norm(x, gamma + 1, eps=1e-6), rtol=1e-6, atol=1e-7,
                      op="rms_norm", what="weight_offset")
    # QK-norm on per-head vectors [B, T, H, D] normalises each head separately.
    xh = T.randn(g, (2, 3, 4, 8), storage="f64")
    yh = R.rms_norm(xh, np.ones(8), eps=0.0)
    T.assert_allclose((yh * yh).mean(-1), np.ones((2, 3, 4)), rtol=1e-13, op="rms_norm",
                      what="per-head rows")
    T.assert_raises(ValueError, R.rms_norm, xh, np.ones(4), 1e-6, op="rms_norm",
                    what="weight of the wrong length")


def test_dtype_policy():
    g = T.rng(3)
    x32 = T.randn(g, (4, 16, 64), scale=2.0)
    w = T.randn(g, (64,))
    b = T.randn(g, (64,))
    for st in ("f16", "bf16"):
        x = R.to_storage(x32, st)
        y = R.rms_norm(x, w, eps=1e-6, storage=st)
        T.assert_close_to_fp32(y, R.rms_norm(x.astype(np.float32), w, eps=1e-6), st,
                               op="rms_norm")
        y = R.layer_norm(x, w, b, eps=1e-5, storage=st)
        T.assert_close_to_fp32(y, R.layer_norm(x.astype(np.float32), w, b, eps=1e-5), st,
                               op="layer_norm")
    # The statistics are taken in f32: an f16 row whose squares overflow f16 (300^2 > 65504)
    # still normalises to (about) its sign.
    x = np.full((1, 16), 300.0, dtype=np.float16)
    y = R.rms_norm(x, np.ones(16, np.float16), eps=1e-6)
    T.check(y.dtype == np.float16, "rms_norm keeps f16")
    T.assert_allclose(y, np.ones((1, 16)), rtol=1e-3, op="rms_norm", what="f16 overflow-free")


def test_residual_add():
    g = T.rng(4)
    r = T.randn(g, (2, 3, 8))
    b = T.randn(g, (2, 3, 8))
    T.assert_equal(R.residual_add(r, b), r + b, op="residual_add", what="scale 1")
    T.assert_allclose(R.residual_add(r, b, scale=0.5), r + 0.5 * b, rtol=1e-7, atol=1e-7,
                      op="residual_add", what="scale 0.5")
    # f16: one rounding of the exact sum (0.5 * b is exact in binary).
    r16, b16 = r.astype(np.float16), b.astype(np.float16)
    exact = r16.astype(np.float64) + 0.5 * b16.astype(np.float64)
    T.assert_equal(R.residual_add(r16, b16, scale=0.5), exact.astype(np.float16),
                   op="residual_add", what="f16 correctly rounded")
    # bf16: 1 + 2^-8 is halfway between bf16 neighbours 1 and 1 + 2^-7: ties to even gives 1.
    one = np.ones((1, 2), np.float32)
    tiny = np.full((1, 2), 2.0 ** -8, np.float32)
    T.assert_equal(R.residual_add(one, tiny, storage="bf16"), one, op="residual_add",
                   what="bf16 tie to even")


def test_fused_forms_equal_unfused():
    g = T.rng(5)
    for st in ("f32", "f16", "bf16"):
        r = T.randn(g, (2, 5, 32), storage=st)
        br = T.randn(g, (2, 5, 32), storage=st, scale=3.0)
        w = T.randn(g, (32,))
        bias = T.randn(g, (32,))
        s_ref = R.to_storage(r.astype(np.float64) + 0.25 * br.astype(np.float64), st)
        s, n = R.add_rms_norm(r, br, w, eps=1e-6, scale=0.25, storage=st)
        T.assert_equal(s, s_ref, op="add_rms_norm", what=f"{st} sum")
        T.assert_equal(n, R.rms_norm(s_ref, w, eps=1e-6, storage=st), op="add_rms_norm",
                       what=f"{st} normalized = rms_norm(rounded sum)")
        s, n = R.add_layer_norm(r, br, w, bias, eps=1e-5, scale=0.25, storage=st)
        T.assert_equal(s, s_ref, op="add_layer_norm", what=f"{st} sum")
        T.assert_equal(n, R.layer_norm(s_ref, w, bias, eps=1e-5, storage=st),
                       op="add_layer_norm", what=f"{st} normalized")


if __name__ == "__main__":
    T.run_tests(globals())
