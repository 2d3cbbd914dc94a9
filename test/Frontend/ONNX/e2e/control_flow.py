# RUN: %PYTHON %s
"""Loop and If resolved at import (unrolled / branch chosen), against ONNX Runtime: a loop with a
constant trip count and scan outputs, one whose trip count comes from a shape and whose body uses
the iteration number, and an If on a condition that folds from shapes."""

import os
import sys

import numpy as np
import onnx
import onnx.parser

sys.path.insert(0, os.path.dirname(__file__))
from harness import M, Runner  # noqa: E402

MODELS = {
    "loop_scan_and_if": """
<ir_version: 8, opset_import: ["" : 17]>
g (float[t, 4] x) => (float[t, 4] y, float[3, t, 4] s, float[t, 4] z)
{
  m = Constant<value = int64 {3}>()
  c = Constant<value = bool {1}>()
  y, s = Loop(m, c, x) <body = lb (int64 i, bool cin, float[t, 4] xin) => (bool cout, float[t, 4] xout, float[t, 4] sc) {
      cout = Identity(cin)
      two = Constant<value = float {2.0}>()
      xout = Mul(xin, two)
      sc = Identity(xout)
  }>
  sh = Shape(x)
  one = Constant<value = int64[1] {1}>()
  d1 = Gather<axis = 0>(sh, one)
  four = Constant<value = int64[1] {4}>()
  isfour = Equal(d1, four)
  z = If(isfour) <then_branch = tb () => (float[t, 4] r) { r = Neg(x) }, else_branch = eb () => (float[t, 4] r) { r = Identity(x) }>
}
""",
    "loop_shape_trip_count": """
<ir_version: 8, opset_import: ["" : 17]>
g (float[t, 6] x) => (float[t, 6] y)
{
  sh = Shape(x)
  one = Constant<value = int64 {1}>()
  n = Gather<axis = 0>(sh, one)
  c = Constant<value = bool {1}>()
  y = Loop(n, c, x) <body = lb (int64 i, bool cin, float[t, 6] xin) => (bool cout, float[t, 6] xout) {
      cout = Identity(cin)
      fi = Cast<to = 1>(i)
      h = Tanh(xin)
      xout = Add(h, fi)
  }>
}
""",
}


def main():
    runner = Runner("control flow")
    rng = np.random.default_rng(0)
    for name, text in MODELS.items():
        model = onnx.parser.parse_model(text)
        path = M.save(model, runner.work / f"{name}.onnx")
        feeds = [{"x": rng.standard_normal((t, 4 if name == "loop_scan_and_if" else 6))
                  .astype(np.float32)} for t in (1, 5)]
        runner.run_model(name, path, feeds, 1e-5, 1e-6, M.input_names(model),
                         M.output_names(model))
    runner.finish()


main()
