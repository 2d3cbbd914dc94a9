# RUN: %PYTHON %s
"""linear, embedding, mlp, glu, gated_mlp and softcap of decoda.reference against independent
facts: closed-form values, the SiTU-GLU checks of the decoder-block seed, bounds, and explicit
float64 loops."""

import math

import numpy as np

from decoda import reference as R
from decoda import testing as T


def loop_linear(x, w_nk, b=None):
    """y[..., n] = sum_k x[..., k] w[n, k] (+ b[n]) by explicit Python sums in float64."""
    x = np.asarray(x, np.float64)
    flat = x.reshape(-1, x.shape[-1])
    out = np.zeros((flat.shape[0], w_nk.shape[0]))
    for t in range(flat.shape[0]):
        for n in range(w_nk.shape[0]):
            out[t, n] = math.fsum(float(flat[t, k]) * float(w_nk[n, k])
                                  for k in range(flat.shape[1]))
            if b is not None:
                out[t, n] += float(b[n])
    return out.reshape(x.shape[:-1] + (w_nk.shape[0],))


def test_linear_layouts_and_bias():
    g = T.rng(10)
    x = T.randn(g, (2, 3, 6))
    w = T.randn(g, (5, 6))
    b = T.randn(g, (5,))
    want = loop_linear(x, w.astype(np.float64), b)
    T.assert_allclose(R.linear(x, w, b), want, rtol=1e-5, atol=1e-5, op="linear", what="out_in")
    T.assert_allclose(R.linear(x, np.ascontiguousarray(w.T), b, weight_layout="in_out"), want,
                      rtol=1e-5, atol=1e-5, op="linear", what="in_out")
    T.assert_allclose(R.linear(x, w), loop_linear(x, w.astype(np.float64)), rtol=1e-5, atol=1e-5,
                      op="linear", what="no bias")
    # A hand-sized case: [1, 2] . [[1, 0], [0, 1], [1, 1]]^T + [0, 0, 1] = [1, 2, 4].
    T.assert_equal(R.linear(np.array([[1.0, 2.0]], np.float32),
                            np.array([[1, 0], [0, 1], [1, 1]], np.float32),
                            np.array([0, 0, 1], np.float32)), np.array([[1, 2, 4]], np.float32),
                   op="linear", what="hand example")
    T.assert_raises(ValueError, R.linear, x, w.T, op="linear", what="K mismatch")


def test_linear_per_head():
    g = T.rng(11)
    heads, k, n = 3, 4, 5
    x = T.randn(g, (2, 7, heads, k), storage="f64")
    w = T.randn(g, (heads, n, k), storage="f64")
    b = T.randn(g, (heads, n), storage="f64")
    want = np.stack([loop_linear(x[:, :, h, :], w[h], b[h]) for h in range(heads)], axis=2)
    T.assert_allclose(R.linear(x, w, b), want, rtol=1e-12, atol=1e-12, op="linear",
                      what="per-head out_in")
    T.assert_allclose(R.linear(x, np.ascontiguousarray(w.transpose(0, 2, 1)), b,
                               weight_layout="in_out"), want, rtol=1e-12, atol=1e-12,
                      op="linear", what="per-head in_out")


def test_embedding():
    table = np.arange(12, dtype=np.float32).reshape(4, 3)
    ids = np.array([[3, 0], [1, 1]], dtype=np.int64)
    y = R.embedding(ids, table)
    T.assert_equal(y, np.array([[[9, 10, 11], [0, 1, 2]], [[3, 4, 5], [3, 4, 5]]], np.float32),
                   op="embedding", what="lookup")
    T.check(y.dtype == np.float32 and y.shape == (2, 2, 3), "embedding result type")
    T.check(R.embedding(ids.astype(np.int32), table.astype(np.float16)).dtype == np.float16,
            "embedding keeps the table dtype")
    T.assert_raises(IndexError, R.embedding, np.array([4]), table, op="embedding", what="id = V")
    T.assert_raises(IndexError, R.embedding, np.array([0, -1]), table, op="embedding",
                    what="negative id")
    # Tied LM head: linear with the embedding table as an out_in weight scores token v by
    # <h, table[v]>; the embedding of token v scores itself with its squared norm.
    h = R.embedding(np.array([2]), table)
    T.assert_allclose(R.linear(h, table)[0, 2], float(table[2] @ table[2]), rtol=1e-7,
                      op="linear", what="tied head")


def test_activations_closed_forms():
    x = np.array([-3.0, -1.0, 0.0, 0.5, 1.0, 2.0])
    # Phi(1) = 0.8413447460685429 (standard normal CDF), so gelu_erf(1) = Phi(1).
    T.assert_allclose(R.gelu_erf(np.array([1.0])), [0.8413447460685429], rtol=1e-15,
                      op="gelu_erf", what="Phi(1)")
    T.assert_allclose(R.gelu_erf(np.array([-1.0])), [-(1 - 0.8413447460685429)], rtol=1e-14,
                      op="gelu_erf", what="-Phi(-1)")
    T.assert_allclose(R.silu(x), x / (1 + np.exp(-x)), rtol=1e-15, op="silu")
    T.assert_allclose(R.relu(x), [0, 0, 0, 0.5, 1, 2], rtol=0, op="relu")
    # The tanh approximation stays within 1e-3 of the exact GELU.
    xs = np.linspace(-6, 6, 241)
    T.assert_allclose(R.gelu_tanh(xs), R.gelu_erf(xs), atol=1e-3, op="gelu_tanh",
                      what="vs gelu_erf")
    T.assert_allclose(R.gelu_tanh(np.array([1.0])),
                      [0.5 * (1 + math.tanh(math.sqrt(2 / math.pi) * 1.044715))], rtol=1e-15,
                      op="gelu_tanh", what="at 1")
    # silu's minimum is -0.27846454276107380 at x = -1.27846 (scan).
    xs = np.linspace(-3, 0, 300001)
    T.assert_allclose(R.silu(xs).min(), -0.27846454276107380, atol=1e-9, op="silu", what="min")


def test_situ_seed_checks():
    # The seed's SiTU-GLU reference checks, K3 constants beta1 = 4, beta2 = 25.
    extreme = np.array([-1e4, -10.0, 0.0, 10.0, 1e4], dtype=np.float32)
    hidden = R.glu(extreme, extreme, "situ", beta1=4.0, beta2=25.0)
    T.check(np.abs(hidden).max() <= 100, f"|situ| <= beta1 beta2 = 100, got {hidden}")
    small = np.linspace(-1e-3, 1e-3, 17, dtype=np.float64)
    T.assert_allclose(R.glu(small, small, R.Glu("situ", beta1=4.0, beta2=25.0)),
                      small / (1 + np.exp(-small)) * small, atol=1e-12, rtol=1e-6, op="glu",
                      what="situ ~ silu(g) g near 0")
    # Over a wide random range the bound holds for every element.
    g = T.rng(12)
    big = T.randn(g, (4096,), scale=200.0)
    T.check(np.abs(R.glu(big, big[::-1].copy(), "situ", beta1=4.0, beta2=25.0)).max() <= 100,
            "situ bound on random inputs")
    # Closed form at a point: g = u = 4: 4 tanh(1) sigma(4) 25 tanh(0.16).
    want = 4 * math.tanh(1) / (1 + math.exp(-4)) * 25 * math.tanh(4 / 25)
    T.assert_allclose(R.glu(np.array([4.0]), np.array([4.0]), "situ", beta1=4.0, beta2=25.0),
                      [want], rtol=1e-14, op="glu", what="situ(4, 4)")


def test_glu_kinds_and_infinite_parameters():
    g = T.rng(13)
    gate = T.randn(g, (3, 50), scale=4.0, storage="f64")
    up = T.randn(g, (3, 50), scale=20.0, storage="f64")
    silu_g = gate / (1 + np.exp(-gate))
    T.assert_allclose(R.glu(gate, up, "swiglu"), silu_g * up, rtol=1e-14, op="glu",
                      what="swiglu")
    erf = np.vectorize(math.erf)
    T.assert_allclose(R.glu(gate, up, "geglu"), 0.5 * gate * (1 + erf(gate / math.sqrt(2))) * up,
                      rtol=1e-13, atol=1e-13, op="glu", what="geglu")
    T.assert_allclose(R.glu(gate, up, "geglu_tanh"), R.gelu_tanh(gate) * up, rtol=1e-14,
                      op="glu", what="geglu_tanh")
    inf = math.inf
    # An infinite cap disappears: SiTU with beta1 = beta2 = inf is SwiGLU, and so is the
    # clamped SwiGLU with L = inf.
    T.assert_allclose(R.glu(gate, up, "situ", beta1=inf, beta2=inf), silu_g * up, rtol=1e-14,
                      op="glu", what="situ(inf, inf)")
    T.assert_allclose(R.glu(gate, up, "clamped_swiglu", limit=inf), silu_g * up, rtol=1e-14,
                      op="glu", what="clamped_swiglu(inf)")
    # One finite cap: only that factor is softcapped.
    T.assert_allclose(R.glu(gate, up, "situ", beta1=inf, beta2=25.0),
                      silu_g * 25 * np.tanh(up / 25), rtol=1e-14, op="glu", what="situ(inf, 25)")
    # Clamped SwiGLU (DeepSeek-V4, L = 10): the linear branch is clamped to [-10, 10], the gate
    # bounded above by 10; |h| <= silu(10) * 10.
    L = 10.0
    h = R.glu(gate * 5, up, "clamped_swiglu", limit=L)
    gc = np.minimum(gate * 5, L)
    T.assert_allclose(h, gc / (1 + np.exp(-gc)) * np.clip(up, -L, L), rtol=1e-14, op="glu",
                      what="clamped_swiglu")
    T.check(np.abs(h).max() <= L / (1 + math.exp(-L)) * L * (1 + 1e-12),
            "clamped swiglu bound (up to rounding)")
    T.check(np.abs(h).max() > 99, "the bound is reached by saturated inputs")
    # Below the limits it is SwiGLU.
    gs, us = gate / 10, up / 10
    inside = (gs < L) & (np.abs(us) < L)
    T.check(inside.all(), "test values inside the clamp")
    T.assert_allclose(R.glu(gs, us, "clamped_swiglu", limit=L), R.glu(gs, us, "swiglu"),
                      rtol=1e-15, op="glu", what="clamped_swiglu inside")
    T.assert_raises(ValueError, R.glu, gate, up, "situ", beta1=4.0, op="glu",
                    what="situ without beta2")
    T.assert_raises(ValueError, R.glu, gate, up, "situ", beta1=-4.0, beta2=2.0, op="glu",
                    what="negative beta")


def test_softcap():
    x = np.array([-1e6, -30.0, -1.0, 0.0, 1e-4, 29.0, 1e6], dtype=np.float64)
    y = R.softcap(x, 30.0)
    T.check(np.all(np.abs(y) <= 30.0), "|softcap| <= cap")
    T.assert_allclose(y, 30 * np.tanh(x / 30), rtol=1e-15, op="softcap")
    T.assert_allclose(R.softcap(np.array([1e-4]), 30.0), [1e-4], rtol=1e-9, op="softcap",
                      what="identity near 0")
    T.assert_equal(R.softcap(x, math.inf), x, op="softcap", what="inf cap is the identity")
    T.assert_raises(ValueError, R.softcap, x, 0.0, op="softcap", what="cap 0")


def test_mlp_against_loops():
    g = T.rng(14)
    x = T.randn(g, (2, 3, 8))
    wu = T.randn(g, (16, 8), scale=0.5)
    wd = T.randn(g, (8, 16), scale=0.5)
    bu = T.randn(g, (16,))
    bd = T.randn(g, (8,))
    acts = {"relu": lambda z: np.maximum(z, 0), "silu": lambda z: z / (1 + np.exp(-z)),
            "gelu_erf": lambda z: 0.5 * z * (1 + np.vectorize(math.erf)(z / math.sqrt(2))),
            "gelu_tanh": lambda z: 0.5 * z * (1 + np.tanh(math.sqrt(2 / math.pi)
                                                          * (z + 0.044715 * z ** 3)))}
    for name, act in acts.items():
        hidden = act(loop_linear(x, wu.astype(np.float64), bu))
        want = loop_linear(hidden, wd.astype(np.float64), bd)
        got = R.mlp(x, wu, wd, name, bu, bd)
        T.assert_allclose(got, want, rtol=1e-5, atol=1e-5, op="mlp", what=name)
        got = R.mlp(x, np.ascontiguousarray(wu.T), np.ascontiguousarray(wd.T), name, bu, bd,
                    weight_layout="in_out")
        T.assert_allclose(got, want, rtol=1e-5, atol=1e-5, op="mlp", what=f"{name} in_out")
    T.assert_raises(ValueError, R.mlp, x, wu, wd, "relu", bu, None, op="mlp",
                    what="unpaired bias")


def test_gated_mlp_against_loops():
    g = T.rng(15)
    x = T.randn(g, (2, 4, 8))
    wg = T.randn(g, (12, 8))
    wu = T.randn(g, (12, 8))
    wd = T.randn(g, (8, 12), scale=0.3)
    bg, bu, bd = T.randn(g, (12,)), T.randn(g, (12,)), T.randn(g, (8,))
    gate = loop_linear(x, wg.astype(np.float64), bg)
    up = loop_linear(x, wu.astype(np.float64), bu)
    h = 4 * np.tanh(gate / 4) / (1 + np.exp(-gate)) * 25 * np.tanh(up / 25)
    want = loop_linear(h, wd.astype(np.float64), bd)
    kind = R.Glu("situ", beta1=4.0, beta2=25.0)
    T.assert_allclose(R.gated_mlp(x, wg, wu, wd, kind, bg, bu, bd), want, rtol=1e-5, atol=1e-5,
                      op="gated_mlp", what="situ with biases")
    T.assert_allclose(R.gated_mlp(x, wg.T.copy(), wu.T.copy(), wd.T.copy(), kind, bg, bu, bd,
                                  weight_layout="in_out"), want, rtol=1e-5, atol=1e-5,
                      op="gated_mlp", what="in_out")
    # The seed's SwiGLU: (silu(x W_g) * x W_u) W_d, no biases.
    gate, up = loop_linear(x, wg.astype(np.float64)), loop_linear(x, wu.astype(np.float64))
    want = loop_linear(gate / (1 + np.exp(-gate)) * up, wd.astype(np.float64))
    T.assert_allclose(R.gated_mlp(x, wg, wu, wd, "swiglu"), want, rtol=1e-5, atol=1e-5,
                      op="gated_mlp", what="swiglu")
    T.assert_raises(ValueError, R.gated_mlp, x, wg, wu, wd, "swiglu", bg, None, bd,
                    op="gated_mlp", what="incomplete bias triple")


def test_low_precision():
    g = T.rng(16)
    x32 = T.randn(g, (4, 8, 64))
    w = T.randn(g, (96, 64), scale=0.125)
    wg = T.randn(g, (128, 64), scale=0.125)
    wu = T.randn(g, (128, 64), scale=0.125)
    wd = T.randn(g, (64, 128), scale=0.09)
    for st in ("f16", "bf16"):
        x = R.to_storage(x32, st)
        xf = x.astype(np.float32)
        T.assert_close_to_fp32(R.linear(x, w, storage=st), R.linear(xf, w), st, op="linear")
        T.assert_close_to_fp32(R.mlp(x, wg, wd, "gelu_tanh", storage=st),
                               R.mlp(xf, wg, wd, "gelu_tanh"), st, op="mlp")
        T.assert_close_to_fp32(R.gated_mlp(x, wg, wu, wd, "swiglu", storage=st),
                               R.gated_mlp(xf, wg, wu, wd, "swiglu"), st, op="gated_mlp")
        gate, up = R.to_storage(3 * x32, st), R.to_storage(x32[::-1].copy(), st)
        T.assert_close_to_fp32(
            R.glu(gate, up, "situ", beta1=4.0, beta2=25.0, storage=st),
            R.glu(gate.astype(np.float32), up.astype(np.float32), "situ", beta1=4.0, beta2=25.0),
            st, op="glu")
        T.assert_close_to_fp32(R.softcap(gate, 2.0, storage=st),
                               R.softcap(gate.astype(np.float32), 2.0), st, op="softcap")


if __name__ == "__main__":
    T.run_tests(globals())
