"""Loads one model file twice (dlopen returns the same object both times), frees the model
loaded last and runs the other: the weights mapping and, for CUDA models, the device copies belong to
the object and must outlive the first model.
    load_twice.py MODEL.so ENTRY X.npy REF.npy"""
import sys

import numpy as np

from decoda import runtime as rt

path, entry, x, ref = sys.argv[1], sys.argv[2], np.load(sys.argv[3]), np.load(sys.argv[4])
first = rt.load(path)
second = rt.load(path)  # the weight table now points into the mapping this load made
y1 = second.run(entry, x)
second.close()
y2 = first.run(entry, x)
third = rt.load(path)  # loaded again while the first is alive
first.close()
y3 = third.run(entry, x)
third.close()
for name, y in (("second", y1), ("first, after the second was freed", y2),
                ("third, after the first was freed", y3)):
    err = float(np.max(np.abs(y.astype(np.float64) - ref)))
    print(f"{name}: max abs error {err:.2e}", "PASS" if err <= 1e-5 else "FAIL")
