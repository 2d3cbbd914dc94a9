"""For test/GPU/promote-accumulators.mlir.

  promote_data.py per_head IN.npz OUT.npz   inputs (arg0, arg1) and the NumPy reference (out0)
                                            of Inputs/promote_cases.mlir's @per_head
  promote_data.py loops KERNELS.ptx         global stores inside innermost loops (a backward
                                            branch to a label), per kernel with any, and in all
"""
import os
import re
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "python"))
from decoda import reference as R  # noqa: E402


def bits(a):
    return (np.asarray(a, np.float32).view(np.uint32) >> 16).astype(np.uint16)


def per_head(inp, outp):
    rng = np.random.default_rng(11)
    x = R.to_storage(rng.standard_normal((12, 1, 16, 64)), "bf16")
    w = R.to_storage(rng.standard_normal((16, 64, 128)) * 0.125, "bf16")
    # y[b, t, h, n] = sum_k x[b, t, h, k] w[h, k, n], in f64 from the bf16 values, rounded once.
    y = np.einsum("bthk,hkn->bthn", np.asarray(x, np.float64), np.asarray(w, np.float64))
    np.savez(inp, arg0=bits(x), arg1=bits(w))
    np.savez(outp, out0=bits(R.to_storage(y, "bf16")))


def loops(ptx):
    """Global stores in innermost loops (a backward branch to a label with no other loop's label
    between them): a reduction loop's, not those of a loop around it (rows a thread loops over,
    each stored once)."""
    total = 0
    for section in re.split(r"(?m)^// gpu\.binary @", open(ptx).read())[1:]:
        name, _, body = section.partition("\n")
        spans = []
        for m in re.finditer(r"bra(?:\.uni)?\s+(\$L__BB\d+_\d+);", body):
            at = body.find(m.group(1) + ":")
            if 0 <= at < m.start():
                spans.append((at, m.start()))
        stores = 0
        for at, end in spans:
            if any(at < a < end for a, _ in spans):
                continue  # not innermost
            stores += len(re.findall(r"\bst\.global", body[at:end]))
        if stores:
            print(f"{name.strip()}: {stores} global stores in loops")
        total += stores
    print(f"global stores in loops: {total}")


if __name__ == "__main__":
    if sys.argv[1] == "per_head":
        per_head(sys.argv[2], sys.argv[3])
    elif sys.argv[1] == "loops":
        loops(sys.argv[2])
    else:
        raise SystemExit(f"unknown mode {sys.argv[1]}")
