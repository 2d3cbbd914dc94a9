# RUN: %PYTHON %s
"""decoda-absorb-mla does not change results beyond f32 rounding order.

- examples/mla_block.mlir runs through blocks.py's test with the program transformed by
  `decoda-absorb-mla` (MQA attention over [c ; k_rope], per-head W_UK and W_UV); each call also
  runs the program as written (the decoda.mla lowering), the two must agree to 1e-5 of the
  output's magnitude, and the absorbed one is checked against the NumPy reference.
- A lone decoda.mla in f32 and bf16 (DeepSeek-V2 ratios, scaled down) against reference.mla and
  reference.mla_absorbed.
- Constant W_UV and W_O folded into one constant output projection (cost model and `always`),
  against the unabsorbed program and the reference.
- The KV-cache figures the `report` option prints for mla_block.
"""

import math
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(__file__))
import blocks  # noqa: E402
from fuse_projections import DIFFS, compiled_as, decoda_opt, transformed_module  # noqa: E402
from harness import Compiled, R, check, module, np, tensor_type, testing  # noqa: E402
from decoda.compiler import bin_dir  # noqa: E402

_t = tensor_type


def _absorbed(name, text):
    testing.check("decoda.mla" not in text and text.count("num_kv_heads = 1 : i64") >= 1,
                  f"{name}: decoda.mla was not absorbed into an MQA attention")


def test_mla_block():
    with compiled_as(transformed_module(["--decoda-absorb-mla"], _absorbed, exact=False)):
        blocks.test_mla_block()


def _mla_module(name, b, tq, tk, h, dn, dr, dc, dv, dtype, causal=True, scale=None):
    shapes = [(b, tq, h, dn), (b, tq, h, dr), (b, tk, dc), (b, tk, dr), (h, dn, dc), (h, dv, dc)]
    names = ["q_nope", "q_rope", "latent", "k_rope", "w_uk", "w_uv"]
    attrs = [f"num_heads = {h} : i64"] + (["causal"] if causal else []) + (
        [f"scale = {scale!r} : f64"] if scale else [])
    text = module(name, [(n, s, dtype) for n, s in zip(names, shapes)],
                  [("o", (b, tq, h, dv), dtype)], f"""
  %o = decoda.mla %q_nope, %q_rope, %latent, %k_rope, %w_uk, %w_uv {{{", ".join(attrs)}}}
      : {", ".join(_t(s, dtype) for s in shapes)}
  return %o : {_t((b, tq, h, dv), dtype)}""")
    return text, shapes


def test_lone_mla_f32_bf16():
    """H = 8, Dn = 32, Dr = 16, Dc = 64 (= 2·Dn, as DeepSeek-V2's 4·d_h with two heads' worth),
    Dv = 32: prefill (Tq = Tk = 37, causal) and decode (Tq = 1 over 50 keys, explicit scale)."""
    for dtype in ("f32", "bf16"):
        for tq, tk, causal, scale in ((37, 37, True, None), (1, 50, False, 0.07)):
            text, shapes = _mla_module("mla", 2, tq, tk, 8, 32, 16, 64, 32, dtype, causal, scale)
            absorbed = decoda_opt(text, ["--decoda-absorb-mla"])
            _absorbed("mla", absorbed)
            plain = Compiled(text, "mla", [dtype] * 6, [dtype], flags=["--no-graph-opt"])
            fused = Compiled(absorbed, "mla", [dtype] * 6, [dtype], flags=["--no-graph-opt"])
            gen = testing.rng(40 + tq)
            args = [testing.randn(gen, s, dtype, scale=(1.0 / math.sqrt(s[1]) if i >= 4 else 1.0))
                    for i, s in enumerate(shapes)]
            (y,) = fused(*args)
            (z,) = plain(*args)
            kw = dict(num_heads=8, causal=causal, scale=scale, storage=dtype)
            what = f" {dtype} Tq={tq} Tk={tk}"
            check("mla absorbed", y, R.mla(*args, **kw), dtype, what=what)
            check("mla absorbed", y, R.mla_absorbed(*args, **kw), dtype, what=what + " (absorbed ref)")
            check("mla absorbed vs as written", y, z, dtype, what=what)
            key = ("lone mla", dtype)
            DIFFS[key] = max(DIFFS.get(key, 0.0), float(np.max(np.abs(
                np.asarray(y, np.float64) - np.asarray(z, np.float64)))))


def _dense(a):
    return 'dense<"0x' + np.ascontiguousarray(a, np.float32).tobytes().hex().upper() + '">'


def _attention_block(policy, h, dn, dr, dc, dv, d, layout):
    """mla → collapse → output projection with constant W_UV and W_O; q/latent as arguments."""
    b, tq, tk = 1, 11, 11
    gen = testing.rng(77)
    wuv = testing.randn(gen, (h, dv, dc), scale=1.0 / math.sqrt(dc))
    wo = testing.randn(gen, (d, h * dv), scale=1.0 / math.sqrt(h * dv))
    wo_stored = wo if layout == "out_in" else wo.T
    shapes = [(b, tq, h, dn), (b, tq, h, dr), (b, tk, dc), (b, tk, dr), (h, dn, dc)]
    names = ["q_nope", "q_rope", "latent", "k_rope", "w_uk"]
    lay = ' {weight_layout = #decoda.weight_layout<in_out>}' if layout == "in_out" else ""
    text = module("attn", [(n, s, "f32") for n, s in zip(names, shapes)], [("y", (b, tq, d), "f32")], f"""
  %w_uv = arith.constant {_dense(wuv)} : {_t(wuv.shape, "f32")}
  %w_o = arith.constant {_dense(wo_stored)} : {_t(wo_stored.shape, "f32")}
  %o = decoda.mla %q_nope, %q_rope, %latent, %k_rope, %w_uk, %w_uv {{num_heads = {h} : i64, causal}}
      : {", ".join(_t(s, "f32") for s in shapes)}, {_t(wuv.shape, "f32")}
  %o2 = tensor.collapse_shape %o [[0], [1], [2, 3]] : {_t((b, tq, h, dv), "f32")} into {_t((b, tq, h * dv), "f32")}
  %y = decoda.linear %o2, %w_o{lay} : {_t((b, tq, h * dv), "f32")}, {_t(wo_stored.shape, "f32")}
  return %y : {_t((b, tq, d), "f32")}""")
    absorbed = decoda_opt(text, [f"--decoda-absorb-mla=fold-output-projection={policy}"])
    folded_shape = (d, h * dc) if layout == "out_in" else (h * dc, d)
    testing.check(f"{_t(folded_shape, 'f32')}" in absorbed and "decoda.mla" not in absorbed,
                  f"{policy} {layout}: W_UV was not folded into a {folded_shape} output weight")
    plain = Compiled(text, "attn", ["f32"] * 5, ["f32"], flags=["--no-graph-opt"])
    fused = Compiled(absorbed, "attn", ["f32"] * 5, ["f32"], flags=["--no-graph-opt"])
    args = [testing.randn(gen, s, scale=(1.0 / math.sqrt(dn) if i == 4 else 1.0))
            for i, s in enumerate(shapes)]
    (y,) = fused(*args)
    (z,) = plain(*args)
    o = R.mla(*args, wuv, num_heads=h, causal=True)
    ref = R.linear(o.reshape(b, tq, h * dv), wo)
    what = f" {policy} {layout}"
    check("mla folded output projection", y, ref, "f32", what=what)
    check("mla folded vs as written", y, z, "f32", what=what)
    DIFFS[("folded W_UV·W_O", "f32")] = max(DIFFS.get(("folded W_UV·W_O", "f32"), 0.0), float(
        np.max(np.abs(np.asarray(y, np.float64) - np.asarray(z, np.float64)))))


def test_folded_output_projection():
    # Dc < Dv: D·H·Dc = 2048 <= H·Dv·Dc + D·H·Dv = 6144, so the cost model folds.
    for layout in ("out_in", "in_out"):
        _attention_block("cost", h=4, dn=16, dr=8, dc=16, dv=32, d=32, layout=layout)
    # mla_block's shapes (Dc = 32 > Dv = 16): only `always` folds.
    _attention_block("always", h=4, dn=16, dr=8, dc=32, dv=16, d=64, layout="out_in")


def test_kv_cache_report():
    text = blocks._example("mla_block.mlir")
    proc = subprocess.run([str(bin_dir() / "decoda-opt"), "--decoda-absorb-mla=report=true", "-",
                           "-o", os.devnull], input=text, capture_output=True, text=True)
    testing.check(proc.returncode == 0, proc.stderr)
    m = re.search(r"remark: (KV cache per token and layer: .*)", proc.stderr)
    testing.check(m is not None, f"no KV-cache remark:\n{proc.stderr}")
    testing.check("absorbed 40 numbers (160 bytes" in m.group(1) and
                  "decompressed 160 numbers (640 bytes" in m.group(1), m.group(1))
    print(f"  mla_block: {m.group(1)}")


if __name__ == "__main__":
    import atexit

    @atexit.register
    def _print_diffs():
        print("max |absorbed - as written|: " + ", ".join(
            f"{e} {dt} {d:.1e}" for (e, dt), d in sorted(DIFFS.items())))

    testing.run_tests(globals())
