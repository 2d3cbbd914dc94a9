"""Inputs (arg0, arg1, ...) and NumPy reference outputs (out0) for the whole-block checks on the
PTX interpreter (block-sim.mlir), from python/decoda/reference.py (written from the op formulas,
not from the compiler). The llama block's bf16 attention rounds its probabilities before P·V
as the GPU's tensor-core flash-attention kernel does (attention() below); the cached step is
a decode step (flash decoding, SIMT: no rounding).

  block_data.py llama-f32|llama-bf16|llama_simt-bf16|cached-bf16|step-bf16 T IN.npz OUT.npz

llama: the block of Inputs/llama_small_{f32,bf16}.mlir -- RMSNorm, q/k/v projections, RoPE
(theta 1e4) on 4 query heads over 2 KV heads of 16, causal attention, output projection and
residual, RMSNorm, SwiGLU (96) and residual; hidden 64, batch 1, T tokens.
cached: the step of Inputs/cached_step_bf16.mlir -- RMSNorm, q and fused k/v projections, causal
cached attention (4 query heads over 2 KV heads of 16) of T tokens at offset 20 of a 32-entry
cache, residual; outputs the result and both updated caches.
step: the decode step of Inputs/decode_step_bf16.mlir (T = 1, RoPE at offset 13; see step()).
"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "python"))
from decoda import reference as R  # noqa: E402


def bf16_bits(a):
    """bf16 bit patterns (uint16) of bf16-representable float32 values."""
    return (np.asarray(a, np.float32).view(np.uint32) >> 16).astype(np.uint16)


def attention(q, k, v, hq, hkv, st, round_p=True):
    """Causal GQA attention (R.attention's formula, default scale) as the GPU computes it for
    bf16/f16: the tensor-core kernel rounds the probabilities exp(s - max) to the storage type
    before P·V (they are mma.sync operands) and sums the denominator unrounded. The kernel
    normalises by a running max over key tiles; the rounding is the same whenever a row's max
    is found in its first tile. f32 (the SIMT kernel, and bf16/f16 before sm_80: round_p
    false) is R.attention as is."""
    if st == "f32" or not round_p:
        return R.attention(q, k, v, num_heads=hq, num_kv_heads=hkv, causal=True, storage=st)
    tq, tk, d = q.shape[1], k.shape[1], q.shape[3]
    kv = (np.arange(hq) * hkv) // hq
    s = np.einsum("bihd,bjhd->bhij", q, k[:, :, kv]).astype(np.float32) * np.float32(1 / np.sqrt(d))
    pos = tk - tq + np.arange(tq)
    s = np.where(np.arange(tk)[None, :] <= pos[:, None], s, -np.inf)
    p = np.exp(s - s.max(axis=-1, keepdims=True))
    w = R.to_storage(p, st).astype(np.float32) / p.sum(axis=-1, keepdims=True)
    return R.to_storage(np.einsum("bhij,bjhd->bihd", w, v[:, :, kv]), st).astype(np.float32)


def llama(t, st, rng, round_p=True):
    d, hq, hkv, hd, f = 64, 4, 2, 16, 96

    def act(shape, s=1.0):
        return R.to_storage(rng.standard_normal(shape) * s, st).astype(np.float32)

    p = {"h": act((1, t, d)), "attn_norm": act((d,), 0.3) + 1, "wq": act((hq * hd, d), 0.2),
         "wk": act((hkv * hd, d), 0.2), "wv": act((hkv * hd, d), 0.2), "wo": act((d, hq * hd), 0.2),
         "mlp_norm": act((d,), 0.3) + 1, "w_gate": act((f, d), 0.2), "w_up": act((f, d), 0.2),
         "w_down": act((d, f), 0.2)}
    p = {k: R.to_storage(v, st).astype(np.float32) for k, v in p.items()}
    kw = {"storage": st}
    x = R.rms_norm(p["h"], p["attn_norm"], 1e-5, **kw)
    q = R.linear(x, p["wq"], **kw).reshape(1, t, hq, hd)
    k = R.linear(x, p["wk"], **kw).reshape(1, t, hkv, hd)
    v = R.linear(x, p["wv"], **kw).reshape(1, t, hkv, hd)
    q = R.rope(q, theta=1e4, **kw)
    k = R.rope(k, theta=1e4, **kw)
    o = attention(q, k, v, hq, hkv, st, round_p)
    u = R.residual_add(p["h"], R.linear(o.reshape(1, t, hq * hd), p["wo"], **kw), **kw)
    y = R.rms_norm(u, p["mlp_norm"], 1e-5, **kw)
    out = R.residual_add(u, R.gated_mlp(y, p["w_gate"], p["w_up"], p["w_down"], "swiglu", **kw), **kw)
    order = ["h", "attn_norm", "wq", "wk", "wv", "wo", "mlp_norm", "w_gate", "w_up", "w_down"]
    return [p[n] for n in order], [out]


def cached(t, st, rng):
    d, hq, hkv, hd, s_max, offset = 64, 4, 2, 16, 32, 20

    def act(shape, sc=1.0):
        return R.to_storage(rng.standard_normal(shape) * sc, st).astype(np.float32)

    p = {"h": act((1, t, d)), "norm": act((d,), 0.3) + 1, "wq": act((hq * hd, d), 0.2),
         "wkv": act((2 * hkv * hd, d), 0.2), "kc": act((1, s_max, hkv, hd)),
         "vc": act((1, s_max, hkv, hd))}
    p = {k: R.to_storage(v, st).astype(np.float32) for k, v in p.items()}
    kw = {"storage": st}
    x = R.rms_norm(p["h"], p["norm"], 1e-5, **kw)
    q = R.linear(x, p["wq"], **kw).reshape(1, t, hq, hd)
    kv = R.linear(x, p["wkv"], **kw)
    k = kv[..., :hkv * hd].reshape(1, t, hkv, hd)
    v = kv[..., hkv * hd:].reshape(1, t, hkv, hd)
    o, kc, vc = R.cached_attention(q, k, v, p["kc"], p["vc"], offset, num_heads=hq,
                                   num_kv_heads=hkv, causal=True, **kw)
    y = R.residual_add(p["h"], o.reshape(1, t, hq * hd), **kw)
    order = ["h", "norm", "wq", "wkv", "kc", "vc"]
    return [p[n] for n in order] + [np.array(offset, np.int64)], [y, kc, vc]


def step(t, st, rng):
    """The decode step of Inputs/decode_step_bf16.mlir (T = 1): RMSNorm, q/k/v, RoPE at the
    offset, cached attention over a 32-entry cache, o and the residual, RMSNorm, SwiGLU (128),
    the residual; outputs the result and both updated caches."""
    d, hq, hkv, hd, f, s_max, offset = 64, 4, 2, 16, 128, 32, 13

    def act(shape, sc=1.0):
        return R.to_storage(rng.standard_normal(shape) * sc, st).astype(np.float32)

    p = {"h": act((1, t, d)), "attn_norm": act((d,), 0.3) + 1, "wq": act((hq * hd, d), 0.2),
         "wk": act((hkv * hd, d), 0.2), "wv": act((hkv * hd, d), 0.2), "wo": act((d, hq * hd), 0.2),
         "mlp_norm": act((d,), 0.3) + 1, "w_gate": act((f, d), 0.2), "w_up": act((f, d), 0.2),
         "w_down": act((d, f), 0.2), "kc": act((1, s_max, hkv, hd)), "vc": act((1, s_max, hkv, hd))}
    p = {k: R.to_storage(v, st).astype(np.float32) for k, v in p.items()}
    kw = {"storage": st}
    pos = np.arange(offset, offset + t)
    x = R.rms_norm(p["h"], p["attn_norm"], 1e-5, **kw)
    q = R.rope(R.linear(x, p["wq"], **kw).reshape(1, t, hq, hd), pos, theta=1e4, **kw)
    k = R.rope(R.linear(x, p["wk"], **kw).reshape(1, t, hkv, hd), pos, theta=1e4, **kw)
    v = R.linear(x, p["wv"], **kw).reshape(1, t, hkv, hd)
    o, kc, vc = R.cached_attention(q, k, v, p["kc"], p["vc"], offset, num_heads=hq,
                                   num_kv_heads=hkv, causal=True, **kw)
    u = R.residual_add(p["h"], R.linear(o.reshape(1, t, hq * hd), p["wo"], **kw), **kw)
    y = R.rms_norm(u, p["mlp_norm"], 1e-5, **kw)
    out = R.residual_add(u, R.gated_mlp(y, p["w_gate"], p["w_up"], p["w_down"], "swiglu", **kw), **kw)
    order = ["h", "attn_norm", "wq", "wk", "wv", "wo", "mlp_norm", "w_gate", "w_up", "w_down",
             "kc", "vc"]
    return [p[n] for n in order] + [np.array(offset, np.int64)], [out, kc, vc]


def main():
    kind, t, inp, outp = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
    rng = np.random.default_rng(11)
    name, st = kind.rsplit("-", 1)
    # llama_simt: the llama block as the SIMT attention kernel computes it (no rounding of the
    # probabilities: bf16/f16 before sm_80).
    ins, outs = {"llama": llama, "llama_simt": lambda t, st, rng: llama(t, st, rng, False),
                 "cached": cached, "step": step}[name](t, st, rng)
    floats = bf16_bits if st == "bf16" else (lambda a: np.asarray(a, np.float32))

    def conv(a):
        return a if a.dtype == np.int64 else floats(a)

    np.savez(inp, **{f"arg{i}": conv(a) for i, a in enumerate(ins)})
    np.savez(outp, **{f"out{i}": conv(a) for i, a in enumerate(outs)})


if __name__ == "__main__":
    main()
