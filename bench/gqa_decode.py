#!/usr/bin/python3
"""One com.microsoft GroupQueryAttention decode step (Llama-3.2-1B's attention: 32 query heads
over 8 KV heads of 64, fp32, batch 1) as onnxruntime-genai exports feed it (seqlens_k and
total_sequence_length as inputs), Decoda next to ONNX Runtime on the same file and inputs, same
thread count, same run, in the two forms the file accepts:

* concatenated: the past holds exactly the t - 1 earlier tokens, present has t;
* buffer: the past is a buffer of --buffer entries (genai's shared past/present), present has
  the buffer's length;
* shared: the buffer form compiled with `decoda-compile --shared-kv-buffers` and run donating
  the pasts (genai's past_present_share_buffer): the new token written in place.

Without --shared-kv-buffers Decoda writes all of present each step, so the buffer form costs a
pass over the whole buffer; the figures say how much. Reported: median milliseconds per step
and the bytes a step must at least move (read the t cached keys and values, write one token)
per second. ONNX Runtime runs the same file in the buffer form (unshared: its own present). Not
a test; see bench/README.md.

Usage: /usr/bin/python3 bench/gqa_decode.py [--threads N] [--runs N] [--context T]... [--buffer L]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
sys.path.insert(0, str(BENCH))
sys.path.insert(0, str(ROOT / "python"))

import cpu_block  # noqa: E402  (the malloc settings)
from decoda import onnx_models, runtime  # noqa: E402
from decoda.compiler import compile_onnx  # noqa: E402
from decoda.ort import OrtSession  # noqa: E402

HEADS, KV_HEADS, HEAD_DIM = 32, 8, 64


def feeds(past_len, total, seed=0):
    rng = np.random.default_rng(seed)
    f32 = np.float32
    return {"query": rng.standard_normal((1, 1, HEADS * HEAD_DIM)).astype(f32),
            "key": rng.standard_normal((1, 1, KV_HEADS * HEAD_DIM)).astype(f32),
            "value": rng.standard_normal((1, 1, KV_HEADS * HEAD_DIM)).astype(f32),
            "past_key": rng.standard_normal((1, KV_HEADS, past_len, HEAD_DIM)).astype(f32),
            "past_value": rng.standard_normal((1, KV_HEADS, past_len, HEAD_DIM)).astype(f32),
            "seqlens_k": np.asarray([total - 1], np.int32),
            "total_sequence_length": np.asarray(total, np.int32)}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--threads", type=int, default=os.cpu_count())
    ap.add_argument("--runs", type=int, default=30)
    ap.add_argument("--context", type=int, action="append", help="total tokens t (repeatable)")
    ap.add_argument("--buffer", type=int, default=4096, help="entries of the past buffer")
    args = ap.parse_args()
    contexts = args.context or [512, 2048]
    # OpenMP threads and the malloc settings of bench/onnx_block.py (freed buffers reused rather
    # than fresh pages each step), set before libomp starts: re-executed with them.
    env = dict(os.environ, OMP_NUM_THREADS=str(args.threads),
               GLIBC_TUNABLES=cpu_block.MALLOC_TUNABLES + ":glibc.malloc.mmap_max=0")
    if any(os.environ.get(k) != v for k, v in env.items()):
        os.execve(sys.executable, [sys.executable, *sys.argv], env)

    work = Path(tempfile.mkdtemp(prefix="decoda-gqa-bench-"))
    build, _ = onnx_models._gqa_runtime("gqa_decode", heads=HEADS, kv_heads=KV_HEADS,
                                        dh=HEAD_DIM, rotary=False)
    path = onnx_models.save(build(), work / "gqa.onnx")
    model = runtime.load(str(compile_onnx(path, work / "gqa.so")))
    shared = runtime.load(str(compile_onnx(path, work / "gqa_shared.so",
                                           ["--shared-kv-buffers"])))
    names = onnx_models.input_names(build())
    print(f"GroupQueryAttention decode step, {HEADS}/{KV_HEADS} heads of {HEAD_DIM}, fp32, "
          f"{args.threads} threads, median of {args.runs}")
    print(f"{'form':14s} {'t':>6s} {'past':>6s} {'Decoda ms':>10s} {'ORT ms':>8s} "
          f"{'Decoda/ORT':>10s} {'Decoda GB/s':>11s} {'max abs diff':>12s}")
    with OrtSession(path, threads=args.threads) as ort:
        for t in contexts:
            for form, past in [("concatenated", t - 1), ("buffer", args.buffer),
                               ("shared", args.buffer)]:
                if past < t - 1:
                    continue
                f = feeds(past, t)
                ins = [f[n] for n in names]
                m, donate = (shared, True) if form == "shared" else (model, False)
                ref = ort.run(f)
                ours = m.run("main", *ins, donate=donate)
                y = ours[0] if isinstance(ours, tuple) else ours
                diff = float(np.abs(y - ref["y"]).max())
                times = []
                for _ in range(args.runs + 2):
                    start = time.perf_counter()
                    m.run("main", *ins, donate=donate)
                    times.append(time.perf_counter() - start)
                ours_s = statistics.median(times[2:])
                ort_s = statistics.median(ort.bench(f, iters=args.runs, warmup=2))
                # What a step must move: the t keys and values read, one token written.
                need = (2 * t * KV_HEADS * HEAD_DIM + 2 * KV_HEADS * HEAD_DIM) * 4
                print(f"{form:14s} {t:6d} {past:6d} {ours_s * 1e3:10.3f} {ort_s * 1e3:8.3f} "
                      f"{ours_s / ort_s:10.2f} {need / ours_s / 1e9:11.2f} {diff:12.2e}")


if __name__ == "__main__":
    main()
