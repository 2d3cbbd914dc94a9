"""Large inputs of bench/gpu_check.sh's numerical checks, made the same on any machine.

`prepare` draws a check's inputs here (the CPU reference is computed from them); what travels to
the GPU machine (64 MiB in all) should not hold the large ones (a decode step's 16 MiB of KV
caches). So arrays of more than LIMIT elements come from a portable generator instead of NumPy's
(whose streams may change between versions): SplitMix64 of each element's index and a seed made
from the array's name, shape and type, mapped to a uniform of variance one and scaled as the
signature's rule asks. `prepare` keeps such arrays out of the carried .npz and writes their
recipes next to it (KEY.big, JSON); `run` rebuilds them bit for bit.

  bigarrays.py strip FULL.npz SMALL.npz RECIPES.big   (prepare: after the CPU reference)
  bigarrays.py expand SMALL.npz RECIPES.big FULL.npz  (run: before the check)
"""
import json
import sys
import zlib

import numpy as np

LIMIT = 1 << 19  # elements (512 Ki: the 1 Mi-element weights of mla_step_decode travel as recipes too)

_MASK = (1 << 64) - 1


def seed_of(name, dtype, shape):
    return zlib.crc32(f"{name}:{dtype}:{'x'.join(map(str, shape))}".encode())


def _splitmix64(x):
    # x: uint64 array; wrapping arithmetic (NumPy integer arrays wrap without a warning).
    x = x + np.uint64(0x9E3779B97F4A7C15)
    x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return x ^ (x >> np.uint64(31))


def array(recipe):
    """The array of `recipe` ({dtype, shape, scale, seed}): uniform of variance 1 times scale,
    stored as the signature's type (bf16 as the upper half of the f32's bits, uint16)."""
    shape, scale, seed = recipe["shape"], recipe["scale"], recipe["seed"]
    n = int(np.prod(shape, dtype=np.int64))
    idx = np.arange(n, dtype=np.uint64) + np.uint64((seed * 0x9E3779B97F4A7C15) & _MASK)
    u = (_splitmix64(idx) >> np.uint64(11)).astype(np.float64) * 2.0 ** -53  # [0, 1)
    x = ((u * 2.0 - 1.0) * np.sqrt(3.0) * scale).astype("<f4").reshape(shape)
    dtype = recipe["dtype"]
    if dtype == "bf16":
        return (x.view("<u4") >> 16).astype("<u2")
    return x.astype({"f32": "<f4", "f16": "<f2", "f64": "<f8"}[dtype])


def recipe(name, dtype, shape, scale):
    return {"dtype": dtype, "shape": list(shape), "scale": scale,
            "seed": seed_of(name, dtype, shape)}


def main(argv):
    if len(argv) != 4 or argv[0] not in ("strip", "expand"):
        raise SystemExit(__doc__)
    if argv[0] == "strip":
        full, small, recipes = argv[1:]
        rec = json.load(open(recipes))
        with np.load(full) as a:
            for k in rec:  # a stripped array must be the recipe's, bit for bit
                if not np.array_equal(a[k], array(rec[k])):
                    raise SystemExit(f"bigarrays: {full}: {k} is not its recipe's array")
            np.savez(small, **{k: a[k] for k in a.files if k not in rec})
    else:
        small, recipes, full = argv[1:]
        rec = json.load(open(recipes))
        with np.load(small) as a:
            arrays = {k: a[k] for k in a.files}
        arrays.update({k: array(r) for k, r in rec.items()})
        np.savez(full, **arrays)


if __name__ == "__main__":
    main(sys.argv[1:])
