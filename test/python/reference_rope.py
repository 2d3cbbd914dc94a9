# RUN: %PYTHON %s
"""rope, rope_inv_freq and rope_attention_factor of decoda.reference against hand-computed
frequencies (the numbers of test/unittests/SemanticsTest.cpp, derived from the Hugging Face
definitions) and the geometric facts of RoPE: norm preservation, relative-position scores,
layout permutation, partial rotation."""

import math

import numpy as np

from decoda import reference as R
from decoda import testing as T


def test_plain_inv_freq():
    # theta^(-2k/d) for d = 8, theta = 10000: 1, 1e-1, 1e-2, 1e-3.
    f = R.rope_inv_freq(10000.0, 8)
    T.assert_allclose(f, [1.0, 0.1, 0.01, 0.001], rtol=1e-14, op="rope_inv_freq", what="plain")
    # ABF is just a larger theta: d = 4, theta = 1e6: 1, 1e-3.
    T.assert_allclose(R.rope_inv_freq(1e6, 4), [1.0, 1e-3], rtol=1e-14, op="rope_inv_freq",
                      what="theta 1e6")
    T.assert_equal(R.rope_attention_factor(None), 1.0, op="rope_attention_factor", what="plain")


def test_linear_inv_freq():
    sc = R.RopeScaling("linear", 4.0)
    T.assert_allclose(R.rope_inv_freq(10000.0, 8, sc), [0.25, 0.025, 0.0025, 0.00025],
                      rtol=1e-14, op="rope_inv_freq", what="linear")
    T.assert_equal(R.rope_attention_factor(sc), 1.0, op="rope_attention_factor", what="linear")


def test_yarn_inv_freq():
    # d = 8, theta = 10000, factor 4, original context 64, beta_fast 32, beta_slow 1:
    # correction dim(r) = 8 ln(64 / (2 pi r)) / (2 ln 10000): r = 32 -> -0.4973 -> floor -1 ->
    # clamp 0; r = 1 -> 1.0081 -> ceil 2. ramp(k) = clamp(k / 2, 0, 1) = 0, .5, 1, 1, and the
    # unscaled frequency has weight 1 - ramp = 1, .5, 0, 0.
    sc = R.RopeScaling("yarn", 4.0, original_max_position=64)
    base = np.array([1.0, 0.1, 0.01, 0.001])
    extrap = np.array([1.0, 0.5, 0.0, 0.0])
    T.assert_allclose(R.rope_inv_freq(10000.0, 8, sc), base * extrap + base / 4 * (1 - extrap),
                      rtol=1e-14, op="rope_inv_freq", what="yarn")
    # Defaults spelled out give the same frequencies.
    T.assert_allclose(R.rope_inv_freq(10000.0, 8, {"kind": "yarn", "factor": 4.0,
                                                    "original_max_position": 64,
                                                    "beta_fast": 32.0, "beta_slow": 1.0}),
                      base * extrap + base / 4 * (1 - extrap), rtol=1e-14, op="rope_inv_freq",
                      what="yarn explicit defaults")
    T.assert_allclose(R.rope_attention_factor(sc), 0.1 * math.log(4.0) + 1.0, rtol=1e-15,
                      op="rope_attention_factor", what="yarn default")
    T.assert_equal(R.rope_attention_factor(R.RopeScaling("yarn", 4.0, 64, attention_factor=0.75)),
                   0.75, op="rope_attention_factor", what="explicit")
    # A second hand case: d = 8, original context 4096, beta_fast 32 -> cd = 8 ln(20.37)/18.42
    # = 1.309 -> floor 1; beta_slow 1 -> cd = 8 ln(651.9)/18.42 = 2.814 -> ceil 3.
    # ramp(k) = clamp((k - 1)/2) = 0, 0, .5, 1.
    sc = R.RopeScaling("yarn", 8.0, original_max_position=4096)
    ramp = np.array([0.0, 0.0, 0.5, 1.0])
    T.assert_allclose(R.rope_inv_freq(10000.0, 8, sc), base / 8 * ramp + base * (1 - ramp),
                      rtol=1e-14, op="rope_inv_freq", what="yarn, context 4096")


def test_llama3_inv_freq():
    # d = 8, theta = 10000: wavelengths 6.283, 62.83, 628.3, 6283. Original context 1024, low
    # factor 1, high factor 4: low wavelen 1024, high wavelen 256. k = 0, 1 kept; k = 2 smoothed
    # with s = (1024 / 628.32 - 1) / 3 = 0.209916; k = 3 divided by 8.
    sc = R.RopeScaling("llama3", 8.0, original_max_position=1024, low_freq_factor=1.0,
                       high_freq_factor=4.0)
    s = (1024.0 / (2 * math.pi / 0.01) - 1.0) / 3.0
    T.check(abs(s - 0.209916) < 1e-6, "smooth factor by hand")
    want = [1.0, 0.1, (1 - s) * 0.01 / 8 + s * 0.01, 0.001 / 8]
    T.assert_allclose(R.rope_inv_freq(10000.0, 8, sc), want, rtol=1e-14, op="rope_inv_freq",
                      what="llama3")
    # The defaults are low 1, high 4.
    T.assert_allclose(R.rope_inv_freq(10000.0, 8, R.RopeScaling("llama3", 8.0, 1024)), want,
                      rtol=1e-14, op="rope_inv_freq", what="llama3 defaults")
    T.assert_equal(R.rope_attention_factor(sc), 1.0, op="rope_attention_factor", what="llama3")


def test_seed_quarter_turn_example():
    # The seed's example: q = k = (1, 0), theta = pi/2 per position: dot 1, 0, -1 at distance
    # 0, 1, 2. For d = 2 the only frequency is 1, so linear scaling by 2/pi makes it pi/2.
    sc = R.RopeScaling("linear", 2.0 / math.pi)
    v = np.zeros((1, 3, 1, 2))
    v[..., 0] = 1.0
    r = R.rope(v, np.array([0, 1, 2]), scaling=sc)
    dots = r[0, :, 0, :] @ r[0, 0, 0, :]
    T.assert_allclose(dots, [1.0, 0.0, -1.0], atol=1e-15, op="rope", what="quarter turns")
    # Rotation direction: (1, 0) at angle pi/2 becomes (0, 1).
    T.assert_allclose(r[0, 1, 0], [0.0, 1.0], atol=1e-15, op="rope", what="direction")


def test_norm_preservation_and_relative_positions():
    g = T.rng(20)
    for layout in ("half_split", "interleaved"):
        q = T.randn(g, (2, 6, 3, 16), storage="f64")
        k = T.randn(g, (2, 6, 3, 16), storage="f64")
        pos = g.integers(0, 500, size=(2, 6))
        qr = R.rope(q, pos, layout=layout)
        T.assert_allclose(np.linalg.norm(qr, axis=-1), np.linalg.norm(q, axis=-1), rtol=1e-13,
                          op="rope", what=f"{layout} norm")
        # Scores depend only on relative position: shift both positions by 1000.
        kr = R.rope(k, pos[:, ::-1].copy(), layout=layout)
        s0 = np.einsum("bthd,bthd->bth", qr, kr)
        s1 = np.einsum("bthd,bthd->bth", R.rope(q, pos + 1000, layout=layout),
                       R.rope(k, pos[:, ::-1] + 1000, layout=layout))
        T.assert_allclose(s1, s0, rtol=1e-9, atol=1e-9, op="rope", what=f"{layout} shift")
        # And equal the analytic relative form sum_k Re[q_k conj(k_k) e^{i (m - n) theta_k}].
        inv = R.rope_inv_freq(10000.0, 16)
        if layout == "half_split":
            qc = q[..., :8] + 1j * q[..., 8:]
            kc = k[..., :8] + 1j * k[..., 8:]
        else:
            qc = q[..., 0::2] + 1j * q[..., 1::2]
            kc = k[..., 0::2] + 1j * k[..., 1::2]
        delta = (pos - pos[:, ::-1])[:, :, None, None] * inv
        want = np.real(qc * np.conj(kc) * np.exp(1j * delta)).sum(-1)
        T.assert_allclose(s0, want, rtol=1e-9, atol=1e-9, op="rope", what=f"{layout} analytic")
    # In f32 (angles in f32) the shift invariance holds to f32 accuracy for moderate positions.
    q = T.randn(g, (1, 8, 2, 32))
    k = T.randn(g, (1, 8, 2, 32))
    pos = np.arange(8)
    a = np.einsum("bthd,bshd->bhts", R.rope(q, pos), R.rope(k, pos))
    b = np.einsum("bthd,bshd->bhts", R.rope(q, pos + 64), R.rope(k, pos + 64))
    T.assert_allclose(b, a, rtol=1e-4, atol=1e-4, op="rope", what="f32 shift")


def test_layout_permutation():
    # interleaved and half_split differ by a permutation of features: P = [0, 2, .., 1, 3, ..].
    g = T.rng(21)
    x = T.randn(g, (2, 5, 3, 12), storage="f64")
    for r in (12, 8):
        perm = np.concatenate([np.arange(0, r, 2), np.arange(1, r, 2), np.arange(r, 12)])
        a = R.rope(x, rotary_dim=r, layout="interleaved")[..., perm]
        b = R.rope(x[..., perm], rotary_dim=r, layout="half_split")
        T.assert_allclose(a, b, rtol=1e-15, atol=1e-15, op="rope", what=f"permutation r={r}")


def test_partial_rotary_and_positions():
    g = T.rng(22)
    x = T.randn(g, (2, 7, 4, 16))
    for layout in ("half_split", "interleaved"):
        y = R.rope(x, rotary_dim=6, layout=layout, theta=500.0)
        T.assert_equal(y[..., 6:], x[..., 6:], op="rope", what=f"{layout} tail untouched")
        # The rotated part is the full rope of the head cut to its first 6 features.
        T.assert_allclose(y[..., :6], R.rope(x[..., :6].copy(), layout=layout, theta=500.0),
                          rtol=1e-6, atol=1e-6, op="rope", what=f"{layout} head")
    # Position 0 is the identity.
    T.assert_equal(R.rope(x, np.zeros(7, np.int64)), x, op="rope", what="position 0")
    # positions None == arange(T) == [B, T] arange; [T] broadcasts over the batch.
    ar = np.arange(7)
    T.assert_equal(R.rope(x), R.rope(x, ar), op="rope", what="default positions")
    T.assert_equal(R.rope(x, np.stack([ar, ar]).astype(np.int32)), R.rope(x, ar), op="rope",
                   what="[B, T] positions")
    # A decode step at position p equals the p-th row of a prefill.
    full = R.rope(x)
    step = R.rope(x[:, 4:5].copy(), np.array([[4], [4]]))
    T.assert_equal(step, full[:, 4:5], op="rope", what="decode position")
    T.assert_raises(ValueError, R.rope, x, rotary_dim=5, op="rope", what="odd rotary_dim")
    T.assert_raises(ValueError, R.rope, x, np.arange(6), op="rope", what="positions length")


def test_yarn_attention_factor_scales_norms():
    g = T.rng(23)
    x = T.randn(g, (1, 4, 2, 8), storage="f64")
    sc = R.RopeScaling("yarn", 4.0, original_max_position=64)
    y = R.rope(x, scaling=sc)
    m = 0.1 * math.log(4) + 1
    T.assert_allclose(np.linalg.norm(y, axis=-1), m * np.linalg.norm(x, axis=-1), rtol=1e-13,
                      op="rope", what="yarn mscale")
    # Pair k at position p turns by exactly p * inv_freq[k] of the scaled frequencies.
    inv = R.rope_inv_freq(10000.0, 8, sc)
    p = 3
    ang = p * inv
    a, b = x[0, p, 0, :4], x[0, p, 0, 4:]
    T.assert_allclose(y[0, p, 0], m * np.concatenate([a * np.cos(ang) - b * np.sin(ang),
                                                      b * np.cos(ang) + a * np.sin(ang)]),
                      rtol=1e-13, atol=1e-15, op="rope", what="yarn angles")


def test_low_precision():
    g = T.rng(24)
    x32 = T.randn(g, (2, 16, 4, 64), scale=2.0)
    pos = np.arange(100, 116)
    sc = R.RopeScaling("llama3", 8.0, 8192)
    for st in ("f16", "bf16"):
        x = R.to_storage(x32, st)
        T.assert_close_to_fp32(R.rope(x, pos, theta=5e5, scaling=sc, storage=st),
                               R.rope(x.astype(np.float32), pos, theta=5e5, scaling=sc), st,
                               op="rope")


if __name__ == "__main__":
    T.run_tests(globals())
