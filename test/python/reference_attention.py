# RUN: %PYTHON %s
"""decoda.reference.attention against independent facts: hand-sized softmax weights, GQA/MQA as
MHA over explicitly repeated K/V, mask equivalences (causal, window, chunk, segments, additive
masks), sinks, softcap and end-aligned queries."""

import math

import numpy as np

from decoda import reference as R
from decoda import testing as T

NEG_INF = -np.inf


def qkv(seed, b=2, tq=6, tk=6, hq=4, hkv=4, d=8, dv=8, storage="f64"):
    g = T.rng(seed)
    return (T.randn(g, (b, tq, hq, d), storage=storage),
            T.randn(g, (b, tk, hkv, d), storage=storage),
            T.randn(g, (b, tk, hkv, dv), storage=storage))


def additive(allowed):
    """An additive [1, 1, Tq, Tk] mask from a boolean 'allowed' matrix."""
    return np.where(allowed, 0.0, NEG_INF)[None, None]


def test_hand_softmax():
    # One query, two keys with scores 0 and ln 3: weights 1/4 and 3/4.
    q = np.ones((1, 1, 1, 1))
    k = np.array([0.0, math.log(3.0)]).reshape(1, 2, 1, 1)
    v = np.eye(2).reshape(1, 2, 1, 2)
    T.assert_allclose(R.attention(q, k, v, scale=1.0), [[[[0.25, 0.75]]]], rtol=1e-15,
                      op="attention", what="weights 1/4, 3/4")
    # Default scale 1/sqrt(D): D = 4, q = 2 e0, keys 0 and ln(3) e0 -> scores 0 and ln 3.
    q = np.zeros((1, 1, 1, 4))
    q[..., 0] = 2.0
    k = np.zeros((1, 2, 1, 4))
    k[0, 1, 0, 0] = math.log(3.0)
    T.assert_allclose(R.attention(q, k, v), [[[[0.25, 0.75]]]], rtol=1e-15, op="attention",
                      what="default scale")
    # Equal scores average the values.
    q, k, v = qkv(30, tq=1, tk=5, hq=1, hkv=1)
    T.assert_allclose(R.attention(np.zeros_like(q), k, v), v.mean(axis=1, keepdims=True),
                      rtol=1e-14, op="attention", what="uniform weights")


def test_gqa_and_mqa_equal_repeated_mha():
    for hq, hkv in ((8, 2), (6, 3), (4, 1), (4, 4)):
        q, k, v = qkv(31, hq=hq, hkv=hkv, dv=5)
        group = hq // hkv
        kr = np.repeat(k, group, axis=2)     # head h -> kv head h // group
        vr = np.repeat(v, group, axis=2)
        for causal in (False, True):
            T.assert_allclose(R.attention(q, k, v, causal=causal, num_heads=hq, num_kv_heads=hkv),
                              R.attention(q, kr, vr, causal=causal), rtol=1e-13, atol=1e-14,
                              op="attention", what=f"GQA {hq}/{hkv} causal={causal}")
    # Head by head: query head h of a GQA 4/2 reads kv head h // 2.
    q, k, v = qkv(32, hq=4, hkv=2)
    out = R.attention(q, k, v, causal=True)
    for h in range(4):
        one = R.attention(q[:, :, h:h + 1], k[:, :, h // 2:h // 2 + 1], v[:, :, h // 2:h // 2 + 1],
                          causal=True)
        T.assert_allclose(out[:, :, h:h + 1], one, rtol=1e-13, atol=1e-14, op="attention",
                          what=f"head {h}")


def test_causal_and_alignment():
    q, k, v = qkv(33, tq=7, tk=7)
    full = R.attention(q, k, v)
    causal = R.attention(q, k, v, causal=True)
    # The last query sees every key.
    T.assert_allclose(causal[:, -1], full[:, -1], rtol=1e-13, atol=1e-14, op="attention",
                      what="last causal query = full")
    # The first query sees only key 0: its output is v[0].
    T.assert_allclose(causal[:, 0], v[:, 0], rtol=1e-14, op="attention", what="first query")
    # Causal equals an additive mask with -inf above the diagonal.
    allowed = np.tril(np.ones((7, 7), bool))
    T.assert_allclose(R.attention(q, k, v, mask=additive(allowed)), causal, rtol=1e-14,
                      op="attention", what="causal = additive mask")
    # Queries are aligned to the end of the keys: the last 3 queries alone give the last 3 rows.
    T.assert_allclose(R.attention(q[:, -3:], k, v, causal=True), causal[:, -3:], rtol=1e-14,
                      op="attention", what="Tq < Tk alignment")
    # A future key changes nothing under causal masking.
    k2, v2 = k.copy(), v.copy()
    k2[:, -1] += 100.0
    v2[:, -1] -= 50.0
    T.assert_allclose(R.attention(q, k2, v2, causal=True)[:, :-1], causal[:, :-1], rtol=1e-14,
                      op="attention", what="future keys invisible")


def test_window():
    q, k, v = qkv(34, tq=9, tk=9, hq=2, hkv=2)
    causal = R.attention(q, k, v, causal=True)
    T.assert_allclose(R.attention(q, k, v, causal=True, window=9), causal, rtol=1e-15,
                      op="attention", what="window = Tk")
    # window = 1: each query sees only itself.
    T.assert_allclose(R.attention(q, k, v, causal=True, window=1), v, rtol=1e-15,
                      op="attention", what="window = 1")
    # window = 3 equals the hand-built band mask (0 <= p - j < 3), also with Tq < Tk.
    p = np.arange(9)[:, None]
    j = np.arange(9)[None, :]
    band = additive((j <= p) & (p - j < 3))
    T.assert_allclose(R.attention(q, k, v, causal=True, window=3), R.attention(q, k, v, mask=band),
                      rtol=1e-14, op="attention", what="window = 3")
    T.assert_allclose(R.attention(q[:, 5:], k, v, causal=True, window=3),
                      R.attention(q[:, 5:], k, v, mask=band[:, :, 5:]), rtol=1e-14,
                      op="attention", what="window = 3, Tq < Tk")
    T.assert_raises(ValueError, R.attention, q, k, v, window=3, op="attention",
                    what="window without causal")


def test_chunks():
    q, k, v = qkv(35, tq=10, tk=10, hq=2, hkv=1)
    causal = R.attention(q, k, v, causal=True)
    for c in (10, 64):
        T.assert_allclose(R.attention(q, k, v, causal=True, chunk_size=c), causal, rtol=1e-15,
                          op="attention", what=f"chunk {c} >= Tk")
    T.assert_allclose(R.attention(q, k, v, causal=True, chunk_size=1), np.repeat(v, 2, axis=2),
                      rtol=1e-15, op="attention", what="chunk 1")
    # chunk 4: keys of the same chunk [0,4), [4,8), [8,10), causal within.
    p = np.arange(10)[:, None]
    j = np.arange(10)[None, :]
    blocks = additive((j <= p) & (j // 4 == p // 4))
    T.assert_allclose(R.attention(q, k, v, causal=True, chunk_size=4),
                      R.attention(q, k, v, mask=blocks), rtol=1e-14, op="attention",
                      what="chunk 4")
    # Query 4 starts a chunk: it sees only itself.
    T.assert_allclose(R.attention(q, k, v, causal=True, chunk_size=4)[:, 4],
                      np.repeat(v[:, 4], 2, axis=1), rtol=1e-15, op="attention",
                      what="chunk start")


def test_segments():
    q, k, v = qkv(36, tq=8, tk=8, hq=2, hkv=2)
    same = np.zeros((2, 8), np.int64)
    T.assert_allclose(R.attention(q, k, v, causal=True, segment_ids=same),
                      R.attention(q, k, v, causal=True), rtol=1e-15, op="attention",
                      what="one segment")
    # Packed documents [0,3), [3,7), [7,8): each block equals causal attention on its own.
    seg = np.array([[0, 0, 0, 1, 1, 1, 1, 2]] * 2, np.int32)
    out = R.attention(q, k, v, causal=True, segment_ids=seg)
    for lo, hi in ((0, 3), (3, 7), (7, 8)):
        alone = R.attention(q[:, lo:hi], k[:, lo:hi], v[:, lo:hi], causal=True)
        T.assert_allclose(out[:, lo:hi], alone, rtol=1e-14, atol=1e-15, op="attention",
                          what=f"segment [{lo}, {hi})")
    # Decode over packed keys: the segment of query i is segment_ids[Tk - Tq + i].
    last = R.attention(q[:, -2:], k, v, causal=True, segment_ids=seg)
    T.assert_allclose(last, out[:, -2:], rtol=1e-14, op="attention", what="segments, Tq < Tk")


def test_sinks():
    q, k, v = qkv(37, tq=5, tk=5, hq=2, hkv=1)
    plain = R.attention(q, k, v, causal=True)
    T.assert_allclose(R.attention(q, k, v, causal=True, sinks=np.full(2, NEG_INF)), plain,
                      rtol=1e-15, op="attention", what="sink -inf = no sink")
    # With V = 1 the output is the total key weight Z / (Z + e^sink) < 1.
    ones = np.ones_like(v)
    sinks = np.array([0.5, -1.0])
    out = R.attention(q, k, ones, causal=True, sinks=sinks)
    T.check(np.all(out < 1.0) and np.all(out > 0.0), "sink weights lower the total below 1")
    s = np.einsum("bihd,bjd->bhij", q, k[:, :, 0]) / math.sqrt(8)
    s = np.where(np.tril(np.ones((5, 5), bool)), s, NEG_INF)
    z = np.exp(s).sum(-1)                                     # [B, H, Tq]
    want = z / (z + np.exp(sinks)[None, :, None])
    T.assert_allclose(out[..., 0], want.transpose(0, 2, 1), rtol=1e-13, op="attention",
                      what="Z / (Z + e^sink)")
    # q = 0: every visible score is 0, so query i (i + 1 keys) keeps (i + 1) / (i + 1 + e^s).
    out = R.attention(np.zeros_like(q), k, ones, causal=True, sinks=sinks)
    n = np.arange(1, 6)[:, None]
    T.assert_allclose(out[0, :, :, 0], n / (n + np.exp(sinks)[None, :]), rtol=1e-14,
                      op="attention", what="(i+1) / (i+1+e^s)")
    # A sink shrinks the output by the same factor for any V: out = (Z / (Z + e^s)) plain.
    T.assert_allclose(R.attention(q, k, v, causal=True, sinks=sinks),
                      plain * want.transpose(0, 2, 1)[..., None], rtol=1e-13, atol=1e-15,
                      op="attention", what="sink rescales")


def test_fully_masked_rows_and_additive_masks():
    q, k, v = qkv(38, tq=4, tk=4, hq=2, hkv=2)
    m = np.zeros((2, 1, 4, 4))
    m[0, 0, 2, :] = NEG_INF                                    # batch 0, query 2: nothing visible
    out = R.attention(q, k, v, mask=m)
    T.check(np.isfinite(out).all(), "no NaN from a fully masked row")
    T.assert_equal(out[0, 2], np.zeros((2, 8)), op="attention", what="masked row = 0")
    T.assert_allclose(out[1], R.attention(q, k, v)[1], rtol=1e-15, op="attention",
                      what="other batch unaffected")
    # Also with sinks, and when Tq > Tk makes the first causal queries see nothing.
    out = R.attention(q, k, v, mask=m, sinks=np.array([1.0, 2.0]))
    T.assert_equal(out[0, 2], np.zeros((2, 8)), op="attention", what="masked row with sinks = 0")
    out = R.attention(q, k[:, :2], v[:, :2], causal=True)       # p_i = i - 2
    T.assert_equal(out[:, :2], np.zeros((2, 2, 2, 8)), op="attention", what="p_i < 0 -> 0")
    # A [1, 1, Tq, Tk] mask equals the same mask tiled to [B, H, Tq, Tk]; a finite bias b on
    # one key multiplies its unnormalised weight by e^b.
    g = T.rng(39)
    bias = T.randn(g, (1, 1, 4, 4), storage="f64")
    T.assert_allclose(R.attention(q, k, v, mask=bias),
                      R.attention(q, k, v, mask=np.tile(bias, (2, 2, 1, 1))), rtol=1e-15,
                      op="attention", what="mask broadcast")
    kz = np.zeros((1, 4, 1, 8))
    one_hot = np.eye(4).reshape(1, 4, 1, 4)
    mb = np.zeros((1, 1, 1, 4))
    mb[..., 1] = math.log(5.0)
    T.assert_allclose(R.attention(np.ones((1, 1, 1, 8)), kz, one_hot, mask=mb)[0, 0, 0],
                      [1 / 8, 5 / 8, 1 / 8, 1 / 8], rtol=1e-15, op="attention",
                      what="additive bias")


def test_softcap():
    # D = 1, q = 1, keys a and b, V = (1, 0): out = sigma(c tanh(a/c) - c tanh(b/c)).
    a, b, c = 40.0, -3.0, 30.0
    q = np.ones((1, 1, 1, 1))
    k = np.array([a, b]).reshape(1, 2, 1, 1)
    v = np.array([1.0, 0.0]).reshape(1, 2, 1, 1)
    d = c * math.tanh(a / c) - c * math.tanh(b / c)
    T.assert_allclose(R.attention(q, k, v, scale=1.0, softcap=c)[0, 0, 0, 0],
                      1 / (1 + math.exp(-d)), rtol=1e-14, op="attention", what="softcapped weights")
    qq, kk, vv = qkv(40)
    T.assert_allclose(R.attention(qq, kk, vv, softcap=1e12), R.attention(qq, kk, vv), rtol=1e-12,
                      op="attention", what="huge cap = no cap")
    # The cap bounds the logit gap: with cap 1 no weight exceeds e^2 times another.
    big = R.attention(np.full((1, 1, 1, 1), 1e3), np.array([1.0, -1.0]).reshape(1, 2, 1, 1),
                      v, scale=1.0, softcap=1.0)
    T.assert_allclose(big[0, 0, 0, 0], 1 / (1 + math.exp(-2 * math.tanh(1e3))), rtol=1e-14,
                      op="attention", what="cap 1 saturates")


def test_low_precision():
    q32, k32, v32 = qkv(41, b=2, tq=16, tk=16, hq=8, hkv=2, d=64, dv=64, storage="f32")
    sinks = np.linspace(-1, 1, 8).astype(np.float32)
    for st in ("f16", "bf16"):
        q, k, v = (R.to_storage(a, st) for a in (q32, k32, v32))
        f = [a.astype(np.float32) for a in (q, k, v)]
        T.assert_close_to_fp32(
            R.attention(q, k, v, causal=True, window=5, sinks=sinks, softcap=20.0, storage=st),
            R.attention(*f, causal=True, window=5, sinks=sinks, softcap=20.0), st, op="attention")
    # f32 against the float64 computation of the same inputs.
    T.assert_allclose(R.attention(q32, k32, v32, causal=True),
                      R.attention(*(a.astype(np.float64) for a in (q32, k32, v32)), causal=True),
                      rtol=1e-4, atol=1e-5, op="attention", what="f32 vs f64")
    T.check(R.attention(q32, k32, v32).dtype == np.float32, "f32 result")
    T.check(R.attention(q32.astype(np.float16), k32.astype(np.float16),
                        v32.astype(np.float16)).dtype == np.float16, "f16 result")


if __name__ == "__main__":
    T.run_tests(globals())
