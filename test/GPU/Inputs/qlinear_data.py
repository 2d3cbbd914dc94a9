"""Inputs (arg0, arg1, ...) and NumPy reference outputs (out0) for int8-tensorcore-sim.mlir.

  qlinear_data.py acc|epilogue|bf16|requant IN.npz OUT.npz
  qlinear_data.py i8_m1|i8_m4|i8_odd IN.npz OUT.npz   the GEMV cases (Inputs/gemv_int8_cases.mlir)
  qlinear_data.py i8_dyn_tT IN.npz OUT.npz            i8_dyn of the same file at T tokens
  qlinear_data.py block-mlir OUT.mlir              a float projection with a constant weight
  qlinear_data.py block QUANT_STAGE.mlir IN.npz OUT.npz [T]   (T tokens, default 21)
  qlinear_data.py zp-mlir OUT.mlir                 the activation zero-point cases (three entries)
  qlinear_data.py zp_token|zp_const|zp_decode IN.npz OUT.npz

With an activation zero point the reference is the op's formula, Σ_k (x - zp) w in int64 (not
the column-sum split the GPU pipeline compiles).

The accumulator is int64 NumPy arithmetic on the int8 values (exact), the epilogue the
decoda.qlinear formula in float32: float32(acc) * x_scale * w_scale[n] + bias[n]. For the
float projection compiled with --quantize=int8, the reference quantises x per token
(x_scale = max(max|x|, 1e-30) / 127, q = clip(roundeven(x / x_scale), -128, 127), in float32)
and takes the weight's i8 values and per-channel scales the compiler folded (read from the
IR after decoda-quantize-stage): it checks the kernels, not the weight quantiser.
"""
import re
import sys

import numpy as np

rng = np.random.default_rng(11)


def int8(shape):
    a = rng.integers(-128, 128, size=shape, dtype=np.int64)
    flat = a.reshape(-1)
    flat[:7] = [-128, -128, 127, -128, 127, 0, -1]  # extremes among the inputs
    return a.astype(np.int8)


def bf16(a):
    """float32 -> bf16 bits, round to nearest even."""
    u = np.asarray(a, np.float32).view(np.uint32).astype(np.uint64)
    return ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16)


def f32(b):
    return (b.astype(np.uint32) << 16).view(np.float32)


def acc(x, w):
    return np.einsum("...k,nk->...n", x.astype(np.int64), w.astype(np.int64))


BLOCK_N, BLOCK_K = 72, 192  # N ragged (one 128-wide block), K: three 64-wide stages


def dense(text, shape, dtype):
    ty = "x".join(map(str, shape)) + "x" + {np.int8: "i8", np.float32: "f32"}[dtype]
    m = re.search(r'dense<"0x([0-9A-F]+)"> : tensor<' + ty + '>', text)
    if m:
        return np.frombuffer(bytes.fromhex(m.group(1)), dtype=dtype).reshape(shape)
    # Small constants print as a list (MLIR prints floats so that they read back exactly).
    m = re.search(r'dense<\[([^\]]*)\]> : tensor<' + ty + '>', text)
    return np.array([float(v) for v in m.group(1).split(",")], dtype=dtype).reshape(shape)


def zp_weight():
    """The constant weight of @zp_const (its own generator: the same in zp-mlir and zp_const)."""
    g = np.random.default_rng(23)
    w = g.integers(-128, 128, size=(40, 64), dtype=np.int64)
    w[0, :], w[1, :] = -128, 127
    return w.astype(np.int8)


def acc_zp(x, w, zp):
    return np.einsum("...k,nk->...n", x.astype(np.int64) - np.asarray(zp, np.int64), w.astype(np.int64))


kind = sys.argv[1]
if kind == "zp-mlir":
    w = zp_weight()
    with open(sys.argv[2], "w") as f:
        f.write(f"""// Activation zero points for tensorcore-int8-sim.mlir (written by qlinear_data.py zp-mlir).
// Per-token zero points, a run-time weight, bf16 output: the s8 tensor-core kernel.
func.func @zp_token(%x: tensor<2x19x96xi8>, %w: tensor<72x96xi8>, %xs: tensor<2x19x1xf32>, %ws: tensor<72xf32>, %zp: tensor<2x19x1xi8>, %b: tensor<72xf32>) -> tensor<2x19x72xbf16> {{
  %y = decoda.qlinear %x, %w, %xs, %ws x_zero_point(%zp : tensor<2x19x1xi8>) bias(%b : tensor<72xf32>) : tensor<2x19x96xi8>, tensor<72x96xi8>, tensor<2x19x1xf32>, tensor<72xf32> -> tensor<2x19x72xbf16>
  return %y : tensor<2x19x72xbf16>
}}
// A per-tensor zero point and a constant weight (its column sums folded at compile time).
func.func @zp_const(%x: tensor<33x64xi8>, %xs: tensor<f32>, %zp: tensor<i8>) -> tensor<33x40xf32> {{
  %w = arith.constant dense<"0x{w.tobytes().hex().upper()}"> : tensor<40x64xi8>
  %ws = arith.constant dense<0.0125> : tensor<f32>
  %y = decoda.qlinear %x, %w, %xs, %ws x_zero_point(%zp : tensor<i8>) : tensor<33x64xi8>, tensor<40x64xi8>, tensor<f32>, tensor<f32> -> tensor<33x40xf32>
  return %y : tensor<33x40xf32>
}}
// A decode step (M = 1): the dp4a GEMV kernel.
func.func @zp_decode(%x: tensor<1x1x256xi8>, %w: tensor<48x256xi8>, %xs: tensor<1x1x1xf32>, %ws: tensor<48xf32>, %zp: tensor<1x1x1xi8>) -> tensor<1x1x48xf32> {{
  %y = decoda.qlinear %x, %w, %xs, %ws x_zero_point(%zp : tensor<1x1x1xi8>) : tensor<1x1x256xi8>, tensor<48x256xi8>, tensor<1x1x1xf32>, tensor<48xf32> -> tensor<1x1x48xf32>
  return %y : tensor<1x1x48xf32>
}}
""")
    sys.exit(0)
if kind in ("zp_token", "zp_const", "zp_decode"):
    inp, out = sys.argv[2:4]
    if kind == "zp_token":
        x, w = int8((2, 19, 96)), int8((72, 96))
        zp = rng.integers(-128, 128, (2, 19, 1)).astype(np.int8)
        zp[0, 0, 0], zp[0, 1, 0] = 127, -128  # x - zp down to -255 and up to 255
        x[0, 0, :], x[0, 1, :] = -128, 127
        xs = rng.uniform(0.001, 0.02, (2, 19, 1)).astype(np.float32)
        ws = rng.uniform(0.001, 0.02, 72).astype(np.float32)
        b = rng.standard_normal(72).astype(np.float32)
        y = (acc_zp(x, w, zp).astype(np.float32) * xs).astype(np.float32) * ws + b
        np.savez(inp, arg0=x, arg1=w, arg2=xs, arg3=ws, arg4=zp, arg5=b)
        np.savez(out, out0=bf16(y.astype(np.float32)))
    elif kind == "zp_const":
        x = int8((33, 64))
        xs, zp = np.float32(0.02), np.int8(-77)
        y = (acc_zp(x, zp_weight(), zp).astype(np.float32) * xs).astype(np.float32) * np.float32(0.0125)
        np.savez(inp, arg0=x, arg1=xs, arg2=zp)
        np.savez(out, out0=y.astype(np.float32))
    else:
        x, w = int8((1, 1, 256)), int8((48, 256))
        zp = np.array(100, np.int8).reshape(1, 1, 1)
        xs = np.full((1, 1, 1), 0.01, np.float32)
        ws = rng.uniform(0.001, 0.02, 48).astype(np.float32)
        y = (acc_zp(x, w, zp).astype(np.float32) * xs).astype(np.float32) * ws
        np.savez(inp, arg0=x, arg1=w, arg2=xs, arg3=ws, arg4=zp)
        np.savez(out, out0=y.astype(np.float32))
    sys.exit(0)
if kind == "block-mlir":
    w = (rng.standard_normal((BLOCK_N, BLOCK_K)) * 0.05).astype(np.float32)
    with open(sys.argv[2], "w") as f:
        f.write(f"""func.func @proj(%x: tensor<1x?x{BLOCK_K}xf32>) -> tensor<1x?x{BLOCK_N}xf32> {{
  %w = arith.constant dense<"0x{w.tobytes().hex().upper()}"> : tensor<{BLOCK_N}x{BLOCK_K}xf32>
  %y = decoda.linear %x, %w : tensor<1x?x{BLOCK_K}xf32>, tensor<{BLOCK_N}x{BLOCK_K}xf32>
  return %y : tensor<1x?x{BLOCK_N}xf32>
}}
""")
    sys.exit(0)
if kind == "block":
    stage, inp, out = sys.argv[2:5]
    tokens = int(sys.argv[5]) if len(sys.argv) > 5 else 21
    text = open(stage).read()
    wq = dense(text, (BLOCK_N, BLOCK_K), np.int8)
    ws = dense(text, (BLOCK_N,), np.float32)
    x = rng.standard_normal((1, tokens, BLOCK_K)).astype(np.float32)
    x[0, 3 % tokens] *= 40  # one outlier token
    xs = (np.maximum(np.abs(x).max(axis=-1, keepdims=True), np.float32(1e-30)) / np.float32(127)).astype(np.float32)
    q = np.clip(np.round(x / xs), -128, 127).astype(np.int8)  # np.round: half to even
    y = (acc(q, wq).astype(np.float32) * xs).astype(np.float32) * ws
    np.savez(inp, arg0=x)
    np.savez(out, out0=y.astype(np.float32))
    sys.exit(0)

inp, out = sys.argv[2:]


def unit_scales(x, w):
    """Unit scales: the f32 output is the i32 accumulator itself (exact below 2^24)."""
    a = acc(x, w)
    assert np.abs(a).max() < 2 ** 24
    np.savez(inp, arg0=x, arg1=w, arg2=np.float32(1), arg3=np.float32(1))
    np.savez(out, out0=a.astype(np.float32))


if kind == "acc":
    x, w = int8((130, 256)), int8((136, 256))
    # One row and one column of all -128 / +127: the largest magnitudes K * 128 * 128 reach.
    x[5, :], w[9, :] = -128, -128
    w[10, :] = 127
    unit_scales(x, w)
elif kind == "epilogue":
    x, w = int8((2, 19, 96)), int8((72, 96))
    xs = rng.uniform(0.001, 0.02, (2, 19, 1)).astype(np.float32)
    ws = rng.uniform(0.001, 0.02, 72).astype(np.float32)
    b = rng.standard_normal(72).astype(np.float32)
    y = a = acc(x, w).astype(np.float32)
    y = (a * xs).astype(np.float32) * ws + b
    np.savez(inp, arg0=x, arg1=w, arg2=xs, arg3=ws, arg4=b)
    np.savez(out, out0=y.astype(np.float32))
elif kind == "bf16":
    x, w = int8((1, 10, 256)), int8((128, 256))
    xs = np.float32(0.0125)
    ws = rng.uniform(0.001, 0.02, 128).astype(np.float32)
    b = bf16(rng.standard_normal(128))
    y = (acc(x, w).astype(np.float32) * xs).astype(np.float32) * ws + f32(b)
    np.savez(inp, arg0=x, arg1=w, arg2=xs, arg3=ws, arg4=b)
    np.savez(out, out0=bf16(y.astype(np.float32)))
elif kind == "requant":
    x, w = int8((33, 128)), int8((64, 128))
    xs = rng.uniform(0.005, 0.02, (33, 1)).astype(np.float32)
    ws = rng.uniform(0.005, 0.02, 64).astype(np.float32)
    b = rng.standard_normal(64).astype(np.float32)
    os_ = np.float32(0.05)  # small enough that some outputs clamp at -128 / 127
    y = (acc(x, w).astype(np.float32) * xs).astype(np.float32) * ws + b
    q = np.clip(np.round((y / os_).astype(np.float32)), -128, 127).astype(np.int8)
    assert (q == 127).any() and (q == -128).any()
    np.savez(inp, arg0=x, arg1=w, arg2=xs, arg3=ws, arg4=b, arg5=os_)
    np.savez(out, out0=q)
elif kind in ("i8_m1", "i8_odd"):
    (mx, n, k) = ((1, 1, 512), 37, 512) if kind == "i8_m1" else ((2, 37), 9, 37)
    x, w = int8(mx), int8((n, k))
    # The extreme row and columns: all -128 against -128 and +127.
    x.reshape(-1, k)[-1, :] = -128
    w[0, :], w[n - 1, :] = -128, 127
    unit_scales(x, w)
elif kind.startswith("i8_dyn_t"):
    t = int(kind[len("i8_dyn_t"):])
    x, w = int8((1, t, 1096)), int8((70, 1096))
    x[0, t - 1, :] = -128  # the last row extreme (rows past T repeat it in the 8-row kernel)
    xs = rng.uniform(0.001, 0.02, (1, t, 1)).astype(np.float32)
    ws = rng.uniform(0.001, 0.02, 70).astype(np.float32)
    b = bf16(rng.standard_normal(70))
    y = (acc(x, w).astype(np.float32) * xs).astype(np.float32) * ws + f32(b)
    np.savez(inp, arg0=x, arg1=w, arg2=xs, arg3=ws, arg4=b)
    np.savez(out, out0=bf16(y.astype(np.float32)))
elif kind == "i8_m4":
    x, w = int8((2, 2, 1096)), int8((70, 1096))
    xs = rng.uniform(0.001, 0.02, (2, 2, 1)).astype(np.float32)
    ws = rng.uniform(0.001, 0.02, 70).astype(np.float32)
    b = bf16(rng.standard_normal(70))
    y = (acc(x, w).astype(np.float32) * xs).astype(np.float32) * ws + f32(b)
    np.savez(inp, arg0=x, arg1=w, arg2=xs, arg3=ws, arg4=b)
    np.savez(out, out0=bf16(y.astype(np.float32)))
else:
    raise SystemExit(f"unknown kind {kind}")
