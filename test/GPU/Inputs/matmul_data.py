"""Inputs (arg0, arg1, ...) and NumPy reference outputs (out0) for tensorcore-sim.mlir and, for
the functions of gemv_cases.mlir, gemv-sim.mlir (the contraction in float64 from the rounded
inputs, then rounded to the storage type).

  matmul_data.py linear-bf16|linear-f16-bias|accumulate-bf16|linear-f16-long|linear-bf16-deep IN.npz OUT.npz
  matmul_data.py bf16_m1|bf16_m4|f32_m1|f32_m4_acc|f16_m8|f16_m16|dyn_bf16_t1|dyn_bf16_t5|dyn_bf16_t8|dyn_bf16_t9|
                 dyn_bf16_t16|dyn_bf16_t17 IN.npz OUT.npz
"""
import sys

import numpy as np

rng = np.random.default_rng(7)


def bf16(a):
    u = a.astype(np.float32).view(np.uint32).astype(np.uint64)
    return ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16)


def f(b):
    return (b.astype(np.uint32) << 16).view(np.float32).astype(np.float64)


# gemv_cases.mlir: (A shape, B shape) of each function.
GEMV = {"bf16_m1": ((1, 1, 200), (37, 200)), "bf16_m4": ((2, 2, 1096), (70, 1096)),
        "f32_m1": ((1, 1, 1030), (41, 1030)), "f32_m4_acc": ((4, 300), (33, 300)),
        "f16_m8": ((8, 37), (9, 37)), "f16_m16": ((16, 1040), (20, 1040)),
        # dyn_bf16 at T = 1 (the one-row GEMV), T = 5, 8, 9 and 16 (the 16-row GEMV: 11, 8, 7
        # and no rows clamped; 8-row SIMT with --gpu-gemv-mma=false up to T = 8) and T = 17
        # (the tensor-core branch)
        "dyn_bf16_t1": ((1, 1, 256), (40, 256)), "dyn_bf16_t5": ((1, 5, 256), (40, 256)),
        "dyn_bf16_t8": ((1, 8, 256), (40, 256)), "dyn_bf16_t9": ((1, 9, 256), (40, 256)),
        "dyn_bf16_t16": ((1, 16, 256), (40, 256)), "dyn_bf16_t17": ((1, 17, 256), (40, 256))}

kind, inp, out = sys.argv[1:]
if kind == "linear-bf16":  # [1, 37, 128] x [136, 128]^T: M and N ragged, 4 k-steps
    x, w = bf16(rng.standard_normal((1, 37, 128))), bf16(rng.standard_normal((136, 128)) * 0.2)
    np.savez(inp, arg0=x, arg1=w)
    np.savez(out, out0=bf16(np.einsum("btk,nk->btn", f(x), f(w))))
elif kind == "linear-f16-bias":  # two lead dims, bias added after the f32 contraction
    x = rng.standard_normal((2, 19, 64)).astype(np.float16)
    w = (rng.standard_normal((72, 64)) * 0.2).astype(np.float16)
    b = rng.standard_normal(72).astype(np.float16)
    acc = np.einsum("btk,nk->btn", x.astype(np.float64), w.astype(np.float64)).astype(np.float32)
    np.savez(inp, arg0=x, arg1=w, arg2=b)
    np.savez(out, out0=(acc.astype(np.float16) + b).astype(np.float16))
elif kind == "accumulate-bf16":  # C starts from an input: M = 130 (two row blocks), N = 40
    x, w = bf16(rng.standard_normal((130, 96))), bf16(rng.standard_normal((40, 96)) * 0.2)
    c = rng.standard_normal((130, 40)).astype(np.float32)
    np.savez(inp, arg0=x, arg1=w, arg2=c)
    np.savez(out, out0=(f(x) @ f(w).T + c).astype(np.float32))
elif kind == "linear-f16-long":  # [2, 45, 224] x [200, 224]^T: 7 k-steps, M and N ragged
    x = rng.standard_normal((2, 45, 224)).astype(np.float16)
    w = (rng.standard_normal((200, 224)) * 0.2).astype(np.float16)
    acc = np.einsum("btk,nk->btn", x.astype(np.float64), w.astype(np.float64)).astype(np.float32)
    np.savez(inp, arg0=x, arg1=w)
    np.savez(out, out0=acc.astype(np.float16))
elif kind == "linear-bf16-deep":  # [1, 150, 648] x [264, 648]^T: 11 TMA k tiles (the last
    # 8 of 64 wide) through a 4-stage ring, M = 150 and N = 264 ragged over 128 x 128
    x, w = bf16(rng.standard_normal((1, 150, 648))), bf16(rng.standard_normal((264, 648)) * 0.1)
    np.savez(inp, arg0=x, arg1=w)
    np.savez(out, out0=bf16(np.einsum("btk,nk->btn", f(x), f(w))))
elif kind in GEMV:
    xs, ws = GEMV[kind]
    x, w = rng.standard_normal(xs), rng.standard_normal(ws) * 0.2
    if kind.startswith("bf16") or kind.startswith("dyn_bf16"):
        x, w = bf16(x), bf16(w)
        np.savez(inp, arg0=x, arg1=w)
        np.savez(out, out0=bf16(np.einsum("...k,nk->...n", f(x), f(w))))
    elif kind.startswith("f16"):
        x, w = x.astype(np.float16), w.astype(np.float16)
        np.savez(inp, arg0=x, arg1=w)
        acc = np.einsum("...k,nk->...n", x.astype(np.float64), w.astype(np.float64))
        np.savez(out, out0=acc.astype(np.float32).astype(np.float16))
    else:
        x, w = x.astype(np.float32), w.astype(np.float32)
        arrays = {"arg0": x, "arg1": w}
        acc = np.einsum("...k,nk->...n", x.astype(np.float64), w.astype(np.float64))
        if kind == "f32_m4_acc":
            c = rng.standard_normal((4, 33)).astype(np.float32)
            arrays["arg2"] = c
            acc = acc + c
        np.savez(inp, **arrays)
        np.savez(out, out0=acc.astype(np.float32))
else:
    raise SystemExit(f"unknown kind {kind}")
