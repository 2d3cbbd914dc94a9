#!/usr/bin/env python3
"""Decode-step time of the attention step and of the whole Llama-3.2-1B-shaped block (bench/cpu_block.py's `decode_module`:
hidden 2048, 32 query heads over 8 KV heads of 64, SwiGLU 8192, fp32, weights as arguments) with
the KV cache copied versus donated (docs/ABI.md, "Donated inputs"), at cache capacities 512 and
2048, all in one run:

- `copied (v1)`: compiled with --donate-caches=false, the ABI-1 behaviour: the model appends into
  a fresh copy of each cache, the runtime copies each output into its own buffer and the Python
  binding copies it into a NumPy array;
- `runtime copy`: donating model, caller not donating: the runtime copies each cache once into the
  buffer the model then updates and returns (the Python binding still copies it out);
- `donated`: `run(..., donate=True)`: the caller's arrays are updated in place, no copy at all.

Usage: /usr/bin/python3 bench/decode_donation.py [--runs N] [--context C]...
Never a timed test in CI.
"""

import argparse
import os
import sys
import tempfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "python"))
sys.path.insert(0, str(ROOT / "bench"))
os.environ.setdefault("DECODA_RUNTIME_LIB", str(ROOT / "build" / "lib" / "libdecoda_runtime.so"))

from decoda import runtime  # noqa: E402
from decoda.compiler import compile_mlir  # noqa: E402
import cpu_block as cb  # noqa: E402


def attention_module(C):
    """The block's attention step alone: one query token, 32 heads over 8 KV heads of 64."""
    t = cb.t
    cache = t((1, C, cb.KVH, cb.HD))
    return f"""func.func @decode(%q: {t((1, 1, cb.H, cb.HD))}, %k: {t((1, 1, cb.KVH, cb.HD))},
    %v: {t((1, 1, cb.KVH, cb.HD))}, %kc: {cache}, %vc: {cache}, %pos: tensor<i64>)
    -> ({t((1, 1, cb.H, cb.HD))}, {cache}, {cache}) {{
  %p = tensor.extract %pos[] : tensor<i64>
  %off = arith.index_cast %p : i64 to index
  %o, %kc2, %vc2 = decoda.cached_attention %q, %k, %v, %kc, %vc[%off]
      {{num_heads = {cb.H} : i64, num_kv_heads = {cb.KVH} : i64, causal}}
      : {t((1, 1, cb.H, cb.HD))}, {t((1, 1, cb.KVH, cb.HD))}, {t((1, 1, cb.KVH, cb.HD))}, {cache}, {cache}
  return %o, %kc2, %vc2 : {t((1, 1, cb.H, cb.HD))}, {cache}, {cache}
}}
"""


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--runs", type=int, default=21)
    ap.add_argument("--context", type=int, action="append",
                    help="cache capacities (512, 2048, 8192)")
    ap.add_argument("--block-context", type=int, action="append",
                    help="cache capacities for the whole block (2048)")
    args = ap.parse_args()
    if os.environ.get("GLIBC_TUNABLES") != cb.MALLOC_TUNABLES:  # as bench/cpu_block.py
        os.execve(sys.executable, [sys.executable, *sys.argv],
                  dict(os.environ, GLIBC_TUNABLES=cb.MALLOC_TUNABLES))
    work = Path(tempfile.mkdtemp(prefix="decoda-donation-"))
    rng = np.random.default_rng(0)
    weights = [(rng.standard_normal(s, dtype=np.float32) * (0.02 if len(s) == 2 else 1.0)
                + (1.0 if len(s) == 1 else 0.0)).astype(np.float32) for _, s in cb.WEIGHTS]
    h = rng.standard_normal((1, 1, cb.D), dtype=np.float32)
    q = rng.standard_normal((1, 1, cb.H, cb.HD), dtype=np.float32)
    kv = rng.standard_normal((1, 1, cb.KVH, cb.HD), dtype=np.float32)
    print(f"GLIBC_TUNABLES={os.environ.get('GLIBC_TUNABLES', '(glibc defaults)')}; "
          f"OMP threads {os.environ.get('OMP_NUM_THREADS', 'default')}; medians of {args.runs}")
    cases = [("attention", C, attention_module(C), [q, kv, kv])
             for C in args.context or [512, 2048, 8192]]
    cases += [("block", C, cb.decode_module(C), [h, *weights])
              for C in args.block_context or [2048]]
    for what, C, text, ins in cases:
        copied = runtime.load(str(compile_mlir(text, f"copied{what}{C}",
                                               ["--donate-caches=false"], workdir=work)))
        donating = runtime.load(str(compile_mlir(text, f"donating{what}{C}", workdir=work)))
        kc = rng.standard_normal((1, C, cb.KVH, cb.HD), dtype=np.float32)
        vc = rng.standard_normal((1, C, cb.KVH, cb.HD), dtype=np.float32)
        pos = np.array(C - 1, dtype=np.int64)
        ref = copied.run("decode", *ins, kc, vc, pos)[0]
        kd, vd = kc.copy(), vc.copy()
        got = donating.run("decode", *ins, kd, vd, pos, donate=True)[0]
        assert np.array_equal(got, ref), "donated decode differs from the copied one"
        cache_mb = 2 * kc.nbytes / 1e6
        rows = [
            ("copied (v1)", lambda: copied.run("decode", *ins, kc, vc, pos)),
            ("runtime copy", lambda: donating.run("decode", *ins, kc, vc, pos)),
            ("donated", lambda: donating.run("decode", *ins, kd, vd, pos, donate=True)),
        ]
        base = None
        for name, fn in rows:
            med, best = cb.timeit(fn, args.runs)
            base = base or med
            print(f"{what:<9} context {C:5d} ({cache_mb:5.1f} MB of cache)  {name:<13} {med * 1e3:8.3f} ms "
                  f"[min {best * 1e3:8.3f}]  {med / base:5.2f}x", flush=True)


if __name__ == "__main__":
    main()
