"""Compares two exec logs of fake_cuda.c ($FAKE_CUDA_EXEC_LOG): the same kernels in the same
order with the same grid, block and shared memory, and each with the same argument values
(compared as a multiset: builds whose kernels take their parameters in another order, such as
a GEMV kernel whose weight prefetch comes first, still match).

  same_kernel_runs.py A.exec B.exec   -> "same kernel runs: yes" (exit 0) or the first difference
"""
import sys


def runs(path):
    out = []
    for line in open(path):
        head, _, params = line.rstrip("\n").partition(" params")
        out.append((head, sorted(params.split())))
    return out


a, b = runs(sys.argv[1]), runs(sys.argv[2])
if len(a) != len(b):
    sys.exit(f"{len(a)} kernel runs vs {len(b)}")
for i, (x, y) in enumerate(zip(a, b)):
    if x != y:
        sys.exit(f"run {i}: {x[0]} {x[1]} vs {y[0]} {y[1]}")
print(f"same kernel runs: yes ({len(a)})")
