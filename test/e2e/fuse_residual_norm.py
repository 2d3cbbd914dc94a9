# RUN: %PYTHON %s
"""decoda-fuse-residual-norm does not change results: a two-block pre-norm chain, a post-norm
block and a multi-use sum compiled with the graph passes (fused) and with --no-graph-opt
(unfused) agree bit for bit, and both match the NumPy reference."""

import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(__file__))
from harness import Compiled, R, check, module, np, tensor_type, testing  # noqa: E402
from decoda.compiler import bin_dir  # noqa: E402

B, T, D = 2, 5, 32


def _body(dtype):
    ty, wt = tensor_type((B, None, D), dtype), tensor_type((D,), dtype)
    return ty, f"""
  %u = decoda.residual_add %h, %a : {ty}
  %n1 = decoda.rms_norm %u, %w1 {{eps = 1.0e-05 : f64}} : {ty}, {wt}
  %v = decoda.residual_add %u, %n1 {{scale = 0.5 : f64}} : {ty}
  %n2 = decoda.rms_norm %v, %w2 {{eps = 1.0e-05 : f64}} : {ty}, {wt}
  %p = decoda.residual_add %v, %a : {ty}
  %n3 = decoda.layer_norm %p, %w1, %w2 {{eps = 1.0e-05 : f64}} : {ty}, {wt}, {wt}
  return %v, %n2, %n3 : {ty}, {ty}, {ty}"""


def test_fusion_preserves_results():
    for dtype in ("f32", "bf16"):
        ty, body = _body(dtype)
        text = module("f", [("h", (B, None, D), dtype), ("a", (B, None, D), dtype),
                            ("w1", (D,), dtype), ("w2", (D,), dtype)],
                      [("v", (B, None, D), dtype), ("n2", (B, None, D), dtype),
                       ("n3", (B, None, D), dtype)], body)
        # The graph pipeline really fuses this program (3 adds feed norms).
        opt = subprocess.run([str(bin_dir() / "decoda-opt"), "--decoda-graph-opt", "-"],
                             input=text, capture_output=True, text=True, check=True).stdout
        testing.check(opt.count("decoda.add_rms_norm") == 2 and "decoda.add_layer_norm" in opt
                      and "decoda.rms_norm" not in opt, f"fusion did not happen:\n{opt}")
        gen = testing.rng(7)
        h = testing.randn(gen, (B, T, D), dtype)
        a = testing.randn(gen, (B, T, D), dtype)
        w1 = testing.randn(gen, (D,), dtype, mean=1.0, scale=0.1)
        w2 = testing.randn(gen, (D,), dtype, scale=0.1)
        fused = Compiled(text, "f", [dtype] * 4, [dtype] * 3)(h, a, w1, w2)
        plain = Compiled(text, "f", [dtype] * 4, [dtype] * 3, flags=["--no-graph-opt"])(h, a, w1, w2)
        for name, x, y in zip(("v", "n2", "n3"), fused, plain):
            testing.assert_equal(x, y, op="decoda-fuse-residual-norm", what=f" {dtype} {name}")
        u = R.residual_add(h, a, storage=dtype)
        n1 = R.rms_norm(u, w1, eps=1e-5, storage=dtype)
        v = R.residual_add(u, n1, scale=0.5, storage=dtype)
        n2 = R.rms_norm(v, w2, eps=1e-5, storage=dtype)
        p = R.residual_add(v, a, storage=dtype)
        n3 = R.layer_norm(p, w1, w2, eps=1e-5, storage=dtype)
        for name, x, ref in zip(("v", "n2", "n3"), fused, (v, n2, n3)):
            check("fused block", x, ref, dtype, what=f" {name}")


if __name__ == "__main__":
    testing.run_tests(globals())
