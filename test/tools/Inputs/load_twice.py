"""Loads one model file twice (dlopen returns the same object both times), frees the first
model and runs the second: the weights mapping and, for CUDA models, the device copies belong to
the object and must outlive the first model.
    load_twice.py MODEL.so ENTRY X.npy REF.npy"""
import sys

import numpy as np

from decoda import runtime as rt

path, entry, x, ref = sys.argv[1], sys.argv[2], np.load(sys.argv[3]), np.load(sys.argv[4])
first = rt.load(path)
second = rt.load(path)
y1 = first.run(entry, x)
first.close()
y2 = second.run(entry, x)
third = rt.load(path)  # loaded again while the second is alive
second.close()
y3 = third.run(entry, x)
third.close()
for name, y in (("first", y1), ("second, after the first was freed", y2),
                ("third, after the second was freed", y3)):
    err = float(np.max(np.abs(y.astype(np.float64) - ref)))
    print(f"{name}: max abs error {err:.2e}", "PASS" if err <= 1e-5 else "FAIL")
