# RUN: %PYTHON %s
"""INT8 decoda.cached_attention (quantize(q_scale, k_scale, v_scale)) compiled for the CPU: a
prefill (in one or two chunks) followed by single-token decode steps, each call taking the caches
the previous one returned, against reference.cached_attention with the same scales per call, and
the whole sequence against one INT8 reference.attention over all the tokens (K/V are quantised
when read, so the two agree). The caches keep their storage type: every written entry equals the
new float key/value exactly and every other entry is left as it was. GQA, MQA with sinks, a
sliding window, chunks with a softcap, f16 and bf16 storage; Dv = 24 takes the scalar form (the VNNI
kernel needs Dv a multiple of 16), everything else decoda-cpu-int8-attention's kernel. A write
past the cache is a DecodaError naming the op, as in the float form.

Tolerance (as test/e2e/attention_int8.py): integer sums are exact, exp may differ in the last
bit and move one rint(255·p) across a half: every element within 2 · max|v| / 255, at least 98%
within 1e-5 · max|ref| (f16/bf16: within their rounding of max|ref|), and the float attention must be
further away than that."""

import os
import sys
import zlib

sys.path.insert(0, os.path.dirname(__file__))
from harness import (CompiledModule, R, attention_attrs, module, np, tensor_type,  # noqa: E402
                     testing)
from decoda.runtime import DecodaError  # noqa: E402

B, S = 2, 40            # batch, cache capacity
PREFILL, STEPS = 19, 6  # prompt tokens, decode steps (the tail of the cache stays garbage)
QUANT = " quantize(%qs, %ks, %vs : tensor<f32>, tensor<f32>, tensor<f32>)"


class Config:
    def __init__(self, name, hq, hkv, d=16, dv=None, *, window=None, chunk=None, softcap=None,
                 sinks=False, dtype="f32"):
        self.name, self.hq, self.hkv, self.d, self.dv = name, hq, hkv, d, dv or d
        self.window, self.chunk, self.softcap, self.sinks = window, chunk, softcap, sinks
        self.dtype = dtype

    def kw(self):
        return dict(num_heads=self.hq, num_kv_heads=self.hkv, causal=True, window=self.window,
                    chunk_size=self.chunk, softcap=self.softcap)

    def function(self, fn, t):
        dt = self.dtype
        qs, ks, vs = (B, t, self.hq, self.d), (B, t, self.hkv, self.d), (B, t, self.hkv, self.dv)
        kcs, vcs = (B, S, self.hkv, self.d), (B, S, self.hkv, self.dv)
        args = [("q", qs, dt), ("k", ks, dt), ("v", vs, dt), ("key_cache", kcs, dt),
                ("value_cache", vcs, dt), ("offset", (), "i64"), ("qs", (), "f32"),
                ("ks", (), "f32"), ("vs", (), "f32")]
        sinks = ""
        if self.sinks:
            args.append(("sinks", (self.hq,), "f32"))
            sinks = f" sinks(%sinks : {tensor_type((self.hq,), 'f32')})"
        t_ = lambda s: tensor_type(s, dt)  # noqa: E731
        attrs = attention_attrs(self.hq, self.hkv, causal=True, window=self.window,
                                chunk=self.chunk, softcap=self.softcap)
        body = f"""
  %off64 = tensor.extract %offset[] : tensor<i64>
  %off = arith.index_cast %off64 : i64 to index
  %o, %kc, %vc = decoda.cached_attention %q, %k, %v, %key_cache, %value_cache[%off]{sinks}{QUANT}
      {attrs} : {t_(qs)}, {t_(ks)}, {t_(vs)}, {t_(kcs)}, {t_(vcs)}
  return %o, %kc, %vc : {t_((B, t, self.hq, self.dv))}, {t_(kcs)}, {t_(vcs)}"""
        results = [("out", (B, t, self.hq, self.dv), dt), ("key_cache_out", kcs, dt),
                   ("value_cache_out", vcs, dt)]
        return module(f"{fn}_{self.name}", args, results, body), [d for _, _, d in args]


CONFIGS = [
    Config("gqa", 8, 2),
    Config("gqa_window_sinks", 4, 2, d=32, window=6, sinks=True),
    Config("mqa_sinks", 4, 1, dv=32, sinks=True),
    Config("mha_chunk_softcap", 4, 4, chunk=8, softcap=6.0),
    Config("gqa_f16", 8, 2, dtype="f16"),
    Config("gqa_bf16", 8, 2, dtype="bf16"),
    Config("mqa_dv24_scalar", 4, 1, dv=24),
]
DECODE = ("gqa", "gqa_window_sinks")  # also a static single-token entry

_MODEL = {}


def _model():
    if "error" in _MODEL:
        raise _MODEL["error"]
    if not _MODEL:
        texts, sigs = [], {}
        for c in CONFIGS:
            for fn, t in (("step", None), ("decode", 1)):
                if fn == "decode" and c.name not in DECODE:
                    continue
                text, dts = c.function(fn, t)
                texts.append(text)
                sigs[(fn, c.name)] = (dts, c.dtype)
        try:
            mod = CompiledModule("\n".join(texts), ["--decode-entries=false"],
                                 name="cached_attention_int8")
        except Exception as e:
            _MODEL["error"] = e
            raise
        for (fn, name), (dts, dt) in sigs.items():
            _MODEL[(fn, name)] = mod.entry(f"{fn}_{name}", dts, [dt] * 3)
    return _MODEL


def _check_int8(o, ref, flt, v, dtype, what):
    o = np.asarray(o, np.float64)
    ref = np.asarray(ref, np.float64)
    testing.check(o.shape == ref.shape, f"{what}: shape {o.shape} != {ref.shape}")
    err = np.abs(o - ref)
    scale = float(np.abs(ref).max())
    bound = 2 * float(np.abs(np.asarray(v, np.float32)).max()) / 255
    rounding = {"f32": 1e-5, "f16": 2.0 ** -10, "bf16": 2.0 ** -7}[dtype]
    if dtype != "f32":
        bound += scale * rounding
    testing.check(float(err.max()) <= bound,
                  f"{what}: max error {err.max():.3e} above {bound:.3e}")
    tight = rounding * scale
    frac = float(np.mean(err <= tight))
    testing.check(frac >= 0.98, f"{what}: only {100 * frac:.1f}% of the elements within "
                  f"{tight:.1e} of the reference")
    if dtype == "bf16":
        return  # bf16's rounding (2^-8) is coarser than the INT8 error: no contrast to check
    frac_float = float(np.mean(np.abs(np.asarray(flt, np.float64) - ref) <= tight))
    testing.check(frac_float < 0.5, f"{what}: the float attention is as close to the INT8 "
                  f"reference ({100 * frac_float:.1f}%): the test cannot tell them apart")


def _run_sequence(c, chunks):
    fns = _model()
    step = fns[("step", c.name)]
    decode = fns.get(("decode", c.name), step)
    dt = c.dtype
    gen = testing.rng(zlib.crc32(f"int8 {c.name} {chunks}".encode()))
    total = sum(chunks) + STEPS
    q_all = testing.randn(gen, (B, total, c.hq, c.d), dt)
    k_all = testing.randn(gen, (B, total, c.hkv, c.d), dt)
    v_all = testing.randn(gen, (B, total, c.hkv, c.dv), dt)
    scales = [np.array(np.abs(np.asarray(x, np.float32)).max() / 127, np.float32)
              for x in (q_all, k_all, v_all)]
    qsc = dict(q_scale=scales[0], k_scale=scales[1], v_scale=scales[2])
    sinks = ([gen.uniform(-1.0, 3.0, size=(c.hq,)).astype(np.float32)] if c.sinks else [])
    sk = sinks[0] if sinks else None
    kc0 = testing.randn(gen, (B, S, c.hkv, c.d), dt, scale=100.0)
    vc0 = testing.randn(gen, (B, S, c.hkv, c.dv), dt, scale=100.0)
    kc, vc = kc0, vc0
    outs, off = [], 0
    label = f"{c.name} prefill {'+'.join(map(str, chunks))}"
    for n in list(chunks) + [1] * STEPS:
        fn = decode if (n == 1 and off >= sum(chunks)) else step
        sl = slice(off, off + n)
        kc_in, vc_in = kc, vc
        o, kc, vc = fn(q_all[:, sl], k_all[:, sl], v_all[:, sl], kc_in, vc_in,
                       np.array(off, np.int64), *scales, *sinks)
        ro, rkc, rvc = R.cached_attention(q_all[:, sl], k_all[:, sl], v_all[:, sl], kc_in, vc_in,
                                          off, sinks=sk, storage=dt, **qsc, **c.kw())
        fo, _, _ = R.cached_attention(q_all[:, sl], k_all[:, sl], v_all[:, sl], kc_in, vc_in,
                                      off, sinks=sk, storage=dt, **c.kw())
        _check_int8(o, ro, fo, v_all, dt, f"{label}: call at offset {off}, T={n}")
        testing.assert_equal(np.asarray(kc, np.float32), np.asarray(rkc, np.float32),
                             op="cached_attention", what=f"{label}: key cache after {off}")
        testing.assert_equal(np.asarray(vc, np.float32), np.asarray(rvc, np.float32),
                             op="cached_attention", what=f"{label}: value cache after {off}")
        off += n
        outs.append(o)
    full = R.attention(q_all, k_all, v_all, sinks=sk, storage=dt, **qsc, **c.kw())
    flt = R.attention(q_all, k_all, v_all, sinks=sk, storage=dt, **c.kw())
    _check_int8(np.concatenate(outs, axis=1), full, flt, v_all, dt,
                f"{label} + {STEPS} decode steps vs one INT8 attention over {total} tokens")


def test_prefill_then_decode():
    for c in CONFIGS:
        _run_sequence(c, [PREFILL])


def test_chunked_prefill_then_decode():
    for c in CONFIGS[:4]:
        _run_sequence(c, [7, 12])


def test_write_past_the_cache_is_an_error():
    fns = _model()
    c = CONFIGS[0]
    gen = testing.rng(5)
    kc = testing.randn(gen, (B, S, c.hkv, c.d), "f32")
    vc = testing.randn(gen, (B, S, c.hkv, c.dv), "f32")
    one = np.array(0.01, np.float32)
    for fn, n, off, what in ((fns[("step", c.name)], 2, S - 1, "offset + T = S + 1"),
                             (fns[("decode", c.name)], 1, -1, "offset < 0")):
        q = testing.randn(gen, (B, n, c.hq, c.d), "f32")
        k = testing.randn(gen, (B, n, c.hkv, c.d), "f32")
        try:
            fn(q, k, k, kc, vc, np.array(off, np.int64), one, one, one)
        except DecodaError as e:
            testing.check("decoda.cached_attention" in str(e),
                          f"{what}: the error does not name the op: {e}")
        else:
            testing.check(False, f"{what}: writing past the cache did not raise DecodaError")


if __name__ == "__main__":
    testing.run_tests(globals())
