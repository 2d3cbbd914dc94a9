"""Inputs and reference.py outputs for Inputs/merge_cases.mlir (merge-parallel-loops.mlir).

  merge_data.py rope_qk T IN.npz OUT.npz     q [1, T, 4, 16], k [1, T, 2, 16] in f32; outputs
                                             rope(q), rope(k) (theta 1e4, positions 0 .. T-1)
"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "python"))
from decoda import reference as R  # noqa: E402

name, t, inp, outp = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
if name != "rope_qk":
    raise SystemExit(f"unknown case {name}")
rng = np.random.default_rng(11)
q = rng.standard_normal((1, t, 4, 16)).astype(np.float32)
k = rng.standard_normal((1, t, 2, 16)).astype(np.float32)
np.savez(inp, arg0=q, arg1=k)
np.savez(outp, out0=R.rope(q, theta=1.0e4).astype(np.float32), out1=R.rope(k, theta=1.0e4).astype(np.float32))
