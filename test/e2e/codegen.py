# RUN: %PYTHON %s
"""The optimised CPU code path (decoda-cpu-contraction-codegen: packed 32-wide panels of the
weight, 6 x 32 register tiles of AVX-512 FMAs, 1-row tiles for leftover rows, masked last
panels, k blocks of 1024; dot products along k for static row counts up to 4; OpenMP over
panels) against NumPy on shapes that are not multiples of any tile size: rows (M) not multiples
of 6 (and M < 6), N below 16, between 16 and 32 and not a multiple of 32, K above one k block
(1100, 2100), tiny (3) and not a multiple of 16, dynamic sequence lengths, a batch dim, in_out
weights, biases, per-head weights, bf16 storage, gated MLPs and attention."""

import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(__file__))
from harness import CompiledModule, R, check, module, np, tensor_type, testing  # noqa: E402
from decoda.compiler import bin_dir  # noqa: E402

_t = tensor_type

# (name, B, T, K, N, layout, bias, dtype)
LINEAR = [
    ("m1_n1_k3", 1, 1, 3, 1, "out_in", False, "f32"),
    ("m5_n17_k40", 1, 5, 40, 17, "out_in", False, "f32"),
    ("m7_n50_k1100", 1, 7, 1100, 50, "out_in", True, "f32"),
    ("m37_n95_k64", 1, 37, 64, 95, "out_in", False, "f32"),
    ("b3_m13_n33_k2100", 3, 13, 2100, 33, "out_in", True, "f32"),
    ("in_out_m11_n70_k1030", 2, 11, 1030, 70, "in_out", True, "f32"),
    ("bf16_m9_n40_k300", 1, 9, 300, 40, "out_in", True, "bf16"),
    # static rows <= 4: the dot-product (decode) form; dynamic T: the packed form
    ("m3_n19_k37", 1, 3, 37, 19, "out_in", False, "f32"),
    ("b2_m4_n33_k1030", 2, 4, 1030, 33, "out_in", True, "f32"),
    ("bf16_m2_n24_k70", 1, 2, 70, 24, "out_in", False, "bf16"),
    ("in_out_m1_n20_k48", 1, 1, 48, 20, "in_out", False, "f32"),
]


def _linear_fn(name, b, t, k, n, layout, bias, dtype, dynamic):
    wshape = (n, k) if layout == "out_in" else (k, n)
    seq = None if dynamic else t
    args = [("x", (b, seq, k), dtype), ("w", wshape, dtype)]
    if bias:
        args.append(("b", (n,), dtype))
    attrs = ' {weight_layout = #decoda.weight_layout<in_out>}' if layout == "in_out" else ""
    operands = "%x, %w" + (", %b" if bias else "")
    types = f"{_t((b, seq, k), dtype)}, {_t(wshape, dtype)}" + (
        f", {_t((n,), dtype)}" if bias else "")
    fname = f"linear_{name}" + ("_dyn" if dynamic else "")
    text = module(fname, args, [("y", (b, seq, n), dtype)], f"""
  %y = decoda.linear {operands}{attrs} : {types}
  return %y : {_t((b, seq, n), dtype)}""")
    return fname, text, [dtype] * len(args)


def _linear_module():
    texts, entries = [], {}
    for case in LINEAR:
        for dynamic in (False, True):
            fname, text, dts = _linear_fn(*case, dynamic)
            texts.append(text)
            entries[fname] = dts
    return "\n".join(texts), entries


def test_contractions_are_tiled():
    """The contraction generics of these projections really go through the tiled path."""
    text, _ = _linear_module()
    proc = subprocess.run(
        [str(bin_dir() / "decoda-opt"), "--decoda-graph-opt", "--decoda-lower-to-cpu",
         "--mlir-print-ir-after=decoda-cpu-contraction-codegen", "-o", os.devnull],
        input=text, capture_output=True, text=True)
    testing.check(proc.returncode == 0, f"decoda-opt failed:\n{proc.stderr[-2000:]}")
    ir = proc.stderr
    testing.check("vector.fma" in ir and "memref<1024x32xf32>" in ir,
                  "expected packed panels and vector FMAs after decoda-cpu-contraction-codegen")
    testing.check("vector.reduction <add>" in ir,
                  "expected the dot-product form for the static few-row projections")
    leftover = [line for line in ir.splitlines()
                if "linalg.generic" in line and '"reduction"]' in line and line.count("memref<") >= 3]
    testing.check(not leftover, f"contractions left for the scalar loops: {leftover[:2]}")


def test_linear():
    text, entries = _linear_module()
    mod = CompiledModule(text, name="codegen_linear")
    for i, (name, b, t, k, n, layout, bias, dtype) in enumerate(LINEAR):
        gen = testing.rng(10 + i)
        wshape = (n, k) if layout == "out_in" else (k, n)
        x = testing.randn(gen, (b, t, k), dtype)
        w = testing.randn(gen, wshape, dtype, scale=1.0 / np.sqrt(k))
        args = [x, w] + ([testing.randn(gen, (n,), dtype, scale=0.1)] if bias else [])
        ref = R.linear(*args, weight_layout=layout, storage=dtype)
        for dynamic in (False, True):
            fname = f"linear_{name}" + ("_dyn" if dynamic else "")
            (y,) = mod.entry(fname, entries[fname], [dtype])(*args)
            check("linear", y, ref, dtype, what=f" {fname}")


def _dense(a):
    return 'dense<"0x' + np.ascontiguousarray(a, np.float32).tobytes().hex().upper() + '">'


def test_constant_weights_packed_at_compile_time():
    """arith.constant weights (out_in [35, 70] and in_out [70, 35]; N not a multiple of 32) are
    packed into panels at compile time and read from there with dynamic T in {1, 8, 13}; with
    a static T = 3 the dot-product form reads the original constant."""
    n, k = 35, 70
    gen = testing.rng(60)
    w = testing.randn(gen, (n, k), "f32", scale=1.0 / np.sqrt(k))
    for layout, wt in (("out_in", w), ("in_out", w.T)):
        attrs = ' {weight_layout = #decoda.weight_layout<in_out>}' if layout == "in_out" else ""
        texts = []
        for fname, seq in (("dyn", None), ("static3", 3)):
            texts.append(module(fname, [("x", (1, seq, k), "f32")], [("y", (1, seq, n), "f32")], f"""
  %w = arith.constant {_dense(wt)} : {_t(wt.shape, "f32")}
  %y = decoda.linear %x, %w{attrs} : {_t((1, seq, k), "f32")}, {_t(wt.shape, "f32")}
  return %y : {_t((1, seq, n), "f32")}"""))
        text = "\n".join(texts)
        proc = subprocess.run(
            [str(bin_dir() / "decoda-opt"), "--decoda-graph-opt", "--decoda-lower-to-cpu",
             "--mlir-print-ir-after=decoda-cpu-contraction-codegen", "-o", os.devnull],
            input=text, capture_output=True, text=True)
        testing.check(proc.returncode == 0 and "_packed32 : memref<2x70x32xf32>" in proc.stderr,
                      f"{layout}: expected a compile-time packed weight global")
        mod = CompiledModule(text, name=f"codegen_const_{layout}")
        for t in (1, 8, 13):
            x = testing.randn(gen, (1, t, k), "f32")
            (y,) = mod.entry("dyn", ["f32"], ["f32"])(x)
            check("linear", y, R.linear(x, w), "f32", what=f" constant {layout} T={t}")
        x = testing.randn(gen, (1, 3, k), "f32")
        (y,) = mod.entry("static3", ["f32"], ["f32"])(x)
        check("linear", y, R.linear(x, w), "f32", what=f" constant {layout} static T=3")


def test_per_head_linear():
    """[T, H, K] x [H, N, K]: the head indexes the weight; rows are T (13), N = 20, K = 24."""
    b, t, h, k, n = 2, 13, 3, 24, 20
    text = module("f", [("x", (b, t, h, k), "f32"), ("w", (h, n, k), "f32"), ("bias", (h, n), "f32")],
                  [("y", (b, t, h, n), "f32")], f"""
  %y = decoda.linear %x, %w, %bias : {_t((b, t, h, k), "f32")}, {_t((h, n, k), "f32")}, {_t((h, n), "f32")}
  return %y : {_t((b, t, h, n), "f32")}""")
    gen = testing.rng(30)
    x = testing.randn(gen, (b, t, h, k), "f32")
    w = testing.randn(gen, (h, n, k), "f32")
    bias = testing.randn(gen, (h, n), "f32")
    (y,) = CompiledModule(text, name="codegen_per_head").entry("f", ["f32"] * 3, ["f32"])(x, w, bias)
    check("linear", y, R.linear(x, w, bias), "f32", what=" per-head")


def test_gated_mlp():
    """SwiGLU MLP, D = 40, F = 70, dynamic T in {1, 5, 19}: three tiled contractions with the
    GLU between them."""
    d, f = 40, 70
    for dtype in ("f32", "bf16"):
        text = module("f", [("x", (1, None, d), dtype), ("g", (f, d), dtype), ("u", (f, d), dtype),
                            ("dn", (d, f), dtype)], [("y", (1, None, d), dtype)], f"""
  %y = decoda.gated_mlp %x, %g, %u, %dn {{kind = #decoda.glu<swiglu>}}
      : {_t((1, None, d), dtype)}, {_t((f, d), dtype)}, {_t((f, d), dtype)}, {_t((d, f), dtype)}
  return %y : {_t((1, None, d), dtype)}""")
        fn = CompiledModule(text, name=f"codegen_mlp_{dtype}").entry("f", [dtype] * 4, [dtype])
        for t in (1, 5, 19):
            gen = testing.rng(40 + t)
            x = testing.randn(gen, (1, t, d), dtype)
            g = testing.randn(gen, (f, d), dtype, scale=1.0 / np.sqrt(d))
            u = testing.randn(gen, (f, d), dtype, scale=1.0 / np.sqrt(d))
            dn = testing.randn(gen, (d, f), dtype, scale=1.0 / np.sqrt(f))
            (y,) = fn(x, g, u, dn)
            ref = R.gated_mlp(x, g, u, dn, "swiglu", storage=dtype)
            check("gated_mlp", y, ref, dtype, what=f" {dtype} T={t}")


def test_attention_scores_and_values():
    """GQA attention with T = 37 queries and keys (key tiles of 16: a partial last tile), head
    dim 24 and value dim 40 (panels of 32 with masked tails)."""
    b, t, hq, hkv, dk, dv = 2, 37, 6, 2, 24, 40
    q_t, k_t, v_t = _t((b, t, hq, dk), "f32"), _t((b, t, hkv, dk), "f32"), _t((b, t, hkv, dv), "f32")
    text = module("f", [("q", (b, t, hq, dk), "f32"), ("k", (b, t, hkv, dk), "f32"),
                        ("v", (b, t, hkv, dv), "f32")], [("o", (b, t, hq, dv), "f32")], f"""
  %o = decoda.attention %q, %k, %v {{num_heads = {hq} : i64, num_kv_heads = {hkv} : i64, causal}}
      : {q_t}, {k_t}, {v_t}
  return %o : {_t((b, t, hq, dv), "f32")}""")
    gen = testing.rng(50)
    q = testing.randn(gen, (b, t, hq, dk), "f32")
    k = testing.randn(gen, (b, t, hkv, dk), "f32")
    v = testing.randn(gen, (b, t, hkv, dv), "f32")
    (o,) = CompiledModule(text, ["--attention-key-tile=16"], "codegen_attention").entry(
        "f", ["f32"] * 3, ["f32"])(q, k, v)
    check("attention", o, R.attention(q, k, v, num_heads=hq, num_kv_heads=hkv, causal=True),
          "f32", what=" gqa T=37")


if __name__ == "__main__":
    testing.run_tests(globals())
