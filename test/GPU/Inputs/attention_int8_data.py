"""Inputs (arg0, arg1, ...) and NumPy reference outputs (out0, ...) for the INT8 attention cases
of Inputs/attention_int8_cases.mlir, from python/decoda/reference.py (attention with q_scale,
k_scale, v_scale: s8 q, k, v, exact integer sums, f32 softmax, u8 probabilities), and the float
attention of the same inputs (float.npz, to show the INT8 result is not that one).

  attention_int8_data.py CASE IN.npz OUT.npz FLOAT.npz
"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "python"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from decoda import reference as R  # noqa: E402
import attention_data as A  # noqa: E402 (act, uni, bits: storage-type inputs and bit patterns)

A.rng = np.random.default_rng(11)
act, uni, bits = A.act, A.uni, A.bits


def scale(x):
    """A per-tensor symmetric scale: max|x| / 127."""
    return np.float32(np.max(np.abs(np.asarray(x, np.float32))) / 127.0)


def case(name):
    """(storage, inputs before the scales, scale sources, attention kwargs, cached offset)."""
    if name in ("i8_gqa_causal_bf16", "i8_gqa_causal_bf16_t3"):
        # T = 3 (the same entry, a dynamic T): 6 rows, the split decode kernels at run time.
        st, t = "bf16", 70 if name == "i8_gqa_causal_bf16" else 3
        q, k, v = act((1, t, 4, 64), st), act((1, t, 2, 64), st), uni((1, t, 2, 64), st)
        return st, [q, k, v], (q, k, v), dict(num_heads=4, num_kv_heads=2, causal=True), None
    if name == "i8_window_sinks_f32":
        st, t = "f32", 150
        q, k, v = act((2, t, 3, 40), st), act((2, t, 1, 40), st), uni((2, t, 1, 40), st)
        s = act((3,), st)
        return st, [q, k, v, s], (q, k, v), dict(num_heads=3, num_kv_heads=1, causal=True, window=40,
                                                 sinks=s), None
    if name == "i8_chunk_softcap_f16":
        st = "f16"
        q, k, v = act((1, 20, 2, 32), st, 2.0), act((1, 150, 2, 32), st, 2.0), uni((1, 150, 2, 16), st)
        return st, [q, k, v], (q, k, v), dict(num_heads=2, num_kv_heads=2, scale=0.2, softcap=20.0), None
    if name == "i8_mask_segments_f32":
        st, t = "f32", 33
        q, k, v = act((1, t, 2, 16), st), act((1, t, 2, 16), st), uni((1, t, 2, 16), st)
        m = act((1, 2, t, t), st)
        seg = np.repeat(np.arange(3), [10, 15, 8])[None].astype(np.int32)
        return st, [q, k, v, m, seg], (q, k, v), dict(num_heads=2, num_kv_heads=2, causal=True, mask=m,
                                                      segment_ids=seg), None
    if name == "i8_cached_d128_bf16":
        st, off = "bf16", 100
        q, k, v = act((1, 3, 4, 128), st), act((1, 3, 2, 128), st), uni((1, 3, 2, 128), st)
        kc, vc = act((1, 160, 2, 128), st), uni((1, 160, 2, 128), st)
        return st, [q, k, v, kc, vc], (q, np.concatenate([kc[:, :off], k], 1),
                                       np.concatenate([vc[:, :off], v], 1)), \
            dict(num_heads=4, num_kv_heads=2, causal=True), off
    if name == "i8_decode_gqa_bf16":
        st = "bf16"
        q, k, v = act((1, 1, 8, 64), st), act((1, 700, 2, 64), st), uni((1, 700, 2, 64), st)
        return st, [q, k, v], (q, k, v), dict(num_heads=8, num_kv_heads=2, causal=True), None
    if name == "i8_multi_token_bf16":
        st = "bf16"
        q, k, v = act((1, 5, 16, 64), st), act((1, 700, 2, 64), st), uni((1, 700, 2, 64), st)
        return st, [q, k, v], (q, k, v), dict(num_heads=16, num_kv_heads=2, causal=True), None
    if name == "i8_decode_window_sinks_f16":
        st = "f16"
        q, k, v = act((1, 1, 4, 32), st), act((1, 1000, 1, 32), st), uni((1, 1000, 1, 16), st)
        s = act((4,), st)
        return st, [q, k, v, s], (q, k, v), dict(num_heads=4, num_kv_heads=1, causal=True, window=33,
                                                 softcap=20.0, sinks=s), None
    raise SystemExit(f"unknown case {name}")


def main():
    name, inp, outp, floatp = sys.argv[1:]
    st, ins, (qx, kx, vx), kw, off = case(name)
    scales = dict(q_scale=scale(qx), k_scale=scale(kx), v_scale=scale(vx))
    if off is None:
        outs = [R.attention(*ins[:3], storage=st, **kw, **scales)]
        flt = [R.attention(*ins[:3], storage=st, **kw)]
        args = ins
    else:
        o, kc2, vc2 = R.cached_attention(*ins[:5], off, storage=st, **kw, **scales)
        outs = [o, kc2, vc2]
        flt = [R.cached_attention(*ins[:5], off, storage=st, **kw)[0]]
        args = ins + [np.array(off, np.int64)]
    # max|v| bounds the effect of one rint(255 p) moved by a count (the tolerances).
    print(f"{name}: max|v| = {float(np.max(np.abs(np.asarray(vx, np.float32)))):.4f}")
    # The scales follow the other arguments (mask / segment ids / sinks, or the caches).
    args = args + [np.asarray(scales[s], np.float32) for s in ("q_scale", "k_scale", "v_scale")]
    conv = lambda a: a if np.asarray(a).dtype.kind in "iu" or np.asarray(a).ndim == 0 \
        else bits(a, st)  # noqa: E731
    np.savez(inp, **{f"arg{i}": conv(a) for i, a in enumerate(args)})
    np.savez(outp, **{f"out{i}": conv(a) for i, a in enumerate(outs)})
    np.savez(floatp, **{f"out{i}": conv(a) for i, a in enumerate(flt)})


if __name__ == "__main__":
    main()
