"""Inputs and NumPy reference outputs (python/decoda/reference.py) for the decode-shaped
attention of Inputs/decode_attention_cases.mlir (flash-decoding-sim.mlir).

  decode_attention_data.py CASE IN.npz OUT.npz      CASE: decode_gqa, decode_window_sinks_f16,
                                                    cached_decode_bf16, dynamic_t3, dynamic_t40,
                                                    decode_many_d128_bf16, decode_window_many_f16,
                                                    decode_ragged_bf16,
                                                    spec_bf16, spec_window_sinks_f16,
                                                    spec_cached_t2, spec_cached_t6, spec_cached_t20

The spec_* cases take the tensor-core kernel (bf16/f16), which rounds P to the storage type
before P·V: their values are uniform in [-1, 1] (max|v| <= 1) for the tolerances of
flash-decoding-sim.mlir.
"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from attention_data import R, act, bits, uni  # noqa: E402


def case(name):
    if name == "decode_gqa":
        st = "f32"
        q, k, v = act((1, 1, 8, 64), st), act((1, 700, 2, 64), st), act((1, 700, 2, 64), st)
        return st, [q, k, v], [R.attention(q, k, v, num_heads=8, num_kv_heads=2, causal=True)]
    if name == "decode_window_sinks_f16":
        st = "f16"
        q, k = act((1, 1, 4, 32), st, 2.0), act((1, 1000, 1, 32), st, 2.0)
        v, s = act((1, 1000, 1, 16), st), act((4,), st)
        return st, [q, k, v, s], [R.attention(q, k, v, num_heads=4, num_kv_heads=1, causal=True, window=33,
                                              softcap=20.0, sinks=s, storage=st)]
    if name == "cached_decode_bf16":
        st = "bf16"
        q, k, v = act((2, 2, 4, 32), st), act((2, 2, 1, 32), st), act((2, 2, 1, 32), st)
        kc, vc = act((2, 640, 1, 32), st), act((2, 640, 1, 32), st)
        o, kc2, vc2 = R.cached_attention(q, k, v, kc, vc, 517, num_heads=4, num_kv_heads=1, causal=True,
                                         storage=st)
        return st, [q, k, v, kc, vc, np.array(517, np.int64)], [o, kc2, vc2]
    if name in ("dynamic_t3", "dynamic_t40"):
        st, t = "f32", int(name[len("dynamic_t"):])
        q, k, v = act((1, t, 4, 32), st), act((1, t, 1, 32), st), act((1, t, 1, 32), st)
        return st, [q, k, v], [R.attention(q, k, v, num_heads=4, num_kv_heads=1, causal=True)]
    if name == "decode_many_d128_bf16":
        st = "bf16"
        q, k, v = act((1, 1, 4, 128), st), act((1, 3000, 1, 128), st), act((1, 3000, 1, 128), st)
        return st, [q, k, v], [R.attention(q, k, v, num_heads=4, num_kv_heads=1, causal=True, storage=st)]
    if name == "decode_window_many_f16":
        st = "f16"
        q, k = act((1, 1, 4, 64), st), act((1, 2100, 1, 64), st)
        v, s = act((1, 2100, 1, 64), st), act((4,), st)
        return st, [q, k, v, s], [R.attention(q, k, v, num_heads=4, num_kv_heads=1, causal=True, window=100,
                                              sinks=s, storage=st)]
    if name == "decode_ragged_bf16":
        st = "bf16"
        q, k, v = act((1, 1, 4, 36), st), act((1, 300, 1, 36), st), act((1, 300, 1, 36), st)
        return st, [q, k, v], [R.attention(q, k, v, num_heads=4, num_kv_heads=1, causal=True, storage=st)]
    if name == "spec_bf16":
        st = "bf16"
        q, k, v = act((1, 8, 8, 64), st), act((1, 700, 1, 64), st), uni((1, 700, 1, 64), st)
        return st, [q, k, v], [R.attention(q, k, v, num_heads=8, num_kv_heads=1, causal=True, storage=st)]
    if name == "spec_window_sinks_f16":
        st = "f16"
        q, k = act((1, 5, 4, 32), st, 2.0), act((1, 1000, 1, 32), st, 2.0)
        v, s = uni((1, 1000, 1, 16), st), act((4,), st)
        return st, [q, k, v, s], [R.attention(q, k, v, num_heads=4, num_kv_heads=1, causal=True, window=40,
                                              softcap=20.0, sinks=s, storage=st)]
    if name in ("spec_cached_t2", "spec_cached_t6", "spec_cached_t20"):
        st, t = "bf16", int(name[len("spec_cached_t"):])
        q, k, v = act((2, t, 4, 32), st), act((2, t, 1, 32), st), uni((2, t, 1, 32), st)
        kc, vc = act((2, 640, 1, 32), st), uni((2, 640, 1, 32), st)
        o, kc2, vc2 = R.cached_attention(q, k, v, kc, vc, 517, num_heads=4, num_kv_heads=1, causal=True,
                                         storage=st)
        return st, [q, k, v, kc, vc, np.array(517, np.int64)], [o, kc2, vc2]
    raise SystemExit(f"unknown case {name}")


if __name__ == "__main__":
    name, inp, outp = sys.argv[1:]
    st, ins, outs = case(name)
    conv = lambda a: a if np.asarray(a).dtype.kind in "iu" else bits(a, st)  # noqa: E731
    np.savez(inp, **{f"arg{i}": conv(a) for i, a in enumerate(ins)})
    np.savez(outp, **{f"out{i}": conv(a) for i, a in enumerate(outs)})
