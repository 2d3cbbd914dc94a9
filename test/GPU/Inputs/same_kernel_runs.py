"""Compares two exec logs of fake_cuda.c ($FAKE_CUDA_EXEC_LOG): the same kernels in the same
order with the same grid, block and shared memory, and each with the same argument values
(compared as a multiset: builds whose kernels take their parameters in another order, such as
a GEMV kernel whose weight prefetch comes first, still match).

  same_kernel_runs.py A.exec B.exec   -> "same kernel runs: yes" (exit 0) or the first difference

The fake driver takes every parameter as 8 bytes (it tells the runtime so), so a narrower one
(`.param .u8`) would be logged with the host's stack bytes above it, which differ from run to
run: an integer of 2^32 or more that is no device address is compared in its low byte. (The
CUDA pipeline's kernels take none since decoda-gpu-outline-kernels passes i1 flags as i64: the
stack bytes above one could also look like a device address.)
"""
import sys


def value(p):
    if p.isdigit() and int(p) >= 1 << 32:
        return f"{int(p) & 0xFF} (low byte)"
    return p


def runs(path):
    out = []
    for line in open(path):
        head, _, params = line.rstrip("\n").partition(" params")
        out.append((head, sorted(value(p) for p in params.split())))
    return out


a, b = runs(sys.argv[1]), runs(sys.argv[2])
if len(a) != len(b):
    sys.exit(f"{len(a)} kernel runs vs {len(b)}")
for i, (x, y) in enumerate(zip(a, b)):
    if x != y:
        sys.exit(f"run {i}: {x[0]} {x[1]} vs {y[0]} {y[1]}")
print(f"same kernel runs: yes ({len(a)})")
