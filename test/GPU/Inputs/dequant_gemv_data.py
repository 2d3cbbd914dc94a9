"""Cases of gemv-dequantize-sim.mlir: decoda.dequantize_blocks of constant codes read by a
decoda.linear with few rows (the GEMV kernels reading the codes), and their NumPy references.

  dequant_gemv_data.py module OUT.mlir                       every case as a function
  dequant_gemv_data.py CASE IN.npz OUT.npz [--rounded]       the input x (arg0), expected y (out0)

The reference is written from the op's formula, w[n, k] = (code - zp) * scale with code k of a
row in byte k * bits / 8 at bit (k * bits) mod 8 (zp default 2^(bits - 1)), and y = x w^T in
float64 from the stored (rounded) x, scales and zero points, then rounded to the output type.
--rounded rounds each weight to its type first, as the op defines it (the tensor-core GEMV's B
fragments hold such weights); without it the weights stay exact, as the SIMT GEMV sums them.
"""
import sys

import numpy as np

# name: (M, N, K, bits, block size, zero points: "int" whole numbers / "frac" / None, dtype)
CASES = {
    # 16 bytes of codes a lane (32 4-bit codes), whole zero points: one FMA centres a code.
    "b4_f16_m1": (1, 40, 256, 4, 32, "int", "f16"),
    # zero points with fractions: the centring's second step (- zp in f32); 3 rows.
    "b4_f32_frac_m3": (3, 33, 128, 4, 64, "frac", "f32"),
    # 2-bit codes, the default zero point 2, one 4-byte word a lane (block 16).
    "b2_bf16_m1": (1, 24, 96, 2, 16, None, "bf16"),
    # 8-bit codes: two codes in place, the word shifted by 16 for the other two.
    "b8_f32_m2": (2, 20, 48, 8, 16, "int", "f32"),
    # K = 40 not a multiple of 16: vectors of 8 codes; a ragged last block (padded codes).
    "b4_bf16_ragged": (1, 17, 40, 4, 16, "int", "bf16"),
    # 2-bit, fractional zero points, 8 rows (the most a GEMV kernel takes).
    "b2_f16_frac_m8": (8, 16, 64, 2, 32, "frac", "f16"),
    # A long K and few columns: the K split over a block's warps, unrolled steps.
    "b4_bf16_long": (1, 8, 2048, 4, 32, "int", "bf16"),
    # 8-bit codes in blocks of 128.
    "b8_bf16_b128": (1, 12, 256, 8, 128, "int", "bf16"),
    # The default zero point 8, 5 rows, K = 160 (a warp step of 128 k and a masked partial
    # one), N = 20 (a last tile of 4 columns).
    "b4_bf16_default_m5": (5, 20, 160, 4, 64, None, "bf16"),
    # f16 over K = 4096: the K split over 4 warps with two unrolled steps each.
    "b4_f16_split": (2, 16, 4096, 4, 128, "int", "f16"),
    # 12 rows: above the SIMT kernel's 8, within the tensor-core kernel's 16.
    "b4_f16_m12": (12, 24, 256, 4, 32, "int", "f16"),
    # The smallest: 3 columns (one partial tile), K = 32 (one lane's codes, a warp step three
    # quarters masked), 2 rows.
    "b4_f16_tiny": (2, 3, 32, 4, 32, None, "f16"),
    # Rows a run-time dim (called as CASE:ROWS): the dispatch's M = 1 and M <= 16 kernels,
    # and the tensor cores' contraction after the dequantisation above 16.
    "b4_bf16_dyn": (None, 40, 256, 4, 32, "int", "bf16"),
}


def split_name(arg):
    """CASE or CASE:ROWS (a case whose rows are a run-time dim) -> (case, rows)."""
    name, _, rows = arg.partition(":")
    m = CASES[name][0]
    return name, int(rows) if m is None else m


def bf16_bits(a):
    u = np.asarray(a, np.float32).view(np.uint32).astype(np.uint64)
    return ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16)


def bf16_value(bits):
    return (bits.astype(np.uint32) << 16).view(np.float32)


def rounded(a, dt):
    a = np.asarray(a, np.float32)
    if dt == "f16":
        return a.astype(np.float16).astype(np.float32)
    if dt == "bf16":
        return bf16_value(bf16_bits(a))
    return a


def raw(a, dt):
    if dt == "f16":
        return np.asarray(a, np.float16).tobytes()
    if dt == "bf16":
        return bf16_bits(a).tobytes()
    return np.asarray(a, np.float32).tobytes()


def case_data(name, m=None):
    m = CASES[name][0] if m is None else m
    _, n, k, bits, bs, zkind, dt = CASES[name]
    rng = np.random.default_rng(sum(map(ord, name)))
    blocks = -(-k // bs)
    codes = rng.integers(0, 256, size=(n, blocks * bs * bits // 8), dtype=np.uint8)
    scales = rounded(rng.uniform(0.01, 0.2, size=(n, blocks)), dt)
    if zkind == "int":
        zp = rounded(rng.integers(0, 1 << bits, size=(n, blocks)), dt)
    elif zkind == "frac":
        zp = rounded(rng.uniform(0, (1 << bits) - 1, size=(n, blocks)), dt)
    else:
        zp = None
    x = rounded(np.random.default_rng(m).standard_normal((m, k)), dt)
    return codes, scales, zp, x


def reference(name, m, rounded_weights=False):
    _, n, k, bits, bs, _, dt = CASES[name]
    codes, scales, zp, x = case_data(name, m)
    per = 8 // bits
    kk = np.arange(k)
    code = (codes[:, kk // per].astype(np.int64) >> ((kk % per) * bits)) & ((1 << bits) - 1)
    z = zp[:, kk // bs].astype(np.float64) if zp is not None else float(1 << (bits - 1))
    w = (code - z) * scales[:, kk // bs].astype(np.float64)
    if rounded_weights:
        w = rounded(w, dt).astype(np.float64)
    return rounded(x.astype(np.float64) @ w.T, dt)


def function(name):
    m, n, k, bits, bs, zkind, dt = CASES[name]
    codes, scales, zp, _ = case_data(name, 1 if m is None else m)
    m = "?" if m is None else m
    blocks = scales.shape[1]
    ct, st = f"tensor<{n}x{codes.shape[1]}xi8>", f"tensor<{n}x{blocks}x{dt}>"
    wt, xt, yt = f"tensor<{n}x{k}x{dt}>", f"tensor<{m}x{k}x{dt}>", f"tensor<{m}x{n}x{dt}>"
    lines = [f"func.func @{name}(%x: {xt}) -> {yt} {{",
             f'  %codes = arith.constant dense<"0x{codes.tobytes().hex().upper()}"> : {ct}',
             f'  %scales = arith.constant dense<"0x{raw(scales, dt).hex().upper()}"> : {st}']
    use = ""
    if zp is not None:
        lines.append(f'  %zp = arith.constant dense<"0x{raw(zp, dt).hex().upper()}"> : {st}')
        use = f" zero_points(%zp : {st})"
    lines += [f"  %w = decoda.dequantize_blocks %codes, %scales{use} "
              f"{{bits = {bits} : i64, block_size = {bs} : i64}} : {ct}, {st} -> {wt}",
              f"  %y = decoda.linear %x, %w : {xt}, {wt}",
              f"  return %y : {yt}", "}"]
    return "\n".join(lines)


if __name__ == "__main__":
    if sys.argv[1] == "module":
        with open(sys.argv[2], "w") as f:
            f.write("\n\n".join(function(c) for c in CASES) + "\n")
    else:
        (name, m), inp, out = split_name(sys.argv[1]), sys.argv[2], sys.argv[3]
        dt = CASES[name][6]
        _, _, _, x = case_data(name, m)
        y = reference(name, m, rounded_weights="--rounded" in sys.argv[4:])
        if dt == "bf16":
            x, y = bf16_bits(x), bf16_bits(y)
        elif dt == "f16":
            x, y = x.astype(np.float16), y.astype(np.float16)
        np.savez(inp, arg0=x)
        np.savez(out, out0=y)
