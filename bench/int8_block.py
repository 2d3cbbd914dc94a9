#!/usr/bin/python3
"""CPU benchmark of INT8 W8A8 against fp32 for the Llama-3.2-1B-shaped decoder block (hidden
2048, 32 query heads over 8 KV heads of 64, SwiGLU MLP 8192), prefill T=128 and decode at
context 512, in the same run. Not a test; see bench/README.md.

fp32: decoda.linear / decoda.gated_mlp with constant fp32 weights (packed into 32-wide panels
at compile time). INT8: every projection a decoda.qlinear with constant i8 weights
(symmetric per channel, packed at compile time into the VNNI layout of
decoda-cpu-int8-codegen) and i8 activations quantised per tensor with static scales calibrated
on the fp32 reference of the prefill input (SmoothQuant W8A8 without smoothing); norms, RoPE,
softmax, SwiGLU and residuals stay fp32. Attention is fp32 in both unless --int8-attention:
then the INT8 block's decoda.attention (prefill) and decoda.cached_attention (decode) take
quantize(...) with static per-tensor scales (decoda-cpu-int8-attention's VNNI kernel).

Peaks, measured in the same run: fp32 FMA peak and read bandwidth from
../shared/tools/roofline.c; the VNNI peak from a vpdpbusd probe compiled here (12 independent
accumulator chains per thread, all OpenMP threads; one vpdpbusd = 64 multiply-adds = 128 ops
against 32 flops for one fp32 FMA).

fp32 and INT8 are timed in alternating blocks of 3 calls, so both see the same load.

Usage: /usr/bin/python3 bench/int8_block.py [--runs N] [--threads N] [--only gemm|prefill|decode]...
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))
sys.path.insert(0, str(ROOT / "python"))
os.environ.setdefault("DECODA_RUNTIME_LIB", str(ROOT / "build" / "lib" / "libdecoda_runtime.so"))

from cpu_block import (D, F, H, HD, KV, KVH, MALLOC_TUNABLES, WEIGHTS, attn_flops,  # noqa: E402
                       block_body, compile_timed, proj_flops, roofline, t)
from decoda import reference as R  # noqa: E402

VNNI_PROBE = r"""
#include <immintrin.h>
#include <omp.h>
#include <stdio.h>
#include <time.h>
static double now(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+t.tv_nsec*1e-9;}
int main(void){
  long iters=100000000/16; double best=0;
  for(int rep=0;rep<3;rep++){
    double t0=now();
    #pragma omp parallel
    {
      __m512i a[12]; for(int i=0;i<12;i++) a[i]=_mm512_set1_epi32(i);
      __m512i x=_mm512_set1_epi32(0x01020304), y=_mm512_set1_epi32(0x05060708);
      for(long it=0;it<iters;it++){ for(int i=0;i<12;i++) a[i]=_mm512_dpbusd_epi32(a[i],x,y); }
      int s=0; for(int i=0;i<12;i++) s+=_mm512_reduce_add_epi32(a[i]); if(s==42) printf("x");
    }
    double t=now()-t0; double ops=2.0*64*12*iters*omp_get_max_threads();
    if(ops/t>best) best=ops/t;
  }
  printf("peak_int8_gops=%.1f\n",best/1e9);
}
"""


def alternate(fa, fb, runs, block=3):
    """Times fa and fb in alternating blocks of `block` calls (after one warm-up call of each),
    `runs` calls each in all, so both see the same load; returns ((median, min), (median, min))."""
    fa()
    fb()
    ta, tb = [], []
    while len(ta) < runs:
        for fn, ts in ((fa, ta), (fb, tb)):
            for _ in range(min(block, runs - len(ts))):
                t0 = time.perf_counter()
                fn()
                ts.append(time.perf_counter() - t0)
    return (statistics.median(ta), min(ta)), (statistics.median(tb), min(tb))


def vnni_peak(work: Path) -> float:
    src, exe = work / "vnni_probe.c", work / "vnni_probe"
    src.write_text(VNNI_PROBE)
    subprocess.run(["gcc", "-O3", "-march=native", "-fopenmp", str(src), "-o", str(exe)],
                   check=True)
    out = subprocess.run([str(exe)], check=True, capture_output=True, text=True).stdout
    return float(out.split("=")[1])


def ti(shape):
    return "tensor<" + "x".join(str(d) for d in shape) + "xi8>"


def dense(a: np.ndarray) -> str:
    return 'dense<"0x' + np.ascontiguousarray(a).tobytes().hex().upper() + '">'


def f32const(v: float) -> str:
    return f"dense<{np.float32(v).item()!r}> : tensor<f32>"


PROJ = ["wq", "wk", "wv", "wo", "w_gate", "w_up", "w_down"]
# activation scale names: x (attn in), o (attn out), y (mlp in), hid (down in)
ACTS = ["x", "o", "y", "hid"]


def consts_fp32(weights) -> str:
    return "".join(f"  %{n} = arith.constant {dense(weights[n])} : {t(s)}\n" for n, s in WEIGHTS)


def consts_int8(weights, qweights, scales) -> str:
    lines = []
    for n, s in WEIGHTS:
        if n in qweights:
            wq, ws = qweights[n]
            lines.append(f"  %{n} = arith.constant {dense(wq)} : {ti(s)}")
            lines.append(f"  %{n}_s = arith.constant {dense(ws)} : {t((s[0],))}")
        else:
            lines.append(f"  %{n} = arith.constant {dense(weights[n])} : {t(s)}")
    for a in ACTS + ["q", "k", "v"]:
        lines.append(f"  %s_{a} = arith.constant {f32const(scales[a])}")
    return "\n".join(lines) + "\n"


def rope_and_attention(T, attention):
    return f"""  %q = tensor.expand_shape %q2 [[0], [1], [2, 3]] output_shape [1, {T}, {H}, {HD}]
      : {t((1, T, D))} into {t((1, T, H, HD))}
  %k = tensor.expand_shape %k2 [[0], [1], [2, 3]] output_shape [1, {T}, {KVH}, {HD}]
      : {t((1, T, KV))} into {t((1, T, KVH, HD))}
  %v = tensor.expand_shape %v2 [[0], [1], [2, 3]] output_shape [1, {T}, {KVH}, {HD}]
      : {t((1, T, KV))} into {t((1, T, KVH, HD))}
  %qr = decoda.rope %q {{theta = 5.0e+05 : f64}} : {t((1, T, H, HD))}
  %kr = decoda.rope %k {{theta = 5.0e+05 : f64}} : {t((1, T, KVH, HD))}
{attention}
  %o2 = tensor.collapse_shape %o [[0], [1], [2, 3]] : {t((1, T, H, HD))} into {t((1, T, D))}"""


def qlin(res, xq, w, act, T, n, k):
    return (f"  %{res} = decoda.qlinear %{xq}, %{w}, %s_{act}, %{w}_s : {ti((1, T, k))}, "
            f"{ti((n, k))}, tensor<f32>, {t((n,))} -> {t((1, T, n))}\n")


def quant(res, x, act, T, width):
    return f"  %{res} = decoda.quantize %{x}, %s_{act} : {t((1, T, width))}, tensor<f32>\n"


def int8_body(T, attention):
    return (f"""
  %x = decoda.rms_norm %h, %attn_norm {{eps = 1.0e-05 : f64}} : {t((1, T, D))}, {t((D,))}
""" + quant("xq", "x", "x", T, D) + qlin("q2", "xq", "wq", "x", T, D, D) +
            qlin("k2", "xq", "wk", "x", T, KV, D) + qlin("v2", "xq", "wv", "x", T, KV, D) +
            rope_and_attention(T, attention) + "\n" + quant("oq", "o2", "o", T, D) +
            qlin("attn", "oq", "wo", "o", T, D, D) + f"""  %u = decoda.residual_add %h, %attn : {t((1, T, D))}
  %y = decoda.rms_norm %u, %mlp_norm {{eps = 1.0e-05 : f64}} : {t((1, T, D))}, {t((D,))}
""" + quant("yq", "y", "y", T, D) + qlin("g", "yq", "w_gate", "y", T, F, D) +
            qlin("up", "yq", "w_up", "y", T, F, D) +
            f"  %hid = decoda.glu %g, %up {{kind = #decoda.glu<swiglu>}} : {t((1, T, F))}\n" +
            quant("hq", "hid", "hid", T, F) + qlin("m", "hq", "w_down", "hid", T, D, F) +
            f"  %out = decoda.residual_add %u, %m : {t((1, T, D))}\n")


def prefill_attention(T, int8):
    quantize = " quantize(%s_q, %s_k, %s_v : tensor<f32>, tensor<f32>, tensor<f32>)" if int8 else ""
    return (f"  %o = decoda.attention %qr, %kr, %v{quantize} {{num_heads = {H} : i64, "
            f"num_kv_heads = {KVH} : i64, causal}}\n"
            f"      : {t((1, T, H, HD))}, {t((1, T, KVH, HD))}, {t((1, T, KVH, HD))}")


def decode_attention(C, int8=False):
    cache = t((1, C, KVH, HD))
    quantize = " quantize(%s_q, %s_k, %s_v : tensor<f32>, tensor<f32>, tensor<f32>)" if int8 else ""
    return f"""  %p = tensor.extract %pos[] : tensor<i64>
  %off = arith.index_cast %p : i64 to index
  %o, %kc2, %vc2 = decoda.cached_attention %qr, %kr, %v, %kc, %vc[%off]{quantize}
      {{num_heads = {H} : i64, num_kv_heads = {KVH} : i64, causal}}
      : {t((1, 1, H, HD))}, {t((1, 1, KVH, HD))}, {t((1, 1, KVH, HD))}, {cache}, {cache}"""


def prefill_module(T, consts, body):
    return (f"func.func @prefill(%h: {t((1, T, D))}) -> {t((1, T, D))} {{\n" + consts + body +
            f"  return %out : {t((1, T, D))}\n}}\n")


def decode_module(C, consts, body):
    cache = t((1, C, KVH, HD))
    return (f"func.func @decode(%h: {t((1, 1, D))}, %kc: {cache}, %vc: {cache}, "
            f"%pos: tensor<i64>) -> ({t((1, 1, D))}, {cache}, {cache}) {{\n" + consts + body +
            f"  return %out, %kc2, %vc2 : {t((1, 1, D))}, {cache}, {cache}\n}}\n")


def quantize_weights(weights):
    q = {}
    for n in PROJ:
        w = weights[n]
        ws = (np.abs(w).max(axis=1) / 127).astype(np.float32)
        q[n] = (np.clip(np.rint(w / ws[:, None]), -127, 127).astype(np.int8), ws)
    return q


def calibrate(weights, h):
    """Per-tensor absmax / 127 of every quantised activation in the NumPy fp32 block on `h`."""
    T = h.shape[1]
    x = R.rms_norm(h, weights["attn_norm"], 1e-5)
    q = R.rope(R.linear(x, weights["wq"]).reshape(1, T, H, HD), theta=5e5)
    k = R.rope(R.linear(x, weights["wk"]).reshape(1, T, KVH, HD), theta=5e5)
    v = R.linear(x, weights["wv"]).reshape(1, T, KVH, HD)
    o = R.attention(q, k, v, causal=True).reshape(1, T, D)
    u = h + R.linear(o, weights["wo"])
    y = R.rms_norm(u, weights["mlp_norm"], 1e-5)
    hid = R.glu(R.linear(y, weights["w_gate"]), R.linear(y, weights["w_up"]), "swiglu")
    s = lambda a: float(np.abs(a).max()) / 127  # noqa: E731
    return {"x": s(x), "o": s(o), "y": s(y), "hid": s(hid), "q": s(q), "k": s(k), "v": s(v)}


def gemm_modules(M, N, K, w, wq, ws, xs):
    f32 = f"""func.func @gemm(%x: {t((1, M, K))}) -> {t((1, M, N))} {{
  %w = arith.constant {dense(w)} : {t((N, K))}
  %y = decoda.linear %x, %w : {t((1, M, K))}, {t((N, K))}
  return %y : {t((1, M, N))}
}}
"""
    i8 = f"""func.func @gemm(%x: {ti((1, M, K))}) -> {t((1, M, N))} {{
  %w = arith.constant {dense(wq)} : {ti((N, K))}
  %ws = arith.constant {dense(ws)} : {t((N,))}
  %xs = arith.constant {f32const(xs)}
  %y = decoda.qlinear %x, %w, %xs, %ws : {ti((1, M, K))}, {ti((N, K))}, tensor<f32>, {t((N,))} -> {t((1, M, N))}
  return %y : {t((1, M, N))}
}}
"""
    return f32, i8


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--runs", type=int, default=7, help="timed runs per case (median reported)")
    ap.add_argument("--only", action="append", choices=["gemm", "prefill", "decode"])
    ap.add_argument("--int8-attention", action="store_true",
                    help="INT8 QK^T/PV (attention and cached_attention) in the INT8 block")
    ap.add_argument("--threads", type=int,
                    help="OpenMP threads of the models and probes (default: OMP_NUM_THREADS or "
                         "all cores)")
    ap.add_argument("--fresh-pages", action="store_true",
                    help="keep glibc's default malloc thresholds (see bench/README.md)")
    args = ap.parse_args()
    env = dict(os.environ)
    if not args.fresh_pages:
        env["GLIBC_TUNABLES"] = MALLOC_TUNABLES
    if args.threads:
        env["OMP_NUM_THREADS"] = str(args.threads)  # read by libomp when it starts
    if env != dict(os.environ):
        os.execve(sys.executable, [sys.executable, *sys.argv], env)
    only = set(args.only or ["gemm", "prefill", "decode"])
    work = Path(tempfile.mkdtemp(prefix="decoda-int8-bench-"))
    try:
        run(args, only, work)
    finally:  # about 650 MB of .so and .mlir
        shutil.rmtree(work, ignore_errors=True)


def run(args, only, work):
    rng = np.random.default_rng(0)

    load = os.getloadavg()
    peak, bw, threads = roofline(work)
    peak8 = vnni_peak(work)
    print(f"machine: {os.cpu_count()} cores, load average {load[0]:.2f} {load[1]:.2f} "
          f"{load[2]:.2f} at start; roofline ({threads} OpenMP threads): peak {peak:.1f} "
          f"GFLOP/s fp32 FMA, read {bw:.1f} GB/s; vpdpbusd probe {peak8:.1f} GOP/s int8 "
          f"({peak8 / peak:.2f}x the fp32 peak)")

    def report(what, med, best, ops=None, pk=None, unit="GFLOP/s", nbytes=None):
        line = f"{what:<40} {med * 1e3:9.2f} ms [{best * 1e3:8.2f}]"
        if ops:
            g = ops / med / 1e9
            line += f"  {g:7.1f} {unit} = {100 * g / pk:5.1f}% of peak"
        if nbytes:
            gbs = nbytes / med / 1e9
            line += f"  {gbs:6.1f} GB/s = {100 * gbs / bw:5.1f}% of read bw"
        print(line, flush=True)
        return med

    weights = {n: (rng.standard_normal(s, dtype=np.float32) * (0.02 if len(s) == 2 else 1.0)
                   + (1.0 if len(s) == 1 else 0.0)).astype(np.float32) for n, s in WEIGHTS}
    qweights = quantize_weights(weights)

    if "gemm" in only:
        for M in (128, 1):
            N, K = 2048, 2048
            wq, ws = qweights["wq"]
            x = rng.standard_normal((1, M, K), dtype=np.float32)
            xs = float(np.abs(x).max()) / 127
            xq = np.clip(np.rint(x / xs), -127, 127).astype(np.int8)
            f32_text, i8_text = gemm_modules(M, N, K, weights["wq"], wq, ws, xs)
            m32, _ = compile_timed(f32_text, f"gemm_f32_{M}", work)
            m8, ct = compile_timed(i8_text, f"gemm_i8_{M}", work)
            y = m8.run("gemm", xq)
            ref = R.qlinear(xq, wq, np.float32(xs), ws)
            err = float(np.max(np.abs(y - ref)) / np.max(np.abs(ref)))
            ops = 2.0 * M * N * K
            t32, t8 = alternate(lambda: m32.run("gemm", x), lambda: m8.run("gemm", xq), args.runs)
            a = report(f"fp32 GEMM M={M} N={N} K={K}", *t32, ops=ops, pk=peak,
                       nbytes=4.0 * N * K if M == 1 else None)
            b = report(f"INT8 qlinear M={M} N={N} K={K}", *t8, ops=ops, pk=peak8, unit="GOP/s",
                       nbytes=1.0 * N * K if M == 1 else None)
            print(f"  INT8 / fp32 speed-up {a / b:.2f}x (qlinear max rel err vs NumPy "
                  f"{err:.1e}; compile {ct:.1f} s)")

    T, C = 128, 512
    h = rng.standard_normal((1, T, D), dtype=np.float32)
    scales = calibrate(weights, h)
    c32 = consts_fp32(weights)
    c8 = consts_int8(weights, qweights, scales)

    if "prefill" in only:
        m32, ct32 = compile_timed(
            prefill_module(T, c32, block_body(T, prefill_attention(T, False))), "prefill_f32",
            work)
        m8, ct8 = compile_timed(prefill_module(T, c8, int8_body(
            T, prefill_attention(T, args.int8_attention))), "prefill_i8", work)
        y32 = m32.run("prefill", h)
        y8 = m8.run("prefill", h)
        # The residual stream dominates the output: compare the block's update out - h.
        err = float(np.max(np.abs((y8 - h) - (y32 - h))) / np.max(np.abs(y32 - h)))
        fl = proj_flops(T) + attn_flops(T)
        t32, t8 = alternate(lambda: m32.run("prefill", h), lambda: m8.run("prefill", h),
                            args.runs)
        a = report(f"fp32 prefill block T={T}", *t32, ops=fl, pk=peak)
        b = report(f"INT8 prefill block T={T}", *t8, ops=fl, pk=peak8, unit="GOP/s")
        print(f"  INT8 / fp32 prefill speed-up {a / b:.2f}x; INT8 block update (out - h) vs fp32: "
              f"max rel err {err:.2e}; compile fp32 {ct32:.1f} s, INT8 {ct8:.1f} s; "
              f"attention {'INT8' if args.int8_attention else 'fp32'} in the INT8 block")

    if "decode" in only:
        hd = rng.standard_normal((1, 1, D), dtype=np.float32)
        kc = rng.standard_normal((1, C, KVH, HD), dtype=np.float32)
        vc = rng.standard_normal((1, C, KVH, HD), dtype=np.float32)
        pos = np.array(C - 1, dtype=np.int64)
        m32, _ = compile_timed(decode_module(C, c32, block_body(1, decode_attention(C))),
                               "decode_f32", work)
        m8, _ = compile_timed(decode_module(C, c8, int8_body(1, decode_attention(
            C, args.int8_attention))),
                              "decode_i8", work)
        runs = max(args.runs, 15)
        wb32 = 4.0 * sum(int(np.prod(s)) for n, s in WEIGHTS if n in PROJ)
        wb8 = wb32 / 4 + 4.0 * sum(s[0] for n, s in WEIGHTS if n in PROJ)
        cache = 2 * 4.0 * C * KV
        fl = proj_flops(1) + attn_flops(1, C)
        t32, t8 = alternate(lambda: m32.run("decode", hd, kc, vc, pos),
                            lambda: m8.run("decode", hd, kc, vc, pos), runs)
        a = report(f"fp32 decode T=1 context {C}", *t32, ops=fl, pk=peak, nbytes=wb32 + cache)
        b = report(f"INT8 decode T=1 context {C}", *t8, ops=fl, pk=peak8, unit="GOP/s",
                   nbytes=wb8 + cache)
        print(f"  INT8 / fp32 decode speed-up {a / b:.2f}x; weight bytes per token fp32 "
              f"{wb32 / 1e6:.0f} MB, INT8 {wb8 / 1e6:.0f} MB (+ {cache / 1e6:.1f} MB fp32 KV "
              f"cache); attention {'INT8' if args.int8_attention else 'fp32'} in the INT8 block")
    load = os.getloadavg()
    print(f"load average at the end: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")


if __name__ == "__main__":
    main()
