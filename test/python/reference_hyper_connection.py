# RUN: %PYTHON %s
"""sinkhorn and hyper_connection (mHC) of decoda.reference: Birkhoff-polytope facts, hand-sized
Sinkhorn steps and a hand-computed X' = B X + C F(A X)."""

import math

import numpy as np

from decoda import reference as R
from decoda import testing as T


def test_sinkhorn_is_doubly_stochastic():
    # n = 4, 20 iterations (DeepSeek's setting): rows and columns sum to 1 within 1e-3.
    for seed in range(5):
        g = T.rng(60 + seed)
        b = R.sinkhorn(T.randn(g, (4, 4)), 20)
        T.check(b.dtype == np.float32, "sinkhorn runs in f32")
        T.check(np.all(b >= 0), "B >= 0")
        T.assert_allclose(b.sum(-1), np.ones(4), atol=1e-3, op="sinkhorn", what="row sums")
        T.assert_allclose(b.sum(-2), np.ones(4), atol=1e-5, op="sinkhorn", what="column sums")
        # Doubly stochastic matrices have spectral norm <= 1 (here 1, with eigenvector 1).
        T.check(np.linalg.norm(b.astype(np.float64), 2) <= 1 + 1e-3, "spectral norm <= 1")
    # Per-token logits [..., n, n] are normalised matrix by matrix.
    g = T.rng(66)
    b = R.sinkhorn(T.randn(g, (2, 3, 4, 4), scale=2.0), 20)
    T.assert_allclose(b.sum(-1), np.ones((2, 3, 4)), atol=1e-3, op="sinkhorn",
                      what="batched row sums")
    T.assert_allclose(b.sum(-2), np.ones((2, 3, 4)), atol=1e-5, op="sinkhorn",
                      what="batched column sums")


def test_sinkhorn_hand_cases():
    # One iteration on exp(B~) = [[1, 2], [3, 4]]: rows -> [[1/3, 2/3], [3/7, 4/7]]; column
    # sums 16/21 and 26/21 -> [[7/16, 7/13], [9/16, 6/13]].
    m = np.log(np.array([[1.0, 2.0], [3.0, 4.0]]))
    T.assert_allclose(R.sinkhorn(m, 1), [[7 / 16, 7 / 13], [9 / 16, 6 / 13]], rtol=1e-15,
                      op="sinkhorn", what="one iteration")
    # A matrix whose exp is c times a doubly stochastic P is projected onto P.
    p = np.array([[0.25, 0.75], [0.75, 0.25]])
    T.assert_allclose(R.sinkhorn(np.log(p) + 3.0, 20), p, rtol=1e-15, op="sinkhorn",
                      what="fixed point")
    # A rank-one positive matrix u v^T scales to J / n after one iteration.
    u, v = np.array([1.0, 2.0, 5.0]), np.array([0.5, 4.0, 1.0])
    T.assert_allclose(R.sinkhorn(np.log(np.outer(u, v)), 1), np.full((3, 3), 1 / 3), rtol=1e-14,
                      op="sinkhorn", what="rank one")
    # Zero iterations is plain exp.
    T.assert_allclose(R.sinkhorn(m, 0), [[1, 2], [3, 4]], rtol=1e-15, op="sinkhorn",
                      what="iters 0")


def test_hand_computed_hyper_connection():
    # n = 2, d = 1: A = sigma(0, 0) = (1/2, 1/2); exp(B~) = [[1, 3], [3, 1]] -> B = [[1/4, 3/4],
    # [3/4, 1/4]]; C = 2 sigma(0, ln 3) = (1, 3/2). X = (1, 3): A X = 2, F(h) = h^2 = 4,
    # X' = B X + C F = (1/4 + 9/4 + 4, 3/4 + 3/4 + 6) = (6.5, 7.5).
    x = np.array([[1.0], [3.0]])
    seen = []

    def body(h):
        seen.append(h.copy())
        return h * h

    y, a, b, c = R.hyper_connection(x, np.zeros(2), np.log([[1.0, 3.0], [3.0, 1.0]]),
                                    np.array([0.0, math.log(3.0)]), body, 20,
                                    return_coefficients=True)
    T.assert_allclose(seen[0], [2.0], rtol=1e-15, op="hyper_connection", what="layer input A X")
    T.assert_allclose(a, [0.5, 0.5], rtol=1e-15, op="hyper_connection", what="A")
    T.assert_allclose(b, [[0.25, 0.75], [0.75, 0.25]], rtol=1e-15, op="hyper_connection",
                      what="B")
    T.assert_allclose(c, [1.0, 1.5], rtol=1e-15, op="hyper_connection", what="C")
    T.assert_allclose(y, [[6.5], [7.5]], rtol=1e-15, op="hyper_connection", what="X'")


def test_limits_and_conservation():
    g = T.rng(67)
    x = T.randn(g, (2, 3, 4, 8), storage="f64")        # [B, T, n, d]
    ident = np.full((4, 4), -60.0) + np.diag(np.full(4, 60.0))
    # C = 0 (write logits -inf) and B ~ I: the streams pass through untouched.
    y = R.hyper_connection(x, np.zeros(4), ident, np.full(4, -np.inf), lambda h: h + 1e6)
    T.assert_allclose(y, x, rtol=1e-12, atol=1e-12, op="hyper_connection", what="identity")
    # Columns of B sum to 1 (the last Sinkhorn step), so the streams' sum is conserved up to the
    # written layer output: sum_i X'_i = sum_j X_j + (sum_i C_i) F(A X).
    rl, ml, wl = T.randn(g, (4,), storage="f64"), T.randn(g, (4, 4), storage="f64"), \
        T.randn(g, (4,), storage="f64")
    f = lambda h: np.tanh(h) * 3.0                      # noqa: E731
    y, a, _, c = R.hyper_connection(x, rl, ml, wl, f, 20, return_coefficients=True)
    layer_in = np.einsum("i,btid->btd", 1 / (1 + np.exp(-rl)), x)
    T.assert_allclose(y.sum(axis=-2), x.sum(axis=-2) + c.sum() * f(layer_in), rtol=1e-12,
                      atol=1e-12, op="hyper_connection", what="stream-sum conservation")
    T.assert_allclose(c, 2 / (1 + np.exp(-wl)), rtol=1e-15, op="hyper_connection",
                      what="C = 2 sigma")


def test_dynamic_logits():
    g = T.rng(68)
    x = T.randn(g, (2, 3, 4, 5))
    rl, ml, wl = T.randn(g, (4,)), T.randn(g, (4, 4)), T.randn(g, (4,))
    body = lambda h: 0.5 * h - 1.0                      # noqa: E731
    static = R.hyper_connection(x, rl, ml, wl, body)
    tiled = R.hyper_connection(x, np.broadcast_to(rl, (2, 3, 4)).copy(),
                               np.broadcast_to(ml, (2, 3, 4, 4)).copy(),
                               np.broadcast_to(wl, (2, 3, 4)).copy(), body)
    T.assert_allclose(tiled, static, rtol=1e-6, atol=1e-6, op="hyper_connection",
                      what="dynamic = static when all tokens agree")
    # Different logits per token: each token equals the static op with its own logits
    # (the body is pointwise, so it may see one token at a time).
    rd, md, wd = T.randn(g, (2, 3, 4)), T.randn(g, (2, 3, 4, 4)), T.randn(g, (2, 3, 4))
    dyn = R.hyper_connection(x, rd, md, wd, body)
    for bi in range(2):
        for t in range(3):
            one = R.hyper_connection(x[bi, t], rd[bi, t], md[bi, t], wd[bi, t], body)
            T.assert_allclose(dyn[bi, t], one, rtol=1e-6, atol=1e-6, op="hyper_connection",
                              what=f"token ({bi}, {t})")
    T.assert_raises(ValueError, R.hyper_connection, x, rl, ml, wl, lambda h: h[..., :2],
                    op="hyper_connection", what="body changing the shape")
    T.assert_raises(ValueError, R.hyper_connection, x, np.zeros(3), ml, wl, body,
                    op="hyper_connection", what="read logits of the wrong length")


def test_low_precision():
    g = T.rng(69)
    x32 = T.randn(g, (2, 8, 4, 64))
    rl, ml, wl = T.randn(g, (4,)), T.randn(g, (4, 4)), T.randn(g, (4,))
    for st in ("f16", "bf16"):
        x = R.to_storage(x32, st)
        dtypes = []

        def body(h):
            dtypes.append(h.dtype)
            return R.softcap(h, 3.0, storage=st)

        y = R.hyper_connection(x, rl, ml, wl, body, storage=st)
        ref = R.hyper_connection(x.astype(np.float32), rl, ml, wl, lambda h: R.softcap(h, 3.0))
        T.assert_close_to_fp32(y, ref, st, op="hyper_connection")
        T.check(dtypes[0] == (np.float16 if st == "f16" else np.float32),
                "body receives the storage type")


if __name__ == "__main__":
    T.run_tests(globals())
