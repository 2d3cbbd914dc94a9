# RUN: %PYTHON %s
"""decoda-fuse-projections does not change results.

- Every example block with projections sharing an input (Q/K/V, gate/up, mHC's read/mix/write,
  MLA's two down-projections) runs through its test in blocks.py with the program transformed by
  `decoda-fuse-projections{weights=any}` (function-argument weights, tensor.concat): each call
  also runs the program as written and the two must agree bit for bit (f32 and bf16), and the
  transformed one is checked against blocks.py's NumPy reference.
- Blocks whose weights are constants go through the default graph pipeline (which fuses them,
  folding the concatenations at compile time) and are checked against the program compiled
  with --no-graph-opt (bit for bit) and against the reference.
- A hand-written W8A8 piece (Q/K/V and gate/up qlinears on one quantized input) the same way:
  two fused qlinears, bit for bit with --no-graph-opt, and against reference.qlinear.
"""

import contextlib
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(__file__))
import blocks  # noqa: E402  (the example blocks' tests and references, reused as they are)
from harness import CompiledModule, R, check, np, testing  # noqa: E402
from decoda.compiler import bin_dir  # noqa: E402


def decoda_opt(text, args):
    proc = subprocess.run([str(bin_dir() / "decoda-opt"), *args, "-"], input=text,
                          capture_output=True, text=True)
    testing.check(proc.returncode == 0, f"decoda-opt {' '.join(args)} failed:\n{proc.stderr}")
    return proc.stdout


#: Largest |transformed - as written| per (block, dtype) over every call: what the pass changed.
DIFFS = {}


def transformed_module(pass_args, expect, *, exact=True, rtol=1e-5):
    """A stand-in for harness.CompiledModule (as blocks.py calls it) that compiles the program as
    written and after `decoda-opt <pass_args>`, both with --no-graph-opt. `expect(text)` checks
    that the pass changed the program as it should. Each call runs both programs, requires them
    to agree (bit for bit when `exact`, else within `rtol` of max|output|), and returns the
    transformed program's outputs."""

    class Transformed:
        def __init__(self, text, flags=(), name="model"):
            after = decoda_opt(text, pass_args)
            expect(name, after)
            self.name = name
            self.before = CompiledModule(text, ["--no-graph-opt", *flags], name=name + "_before")
            self.after = CompiledModule(after, ["--no-graph-opt", *flags], name=name + "_after")

        def entry(self, entry, dtypes_in, dtypes_out):
            before = self.before.entry(entry, dtypes_in, dtypes_out)
            after = self.after.entry(entry, dtypes_in, dtypes_out)

            def call(*arrays):
                outs_before, outs_after = before(*arrays), after(*arrays)
                for dt, x, y in zip(dtypes_out, outs_after, outs_before):
                    x64, y64 = np.asarray(x, np.float64), np.asarray(y, np.float64)
                    diff = float(np.max(np.abs(x64 - y64))) if x64.size else 0.0
                    key = (entry, dt)
                    DIFFS[key] = max(DIFFS.get(key, 0.0), diff)
                    if exact:
                        testing.assert_equal(x, y, op=" ".join(pass_args), what=f" {entry}")
                    else:
                        scale = max(float(np.max(np.abs(y64))), 1e-30)
                        testing.check(diff <= rtol * scale,
                                      f"{entry}: transformed differs by {diff:.3g} "
                                      f"(> {rtol:g} of max|y| = {scale:.3g})")
                return outs_after

            return call

    return Transformed


@contextlib.contextmanager
def compiled_as(cls):
    """blocks.py's tests compile through `blocks.CompiledModule`; swap it for `cls`."""
    saved = blocks.CompiledModule
    blocks.CompiledModule = cls
    try:
        yield
    finally:
        blocks.CompiledModule = saved


def _count(text, op):
    return len(re.findall(rf"\b{re.escape(op)}\b", text))


# example test -> (decoda.linear ops left in the module after fusion, gated MLPs left)
EXAMPLES = {
    # q/k/v -> 1; gate/up -> 1 linear + the down linear; wo
    "test_llama_block": (4, 0),
    "test_llama_block_bf16": (2, 1),  # bf16 gated MLPs stay whole
    "test_post_norm_block": (2, 0),   # q/k/v (biases) -> 1, wo; the plain MLP is left alone
    "test_situ_glu_block": (4, 0),
    "test_gpt_oss_block_clamped_swiglu_window_sinks": (4, 0),
    "test_qk_norm_block": (4, 0),
    "test_document_masking_block": (4, 0),
    "test_mla_block": (5, 0),         # w_dq + w_dkv -> 1, w_uq, wo, gate/up + down
    "test_mhc_block": (5, 0),         # q/k/v in the layer region -> 1, wo, read/mix/write -> 1,
                                      # gate/up + down
    "test_moe_blocks_softmax_and_sigmoid": (4, 0),  # two functions: q/k/v -> 1, wo each
}


def test_example_blocks_argument_weights():
    for test, (linears, gated) in EXAMPLES.items():
        def expect(name, text, linears=linears, gated=gated):
            testing.check(_count(text, "decoda.linear") == linears and
                          _count(text, "decoda.gated_mlp") == gated and "tensor.concat" in text,
                          f"{name}: expected {linears} linears and {gated} gated MLPs after "
                          f"fusion, found {_count(text, 'decoda.linear')} and "
                          f"{_count(text, 'decoda.gated_mlp')}")
        with compiled_as(transformed_module(["--decoda-fuse-projections=weights=any"], expect)):
            getattr(blocks, test)()
        print(f"  {test}: fused == as written, bit for bit")


def _constants(text, fn, params):
    """`fn` of `text` with every argument except %h turned into an arith.constant of `params`."""
    start = text.index(f"func.func @{fn}(")
    open_body = text.index("{", text.index(") ->", start))
    header = text[start:open_body]
    h_type = re.search(r"%h: (tensor<[^>]+>)", header).group(1)
    result = header[header.index(") ->") + 2:]
    consts = "".join(
        f'  %{n} = arith.constant dense<"0x{np.ascontiguousarray(a, np.float32).tobytes().hex().upper()}">'
        f' : tensor<{"x".join(map(str, a.shape))}xf32>\n'
        for n, a in params.items() if n != "h")
    return f"func.func @{fn}(%h: {h_type}){result}{{\n{consts}" + text[open_body + 1:]


def _constant_block(example, fn, reference, special=None, folded_linears=4):
    text = blocks._example(example)
    params = blocks._inputs(text, fn, 1, testing.rng(2001), special=special)
    ctext = _constants(text, fn, params)
    opt = decoda_opt(ctext, ["--decoda-graph-opt"])
    testing.check(_count(opt, "decoda.linear") == folded_linears and
                  "decoda.gated_mlp" not in opt and "tensor.concat" not in opt,
                  f"{fn}: the graph pipeline did not fuse the constant projections:\n"
                  + "\n".join(line for line in opt.splitlines() if "dense<" not in line))
    fused = CompiledModule(ctext, name=fn + "_const").entry(fn, ["f32"], ["f32"])
    plain = CompiledModule(ctext, ["--no-graph-opt"], name=fn + "_const_plain").entry(
        fn, ["f32"], ["f32"])
    for t in (1, 9, 70):
        p = dict(params, h=blocks._inputs(text, fn, t, testing.rng(3000 + t))["h"])
        (y,) = fused(p["h"])
        (z,) = plain(p["h"])
        testing.assert_equal(y, z, op="decoda-fuse-projections", what=f" {fn} constants T={t}")
        DIFFS[(fn + " constants", "f32")] = 0.0
        check(fn + " constants", y, reference(p), "f32", what=f" T={t}")


def test_constant_weights_through_the_pipeline():
    _constant_block("qk_norm_block.mlir", "qk_norm_block",
                    lambda p: blocks._pre_norm_reference(p, "swiglu", theta=1e6, eps=1e-6,
                                                         qk_norm=1e-6))
    special = {"sinks": lambda s: testing.uniform(testing.rng(5), s, -1.0, 3.0)}
    glu = R.Glu("clamped_swiglu", limit=7.0)
    _constant_block("gpt_oss_block.mlir", "gpt_oss_block",
                    lambda p: blocks._pre_norm_reference(
                        p, glu, theta=1.5e5, eps=1e-5, attn_bias=True,
                        attn_kwargs={"window": 8, "sinks": p["sinks"]}), special=special)


def _i8(a):
    return f'dense<"0x{np.ascontiguousarray(a, np.int8).tobytes().hex().upper()}">'


def _f32(a):
    return f'dense<"0x{np.ascontiguousarray(a, np.float32).tobytes().hex().upper()}">'


def test_qlinear_groups_through_the_pipeline():
    """A hand-written W8A8 piece: x quantized once, Q/K/V qlinears (constant i8 weights,
    per-channel scales, biases) and gate/up qlinears into a SwiGLU. The graph pipeline fuses
    them into two qlinears; the results equal the program compiled with --no-graph-opt bit for
    bit and reference.qlinear / glu."""
    gen = testing.rng(4242)
    K, widths, F = 96, {"q": 64, "k": 32, "v": 40}, 48
    w = {n: gen.integers(-127, 128, size=(m, K), dtype=np.int8)
         for n, m in list(widths.items()) + [("g", F), ("u", F)]}
    ws = {n: gen.uniform(0.001, 0.01, size=(a.shape[0],)).astype(np.float32) for n, a in w.items()}
    b = {n: gen.standard_normal(widths[n]).astype(np.float32) for n in widths}
    xs = np.float32(0.03)
    consts = "".join(f"  %w{n} = arith.constant {_i8(a)} : tensor<{a.shape[0]}x{K}xi8>\n"
                     f"  %s{n} = arith.constant {_f32(ws[n])} : tensor<{a.shape[0]}xf32>\n"
                     for n, a in w.items())
    consts += "".join(f"  %b{n} = arith.constant {_f32(a)} : tensor<{a.shape[0]}xf32>\n"
                      for n, a in b.items())
    body = f"  %xs = arith.constant dense<{float(xs)!r}> : tensor<f32>\n" + consts
    body += "  %xq = decoda.quantize %x, %xs : tensor<1x?x96xf32>, tensor<f32>\n"
    for n, m in widths.items():
        body += (f"  %{n} = decoda.qlinear %xq, %w{n}, %xs, %s{n} bias(%b{n} : tensor<{m}xf32>) "
                 f": tensor<1x?x{K}xi8>, tensor<{m}x{K}xi8>, tensor<f32>, tensor<{m}xf32> -> "
                 f"tensor<1x?x{m}xf32>\n")
    for n in ("g", "u"):
        body += (f"  %{n} = decoda.qlinear %xq, %w{n}, %xs, %s{n} : tensor<1x?x{K}xi8>, "
                 f"tensor<{F}x{K}xi8>, tensor<f32>, tensor<{F}xf32> -> tensor<1x?x{F}xf32>\n")
    body += (f"  %h = decoda.glu %g, %u {{kind = #decoda.glu<swiglu>}} : tensor<1x?x{F}xf32>\n"
             f"  return %q, %k, %v, %h : tensor<1x?x64xf32>, tensor<1x?x32xf32>, "
             f"tensor<1x?x40xf32>, tensor<1x?x{F}xf32>\n")
    text = (f"func.func @w8a8(%x: tensor<1x?x{K}xf32>) -> (tensor<1x?x64xf32>, tensor<1x?x32xf32>, "
            f"tensor<1x?x40xf32>, tensor<1x?x{F}xf32>) {{\n" + body + "}\n")
    opt = decoda_opt(text, ["--decoda-graph-opt"])
    testing.check(_count(opt, "decoda.qlinear") == 2,
                  "the graph pipeline did not fuse Q/K/V and gate/up qlinears into two:\n" +
                  "\n".join(line for line in opt.splitlines() if "dense<" not in line))
    outs = ["f32"] * 4
    fused = CompiledModule(text, name="w8a8_fused").entry("w8a8", ["f32"], outs)
    plain = CompiledModule(text, ["--no-graph-opt"], name="w8a8_plain").entry("w8a8", ["f32"], outs)
    for t in (1, 5, 37):
        x = testing.randn(testing.rng(500 + t), (1, t, K), "f32")
        ys, zs = fused(x), plain(x)
        xq = R.quantize(x, xs)
        refs = [R.qlinear(xq, w[n], xs, ws[n], bias=b[n]) for n in widths]
        refs.append(R.glu(R.qlinear(xq, w["g"], xs, ws["g"]), R.qlinear(xq, w["u"], xs, ws["u"]),
                          "swiglu"))
        for name, y, z, r in zip(["q", "k", "v", "h"], ys, zs, refs):
            testing.assert_equal(y, z, op="decoda-fuse-projections", what=f" qlinear {name} T={t}")
            check("qlinear " + name, y, r, "f32", what=f" fused T={t}")
    DIFFS[("w8a8 qlinears", "f32")] = 0.0


if __name__ == "__main__":
    import atexit

    @atexit.register
    def _print_diffs():
        print("max |fused - as written|: " + ", ".join(
            f"{e} {dt} {d:.1e}" for (e, dt), d in sorted(DIFFS.items())))

    testing.run_tests(globals())
