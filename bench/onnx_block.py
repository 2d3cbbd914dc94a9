#!/usr/bin/python3
"""Decoda next to ONNX Runtime on one ONNX file: a Llama-3.2-1B-shaped decoder block (hidden
2048, 32 query heads over 8 KV heads of 64, RoPE theta 500000 from position_ids, causal GQA,
SwiGLU MLP 8192, RMSNorm eps 1e-5, fp32) written the way exporters write it
(decoda.onnx_models.llama_block_model), saved with external data, compiled with
`decoda-compile model.onnx -o model.so` and run by both on the same inputs with the same thread
count, in the same run, for prefill at batch 1. Not a test; see bench/README.md.

Usage: /usr/bin/python3 bench/onnx_block.py [--threads N] [--runs N] [--seq T]... [--hidden D]
"""

from __future__ import annotations

import argparse
import atexit
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import onnx

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
sys.path.insert(0, str(BENCH))
sys.path.insert(0, str(ROOT / "python"))

import cpu_block  # noqa: E402  (the roofline probe, the malloc settings, the FLOP count)
from decoda import onnx_models, runtime  # noqa: E402
from decoda.compiler import bin_dir  # noqa: E402
from decoda.ort import OrtSession  # noqa: E402

HEAD_DIM = 64
THETA, EPS = 500000.0, 1e-5
# cpu_block.py's thresholds (freed buffers are kept and reused) plus no mmap at all: glibc caps
# mmap_threshold at 32 MiB, and the fused gate/up result at T = 512 is 512 x 16384 x 4 B = 32 MiB,
# which would otherwise be a fresh mmap (page faults, zeroing) on every call. ONNX Runtime reuses
# its buffers through its own arena either way.
MALLOC_TUNABLES = cpu_block.MALLOC_TUNABLES + ":glibc.malloc.mmap_max=0"


def dims(hidden):
    """Llama-3.2-1B's proportions at any hidden size: heads of 64, 4 query heads per KV head,
    MLP 4x hidden (hidden 2048 -> 32 heads, 8 KV heads, MLP 8192)."""
    heads = max(1, hidden // HEAD_DIM)
    return dict(hidden=hidden, heads=heads, kv_heads=max(1, heads // 4), head_dim=HEAD_DIM,
                ffn=4 * hidden)


def flops(T, d):
    """Projections (q, k, v, o, gate, up, down) plus QK^T and PV over the causally visible
    query-key pairs; elementwise work not counted (the same count as cpu_block.py)."""
    D, H, KVH, HD, F = d["hidden"], d["heads"], d["kv_heads"], d["head_dim"], d["ffn"]
    proj = 2.0 * T * D * (H * HD + 2 * KVH * HD) + 2.0 * T * H * HD * D + 3 * 2.0 * T * D * F
    attn = 2 * 2.0 * (T * (T + 1) / 2) * H * HD
    return proj + attn


def write_model(path: Path, d) -> float:
    """Builds the block and saves it with its weights in `<path>.data`; returns MB written."""
    model = onnx_models.llama_block_model(d["hidden"], d["heads"], d["kv_heads"], d["head_dim"],
                                          d["ffn"], theta=THETA, eps=EPS,
                                          name="llama32_1b_block")
    data = path.name + ".data"
    onnx.save_model(model, str(path), save_as_external_data=True, all_tensors_to_one_file=True,
                    location=data, size_threshold=1024)
    return (path.stat().st_size + (path.parent / data).stat().st_size) / 1e6


def _rss_kb(pid):
    """Resident set of `pid` and its descendants (the C compiler/linker that decoda-compile
    starts), in KiB, from /proc."""
    total, todo = 0, [pid]
    while todo:
        p = todo.pop()
        try:
            with open(f"/proc/{p}/status") as f:
                for line in f:
                    if line.startswith("VmRSS:"):
                        total += int(line.split()[1])
            with open(f"/proc/{p}/task/{p}/children") as f:
                todo += [int(c) for c in f.read().split()]
        except (OSError, ValueError):
            pass
    return total


def compile_measured(onnx_path: Path, so: Path, timeout_s: float, mem_limit_gb: float,
                     flags=()):
    """`decoda-compile onnx_path -o so [flags]` with wall time and peak memory (polled RSS of
    the tool and its children, and the kernel's max RSS of the tool); stops it past the
    limits."""
    tool = bin_dir() / "decoda-compile"
    cmd = [str(tool), str(onnx_path), "-o", str(so), *flags]
    print("$ " + " ".join(cmd), flush=True)
    log = so.with_suffix(".compile.log")
    t0 = time.perf_counter()
    with open(log, "w") as err:
        proc = subprocess.Popen(cmd, stdout=err, stderr=subprocess.STDOUT)
        peak_kb, why = 0, None
        while True:
            pid, status, ru = os.wait4(proc.pid, os.WNOHANG)
            if pid:
                break
            peak_kb = max(peak_kb, _rss_kb(proc.pid))
            if time.perf_counter() - t0 > timeout_s:
                why = f"took longer than {timeout_s:.0f} s"
            elif peak_kb > mem_limit_gb * 2**20:
                why = f"used more than {mem_limit_gb:g} GB"
            if why:
                proc.send_signal(signal.SIGKILL)
                pid, status, ru = os.wait4(proc.pid, 0)
                break
            time.sleep(0.2)
        proc.returncode = os.waitstatus_to_exitcode(status)
    wall = time.perf_counter() - t0
    peak_gb = max(peak_kb, ru.ru_maxrss) / 2**20
    if why:
        sys.exit(f"FAIL: decoda-compile {why} (stopped after {wall:.0f} s, peak RSS "
                 f"{peak_gb:.1f} GB); see {log}")
    if proc.returncode != 0:
        sys.exit(f"FAIL: decoda-compile exited with {proc.returncode}:\n{log.read_text()[-4000:]}")
    return wall, peak_gb


def raised_ops(onnx_path: Path, work: Path):
    """Op counts after the importer's raising pass and after the graph passes, from a second
    compile of the same file with `--print-ir-after` (weights elided from the printout)."""
    passes = ["decoda-raise-onnx", "decoda-fuse-residual-norm"]
    proc = subprocess.run([str(bin_dir() / "decoda-compile"), str(onnx_path), "-o",
                           str(work / "ops.so"), "--print-ir-after=" + ",".join(passes),
                           "--mlir-elide-resource-strings-if-larger=16",
                           "--mlir-elide-elementsattrs-if-larger=16"],
                          capture_output=True, text=True, check=True)
    dumps = proc.stderr.split("// -----// IR Dump After ")[1:]
    out = {}
    for label, text in zip(["imported (after decoda-raise-onnx)",
                            "after the graph passes (decoda-fuse-residual-norm)"], dumps):
        counts = {}
        for o in re.findall(r"= (decoda\.[a-z_]+|linalg\.[a-z_]+|tensor\.(?:concat|extract_slice))",
                            text):
            counts[o] = counts.get(o, 0) + 1
        out[label] = counts
    return out


def agrees(what: str, ours, ref, rtol: float, atol: float):
    """Prints how far Decoda's output is from ORT's; returns (ok, max abs error): finite and
    within rtol * max|ort| + atol."""
    err = float(np.max(np.abs(ours - ref)))
    scale = float(np.max(np.abs(ref)))
    ok = bool(np.all(np.isfinite(ours))) and err <= rtol * scale + atol
    print(f"{what}: max |decoda - ort| = {err:.3e} (max |ort| = {scale:.3f}, allowed "
          f"{rtol * scale + atol:.3e}) {'ok' if ok else 'MISMATCH'}", flush=True)
    return ok, err


def time_both(model, h, pos, feeds, ort, args, rounds: int, per_round: int):
    """Decoda's and ORT's run times on the same inputs, alternating in `rounds` rounds of
    `per_round` runs each; returns both lists and the median of the per-round time ratios."""
    dec_t, ort_t = [], []
    for r in range(rounds):
        # Both engines' idle worker threads spin for a while after a run (libomp's
        # KMP_BLOCKTIME, 200 ms by default; ORT's pool spins too) and would take cores
        # from the other engine: pause before each switch, then warm up again.
        time.sleep(args.pause)
        for _ in range(args.warmup if r == 0 else 1):
            model.run("main", h, pos)
        for _ in range(per_round):
            t1 = time.perf_counter()
            model.run("main", h, pos)
            dec_t.append(time.perf_counter() - t1)
        time.sleep(args.pause)
        ort_t += ort.bench(feeds, iters=per_round, warmup=args.warmup if r == 0 else 1)
    # Decoda's time over ORT's within each round (the two saw about the same load).
    paired = statistics.median(statistics.median(dec_t[i:i + per_round]) /
                               statistics.median(ort_t[i:i + per_round])
                               for i in range(0, len(dec_t), per_round))
    return dec_t, ort_t, paired


def time_decode(args, onnx_path: Path, work: Path, d, ort, rounds: int, per_round: int):
    """One token: Decoda's static T = 1 builds (f32, and bf16 with --float-type) against ORT on
    the same file at T = 1, alternating in rounds like the prefill. Returns the rows and whether
    an output was off (bf16 at a bf16 tolerance: 2e-2 of max |ort|)."""
    D, H, KVH, HD, F = d["hidden"], d["heads"], d["kv_heads"], d["head_dim"], d["ffn"]
    params = D * (H * HD + 2 * KVH * HD) + H * HD * D + 3 * D * F + 2 * D
    rng = np.random.default_rng(1)
    h = rng.standard_normal((1, 1, D), dtype=np.float32)
    pos = np.array([[7]], dtype=np.int64)
    feeds = {"hidden_states": h, "position_ids": pos}
    ref = ort.run(feeds)["y"]
    rows, failed = [], False
    for label, flags, wbytes, rtol in (
            ("f32, --static-dims", [], 4 * params, args.rtol),
            ("bf16, --static-dims --float-type=bf16", ["--float-type=bf16"], 2 * params, 2e-2)):
        so = work / f"decode_{'bf16' if flags else 'f32'}.so"
        ct, cmem = compile_measured(onnx_path, so, args.compile_timeout, args.compile_mem_gb,
                                    ["--static-dims=batch=1,sequence=1", *flags])
        print(f"decoda-compile ({label}): {ct:.1f} s, peak RSS {cmem:.2f} GB", flush=True)
        model = runtime.load(str(so))
        ok, err = agrees(f"T=1 {label}", model.run("main", h, pos), ref, rtol, args.atol)
        if not ok:
            failed = True
            continue
        dec_t, ort_t, paired = time_both(model, h, pos, feeds, ort, args, rounds, per_round)
        dm, om = statistics.median(dec_t), statistics.median(ort_t)
        rows.append((label, dm, min(dec_t), om, min(ort_t), paired, wbytes, err))
        print(f"T=1 {label}: decoda {dm * 1e3:.2f} ms [min {min(dec_t) * 1e3:.2f}]  ORT "
              f"{om * 1e3:.2f} ms [min {min(ort_t) * 1e3:.2f}]  decoda/ORT time {dm / om:.2f} "
              f"(per round {paired:.2f})  {wbytes / dm / 1e9:.1f} GB/s of weights", flush=True)
        del model
    return rows, failed


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--threads", type=int, default=os.cpu_count(),
                    help="ORT intra-op threads = OMP_NUM_THREADS for Decoda and the roofline "
                         "(default: all cores)")
    ap.add_argument("--runs", type=int, default=12, help="timed runs per engine and length")
    ap.add_argument("--warmup", type=int, default=2,
                    help="untimed runs first (then one more before each later round)")
    ap.add_argument("--rounds", type=int, default=3,
                    help="alternate Decoda and ORT in this many rounds of runs/rounds each, so "
                         "that a burst of load from other jobs hits both")
    ap.add_argument("--pause", type=float, default=0.5,
                    help="seconds of sleep before switching engines (spinning threads)")
    ap.add_argument("--seq", type=int, action="append",
                    help="prefill lengths (128, 512; 0: none)")
    ap.add_argument("--decode", action="store_true",
                    help="also one token (T = 1) from builds with --static-dims=batch=1,"
                         "sequence=1 (the exporter's dim names), f32 and --float-type=bf16, "
                         "next to ORT on the same file at T = 1, in GB/s of weights read")
    ap.add_argument("--hidden", type=int, default=2048,
                    help="hidden size for quick runs (heads of 64, kv = heads/4, MLP 4x)")
    ap.add_argument("--rtol", type=float, default=1e-3,
                    help="fail when max|decoda - ort| > rtol * max|ort| + atol")
    ap.add_argument("--atol", type=float, default=1e-5)
    ap.add_argument("--compile-timeout", type=float, default=1200,
                    help="stop decoda-compile after this many seconds")
    ap.add_argument("--compile-mem-gb", type=float, default=14,
                    help="stop decoda-compile past this resident memory")
    ap.add_argument("--ops", action="store_true",
                    help="also count the ops the importer raised and the graph passes left (a "
                         "second compile with --print-ir-after)")
    ap.add_argument("--workdir",
                    help="keep the ONNX file and the .so here (default: a temporary directory, "
                         "removed at exit)")
    ap.add_argument("--fresh-pages", action="store_true",
                    help="keep glibc's default malloc thresholds (see bench/README.md)")
    args = ap.parse_args()

    # One environment for everything: OpenMP threads for Decoda's model and the roofline probe,
    # the malloc settings (ORT's Node process inherits both; it sizes its own thread pool from
    # intraOpNumThreads). OMP_NUM_THREADS must be set before libomp starts.
    env = dict(os.environ, OMP_NUM_THREADS=str(args.threads))
    if not args.fresh_pages:
        env["GLIBC_TUNABLES"] = MALLOC_TUNABLES
    if any(os.environ.get(k) != v for k, v in env.items()):
        os.execve(sys.executable, [sys.executable, *sys.argv], env)

    if args.hidden % HEAD_DIM:
        ap.error(f"--hidden must be a multiple of the head dim {HEAD_DIM}")
    d = dims(args.hidden)
    seqs = [t for t in (args.seq or [128, 512]) if t > 0]
    if args.workdir:
        work = Path(args.workdir)
        work.mkdir(parents=True, exist_ok=True)
    else:  # about 500 MB (model, .so): removed at exit
        work = Path(tempfile.mkdtemp(prefix="decoda-onnx-"))
        atexit.register(shutil.rmtree, work, ignore_errors=True)

    peak, bw, omp_threads = cpu_block.roofline(work)
    print(f"machine: {os.cpu_count()} cores; roofline ({omp_threads} OpenMP threads): peak "
          f"{peak:.1f} GFLOP/s fp32 FMA, read {bw:.1f} GB/s; load average "
          f"{os.getloadavg()[0]:.2f}")
    print(f"threads: ORT intra-op {args.threads}, Decoda OMP_NUM_THREADS={args.threads}; "
          "malloc: " + ("glibc defaults" if args.fresh_pages else "GLIBC_TUNABLES=" +
                        MALLOC_TUNABLES))
    print(f"block: hidden {d['hidden']}, {d['heads']} query heads / {d['kv_heads']} KV heads of "
          f"{d['head_dim']}, MLP {d['ffn']}, RoPE theta {THETA:g}, RMSNorm eps {EPS:g}, fp32")

    onnx_path = work / "llama32_1b_block.onnx"
    t0 = time.perf_counter()
    mb = write_model(onnx_path, d)
    print(f"wrote {onnx_path} + .data ({mb:.0f} MB, external data) in "
          f"{time.perf_counter() - t0:.1f} s", flush=True)

    so = work / "llama32_1b_block.so"
    ct, cmem = compile_measured(onnx_path, so, args.compile_timeout, args.compile_mem_gb)
    print(f"decoda-compile: {ct:.1f} s wall, peak RSS {cmem:.2f} GB, .so "
          f"{so.stat().st_size / 1e6:.0f} MB", flush=True)
    if ct > 600 or cmem > 12:
        print("NOTE: decoda-compile is beyond what the benchmark issue calls reasonable "
              "(10 min, 12 GB) on this model")

    model = runtime.load(str(so))
    entry = model.signature("main")
    assert [s.name for s in entry.inputs] == ["hidden_states", "position_ids"], entry
    ort = OrtSession(onnx_path, threads=args.threads, optimization="all")

    rng = np.random.default_rng(0)
    rows = []
    failed = False
    rounds = max(1, min(args.rounds, args.runs))
    per_round = max(1, -(-args.runs // rounds))
    for T in seqs:
        h = rng.standard_normal((1, T, d["hidden"]), dtype=np.float32)
        pos = np.arange(T, dtype=np.int64)[None, :]
        feeds = {"hidden_states": h, "position_ids": pos}

        ok, err = agrees(f"T={T}", model.run("main", h, pos), ort.run(feeds)["y"], args.rtol,
                         args.atol)
        if not ok:
            failed = True
            continue

        dec_t, ort_t, paired = time_both(model, h, pos, feeds, ort, args, rounds, per_round)
        dm, om = statistics.median(dec_t), statistics.median(ort_t)
        fl = flops(T, d)
        if d["hidden"] == cpu_block.D:
            assert abs(fl - cpu_block.proj_flops(T) - cpu_block.attn_flops(T)) < 1, "FLOP count"
        g = fl / dm / 1e9
        rows.append((T, dm, min(dec_t), om, min(ort_t), paired, g, err))
        print(f"T={T}: decoda {dm * 1e3:8.2f} ms [min {min(dec_t) * 1e3:.2f}]  ORT "
              f"{om * 1e3:8.2f} ms [min {min(ort_t) * 1e3:.2f}]  decoda/ORT time {dm / om:.2f} "
              f"(per round {paired:.2f}, best runs {min(dec_t) / min(ort_t):.2f}; > 1: ORT "
              f"faster)  decoda "
              f"{g:.1f} GFLOP/s = {100 * g / peak:.1f}% of peak (ORT {fl / om / 1e9:.1f} "
              "GFLOP/s)", flush=True)
    decode_rows = []
    if args.decode:
        decode_rows, dec_failed = time_decode(args, onnx_path, work, d, ort, rounds, per_round)
        failed = failed or dec_failed
    ort.close()

    peak2, _, _ = cpu_block.roofline(work)
    print(f"roofline again after the timings: peak {peak2:.1f} GFLOP/s (before: {peak:.1f}); load "
          f"average {os.getloadavg()[0]:.2f}")
    if abs(peak2 - peak) > 0.2 * max(peak, peak2):
        print("WARNING: the machine's load changed during the run (peak moved by more than 20%); "
              "ratios to peak are unreliable, Decoda/ORT less so (the two alternate)")
    print(f"\nsummary (medians of {per_round * rounds} runs after {args.warmup} warm-up, "
          f"{args.threads} threads, peak {peak:.1f} GFLOP/s before / {peak2:.1f} after, "
          f"decoda-compile {ct:.1f} s / {cmem:.2f} GB):")
    print("| T | Decoda median [min] | ORT median [min] | Decoda / ORT time (per round) | "
          "Decoda GFLOP/s | of peak | max abs err |")
    print("|---|---|---|---|---|---|---|")
    for T, dm, dmin, om, omin, paired, g, err in rows:
        print(f"| {T} | {dm * 1e3:.1f} ms [{dmin * 1e3:.1f}] | {om * 1e3:.1f} ms "
              f"[{omin * 1e3:.1f}] | {dm / om:.2f} ({paired:.2f}) | {g:.1f} | "
              f"{100 * g / peak:.1f}% | {err:.1e} |")
    if decode_rows:
        print(f"\ndecode, one token at batch 1 (read bandwidth {bw:.1f} GB/s):")
        print("| build | Decoda median [min] | ORT median [min] | Decoda / ORT time (per round) | "
              "weights | Decoda GB/s | of read bandwidth | max abs err |")
        print("|---|---|---|---|---|---|---|---|")
        for label, dm, dmin, om, omin, paired, wbytes, err in decode_rows:
            print(f"| {label} | {dm * 1e3:.2f} ms [{dmin * 1e3:.2f}] | {om * 1e3:.2f} ms "
                  f"[{omin * 1e3:.2f}] | {dm / om:.2f} ({paired:.2f}) | {wbytes / 1e6:.0f} MB | "
                  f"{wbytes / dm / 1e9:.1f} | {100 * wbytes / dm / 1e9 / bw:.0f}% | {err:.1e} |")
    if args.ops:
        print()
        for label, counts in raised_ops(onnx_path, work).items():
            print(f"ops {label}: " + ", ".join(f"{v} {k}" for k, v in sorted(counts.items())))
    if failed:
        sys.exit("FAIL: Decoda's output differs from ONNX Runtime's beyond the tolerance")


if __name__ == "__main__":
    main()
