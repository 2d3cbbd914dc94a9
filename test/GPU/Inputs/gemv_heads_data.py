"""Per-head projections (decoda.linear with a rank-3 weight: y[..., h, n] = Σ_k x[..., h, k] ·
W[h, n, k] (+ bias[h, n])) and projections of weights stored [K, N] that are arguments (the
GEMV's column kernel; H None: a rank-2 weight, y[..., n] = Σ_k x[..., k] · W[n, k]) for
gemv-heads-sim.mlir: the cases as a module, their inputs
(arg0, arg1, ...) and NumPy references (out0), the contraction in float64 from the rounded
inputs, then rounded to the storage type (a bias added after that rounding, in the storage
type, as decoda.linear's definition reads for narrow types).

  gemv_heads_data.py module OUT.mlir          every case as a function
  gemv_heads_data.py CASE[:ROWS] IN.npz OUT.npz  ROWS: the run-time batch of a dynamic case
"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "python"))
from decoda import reference as R  # noqa: E402

# name: (batch (None: dynamic), T, H, N, K, type, layout, weight kind, bias, concat)
#   weight kind "arg": an argument; "const": a constant in the module (transposed to [H, N, K]
#   at compile time when in_out); concat R > 0: the result is concat(y, r) along the last dim
#   with an input r [..., H, R] (absorbed MLA's query [q_lat ; q_rope])
CASES = {
    # absorbed MLA's W_UK at 16 heads, Dn 64 -> 48: K shorter than a warp's 256-element stride
    "h_bf16_m1": (1, 1, 16, 48, 64, "bf16", "out_in", "arg", False, 0),
    # two rows (batch 2), K = 520 (two warp strides and a ragged end), N = 36, a bias per head
    "h_bf16_m2_bias": (2, 1, 4, 36, 520, "bf16", "out_in", "arg", True, 0),
    # a constant in_out weight (ONNX / PyTorch layout), f32, K = 30 (8-byte vectors), N odd,
    # three rows over two lead dims
    "h_f32_m3_const": (3, 1, 6, 7, 30, "f32", "in_out", "const", False, 0),
    # eight rows (the largest static M), f16, K = 40 (five 16-byte vectors)
    "h_f16_m8": (4, 2, 2, 24, 40, "f16", "out_in", "arg", False, 0),
    # the tensor-core GEMV (2 to 16 rows, N a multiple of 8): 4 rows, K = 136 (a partial last
    # warp step of 32 k), and 16 rows over two lead dims (both row groups of the fragments)
    "h_bf16_m4_mma": (4, 1, 8, 64, 136, "bf16", "out_in", "arg", False, 0),
    "h_f16_m16": (8, 2, 4, 32, 64, "f16", "out_in", "arg", False, 0),
    # a run-time batch: M = 1 (one-row kernel), 2..16 (the tensor-core GEMV's 16 rows storing
    # M; 2..8 on the SIMT kernel's 8 rows without it), above (the contraction)
    "h_bf16_dyn": (None, 1, 8, 64, 128, "bf16", "out_in", "const", False, 0),
    # absorbed MLA's query at batch 2: q_nope · W_UK (a constant in_out weight, 16 heads,
    # 64 -> 128) rounded straight into the first 128 columns of [q_lat ; q_rope]
    "h_bf16_concat": (2, 1, 16, 128, 64, "bf16", "in_out", "const", False, 32),
    # one head (B [1, N, K] / [1, K, N]: no head arithmetic, B still collapsed): bf16 two rows
    # (the tensor-core GEMV; SIMT without it), f32 one row, and the column kernel
    "h_bf16_h1": (2, 1, 1, 40, 64, "bf16", "out_in", "arg", False, 0),
    "h_f32_h1": (1, 1, 1, 24, 40, "f32", "out_in", "arg", False, 0),
    "c_bf16_h1": (1, 1, 1, 64, 32, "bf16", "in_out", "arg", False, 0),
    # weights stored [K, N] (arguments): the column kernel
    # absorbed MLA's W_UK as decoda.mla states it ([H, Dn, Dc]), 16 heads, 64 -> 512
    "c_bf16_m1": (1, 1, 16, 512, 64, "bf16", "in_out", "arg", False, 0),
    # batch 2, K = 520, N = 36 (vectors of 4), a bias per head
    "c_bf16_m2_bias": (2, 1, 4, 36, 520, "bf16", "in_out", "arg", True, 0),
    # rank-2 f32 [30, 7]: N odd (scalar columns), three rows
    "c_f32_m3": (3, 1, None, 7, 30, "f32", "in_out", "arg", False, 0),
    # rank-2 bf16 [256, 1000] at a run-time batch (1, 2..8, above)
    "c_bf16_dyn": (None, 1, None, 1000, 256, "bf16", "in_out", "arg", False, 0),
    # eight rows, f16, per head into [y ; r] (the epilogue's strided output)
    "c_f16_m8_concat": (8, 1, 4, 64, 32, "f16", "in_out", "arg", False, 16),
}


def rounded(a, dt):
    """`a` rounded to the storage type `dt`, as float32."""
    return np.asarray(R.to_storage(np.asarray(a, np.float32), dt), np.float32)


def stored(a, dt):
    """`a` (already representable) as the runtime passes it: bf16 as its bits."""
    if dt == "bf16":
        return (np.asarray(a, np.float32).view(np.uint32) >> 16).astype(np.uint16)
    return np.asarray(a, np.float16 if dt == "f16" else np.float32)


def raw(a, dt):
    return stored(a, dt).tobytes()


def weights(name):
    _, _, h, n, k, dt, layout, _, bias, _ = CASES[name]
    rng = np.random.default_rng(sum(map(ord, name)))
    w = rounded(rng.standard_normal((h or 1, n, k)) * 0.2, dt)  # [H, N, K]
    b = rounded(rng.standard_normal((h or 1, n)), dt) if bias else None
    return w, b


def heads(shape, h):
    """`shape` [..., H, X] without the head dim for a rank-2 weight (H None)."""
    return shape if h else shape[:-2] + shape[-1:]


def stored_weight(name):
    h, layout = CASES[name][2], CASES[name][6]
    w, _ = weights(name)
    w = np.ascontiguousarray(w.transpose(0, 2, 1)) if layout == "in_out" else w
    return w if h else w[0]


def tensor(shape, dt):
    return "tensor<" + "x".join("?" if s is None else str(s) for s in shape) + f"x{dt}>"


def function(name):
    batch, t, h, n, k, dt, layout, kind, bias, concat = CASES[name]
    w = stored_weight(name)
    xt, yt = tensor(heads((batch, t, h, k), h), dt), tensor(heads((batch, t, h, n), h), dt)
    wt, bt = tensor(w.shape, dt), tensor(heads((h, n), h), dt)
    rt, ot = tensor((batch, t, h, concat), dt), tensor((batch, t, h, n + concat), dt)
    args = [f"%x: {xt}"]
    if kind == "arg":
        args.append(f"%w: {wt}")
    if bias:
        args.append(f"%b: {bt}")
    if concat:
        args.append(f"%r: {rt}")
    lines = [f"func.func @{name}({', '.join(args)}) -> {ot if concat else yt} {{"]
    if kind == "const":
        lines.append(f'  %w = arith.constant dense<"0x{raw(w, dt).hex().upper()}"> : {wt}')
    attrs = " {weight_layout = #decoda.weight_layout<in_out>}" if layout == "in_out" else ""
    operands = "%x, %w" + (", %b" if bias else "")
    types = f"{xt}, {wt}" + (f", {bt}" if bias else "")
    lines.append(f"  %y = decoda.linear {operands}{attrs} : {types}")
    if concat:
        lines += [f"  %o = tensor.concat dim(3) %y, %r : ({yt}, {rt}) -> {ot}",
                  f"  return %o : {ot}", "}"]
    else:
        lines += [f"  return %y : {yt}", "}"]
    return "\n".join(lines)


def main():
    if sys.argv[1] == "module":
        with open(sys.argv[2], "w") as f:
            f.write("// Generated by gemv_heads_data.py.\n\n" +
                    "\n\n".join(function(c) for c in CASES) + "\n")
        return
    name, _, rows = sys.argv[1].partition(":")
    inp, out = sys.argv[2], sys.argv[3]
    batch, t, h, n, k, dt, layout, kind, bias, concat = CASES[name]
    batch = int(rows) if batch is None else batch
    x = rounded(np.random.default_rng(batch).standard_normal((batch, t, h or 1, k)), dt)
    w, b = weights(name)
    args = {"arg0": stored(x if h else x[:, :, 0], dt)}
    if kind == "arg":
        args["arg1"] = stored(stored_weight(name), dt)
    if bias:
        args[f"arg{len(args)}"] = stored(b if h else b[0], dt)
    if concat:
        r = rounded(np.random.default_rng(batch + 100).standard_normal((batch, t, h, concat)),
                    dt)
        args[f"arg{len(args)}"] = stored(r, dt)
    y = rounded(np.einsum("bthk,hnk->bthn", x.astype(np.float64), w.astype(np.float64)), dt)
    if bias:
        y = rounded(y + b, dt)
    if concat:
        y = np.concatenate([y, r], axis=3)
    if not h:
        y = y[:, :, 0]
    np.savez(inp, **args)
    np.savez(out, out0=stored(y, dt))


if __name__ == "__main__":
    main()
