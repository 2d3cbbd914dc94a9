"""The device memory a call holds at most, on the fake driver (Inputs/fake_cuda.c, which counts
the bytes the program holds): a chain of projections whose temporaries die one after another
(call-peak-memory.mlir) holds only the temporaries live together, not all a call makes, with
the pool (kernels launched one by one) and with launch graphs (the temporaries placed in the
stream's arena, freed ranges reused; the arena is sized by the first call's peak).
    call_peak_memory.py MODEL.so TEMPORARY_BYTES LOG   with DECODA_CUDA_DRIVER at fake_cuda.so
prints how many allocations of that size a call makes (from the driver's log, LOG) and each
mode's peak in units of one temporary."""

import ctypes
import os
import sys

import numpy as np

from decoda import runtime as rt

model, each, log = sys.argv[1], int(sys.argv[2]), sys.argv[3]
fake = ctypes.CDLL(os.environ["DECODA_CUDA_DRIVER"])  # the runtime's handle: same library
fake.fake_cuda_memory.restype = ctypes.c_size_t


def peak_of_call(m, x):
    peak = ctypes.c_size_t()
    held = fake.fake_cuda_memory(ctypes.byref(peak))  # the mark starts at what is held now
    m.run("chain", x)
    fake.fake_cuda_memory(ctypes.byref(peak))
    return (peak.value - held) / each


m = rt.load(model)
x = np.ones((64, 256), np.float32)
m.run("chain", x)  # the weights' resident copies are uploaded by the first call
os.environ["FAKE_CUDA_LOG"] = log
m.run("chain", x)
del os.environ["FAKE_CUDA_LOG"]
count = sum(1 for line in open(log) if line.split() == ["alloc", str(each)])
print(f"allocations of {each} bytes a call makes: {count}")
print(f"pool: a call holds at most {peak_of_call(m, x):.2f} temporaries")
m.cuda_graphs(True)
first = peak_of_call(m, x)
later = [peak_of_call(m, x) for _ in range(2)]
print(f"graphs, first call: at most {first:.2f} temporaries (from the pool)")
print(f"graphs, later calls: at most {max(later):.2f} temporaries (the arena)")
