# RUN: %PYTHON %s
"""rms_norm, layer_norm, add_rms_norm, add_layer_norm compiled for the CPU against NumPy, in
f32, f16 and bf16, with static and dynamic sequence lengths."""

import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
from harness import Compiled, R, check, module, np, testing  # noqa: E402

B, T, D = 2, 7, 48


def _inputs(gen, dtype):
    x = testing.randn(gen, (B, T, D), dtype, scale=3.0, mean=0.5)
    r = testing.randn(gen, (B, T, D), dtype)
    w = testing.randn(gen, (D,), dtype, mean=1.0, scale=0.2)
    b = testing.randn(gen, (D,), dtype, scale=0.1)
    return x, r, w, b


def test_rms_norm():
    for dtype in ("f32", "f16", "bf16"):
        for seq in (T, None):
            gen = testing.rng(1)
            x, _, w, _ = _inputs(gen, dtype)
            text = module("f", [("x", (B, seq, D), dtype), ("w", (D,), dtype)],
                          [("y", (B, seq, D), dtype)], f"""
  %y = decoda.rms_norm %x, %w {{eps = 1.0e-05 : f64, weight_offset = 0.5 : f64}}
      : {_t((B, seq, D), dtype)}, {_t((D,), dtype)}
  return %y : {_t((B, seq, D), dtype)}""")
            (y,) = Compiled(text, "f", [dtype] * 2, [dtype])(x, w)
            ref = R.rms_norm(x, w, eps=1e-5, weight_offset=0.5, storage=dtype)
            check("rms_norm", y, ref, dtype, what=f" {dtype} seq={seq}")


def test_layer_norm():
    for dtype in ("f32", "f16", "bf16"):
        for with_bias in (True, False):
            gen = testing.rng(2)
            x, _, w, b = _inputs(gen, dtype)
            bias_arg = [("b", (D,), dtype)] if with_bias else []
            bias_use = ", %b" if with_bias else ""
            bias_ty = f", {_t((D,), dtype)}" if with_bias else ""
            text = module("f", [("x", (B, None, D), dtype), ("w", (D,), dtype)] + bias_arg,
                          [("y", (B, None, D), dtype)], f"""
  %y = decoda.layer_norm %x, %w{bias_use} {{eps = 1.0e-05 : f64}}
      : {_t((B, None, D), dtype)}, {_t((D,), dtype)}{bias_ty}
  return %y : {_t((B, None, D), dtype)}""")
            args = (x, w, b) if with_bias else (x, w)
            (y,) = Compiled(text, "f", [dtype] * len(args), [dtype])(*args)
            ref = R.layer_norm(x, w, b if with_bias else None, eps=1e-5, storage=dtype)
            check("layer_norm", y, ref, dtype, what=f" {dtype} bias={with_bias}")


def test_fused_add_norms():
    for dtype in ("f32", "bf16"):
        gen = testing.rng(3)
        x, r, w, b = _inputs(gen, dtype)
        ty, wt = _t((B, T, D), dtype), _t((D,), dtype)
        text = module("f", [("h", (B, T, D), dtype), ("a", (B, T, D), dtype), ("w", (D,), dtype),
                            ("b", (D,), dtype)],
                      [("s1", (B, T, D), dtype), ("n1", (B, T, D), dtype),
                       ("s2", (B, T, D), dtype), ("n2", (B, T, D), dtype)], f"""
  %s1, %n1 = decoda.add_rms_norm %h, %a, %w {{eps = 1.0e-06 : f64, scale = 0.5 : f64}} : {ty}, {wt}
  %s2, %n2 = decoda.add_layer_norm %h, %a, %w, %b {{eps = 1.0e-05 : f64}} : {ty}, {wt}, {wt}
  return %s1, %n1, %s2, %n2 : {ty}, {ty}, {ty}, {ty}""")
        s1, n1, s2, n2 = Compiled(text, "f", [dtype] * 4, [dtype] * 4)(x, r, w, b)
        rs1, rn1 = R.add_rms_norm(x, r, w, eps=1e-6, scale=0.5, storage=dtype)
        rs2, rn2 = R.add_layer_norm(x, r, w, b, eps=1e-5, storage=dtype)
        check("add_rms_norm", s1, rs1, dtype, what=" sum")
        check("add_rms_norm", n1, rn1, dtype, what=" normalized")
        check("add_layer_norm", s2, rs2, dtype, what=" sum")
        check("add_layer_norm", n2, rn2, dtype, what=" normalized")


def _t(shape, dtype):
    from harness import tensor_type
    return tensor_type(shape, dtype)


if __name__ == "__main__":
    testing.run_tests(globals())
