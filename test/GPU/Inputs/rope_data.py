"""Inputs (arg0, ...) and NumPy reference outputs (out0, ...) for the RoPE cases of
Inputs/rope_cases.mlir, from R.rope of python/decoda/reference.py (written from the op
definition: inv_freq in f64 with the scaling, rounded to f32; angle p · inv_freq and the rotation
in f32; the result rounded to the storage type).

  rope_data.py CASE IN.npz OUT.npz [--negate-positions]

--negate-positions writes the reference of the opposite rotation (positions -p; for the cases
without a positions operand, -t): an expected file the compiled kernels must NOT match (the
negative check of rope-sim.mlir). The inputs are the same.
"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "python"))
from decoda import reference as R  # noqa: E402

rng = np.random.default_rng(11)


def act(shape, st):
    return R.to_storage(rng.standard_normal(shape), st)


def bits(a, st):
    a = np.asarray(a)
    if np.issubdtype(a.dtype, np.integer):
        return a
    if st == "bf16":
        return (np.asarray(a, np.float32).view(np.uint32) >> 16).astype(np.uint16)
    return np.asarray(a, {"f32": np.float32, "f16": np.float16}[st])


# Cases without a positions operand: storage, x's shape, the rope attributes.
TOKEN_INDEX = {
    "rope_dyn_f16": ("f16", (2, 9, 3, 128), dict(theta=1.0e4)),
    "rope_odd_f16": ("f16", (1, 3, 2, 10), dict(theta=1.0e4)),
    "rope_pass_bf16": ("bf16", (1, 4, 3, 100), dict(theta=1.0e4, rotary_dim=64)),
}


def case(name, sign):
    """(storage, inputs, outputs); `sign` -1 turns every position p into -p."""
    def rope(x, pos, st, **kw):
        if pos is None:  # token t at position t
            pos = np.arange(x.shape[1], dtype=np.int64)
        return R.rope(x, sign * pos, storage=st, **kw)

    if name == "rope_q_bf16":
        st = "bf16"
        x, pos = act((1, 5, 4, 64), st), np.array([0, 7, 100, 4095, 70000], np.int64)
        return st, [x, pos], [rope(x, pos, st, theta=5.0e5)]
    if name in TOKEN_INDEX:  # no positions operand: token t at position t
        st, shape, kw = TOKEN_INDEX[name]
        x = act(shape, st)
        return st, [x], [rope(x, None, st, **kw)]
    if name == "rope_inter_partial_f32":
        st = "f32"
        x = act((1, 6, 2, 96), st)
        pos = np.array([[3, 17, 250, 1024, 9000, 32767]], np.int32)
        return st, [x, pos], [rope(x, pos, st, theta=1.0e4, rotary_dim=64, layout="interleaved")]
    if name == "rope_yarn_bf16":
        st = "bf16"
        x, pos = act((1, 3, 2, 64), st), np.array([5, 3000, 16000], np.int64)
        yarn = R.RopeScaling("yarn", 4.0, original_max_position=4096)
        return st, [x, pos], [rope(x, pos, st, theta=1.0e4, scaling=yarn)]
    if name == "rope_qk_bf16":
        st = "bf16"
        q, k, pos = act((1, 1, 32, 64), st), act((1, 1, 8, 64), st), np.array([4000], np.int64)
        return st, [q, k, pos], [rope(q, pos, st, theta=5.0e5), rope(k, pos, st, theta=5.0e5)]
    if name == "rope_unaligned_bf16":
        st = "bf16"
        x, pos = act((1, 5, 4, 65), st), np.array([1, 2, 300, 4096, 9999], np.int64)
        return st, [x, pos], [rope(x[..., 1:], pos, st, theta=5.0e5)]
    if name == "rope_cache_bf16":
        st = "bf16"
        q, k, v = act((1, 1, 4, 64), st), act((1, 1, 2, 64), st), act((1, 1, 2, 64), st)
        kc, vc, off = act((1, 16, 2, 64), st), act((1, 16, 2, 64), st), 9
        pos = np.array([off], np.int64)
        o, kc2, vc2 = R.cached_attention(rope(q, pos, st, theta=1.0e4), rope(k, pos, st, theta=1.0e4),
                                         v, kc, vc, off, num_heads=4, num_kv_heads=2, causal=True,
                                         storage=st)
        # The caches are donated: compared as arguments 3 and 4 after the call.
        return st, [q, k, v, kc, vc, np.array(off, np.int64)], {"out0": o, "arg3": kc2, "arg4": vc2}
    raise SystemExit(f"unknown case {name}")


def main():
    args = sys.argv[1:]
    sign = 1
    if "--negate-positions" in args:
        args.remove("--negate-positions")
        sign = -1
    name, inp, outp = args
    st, ins, outs = case(name, sign)
    np.savez(inp, **{f"arg{i}": bits(a, st) for i, a in enumerate(ins)})
    named = outs if isinstance(outs, dict) else {f"out{i}": a for i, a in enumerate(outs)}
    np.savez(outp, **{n: bits(a, st) for n, a in named.items()})


if __name__ == "__main__":
    main()
