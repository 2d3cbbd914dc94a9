"""Inputs and NumPy outputs for Inputs/merge_cases.mlir (merge-parallel-loops.mlir).

  merge_data.py mul_exp T IN.npz OUT.npz     a [1, T, 4, 16], b [1, T, 2, 16] in f32; outputs
                                             a * a and exp(b), in f32
"""
import sys

import numpy as np

name, t, inp, outp = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
if name != "mul_exp":
    raise SystemExit(f"unknown case {name}")
rng = np.random.default_rng(11)
a = rng.standard_normal((1, t, 4, 16)).astype(np.float32)
b = rng.standard_normal((1, t, 2, 16)).astype(np.float32)
np.savez(inp, arg0=a, arg1=b)
np.savez(outp, out0=(a * a).astype(np.float32), out1=np.exp(b.astype(np.float64)).astype(np.float32))
