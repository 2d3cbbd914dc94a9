"""The Python binding's kernel profiles (Model.profile, Model.last_profile) on profile.mlir's model
run on the fake driver (Inputs/fake_cuda.c: a launch takes one fake microsecond per block):
    profile_binding.py MODEL.so   with DECODA_CUDA_DRIVER pointing at fake_cuda.so"""
import sys

import numpy as np

from decoda import runtime as rt

m = rt.load(sys.argv[1])
r = np.random.default_rng(0)
x = r.standard_normal((1, 40, 256)).astype("f4")
g = r.standard_normal((256,)).astype("f4")
w = r.standard_normal((96, 256)).astype("f4")
print("unprofiled:", m.last_profile())
m.profile(True)
m(x, g, w)
prof = m.last_profile()
print("launches:", len(prof))
for name, ms in prof:
    print(f"  {name}: {ms:.4f} ms")
m.profile(False)
m(x, g, w)
print("after turning it off:", m.last_profile())
