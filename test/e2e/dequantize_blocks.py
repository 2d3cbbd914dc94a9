# RUN: %PYTHON %s
"""decoda.dequantize_blocks (block-quantised weights, as ONNX Runtime's MatMulNBits stores them)
on the CPU, against NumPy written from the op's formula:

  w[n, k] = (code[n, k] - zp[n, k / bs]) * scale[n, k / bs] in f32, rounded once to the type,
  code k of row n in byte k * bits / 8 of the row at bit (k * bits) mod 8, zp default 2^(bits-1).

- Operands as function arguments: the lowered generic (decoda-convert-to-linalg) runs; its
  result must equal the reference bit for bit, and a linear reading it must match the
  reference product.
- The same operands as constants: decoda-fold-constant-dequantize folds them at compile time;
  bit for bit the argument form's outputs.
Cases: 2, 4 and 8 bits; block sizes 16, 32 and 64; a ragged last block (padded codes); zero
points given or the default; f32, f16 and bf16.
"""

import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
from harness import CompiledModule, check, module, np, tensor_type, testing  # noqa: E402
from decoda import runtime  # noqa: E402


def round_to(x, dtype):
    x = np.asarray(x, np.float32)
    if dtype == "f16":
        return x.astype(np.float16).astype(np.float32)
    if dtype == "bf16":
        return runtime.bf16_to_float32(runtime.float32_to_bf16(x))
    return x


def reference(codes, scales, zp, bits, bs, k, dtype):
    """w [N, K] from packed codes [N, P] (uint8 bytes), scales/zp [N, blocks] (f32 values)."""
    per = 8 // bits
    kk = np.arange(k)
    byte = codes[:, kk // per].astype(np.int64)
    code = ((byte >> ((kk % per) * bits)) & ((1 << bits) - 1)).astype(np.float32)
    z = zp[:, kk // bs] if zp is not None else np.float32(1 << (bits - 1))
    w = (code - z).astype(np.float32) * scales[:, kk // bs]
    return round_to(w, dtype)


def hex_dense(arr, dtype):
    if dtype == "f16":
        raw = np.asarray(arr, np.float16).tobytes()
    elif dtype == "bf16":
        raw = runtime.float32_to_bf16(np.asarray(arr, np.float32)).tobytes()
    elif dtype == "i8":
        raw = np.asarray(arr, np.uint8).tobytes()
    else:
        raw = np.asarray(arr, np.float32).tobytes()
    return f'dense<"0x{raw.hex().upper()}">'


CASES = [
    # name, N, K, bits, block size, zero points, dtype
    ("b4_zp_ragged", 5, 80, 4, 32, True, "f32"),
    ("b2_default", 3, 64, 2, 16, False, "f32"),
    ("b8_zp_ragged", 4, 40, 8, 16, True, "f32"),
    ("b4_zp_f16", 6, 128, 4, 64, True, "f16"),
    ("b4_default_bf16", 4, 48, 4, 16, False, "bf16"),
]

rng = np.random.default_rng(11)
for name, n, k, bits, bs, with_zp, dt in CASES:
    blocks = -(-k // bs)
    p = blocks * bs * bits // 8
    codes = rng.integers(0, 256, size=(n, p), dtype=np.uint8)
    scales = round_to(rng.uniform(0.01, 0.2, size=(n, blocks)), dt)
    zp = round_to(rng.integers(0, 1 << bits, size=(n, blocks)), dt) if with_zp else None
    x = round_to(rng.standard_normal((2, k)), dt)
    wt = tensor_type((n, k), dt)
    ct, st = tensor_type((n, p), "i8"), tensor_type((n, blocks), dt)
    xt, yt = tensor_type((2, k), dt), tensor_type((2, n), dt)
    attrs = f"{{bits = {bits} : i64, block_size = {bs} : i64}}"
    zp_use = f" zero_points(%zp : {st})" if with_zp else ""
    body = (f"  %w = decoda.dequantize_blocks %codes, %scales{zp_use} {attrs} : {ct}, {st} -> {wt}\n"
            f"  %y = decoda.linear %x, %w : {xt}, {wt}\n"
            f"  return %w, %y : {wt}, {yt}")
    args = [("x", (2, k), dt), ("codes", (n, p), "i8"), ("scales", (n, blocks), dt)]
    if with_zp:
        args.append(("zp", (n, blocks), dt))
    results = [("w", (n, k), dt), ("y", (2, n), dt)]
    text_args = module("f", args, results, body)
    consts = (f"  %codes = arith.constant {hex_dense(codes, 'i8')} : {ct}\n"
              f"  %scales = arith.constant {hex_dense(scales, dt)} : {st}\n")
    if with_zp:
        consts += f"  %zp = arith.constant {hex_dense(zp, dt)} : {st}\n"
    text_consts = module("f", [("x", (2, k), dt)], results, consts + body)

    w_ref = reference(codes, scales, zp, bits, bs, k, dt)
    y_ref = round_to(x.astype(np.float64) @ w_ref.T.astype(np.float64), dt)

    by_args = CompiledModule(text_args, name=f"dq_{name}_args").entry(
        "f", [dt, "i8", dt] + ([dt] if with_zp else []), [dt, dt])
    ins = [x, codes.view(np.int8), scales] + ([zp] if with_zp else [])
    w, y = by_args(*ins)
    testing.check(np.array_equal(w, w_ref),
                  f"{name}: the generic's weights differ from the formula at "
                  f"{np.argwhere(w != w_ref)[:3].tolist()}")
    check("dequantize_blocks linear", y, y_ref, dt, what=f" ({name}, argument operands)")

    by_consts = CompiledModule(text_consts, name=f"dq_{name}_consts").entry("f", [dt], [dt, dt])
    w2, y2 = by_consts(x)
    testing.check(np.array_equal(w2, w_ref), f"{name}: the folded constant differs from the formula")
    testing.check(np.array_equal(y2, y),
                  f"{name}: constant operands (folded) and argument operands disagree on y")
    print(f"{name}: weights exact, y max |d| {float(np.max(np.abs(y - y_ref))):.2e}")
print("dequantize_blocks: ok")
