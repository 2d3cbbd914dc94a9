"""Inputs (arg0, ...) and NumPy reference outputs (out0, ...) for the norm cases of
Inputs/norm_cases.mlir, from python/decoda/reference.py (written from the op definitions).

  norm_data.py CASE IN.npz OUT.npz
"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "python"))
from decoda import reference as R  # noqa: E402

rng = np.random.default_rng(3)


def act(shape, st, s=1.0, m=0.0):
    return R.to_storage(rng.standard_normal(shape) * s + m, st)


def bits(a, st):
    if st == "bf16":
        return (np.asarray(a, np.float32).view(np.uint32) >> 16).astype(np.uint16)
    return np.asarray(a, {"f32": np.float32, "f16": np.float16}[st])


def case(name):
    if name == "rms_f32":
        x, w = act((2, 7, 64), "f32", 2.0), act((64,), "f32", 0.2, 1.0)
        return "f32", [x, w], [R.rms_norm(x, w, 1e-5)]
    if name == "layer_bias_bf16":
        st = "bf16"
        x, w, b = act((1, 6, 300), st, 3.0, 1.5), act((300,), st, 0.2, 1.0), act((300,), st, 0.1)
        return st, [x, w, b], [R.layer_norm(x, w, b, 1e-5, storage=st)]
    if name == "add_rms_bf16":
        st = "bf16"
        r, a, w = act((1, 3, 2048), st), act((1, 3, 2048), st), act((2048,), st, 0.1)
        return st, [r, a, w], list(R.add_rms_norm(r, a, w, 1e-6, weight_offset=1.0, scale=0.5, storage=st))
    if name == "add_layer_f16":
        st = "f16"
        r, a = act((3, 5, 96), st), act((3, 5, 96), st)
        w, b = act((96,), st, 0.2, 1.0), act((96,), st, 0.1)
        return st, [r, a, w, b], list(R.add_layer_norm(r, a, w, b, 1e-5))
    if name == "qk_norm_f32":
        q, w = act((1, 9, 4, 16), "f32"), act((16,), "f32", 0.2, 1.0)
        return "f32", [q, w], [R.rms_norm(q, w, 1e-6)]
    if name == "rms_odd_f16":
        x, w = act((1, 4, 1001), "f16", 2.0), act((1001,), "f16", 0.2, 1.0)
        return "f16", [x, w], [R.rms_norm(x, w, 1e-5)]
    raise SystemExit(f"unknown case {name}")


def main():
    name, inp, outp = sys.argv[1:]
    st, ins, outs = case(name)
    np.savez(inp, **{f"arg{i}": bits(a, st) for i, a in enumerate(ins)})
    np.savez(outp, **{f"out{i}": bits(a, st) for i, a in enumerate(outs)})


if __name__ == "__main__":
    main()
