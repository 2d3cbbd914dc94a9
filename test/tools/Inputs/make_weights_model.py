"""Writes DIR/a.mlir and DIR/b.mlir (a projection with a constant 64x32 f32 weight, seeds 0 and
1), DIR/x.npy and DIR/ref.npy (x @ w_a.T, NumPy) for decoda-compile-weights-file.mlir."""
import sys

import numpy as np

out = sys.argv[1]
for name, seed in (("a", 0), ("b", 1)):
    w = np.random.default_rng(seed).standard_normal((64, 32)).astype(np.float32)
    with open(f"{out}/{name}.mlir", "w") as f:
        f.write(f'''func.func @proj(%x: tensor<1x?x32xf32> {{decoda.name = "x"}}) -> (tensor<1x?x64xf32> {{decoda.name = "y"}}) {{
  %w = arith.constant dense<"0x{w.tobytes().hex().upper()}"> : tensor<64x32xf32>
  %y = decoda.linear %x, %w : tensor<1x?x32xf32>, tensor<64x32xf32>
  return %y : tensor<1x?x64xf32>
}}
''')
    if name == "a":
        x = np.random.default_rng(7).standard_normal((1, 5, 32)).astype(np.float32)
        np.save(f"{out}/x.npy", x)
        np.save(f"{out}/ref.npy", x @ w.T)
