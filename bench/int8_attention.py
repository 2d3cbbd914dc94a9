#!/usr/bin/python3
"""CPU benchmark of INT8 attention (decoda.attention quantize(q_scale, k_scale, v_scale)) against
the fp32 flash attention, attention alone, Llama-3.2-1B shapes: 32 query heads over 8 KV heads
of 64, causal, batch 1, prefill at T = 512 and 2048 (and a decode step of
decoda.cached_attention at a context of --context, fp32 against quantize(...)). Not a test; see
bench/README.md.

Both forms are compiled by decoda-compile from one module each (static shapes) and timed through
the Python runtime binding in the same run, alternating fp32 and INT8 rounds. The INT8 output is
checked against python/decoda/reference.py (the same scales) at every T before timing.

Usage: /usr/bin/python3 bench/int8_attention.py [--runs N] [--seq T]... [--context C]
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))
sys.path.insert(0, str(ROOT / "python"))
os.environ.setdefault("DECODA_RUNTIME_LIB", str(ROOT / "build" / "lib" / "libdecoda_runtime.so"))

from cpu_block import H, HD, KVH, MALLOC_TUNABLES, compile_timed, t, timeit  # noqa: E402
from decoda import reference as R  # noqa: E402

QUANT = " quantize(%qs, %ks, %vs : tensor<f32>, tensor<f32>, tensor<f32>)"
SCALES = "%qs: tensor<f32>, %ks: tensor<f32>, %vs: tensor<f32>"


def prefill_module(T, int8):
    q, kv = t((1, T, H, HD)), t((1, T, KVH, HD))
    extra = ", " + SCALES if int8 else ""
    return f"""func.func @attn(%q: {q}, %k: {kv}, %v: {kv}{extra}) -> {q} {{
  %o = decoda.attention %q, %k, %v{QUANT if int8 else ""} {{num_heads = {H} : i64, num_kv_heads = {KVH} : i64, causal}}
      : {q}, {kv}, {kv}
  return %o : {q}
}}
"""


def decode_module(C, int8):
    q, kv, cache = t((1, 1, H, HD)), t((1, 1, KVH, HD)), t((1, C, KVH, HD))
    extra = ", " + SCALES if int8 else ""
    return f"""func.func @step(%q: {q}, %k: {kv}, %v: {kv}, %kc: {cache}, %vc: {cache}, %pos: tensor<i64>{extra}) -> {q} {{
  %p = tensor.extract %pos[] : tensor<i64>
  %off = arith.index_cast %p : i64 to index
  %o, %kc2, %vc2 = decoda.cached_attention %q, %k, %v, %kc, %vc[%off]{QUANT if int8 else ""}
      {{num_heads = {H} : i64, num_kv_heads = {KVH} : i64, causal}}
      : {q}, {kv}, {kv}, {cache}, {cache}
  return %o : {q}
}}
"""


def scales(q, k, v):
    return [np.array(np.abs(x).max() / 127, dtype=np.float32) for x in (q, k, v)]


def check_int8(o, q, k, v, s, **kw):
    # The reference materialises [B, H, Tq, Tk]: check a few heads of one KV group at a time.
    ref = R.attention(q, k, v, num_heads=H, num_kv_heads=KVH, causal=True,
                      q_scale=s[0], k_scale=s[1], v_scale=s[2], **kw)
    err = float(np.max(np.abs(o - ref)))
    return err, 2 * float(np.abs(v).max()) / 255


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--runs", type=int, default=9)
    ap.add_argument("--seq", type=int, action="append")
    ap.add_argument("--context", type=int, default=0, help="also a decode step at this context")
    args = ap.parse_args()
    if os.environ.get("GLIBC_TUNABLES") != MALLOC_TUNABLES:
        env = dict(os.environ, GLIBC_TUNABLES=MALLOC_TUNABLES)
        os.execve(sys.executable, [sys.executable, *sys.argv], env)
    work = Path(tempfile.mkdtemp(prefix="decoda-int8-attn-bench-"))
    rng = np.random.default_rng(0)
    load0 = os.getloadavg()
    print(f"machine: {os.cpu_count()} cores, OMP_NUM_THREADS={os.environ.get('OMP_NUM_THREADS', 'all')}, "
          f"load average {load0[0]:.2f} {load0[1]:.2f} {load0[2]:.2f} at start", flush=True)
    rows = []
    try:
        for T in args.seq or [512, 2048]:
            q = rng.standard_normal((1, T, H, HD), dtype=np.float32)
            k = rng.standard_normal((1, T, KVH, HD), dtype=np.float32)
            v = rng.standard_normal((1, T, KVH, HD), dtype=np.float32)
            s = scales(q, k, v)
            m32, _ = compile_timed(prefill_module(T, False), f"attn_f32_{T}", work)
            m8, ct = compile_timed(prefill_module(T, True), f"attn_i8_{T}", work)
            o8 = m8.run("attn", q, k, v, *s)
            err, bound = check_int8(o8, q, k, v, s)
            status = "ok" if err <= bound else "MISMATCH"
            a = timeit(lambda: m32.run("attn", q, k, v), args.runs)
            b = timeit(lambda: m8.run("attn", q, k, v, *s), args.runs)
            pairs = T * (T + 1) // 2
            ops = 4.0 * pairs * H * HD
            print(f"prefill T={T}: fp32 {a[0] * 1e3:.2f} ms [{a[1] * 1e3:.2f}]  "
                  f"INT8 {b[0] * 1e3:.2f} ms [{b[1] * 1e3:.2f}]  speed-up {a[0] / b[0]:.2f}x  "
                  f"(INT8 {ops / b[0] / 1e9:.1f} GOP/s on QK^T+PV; max err vs reference {err:.2e}, "
                  f"bound {bound:.2e}: {status}; compile {ct:.1f} s)", flush=True)
            rows.append((f"prefill T={T}", a, b))
        if args.context:
            C = args.context
            q = rng.standard_normal((1, 1, H, HD), dtype=np.float32)
            k = rng.standard_normal((1, 1, KVH, HD), dtype=np.float32)
            v = rng.standard_normal((1, 1, KVH, HD), dtype=np.float32)
            kc = rng.standard_normal((1, C, KVH, HD), dtype=np.float32)
            vc = rng.standard_normal((1, C, KVH, HD), dtype=np.float32)
            pos = np.array(C - 1, dtype=np.int64)
            s = scales(q, kc, vc)
            m32, _ = compile_timed(decode_module(C, False), f"step_f32_{C}", work)
            m8, _ = compile_timed(decode_module(C, True), f"step_i8_{C}", work)
            a = timeit(lambda: m32.run("step", q, k, v, kc, vc, pos), max(args.runs, 15))
            b = timeit(lambda: m8.run("step", q, k, v, kc, vc, pos, *s), max(args.runs, 15))
            print(f"decode context {C}: fp32 {a[0] * 1e3:.3f} ms [{a[1] * 1e3:.3f}]  INT8 "
                  f"{b[0] * 1e3:.3f} ms [{b[1] * 1e3:.3f}]  speed-up {a[0] / b[0]:.2f}x", flush=True)
            rows.append((f"decode context {C}", a, b))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    load1 = os.getloadavg()
    print(f"load average {load1[0]:.2f} {load1[1]:.2f} {load1[2]:.2f} at the end")
    print("\n| case | fp32 median [min] | INT8 median [min] | INT8 speed-up |\n|---|---|---|---|")
    for name, a, b in rows:
        print(f"| {name} | {a[0] * 1e3:.2f} ms [{a[1] * 1e3:.2f}] | {b[0] * 1e3:.2f} ms "
              f"[{b[1] * 1e3:.2f}] | {a[0] / b[0]:.2f}x |")


if __name__ == "__main__":
    main()
