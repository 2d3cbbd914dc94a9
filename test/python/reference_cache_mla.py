# RUN: %PYTHON %s
"""cached_attention and mla of decoda.reference: prefill + decode through a KV cache equals full
causal attention; MLA equals attention over explicitly decompressed K/V and its absorbed form."""

import math

import numpy as np

from decoda import reference as R
from decoda import testing as T


def test_prefill_then_decode_equals_full_causal():
    g = T.rng(50)
    b, n, hq, hkv, d, dv, s = 2, 12, 4, 2, 8, 6, 16
    q = T.randn(g, (b, n, hq, d))
    k = T.randn(g, (b, n, hkv, d))
    v = T.randn(g, (b, n, hkv, dv))
    full = R.attention(q, k, v, causal=True)
    kc = np.full((b, s, hkv, d), 7.0, np.float32)
    vc = np.full((b, s, hkv, dv), 7.0, np.float32)
    kc0, vc0 = kc.copy(), vc.copy()
    # Prefill 5 tokens, decode 4 single steps, then a chunk of 3 (chunked prefill).
    off = 0
    outs = []
    for t in (5, 1, 1, 1, 1, 3):
        before = kc.copy()
        o, kc2, vc2 = R.cached_attention(q[:, off:off + t], k[:, off:off + t], v[:, off:off + t],
                                         kc, vc, off, num_heads=hq, num_kv_heads=hkv, causal=True)
        T.assert_equal(kc, before, op="cached_attention", what=f"input cache at {off} not mutated")
        kc, vc = kc2, vc2
        outs.append(o)
        off += t
    T.assert_allclose(np.concatenate(outs, axis=1), full, rtol=1e-6, atol=1e-6,
                      op="cached_attention", what="prefill + decode = full causal")
    T.assert_equal(kc[:, :n], k, op="cached_attention", what="keys written at [0, 12)")
    T.assert_equal(vc[:, :n], v, op="cached_attention", what="values written at [0, 12)")
    T.assert_equal(kc[:, n:], kc0[:, n:], op="cached_attention", what="rest of the key cache")
    T.assert_equal(vc[:, n:], vc0[:, n:], op="cached_attention", what="rest of the value cache")
    T.assert_equal(kc0, np.full_like(kc0, 7.0), op="cached_attention",
                   what="original cache untouched (value semantics)")


def test_cache_with_masks_and_sinks():
    g = T.rng(51)
    b, n, h, d, s = 1, 9, 2, 4, 9
    q = T.randn(g, (b, n, h, d), storage="f64")
    k = T.randn(g, (b, n, h, d), storage="f64")
    v = T.randn(g, (b, n, h, d), storage="f64")
    sinks = np.array([0.3, -0.7])
    full = R.attention(q, k, v, causal=True, window=3, sinks=sinks, softcap=5.0)
    kc = np.zeros((b, s, h, d))
    vc = np.zeros((b, s, h, d))
    o1, kc, vc = R.cached_attention(q[:, :6], k[:, :6], v[:, :6], kc, vc, 0, causal=True,
                                    window=3, sinks=sinks, softcap=5.0)
    o2, kc, vc = R.cached_attention(q[:, 6:], k[:, 6:], v[:, 6:], kc, vc, 6, causal=True,
                                    window=3, sinks=sinks, softcap=5.0)
    T.assert_allclose(np.concatenate([o1, o2], axis=1), full, rtol=1e-13, atol=1e-14,
                      op="cached_attention", what="window + sinks + softcap")
    # offset + T = S is the last legal write; one more token is an error, as is offset < 0.
    T.assert_raises(IndexError, R.cached_attention, q[:, :1], k[:, :1], v[:, :1], kc, vc, 9,
                    causal=True, op="cached_attention", what="offset + T > S")
    T.assert_raises(IndexError, R.cached_attention, q[:, :4], k[:, :4], v[:, :4], kc, vc, 6,
                    causal=True, op="cached_attention", what="chunk past the end")
    T.assert_raises(IndexError, R.cached_attention, q[:, :1], k[:, :1], v[:, :1], kc, vc, -1,
                    op="cached_attention", what="negative offset")


def mla_inputs(seed, b=2, tq=5, tk=5, h=4, dn=8, dr=4, dc=16, dv=6, storage="f32"):
    g = T.rng(seed)
    return dict(q_nope=T.randn(g, (b, tq, h, dn), storage=storage),
                q_rope=T.randn(g, (b, tq, h, dr), storage=storage),
                latent=T.randn(g, (b, tk, dc), storage=storage),
                k_rope=T.randn(g, (b, tk, dr), storage=storage),
                w_uk=T.randn(g, (h, dn, dc), scale=0.3),
                w_uv=T.randn(g, (h, dv, dc), scale=0.3))


def decompressed_attention(q_nope, q_rope, latent, k_rope, w_uk, w_uv, causal):
    """MLA by explicit decompression: per-head K = [W_UK[h] c_j ; k_rope_j], V = W_UV[h] c_j,
    built with loops in float64 and fed to plain attention (default scale 1/sqrt(Dn + Dr))."""
    qn, qr, c, kr, wuk, wuv = q_nope, q_rope, latent, k_rope, w_uk, w_uv
    b, tk, _ = c.shape
    h = wuk.shape[0]
    k = np.zeros((b, tk, h, wuk.shape[1] + kr.shape[-1]))
    v = np.zeros((b, tk, h, wuv.shape[1]))
    for bi in range(b):
        for j in range(tk):
            for hi in range(h):
                k[bi, j, hi, :wuk.shape[1]] = wuk[hi].astype(np.float64) @ c[bi, j]
                k[bi, j, hi, wuk.shape[1]:] = kr[bi, j]
                v[bi, j, hi] = wuv[hi].astype(np.float64) @ c[bi, j]
    q = np.concatenate([qn, qr], axis=-1).astype(np.float64)
    return R.attention(q, k, v, causal=causal)


def test_mla_equals_decompressed_and_absorbed():
    for causal in (False, True):
        a = mla_inputs(52)
        naive = R.mla(**a, causal=causal, num_heads=4)
        T.check(naive.shape == (2, 5, 4, 6) and naive.dtype == np.float32, "mla result type")
        a64 = {key: val.astype(np.float64) for key, val in a.items()}
        T.assert_allclose(naive, decompressed_attention(**a64, causal=causal), rtol=1e-5,
                          atol=1e-5, op="mla", what=f"explicit decompression causal={causal}")
        T.assert_allclose(R.mla_absorbed(**a, causal=causal), naive, rtol=1e-5, atol=1e-5,
                          op="mla_absorbed", what=f"absorbed = naive causal={causal}")
        # In float64 the two orders agree to rounding.
        T.assert_allclose(R.mla_absorbed(**a64, causal=causal), R.mla(**a64, causal=causal),
                          rtol=1e-12, atol=1e-13, op="mla_absorbed", what="float64")
    # Decode: 2 queries at the end of 7 keys.
    a = mla_inputs(53, tq=2, tk=7)
    a64 = {key: val.astype(np.float64) for key, val in a.items()}
    T.assert_allclose(R.mla(**a, causal=True), decompressed_attention(**a64, causal=True),
                      rtol=1e-5, atol=1e-5, op="mla", what="decode alignment")
    T.assert_allclose(R.mla_absorbed(**a, causal=True), R.mla(**a, causal=True), rtol=1e-5,
                      atol=1e-5, op="mla_absorbed", what="decode")
    # The scale defaults to 1/sqrt(Dn + Dr), not 1/sqrt(Dn).
    T.assert_allclose(R.mla(**a, scale=1 / math.sqrt(8 + 4)), R.mla(**a), rtol=1e-7,
                      op="mla", what="default scale")
    T.check(not np.allclose(R.mla(**a, scale=1 / math.sqrt(8)), R.mla(**a)),
            "scale 1/sqrt(Dn) differs")


def test_mla_low_precision():
    for st in ("f16", "bf16"):
        a = mla_inputs(54, storage=st, tq=8, tk=8)
        f = {key: val.astype(np.float32) for key, val in a.items()}
        T.assert_close_to_fp32(R.mla(**a, causal=True, storage=st), R.mla(**f, causal=True), st,
                               op="mla")
        T.assert_close_to_fp32(R.mla_absorbed(**a, causal=True, storage=st),
                               R.mla(**f, causal=True), st, op="mla_absorbed")


if __name__ == "__main__":
    T.run_tests(globals())
