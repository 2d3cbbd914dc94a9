# RUN: %PYTHON %s
"""decoda.attention compiled for the CPU against the NumPy reference (reference.attention).

MHA, GQA (8 query heads over 2 KV heads), MQA (with Dv != D), causal with Tq < Tk, sliding
window, chunked attention, sinks, logit softcap, segment ids (document masking), an additive
mask (with a fully masked row), an explicit scale, key lengths that are not a multiple of the key
tile; every static case runs with the default key tile and with --attention-key-tile=16. Dynamic
B/Tq/Tk (with the run-time shape checks), f16 and bf16, and a long sequence (T = 2048, one head
of 64) whose peak memory must stay far below one [T, T] score matrix.

Cases share compiled modules (one function per case) to keep compiles few.
"""

import json
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(__file__))
from harness import (CompiledModule, R, attention_attrs, check, module, np, tensor_type,  # noqa: E402
                     testing)
from decoda.runtime import DecodaError  # noqa: E402


class Case:
    """One decoda.attention configuration: shapes [B, Tq, Hq, D] x [B, Tk, Hkv, D|Dv]."""

    def __init__(self, name, b, tq, tk, hq, hkv, d=16, dv=None, *, causal=False, window=None,
                 chunk=None, softcap=None, scale=None, mask=None, seg=False, sinks=False,
                 in_scale=1.0):
        self.name, self.b, self.tq, self.tk, self.hq, self.hkv = name, b, tq, tk, hq, hkv
        self.d, self.dv = d, dv or d
        self.causal, self.window, self.chunk = causal, window, chunk
        self.softcap, self.scale = softcap, scale
        self.mask = mask          # None, or "head" ([1, Hq, Tq, Tk]) / "batch" ([B, 1, Tq, Tk])
        self.seg, self.sinks = seg, sinks
        self.in_scale = in_scale

    def attrs(self):
        return attention_attrs(self.hq, self.hkv, causal=self.causal, window=self.window,
                               chunk=self.chunk, softcap=self.softcap, scale=self.scale)

    def mask_shape(self, b, tq, tk):
        return {"head": (1, self.hq, tq, tk), "batch": (b, 1, tq, tk)}[self.mask]

    def function(self, dtype, dynamic=False):
        """The MLIR function `<name>_<dtype>` (B, Tq, Tk dynamic when `dynamic`)."""
        b, tq, tk = (None, None, None) if dynamic else (self.b, self.tq, self.tk)
        qs, ks, vs = (b, tq, self.hq, self.d), (b, tk, self.hkv, self.d), (b, tk, self.hkv, self.dv)
        args = [("q", qs, dtype), ("k", ks, dtype), ("v", vs, dtype)]
        opt = ""
        if self.mask:
            ms = self.mask_shape(b, tq, tk)
            args.append(("mask", ms, "f32"))
            opt += f" mask(%mask : {tensor_type(ms, 'f32')})"
        if self.seg:
            args.append(("seg", (b, tk), "i64"))
            opt += f" segment_ids(%seg : {tensor_type((b, tk), 'i64')})"
        if self.sinks:
            args.append(("sinks", (self.hq,), "f32"))
            opt += f" sinks(%sinks : {tensor_type((self.hq,), 'f32')})"
        out = (b, tq, self.hq, self.dv)
        types = ", ".join(tensor_type(s, dtype) for s in (qs, ks, vs))
        body = f"""
  %o = decoda.attention %q, %k, %v{opt} {self.attrs()} : {types}
  return %o : {tensor_type(out, dtype)}"""
        return module(self.entry(dtype), args, [("o", out, dtype)], body), \
            [d for _, _, d in args]

    def entry(self, dtype):
        return f"{self.name}_{dtype}"

    def inputs(self, gen, dtype, b=None, tq=None, tk=None):
        b = self.b if b is None else b
        tq = self.tq if tq is None else tq
        tk = self.tk if tk is None else tk
        s = self.in_scale
        x = [testing.randn(gen, (b, tq, self.hq, self.d), dtype, scale=s),
             testing.randn(gen, (b, tk, self.hkv, self.d), dtype, scale=s),
             testing.randn(gen, (b, tk, self.hkv, self.dv), dtype)]
        if self.mask:
            m = 2.0 * gen.standard_normal(self.mask_shape(b, tq, tk))
            m[gen.random(m.shape) < 0.2] = -np.inf     # some hidden keys
            m[..., tq // 2, :] = -np.inf                # a row that sees nothing: gives 0
            x.append(m.astype(np.float32))
        if self.seg:
            # Packed documents: sorted ids, 1-3 documents per sequence.
            x.append(np.sort(gen.integers(0, 3, size=(b, tk)), axis=1).astype(np.int64))
        if self.sinks:
            x.append(gen.uniform(-1.0, 3.0, size=(self.hq,)).astype(np.float32))
        return x

    def reference(self, x, dtype):
        q, k, v = x[:3]
        rest = list(x[3:])
        kw = {}
        if self.mask:
            kw["mask"] = rest.pop(0)
        if self.seg:
            kw["segment_ids"] = rest.pop(0)
        if self.sinks:
            kw["sinks"] = rest.pop(0)
        return R.attention(q, k, v, num_heads=self.hq, num_kv_heads=self.hkv, scale=self.scale,
                           causal=self.causal, window=self.window, chunk_size=self.chunk,
                           softcap=self.softcap, storage=dtype, **kw)


# Static f32 cases; Tk = 150 is not a multiple of the default tile (64) nor of 16.
STATIC = [
    Case("mha", 2, 10, 10, 4, 4),
    Case("mha_causal", 2, 10, 10, 4, 4, causal=True),
    Case("gqa", 2, 12, 12, 8, 2, causal=True),
    Case("mqa", 2, 9, 9, 4, 1, d=16, dv=24, causal=True),
    Case("causal_tail", 2, 5, 13, 4, 2, causal=True),
    Case("window_tail", 1, 6, 20, 4, 2, causal=True, window=4),
    Case("window", 2, 20, 20, 4, 2, causal=True, window=5),
    Case("chunk", 1, 14, 14, 4, 4, causal=True, chunk=4),
    Case("chunk_noncausal_tail", 2, 5, 14, 4, 2, chunk=4),
    Case("sinks", 2, 10, 10, 4, 2, causal=True, sinks=True),
    Case("sinks_window_tail", 1, 8, 30, 4, 2, causal=True, window=6, sinks=True),
    Case("softcap", 2, 10, 10, 4, 2, causal=True, softcap=5.0, scale=1.0, in_scale=2.0),
    Case("segments", 2, 12, 12, 4, 2, causal=True, seg=True),
    Case("segments_noncausal_tail", 2, 4, 12, 4, 4, seg=True),
    Case("mask_heads", 2, 6, 9, 4, 2, mask="head"),
    Case("mask_batch_causal", 2, 7, 7, 4, 4, causal=True, mask="batch"),
    Case("scale", 2, 8, 8, 4, 2, causal=True, scale=0.3),
    Case("long_tail", 1, 7, 150, 8, 2, causal=True),
    Case("long_noncausal", 1, 150, 150, 4, 4),
    Case("long_window_sinks", 2, 33, 150, 4, 2, causal=True, window=40, sinks=True),
    Case("long_chunk_segments", 2, 150, 150, 4, 1, causal=True, chunk=32, seg=True),
    Case("everything", 2, 9, 77, 8, 2, causal=True, window=30, chunk=24, softcap=8.0,
         scale=0.2, mask="head", seg=True, sinks=True, in_scale=2.0),
]

# Low-precision cases (f16 and bf16).
LOW = [
    Case("gqa", 2, 12, 12, 8, 2, causal=True),
    Case("mqa_tail", 2, 5, 13, 4, 1, causal=True),
    Case("sinks_window_tail", 1, 8, 30, 4, 2, causal=True, window=6, sinks=True),
    Case("softcap", 2, 10, 10, 4, 2, causal=True, softcap=5.0, scale=1.0, in_scale=2.0),
    Case("segments_mask", 2, 12, 12, 4, 2, causal=True, seg=True, mask="batch"),
    Case("long_tail", 1, 7, 150, 8, 2, causal=True, chunk=64),
]


def _compile(cases, dtypes, flags=(), dynamic=False, name="attention"):
    """One module with a function per (case, dtype); returns {(case name, dtype): entry}."""
    texts, entries = [], {}
    for c in cases:
        for dt in dtypes:
            text, dts = c.function(dt, dynamic)
            texts.append(text)
            entries[(c.name, dt)] = dts
    mod = CompiledModule("\n".join(texts), flags, name)
    return {key: mod.entry(f"{key[0]}_{key[1]}", dts, [key[1]]) for key, dts in entries.items()}


def _run_cases(cases, dtypes, flags, label):
    fns = _compile(cases, dtypes, flags)
    for i, c in enumerate(cases):
        for dt in dtypes:
            x = c.inputs(testing.rng(100 + i), dt)
            (o,) = fns[(c.name, dt)](*x)
            check("attention", o, c.reference(x, dt), dt, what=f" {c.name} {dt} {label}")


def test_static_default_tile():
    _run_cases(STATIC, ["f32"], (), "tile=64")


# The cases whose key ranges span several 16-key tiles, a partial last tile or a skipped prefix.
TILE16 = ["gqa", "window_tail", "sinks_window_tail", "segments", "mask_heads", "long_tail",
          "long_window_sinks", "long_chunk_segments", "everything"]


def test_static_key_tile_16():
    _run_cases([c for c in STATIC if c.name in TILE16], ["f32"], ["--attention-key-tile=16"],
               "tile=16")


def test_f16_bf16():
    _run_cases(LOW, ["f16", "bf16"], (), "")


DYN = [
    Case("dyn_gqa", 0, 0, 0, 8, 2, causal=True),
    Case("dyn_all", 0, 0, 0, 4, 2, causal=True, window=20, sinks=True, seg=True, mask="batch"),
]


def test_dynamic_shapes():
    gqa = _compile(DYN[:1], ["bf16"], dynamic=True)[("dyn_gqa", "bf16")]
    every = _compile(DYN[1:], ["f32"], dynamic=True)[("dyn_all", "f32")]
    shapes = [(1, 1, 1), (2, 5, 5), (2, 3, 70), (1, 70, 70), (3, 1, 129), (2, 64, 128)]
    for c, fn, dt in ((DYN[0], gqa, "bf16"), (DYN[1], every, "f32")):
        for b, tq, tk in shapes:
            x = c.inputs(testing.rng(7 + b + tq + tk), dt, b, tq, tk)
            (o,) = fn(*x)
            check("attention", o, c.reference(x, dt), dt,
                  what=f" {c.name} {dt} B={b} Tq={tq} Tk={tk}")
    # Run-time checks of the dynamic extents come back as errors, not crashes.
    c = DYN[1]
    x = c.inputs(testing.rng(1), "f32", 1, 6, 4)
    _expect_error(every, x, "decoda.attention", "Tq > Tk")
    x = c.inputs(testing.rng(1), "f32", 2, 3, 5)
    x[2] = x[2][:, :4]
    _expect_error(every, x, "decoda.attention", "key/value lengths differ")
    x = c.inputs(testing.rng(1), "f32", 2, 3, 5)
    x[3] = x[3][:, :, :, :4]
    _expect_error(every, x, "decoda.attention", "mask columns != Tk")
    x = c.inputs(testing.rng(1), "f32", 2, 3, 5)
    x[4] = x[4][:, :4]
    _expect_error(every, x, "decoda.attention", "segment_ids length != Tk")
    x = c.inputs(testing.rng(1), "f32", 2, 3, 5)
    x[1] = x[1][:1]
    _expect_error(every, x, "decoda.attention", "key batch != query batch")
    # ... and the model still runs afterwards.
    x = c.inputs(testing.rng(2), "f32", 2, 4, 9)
    (o,) = every(*x)
    check("attention", o, c.reference(x, "f32"), "f32", what=" after failed checks")


def _expect_error(fn, x, needle, what):
    try:
        fn(*x)
    except DecodaError as e:
        testing.check(needle in str(e), f"{what}: error '{e}' does not name {needle}")
        return
    testing.check(False, f"{what}: no DecodaError")


# The long-sequence run happens in a child process whose peak resident set (VmHWM, reset through
# /proc/self/clear_refs just before the run) measures what the run itself touched.
_CHILD = r"""
import json, sys, time
import numpy as np
from decoda import runtime
path, t, out_path = sys.argv[1], int(sys.argv[2]), sys.argv[3]
def status(key):
    for line in open("/proc/self/status"):
        if line.startswith(key + ":"):
            return int(line.split()[1])          # KiB
model = runtime.load(path)
gen = np.random.default_rng(5)
def inputs(n):
    return [gen.standard_normal((1, n, 1, 64)).astype(np.float32) for _ in range(3)]
model.run("long", *inputs(64))                       # warm: code paged in, threads and allocator up
x = inputs(t)
with open("/proc/self/clear_refs", "w") as f:        # reset the peak (VmHWM) to the current RSS
    f.write("5")
before = status("VmRSS")
start = time.perf_counter()
o = model.run("long", *x)
seconds = time.perf_counter() - start
peak = status("VmHWM")
np.savez(out_path, q=x[0], k=x[1], v=x[2], o=o)
print(json.dumps({"grew_kib": peak - before, "seconds": seconds}))
"""


def test_long_sequence_memory():
    t = 2048
    text = module("long", [("q", (1, None, 1, 64), "f32"), ("k", (1, None, 1, 64), "f32"),
                           ("v", (1, None, 1, 64), "f32")],
                  [("o", (1, None, 1, 64), "f32")], f"""
  %o = decoda.attention %q, %k, %v {{num_heads = 1 : i64, num_kv_heads = 1 : i64, causal}}
      : {tensor_type((1, None, 1, 64), 'f32')}, {tensor_type((1, None, 1, 64), 'f32')},
        {tensor_type((1, None, 1, 64), 'f32')}
  return %o : {tensor_type((1, None, 1, 64), 'f32')}""")
    mod = CompiledModule(text, name="long")
    out_path = str(mod.path.with_suffix(".npz"))
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (
        os.path.join(os.path.dirname(__file__), "..", "..", "python"),
        env.get("PYTHONPATH", "")) if p)
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, "-c", _CHILD, str(mod.path), str(t), out_path],
                          capture_output=True, text=True, env=env)
    wall = time.perf_counter() - start
    testing.check(proc.returncode == 0,
                  f"long attention T={t} failed ({proc.returncode}): {proc.stderr[-2000:]}")
    info = json.loads(proc.stdout.strip().splitlines()[-1])
    score_matrix_kib = t * t * 4 // 1024
    print(f"  T={t}: run {info['seconds']:.2f} s, child {wall:.2f} s, peak memory grew "
          f"{info['grew_kib']} KiB (one [T, T] f32 score matrix: {score_matrix_kib} KiB)")
    # Under the sanitizer build (ASan preloaded, docs/Reliability.md) redzones and the free
    # quarantine change the footprint; the bound is checked in the ordinary build.
    if "asan" not in os.environ.get("LD_PRELOAD", ""):
        testing.check(info["grew_kib"] < score_matrix_kib // 2,
                      f"T={t}: peak memory grew {info['grew_kib']} KiB during the run, not far "
                      f"below one [T, T] score matrix ({score_matrix_kib} KiB)")
    testing.check(info["seconds"] < 3.0, f"T={t}: the run took {info['seconds']:.2f} s (> 3 s)")
    data = np.load(out_path)
    ref = R.attention(data["q"], data["k"], data["v"], causal=True, storage="f32")
    check("attention", data["o"], ref, "f32", what=f" T={t} one head of 64")


if __name__ == "__main__":
    testing.run_tests(globals())
