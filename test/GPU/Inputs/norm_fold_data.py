"""Inputs (arg0, arg1, ...) and NumPy reference outputs (out0, ...) for norm-fold-sim.mlir, the
functions of Inputs/norm_fold_cases.mlir, from python/decoda/reference.py (the op formulas,
not the compiler): the norm's rows rounded to the storage type, projections accumulated in
f32 and rounded, the SwiGLU and the residual as the reference computes them.

  norm_fold_data.py plain_bf16|add_f16|plain_f32|rows8|mixed_weight|returned|layer|parallel|dynamic[T]|
                    dynamic_add[T]|many_rows|rows17 IN.npz OUT.npz
"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "python"))
from decoda import reference as R  # noqa: E402


def bits(a, st):
    a = np.asarray(a, np.float32)
    if st == "bf16":
        return (a.view(np.uint32) >> 16).astype(np.uint16)
    if st == "f16":
        return a.astype(np.float16)
    return a


def main():
    name, inp, outp = sys.argv[1:]
    rng = np.random.default_rng(5)
    # dynamic, dynamic_add: a T after the name (dynamic5: T = 5); 1 without.
    t_dyn = 1
    for base in ("dynamic_add", "dynamic"):
        if name.startswith(base) and name[len(base):].isdigit():
            name, t_dyn = base, int(name[len(base):])
            break
    st = {"add_f16": "f16", "dynamic_add": "f16", "plain_f32": "f32"}.get(name, "bf16")
    kw = {"storage": st}

    def act(shape, sc=1.0, shift=0.0):
        return R.to_storage(rng.standard_normal(shape) * sc + shift, st).astype(np.float32)

    if name == "plain_bf16":
        x, w, wq, wk = act((1, 1, 72), 2.0), act((72,), 0.3, 1.0), act((48, 72), 0.2), act((24, 72), 0.2)
        n = R.rms_norm(x, w, 1e-5, **kw)
        ins, outs = [x, w, wq, wk], [R.linear(n, wq, **kw), R.linear(n, wk, **kw)]
    elif name in ("add_f16", "dynamic_add"):
        t = 4 if name == "add_f16" else t_dyn
        r, a, w = act((1, t, 256)), act((1, t, 256), 3.0), act((256,), 0.3)
        wg, wu, wd = act((64, 256), 0.1), act((64, 256), 0.1), act((256, 64), 0.1)
        h, n = R.add_rms_norm(r, a, w, 1e-6, weight_offset=1.0, scale=0.5, **kw)
        ins = [r, a, w, wg, wu, wd]
        outs = [R.residual_add(h, R.gated_mlp(n, wg, wu, wd, "swiglu", **kw), **kw)]
    elif name == "plain_f32":
        x, w, wp = act((1, 2, 1024), 0.5), act((1024,), 0.3, 1.0), act((40, 1024), 0.1)
        ins, outs = [x, w, wp], [R.linear(R.rms_norm(x, w, 1e-5, **kw), wp, **kw)]
    elif name == "rows8":
        x, w, wq, wk = act((1, 8, 2048)), act((2048,), 0.3, 1.0), act((16, 2048), 0.05), act((8, 2048), 0.05)
        n = R.rms_norm(x, w, 1e-5, **kw)
        ins, outs = [x, w, wq, wk], [R.linear(n, wq, **kw), R.linear(n, wk, **kw)]
    elif name == "mixed_weight":
        x, wp = act((1, 1, 64)), act((32, 64), 0.2)
        w = (rng.standard_normal(64) * 0.3 + 1).astype(np.float32)  # f32, not rounded to bf16
        ins, outs = [x, w, wp], [R.linear(R.rms_norm(x, w, 1e-5, **kw), wp, **kw)]
    elif name == "returned":
        x, w, wp = act((1, 1, 64)), act((64,), 0.3, 1.0), act((32, 64), 0.2)
        n = R.rms_norm(x, w, 1e-5, **kw)
        ins, outs = [x, w, wp], [R.linear(n, wp, **kw), n]
    elif name == "layer":
        x, w, b, wp = act((1, 1, 64)), act((64,), 0.3, 1.0), act((64,), 0.1), act((32, 64), 0.2)
        ins, outs = [x, w, b, wp], [R.linear(R.layer_norm(x, w, b, 1e-5, **kw), wp, **kw)]
    elif name == "parallel":
        x = act((1, 1, 64))
        w1, b1, w2, b2 = act((64,), 0.3, 1.0), act((64,), 0.1), act((64,), 0.3, 1.0), act((64,), 0.1)
        wq, k, v, wp = act((64, 64), 0.2), act((1, 5, 4, 16)), act((1, 5, 4, 16)), act((32, 64), 0.2)
        q = R.linear(R.layer_norm(x, w1, b1, 1e-5, **kw), wq, **kw).reshape(1, 1, 4, 16)
        ins = [x, w1, b1, w2, b2, wq, k, v, wp]
        outs = [R.attention(q, k, v, num_heads=4, num_kv_heads=4, **kw),
                R.linear(R.layer_norm(x, w2, b2, 1e-5, **kw), wp, **kw)]
    elif name in ("dynamic", "many_rows", "rows17"):
        t = {"dynamic": t_dyn, "many_rows": 16, "rows17": 17}[name]
        x, w, wp = act((1, t, 64)), act((64,), 0.3, 1.0), act((32, 64), 0.2)
        ins, outs = [x, w, wp], [R.linear(R.rms_norm(x, w, 1e-5, **kw), wp, **kw)]
    else:
        raise SystemExit(f"unknown case {name}")
    f32_args = {1} if name == "mixed_weight" else set()  # the f32 weight as is
    np.savez(inp, **{f"arg{i}": (v if i in f32_args else bits(v, st)) for i, v in enumerate(ins)})
    np.savez(outp, **{f"out{i}": bits(v, st) for i, v in enumerate(outs)})


if __name__ == "__main__":
    main()
