"""How closely a kernel's INT8 attention output (gpusim_run.py --save) follows reference.py's INT8
attention, beyond gpusim_run's per-element bound (2 max|v| / 255: one rint(255 p) moved by a
count, exp differing in the last bit): the share of elements within 1e-5 max|ref| (plus one unit
in the last place of the storage type, 2^-10 |ref| for f16 and 2^-7 |ref| for bf16: a result
a few f32 ulps off may round the other way) of it must be at least FRAC (the integer sums are
exact, so almost all agree to rounding), and, for contrast,
the same share for the float attention of the same inputs is printed (the INT8 semantics, not the
float ones, is what the kernel computes).

  int8_close.py GOT.npz REF.npz FLOAT.npz [--frac 0.98] [--storage f32|f16|bf16]
"""
import argparse
import sys

import numpy as np


def load(path, bf16):
    a = np.load(path)["out0"]
    if bf16 and a.dtype == np.uint16:
        a = (a.astype(np.uint32) << 16).view(np.float32)
    return a.astype(np.float64)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("got")
    ap.add_argument("ref")
    ap.add_argument("float")
    ap.add_argument("--frac", type=float, default=0.98)
    ap.add_argument("--storage", choices=("f32", "f16", "bf16"), default="f32")
    args = ap.parse_args()
    got, ref, flt = (load(p, args.storage == "bf16") for p in (args.got, args.ref, args.float))
    ulp = {"f32": 0.0, "f16": 2.0 ** -10, "bf16": 2.0 ** -7}[args.storage]
    tol = 1e-5 * np.max(np.abs(ref)) + ulp * np.abs(ref)
    share = float(np.mean(np.abs(got - ref) <= tol))
    share_float = float(np.mean(np.abs(flt - ref) <= tol))
    print(f"int8 close: {share:.4f}; float attention: {share_float:.4f}")
    if share < args.frac:
        print(f"FAIL: only {share:.4f} of the elements close (need {args.frac})")
        sys.exit(1)


if __name__ == "__main__":
    main()
