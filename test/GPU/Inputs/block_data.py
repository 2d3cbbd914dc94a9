"""Inputs (arg0, arg1, ...) and NumPy reference outputs (out0) for the whole-block checks on the
PTX interpreter (block-sim.mlir), from python/decoda/reference.py (written from the op formulas,
not from the compiler).

  block_data.py llama-f32|llama-bf16 T IN.npz OUT.npz

llama: the block of Inputs/llama_small_{f32,bf16}.mlir -- RMSNorm, q/k/v projections, RoPE
(theta 1e4) on 4 query heads over 2 KV heads of 16, causal attention, output projection and
residual, RMSNorm, SwiGLU (96) and residual; hidden 64, batch 1, T tokens.
"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "python"))
from decoda import reference as R  # noqa: E402


def bf16_bits(a):
    """bf16 bit patterns (uint16) of bf16-representable float32 values."""
    return (np.asarray(a, np.float32).view(np.uint32) >> 16).astype(np.uint16)


def llama(t, st, rng):
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
    o = R.attention(q, k, v, num_heads=hq, num_kv_heads=hkv, causal=True, **kw)
    u = R.residual_add(p["h"], R.linear(o.reshape(1, t, hq * hd), p["wo"], **kw), **kw)
    y = R.rms_norm(u, p["mlp_norm"], 1e-5, **kw)
    out = R.residual_add(u, R.gated_mlp(y, p["w_gate"], p["w_up"], p["w_down"], "swiglu", **kw), **kw)
    order = ["h", "attn_norm", "wq", "wk", "wv", "wo", "mlp_norm", "w_gate", "w_up", "w_down"]
    return [p[n] for n in order], [out]


def main():
    kind, t, inp, outp = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
    rng = np.random.default_rng(11)
    name, st = kind.rsplit("-", 1)
    ins, outs = {"llama": llama}[name](t, st, rng)
    conv = bf16_bits if st == "bf16" else (lambda a: np.asarray(a, np.float32))
    np.savez(inp, **{f"arg{i}": conv(a) for i, a in enumerate(ins)})
    np.savez(outp, **{f"out{i}": conv(a) for i, a in enumerate(outs)})


if __name__ == "__main__":
    main()
