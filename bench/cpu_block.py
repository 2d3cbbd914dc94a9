#!/usr/bin/python3
"""CPU benchmark of the optimised `decoda-lower-to-cpu` code: a Llama-3.2-1B-shaped decoder block
(hidden 2048, 32 query heads over 8 KV heads of 64, SwiGLU MLP 8192, fp32) and one projection
GEMM, against the machine's measured fp32 FMA peak and read bandwidth
(../shared/tools/roofline.c). Not a test; see bench/README.md.

Weights are function arguments (not constants): every call reads them from memory and packs
them into 32-wide panels on the fly, which is what a model with run-time weights pays.

Usage: /usr/bin/python3 bench/cpu_block.py [--runs N] [--only gemm|prefill|decode]...
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "python"))
os.environ.setdefault("DECODA_RUNTIME_LIB", str(ROOT / "build" / "lib" / "libdecoda_runtime.so"))

from decoda import runtime  # noqa: E402
from decoda.compiler import compile_mlir  # noqa: E402

D, H, KVH, HD, F = 2048, 32, 8, 64, 8192
KV = KVH * HD


def roofline(work: Path):
    src = ROOT.parent / "shared" / "tools" / "roofline.c"
    exe = work / "roofline"
    subprocess.run(["gcc", "-O3", "-march=native", "-fopenmp", str(src), "-o", str(exe)],
                   check=True)
    out = subprocess.run([str(exe)], check=True, capture_output=True, text=True).stdout
    vals = dict(line.split("=", 1)[0:2] for line in out.split() if "=" in line)
    return float(vals["peak_fp32_gflops"]), float(vals["read_bw_GBs"]), int(vals["threads"])


def t(shape):
    return "tensor<" + "x".join(str(d) for d in shape) + "xf32>"


def gemm_module(m, n, k):
    return f"""func.func @gemm(%x: {t((1, m, k))}, %w: {t((n, k))}) -> {t((1, m, n))} {{
  %y = decoda.linear %x, %w : {t((1, m, k))}, {t((n, k))}
  return %y : {t((1, m, n))}
}}
"""


def gemm_const_module(m, w):
    """The GEMM with its weight as an arith.constant (packed at compile time)."""
    n, k = w.shape
    hexw = np.ascontiguousarray(w, np.float32).tobytes().hex().upper()
    return f"""func.func @gemm(%x: {t((1, m, k))}) -> {t((1, m, n))} {{
  %w = arith.constant dense<"0x{hexw}"> : {t((n, k))}
  %y = decoda.linear %x, %w : {t((1, m, k))}, {t((n, k))}
  return %y : {t((1, m, n))}
}}
"""


WEIGHTS = [("attn_norm", (D,)), ("wq", (D, D)), ("wk", (KV, D)), ("wv", (KV, D)),
           ("wo", (D, D)), ("mlp_norm", (D,)), ("w_gate", (F, D)), ("w_up", (F, D)),
           ("w_down", (D, F))]


def block_body(T, attention):
    """The block on %h [1, T, D]; `attention` gives the text that defines %o from %qr/%kr/%v."""
    return f"""
  %x = decoda.rms_norm %h, %attn_norm {{eps = 1.0e-05 : f64}} : {t((1, T, D))}, {t((D,))}
  %q2 = decoda.linear %x, %wq : {t((1, T, D))}, {t((D, D))}
  %k2 = decoda.linear %x, %wk : {t((1, T, D))}, {t((KV, D))}
  %v2 = decoda.linear %x, %wv : {t((1, T, D))}, {t((KV, D))}
  %q = tensor.expand_shape %q2 [[0], [1], [2, 3]] output_shape [1, {T}, {H}, {HD}]
      : {t((1, T, D))} into {t((1, T, H, HD))}
  %k = tensor.expand_shape %k2 [[0], [1], [2, 3]] output_shape [1, {T}, {KVH}, {HD}]
      : {t((1, T, KV))} into {t((1, T, KVH, HD))}
  %v = tensor.expand_shape %v2 [[0], [1], [2, 3]] output_shape [1, {T}, {KVH}, {HD}]
      : {t((1, T, KV))} into {t((1, T, KVH, HD))}
  %qr = decoda.rope %q {{theta = 5.0e+05 : f64}} : {t((1, T, H, HD))}
  %kr = decoda.rope %k {{theta = 5.0e+05 : f64}} : {t((1, T, KVH, HD))}
{attention}
  %o2 = tensor.collapse_shape %o [[0], [1], [2, 3]] : {t((1, T, H, HD))} into {t((1, T, D))}
  %attn = decoda.linear %o2, %wo : {t((1, T, D))}, {t((D, D))}
  %u = decoda.residual_add %h, %attn : {t((1, T, D))}
  %y = decoda.rms_norm %u, %mlp_norm {{eps = 1.0e-05 : f64}} : {t((1, T, D))}, {t((D,))}
  %m = decoda.gated_mlp %y, %w_gate, %w_up, %w_down {{kind = #decoda.glu<swiglu>}}
      : {t((1, T, D))}, {t((F, D))}, {t((F, D))}, {t((D, F))}
  %out = decoda.residual_add %u, %m : {t((1, T, D))}
"""


def prefill_module(T):
    args = ", ".join([f"%h: {t((1, T, D))}"] + [f"%{n}: {t(s)}" for n, s in WEIGHTS])
    attn = f"""  %o = decoda.attention %qr, %kr, %v {{num_heads = {H} : i64, num_kv_heads = {KVH} : i64, causal}}
      : {t((1, T, H, HD))}, {t((1, T, KVH, HD))}, {t((1, T, KVH, HD))}"""
    return (f"func.func @prefill({args}) -> {t((1, T, D))} {{" + block_body(T, attn) +
            f"  return %out : {t((1, T, D))}\n}}\n")


def decode_module(C):
    cache = t((1, C, KVH, HD))
    args = ", ".join([f"%h: {t((1, 1, D))}"] + [f"%{n}: {t(s)}" for n, s in WEIGHTS] +
                     [f"%kc: {cache}", f"%vc: {cache}", "%pos: tensor<i64>"])
    attn = f"""  %p = tensor.extract %pos[] : tensor<i64>
  %off = arith.index_cast %p : i64 to index
  %o, %kc2, %vc2 = decoda.cached_attention %qr, %kr, %v, %kc, %vc[%off]
      {{num_heads = {H} : i64, num_kv_heads = {KVH} : i64, causal}}
      : {t((1, 1, H, HD))}, {t((1, 1, KVH, HD))}, {t((1, 1, KVH, HD))}, {cache}, {cache}"""
    return (f"func.func @decode({args}) -> ({t((1, 1, D))}, {cache}, {cache}) {{" +
            block_body(1, attn) + f"  return %out, %kc2, %vc2 : {t((1, 1, D))}, {cache}, {cache}\n}}\n")


def proj_flops(T):
    return 2.0 * T * D * (D + 2 * KV + D + 3 * F)


def attn_flops(T, context=None):
    """QK^T and PV over the causally visible keys (T(T+1)/2 query-key pairs in prefill)."""
    pairs = T * (T + 1) / 2 if context is None else T * context
    return 2 * 2.0 * pairs * H * HD


def weight_bytes():
    return 4.0 * sum(int(np.prod(s)) for _, s in WEIGHTS)


def timeit(fn, runs, warmup=1):
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), min(times)


def compile_timed(text, name, work):
    t0 = time.perf_counter()
    path = compile_mlir(text, name, workdir=work)
    return runtime.load(str(path)), time.perf_counter() - t0


MALLOC_TUNABLES = "glibc.malloc.mmap_threshold=33554432:glibc.malloc.trim_threshold=4294967295"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--runs", type=int, default=7, help="timed runs per case (median reported)")
    ap.add_argument("--only", action="append", choices=["gemm", "prefill", "decode"])
    ap.add_argument("--prefill-t", type=int, action="append", help="prefill lengths (128, 512)")
    ap.add_argument("--fresh-pages", action="store_true",
                    help="keep glibc's default malloc thresholds (see bench/README.md)")
    args = ap.parse_args()
    # Models allocate their outputs and intermediates with malloc; with glibc's defaults every
    # buffer over 128 KiB is a fresh mmap, so each call page-faults all of them in again (very
    # slow on this VM). Unless --fresh-pages, re-run with thresholds that keep freed memory.
    if not args.fresh_pages and os.environ.get("GLIBC_TUNABLES") != MALLOC_TUNABLES:
        env = dict(os.environ, GLIBC_TUNABLES=MALLOC_TUNABLES)
        os.execve(sys.executable, [sys.executable, *sys.argv], env)
    only = set(args.only or ["gemm", "prefill", "decode"])
    work = Path(tempfile.mkdtemp(prefix="decoda-bench-"))
    rng = np.random.default_rng(0)

    peak, bw, threads = roofline(work)
    print(f"machine: {os.cpu_count()} cores; roofline ({threads} OpenMP threads): "
          f"peak {peak:.1f} GFLOP/s fp32 FMA, read {bw:.1f} GB/s")
    print("note: the machine is shared with other jobs; numbers are medians of "
          f"{args.runs} runs and still noisy (min in brackets)")
    print("malloc: " + ("glibc defaults (fresh pages every call)" if args.fresh_pages else
                        f"GLIBC_TUNABLES={MALLOC_TUNABLES} (freed buffers are reused)"))

    def report(what, med, best, flops=None, nbytes=None):
        line = f"{what:<34} {med * 1e3:9.2f} ms [{best * 1e3:8.2f}]"
        if flops:
            g = flops / med / 1e9
            line += f"  {g:7.1f} GFLOP/s = {100 * g / peak:5.1f}% of peak"
        if nbytes:
            gbs = nbytes / med / 1e9
            line += f"  {gbs:6.1f} GB/s = {100 * gbs / bw:5.1f}% of read bw"
        print(line, flush=True)

    if "gemm" in only:
        M, N, K = 128, 2048, 2048
        model, ct = compile_timed(gemm_module(M, N, K), "gemm", work)
        x = rng.standard_normal((1, M, K), dtype=np.float32)
        w = rng.standard_normal((N, K), dtype=np.float32) * 0.02
        y = model.run("gemm", x, w)
        err = float(np.max(np.abs(y[0] - x[0] @ w.T)))
        med, best = timeit(lambda: model.run("gemm", x, w), args.runs)
        report(f"GEMM M={M} N={N} K={K}", med, best, flops=2.0 * M * N * K)
        print(f"  (compile {ct:.1f} s; max |err| vs NumPy {err:.2e}; weight an argument)")
        model, ct = compile_timed(gemm_const_module(M, w), "gemm_const", work)
        y = model.run("gemm", x)
        err = float(np.max(np.abs(y[0] - x[0] @ w.T)))
        med, best = timeit(lambda: model.run("gemm", x), args.runs)
        report(f"GEMM, constant weight", med, best, flops=2.0 * M * N * K)
        print(f"  (compile {ct:.1f} s; max |err| vs NumPy {err:.2e}; weight packed at compile "
              "time)")

    weights = {n: (rng.standard_normal(s, dtype=np.float32) * (0.02 if len(s) == 2 else 1.0)
                   + (1.0 if len(s) == 1 else 0.0)).astype(np.float32) for n, s in WEIGHTS}
    wlist = [weights[n] for n, _ in WEIGHTS]

    if "prefill" in only:
        for T in args.prefill_t or [128, 512]:
            model, ct = compile_timed(prefill_module(T), f"prefill{T}", work)
            h = rng.standard_normal((1, T, D), dtype=np.float32)
            med, best = timeit(lambda: model.run("prefill", h, *wlist), args.runs)
            fl = proj_flops(T) + attn_flops(T)
            report(f"prefill block T={T}", med, best, flops=fl)
            print(f"  (compile {ct:.1f} s; {fl / 1e9:.2f} GFLOP: projections "
                  f"{proj_flops(T) / 1e9:.2f}, causal attention {attn_flops(T) / 1e9:.3f})")

    if "decode" in only:
        C = 512
        model, ct = compile_timed(decode_module(C), "decode", work)
        h = rng.standard_normal((1, 1, D), dtype=np.float32)
        kc = rng.standard_normal((1, C, KVH, HD), dtype=np.float32)
        vc = rng.standard_normal((1, C, KVH, HD), dtype=np.float32)
        pos = np.array(C - 1, dtype=np.int64)
        runs = max(args.runs, 15)
        med, best = timeit(lambda: model.run("decode", h, *wlist, kc, vc, pos), runs)
        nbytes = weight_bytes() + 2 * 4.0 * C * KV
        report(f"decode T=1 context {C}", med, best, flops=proj_flops(1) + attn_flops(1, C),
               nbytes=nbytes)
        print(f"  (compile {ct:.1f} s; reads {nbytes / 1e6:.0f} MB of weights and cache per token)")


if __name__ == "__main__":
    main()
