# RUN: %PYTHON %s
"""decoda.cached_attention compiled for the CPU: a prefill (in one or two chunks) followed by
single-token decode steps, each call taking the caches the previous one returned, equals full
causal attention over all the tokens (reference.attention) — with GQA, MQA, a sliding window,
sinks, chunking and a softcap, in f32, f16 and bf16. The caches start as garbage: every written
entry must equal the new key/value exactly and every other entry must be left as it was. A write
past the cache (offset + T > S, or offset < 0) comes back from the runtime as a DecodaError that
names the op, and the model keeps working afterwards."""

import os
import sys
import zlib

sys.path.insert(0, os.path.dirname(__file__))
from harness import (CompiledModule, R, attention_attrs, check, module, np,  # noqa: E402
                     tensor_type, testing)
from decoda.runtime import DecodaError  # noqa: E402

B, S = 2, 24          # batch, cache capacity
PREFILL, STEPS = 11, 7  # prompt tokens, decode steps (11 + 7 = 18 < S: the tail stays garbage)


class Config:
    def __init__(self, name, hq, hkv, d=16, dv=None, *, window=None, chunk=None, softcap=None,
                 sinks=False, dtypes=("f32",)):
        self.name, self.hq, self.hkv, self.d, self.dv = name, hq, hkv, d, dv or d
        self.window, self.chunk, self.softcap, self.sinks = window, chunk, softcap, sinks
        self.dtypes = dtypes

    def attrs(self):
        return attention_attrs(self.hq, self.hkv, causal=True, window=self.window,
                               chunk=self.chunk, softcap=self.softcap)

    def function(self, fn, t, dtype):
        """`<fn>_<name>_<dtype>`: (q, k, v, key_cache, value_cache, offset[, sinks]) ->
        (out, key_cache', value_cache'); `t` new tokens (None: dynamic)."""
        qs, ks, vs = (B, t, self.hq, self.d), (B, t, self.hkv, self.d), (B, t, self.hkv, self.dv)
        kcs, vcs = (B, S, self.hkv, self.d), (B, S, self.hkv, self.dv)
        args = [("q", qs, dtype), ("k", ks, dtype), ("v", vs, dtype), ("key_cache", kcs, dtype),
                ("value_cache", vcs, dtype), ("offset", (), "i64")]
        sinks = ""
        if self.sinks:
            args.append(("sinks", (self.hq,), "f32"))
            sinks = f" sinks(%sinks : {tensor_type((self.hq,), 'f32')})"
        t_ = lambda s: tensor_type(s, dtype)  # noqa: E731
        body = f"""
  %off64 = tensor.extract %offset[] : tensor<i64>
  %off = arith.index_cast %off64 : i64 to index
  %o, %kc, %vc = decoda.cached_attention %q, %k, %v, %key_cache, %value_cache[%off]{sinks}
      {self.attrs()} : {t_(qs)}, {t_(ks)}, {t_(vs)}, {t_(kcs)}, {t_(vcs)}
  return %o, %kc, %vc : {t_((B, t, self.hq, self.dv))}, {t_(kcs)}, {t_(vcs)}"""
        results = [("out", (B, t, self.hq, self.dv), dtype), ("key_cache_out", kcs, dtype),
                   ("value_cache_out", vcs, dtype)]
        return module(f"{fn}_{self.name}_{dtype}", args, results, body), [d for _, _, d in args]


CONFIGS = [
    Config("gqa", 8, 2, dtypes=("f32", "f16")),
    Config("gqa_window", 8, 2, window=5),
    Config("mqa_sinks", 4, 1, dv=24, sinks=True),
    Config("gqa_window_sinks", 4, 2, window=6, sinks=True, dtypes=("f32", "bf16")),
    Config("mha_chunk_softcap", 4, 4, chunk=8, softcap=6.0),
]
# Static single-token entries (the decode steps of these run through them; the others decode
# through their dynamic-T step entry with T = 1).
DECODE = [("gqa", "f32"), ("gqa_window_sinks", "f32")]

_MODEL = {}


def _model():
    """One compiled module: a dynamic-T `step` entry per configuration and dtype, and static
    single-token `decode` entries for DECODE."""
    if "error" in _MODEL:
        raise _MODEL["error"]     # compiled once: a failed compile is not repeated per test
    if not _MODEL:
        texts, sigs = [], {}
        for c in CONFIGS:
            for dt in c.dtypes:
                for fn, t in (("step", None), ("decode", 1)):
                    if fn == "decode" and (c.name, dt) not in DECODE:
                        continue
                    text, dts = c.function(fn, t, dt)
                    texts.append(text)
                    sigs[(fn, c.name, dt)] = dts
        try:
            mod = CompiledModule("\n".join(texts), name="cached_attention")
        except Exception as e:
            _MODEL["error"] = e
            raise
        for (fn, name, dt), dts in sigs.items():
            _MODEL[(fn, name, dt)] = mod.entry(f"{fn}_{name}_{dt}", dts, [dt] * 3)
    return _MODEL


def _tokens(gen, c, n, dtype):
    return (testing.randn(gen, (B, n, c.hq, c.d), dtype),
            testing.randn(gen, (B, n, c.hkv, c.d), dtype),
            testing.randn(gen, (B, n, c.hkv, c.dv), dtype))


def _sinks(gen, c):
    return [gen.uniform(-1.0, 3.0, size=(c.hq,)).astype(np.float32)] if c.sinks else []


def _check_caches(kc, vc, k_all, v_all, kc0, vc0, filled, dtype, what):
    ek, ev = np.array(kc0, np.float32), np.array(vc0, np.float32)
    ek[:, :filled] = np.asarray(k_all[:, :filled], np.float32)
    ev[:, :filled] = np.asarray(v_all[:, :filled], np.float32)
    testing.assert_equal(np.asarray(kc, np.float32), ek, op="cached_attention",
                         what=f"{what} key cache")
    testing.assert_equal(np.asarray(vc, np.float32), ev, op="cached_attention",
                         what=f"{what} value cache")


def _run_sequence(c, dtype, chunks):
    """Prefill in `chunks` (token counts), then STEPS decode steps; returns nothing, checks all."""
    fns = _model()
    step = fns[("step", c.name, dtype)]
    decode = fns.get(("decode", c.name, dtype), step)
    gen = testing.rng(zlib.crc32(f"{c.name} {dtype} {chunks}".encode()))
    total = sum(chunks) + STEPS
    q_all, k_all, v_all = _tokens(gen, c, total, dtype)
    sinks = _sinks(gen, c)
    # Garbage caches: nothing past the written prefix may be read or changed.
    kc0 = testing.randn(gen, (B, S, c.hkv, c.d), dtype, scale=100.0)
    vc0 = testing.randn(gen, (B, S, c.hkv, c.dv), dtype, scale=100.0)
    kc, vc = kc0, vc0
    outs, off = [], 0
    label = f" {c.name} {dtype} prefill {'+'.join(map(str, chunks))}"
    for n in list(chunks) + [1] * STEPS:
        fn = decode if (n == 1 and off >= sum(chunks)) else step
        sl = slice(off, off + n)
        kc_in, vc_in = kc, vc
        saved = (kc_in.copy(), vc_in.copy())
        o, kc, vc = fn(q_all[:, sl], k_all[:, sl], v_all[:, sl], kc_in, vc_in,
                       np.array(off, np.int64), *sinks)
        # Inputs are read-only for the model (docs/ABI.md): the caches passed in are unchanged.
        testing.assert_equal(kc_in, saved[0], op="cached_attention",
                             what=f"{label}: the input key cache after the call at {off}")
        testing.assert_equal(vc_in, saved[1], op="cached_attention",
                             what=f"{label}: the input value cache after the call at {off}")
        # Per call: the op's own reference on the caches that went in.
        ro, _, _ = R.cached_attention(q_all[:, sl], k_all[:, sl], v_all[:, sl], kc_in, vc_in, off,
                                      num_heads=c.hq, num_kv_heads=c.hkv, causal=True,
                                      window=c.window, chunk_size=c.chunk, softcap=c.softcap,
                                      sinks=sinks[0] if sinks else None, storage=dtype)
        check("cached_attention", o, ro, dtype, what=f"{label}: call at offset {off}, T={n}")
        off += n
        _check_caches(kc, vc, k_all, v_all, kc0, vc0, off, dtype, f"{label} after offset {off}")
        outs.append(o)
    full = R.attention(q_all, k_all, v_all, num_heads=c.hq, num_kv_heads=c.hkv, causal=True,
                       window=c.window, chunk_size=c.chunk, softcap=c.softcap,
                       sinks=sinks[0] if sinks else None, storage=dtype)
    check("cached_attention", np.concatenate(outs, axis=1), full, dtype,
          what=f"{label} + {STEPS} decode steps vs full causal attention over {total} tokens")


def test_prefill_then_decode():
    for c in CONFIGS:
        for dt in c.dtypes:
            _run_sequence(c, dt, [PREFILL])


def test_chunked_prefill_then_decode():
    for c in CONFIGS:
        _run_sequence(c, "f32", [7, 4])


def test_write_past_the_cache_is_an_error():
    fns = _model()
    c = CONFIGS[0]
    step, decode = fns[("step", c.name, "f32")], fns[("decode", c.name, "f32")]
    gen = testing.rng(3)
    kc = testing.randn(gen, (B, S, c.hkv, c.d), "f32")
    vc = testing.randn(gen, (B, S, c.hkv, c.dv), "f32")
    for fn, n, off, what in ((step, 2, S - 1, "offset + T = S + 1"),
                             (step, S + 1, 0, "T > S"),
                             (decode, 1, S, "decode at offset = S"),
                             (decode, 1, -1, "offset < 0")):
        q, k, v = _tokens(gen, c, n, "f32")
        try:
            fn(q, k, v, kc, vc, np.array(off, np.int64))
        except DecodaError as e:
            msg = str(e)
            testing.check("decoda.cached_attention" in msg,
                          f"{what}: the error does not name the op: {msg!r}")
            testing.check(e.status == "RUNTIME", f"{what}: status {e.status}, expected RUNTIME")
        else:
            testing.check(False, f"{what}: writing past the cache did not raise DecodaError")
    # The model still works, and the last slot of the cache can be written.
    q, k, v = _tokens(gen, c, 1, "f32")
    o, kc2, _ = decode(q, k, v, kc, vc, np.array(S - 1, np.int64))
    ro, rkc, _ = R.cached_attention(q, k, v, kc, vc, S - 1, num_heads=c.hq, num_kv_heads=c.hkv,
                                    causal=True)
    check("cached_attention", o, ro, "f32", what=" decode into the last slot after errors")
    testing.assert_equal(kc2, rkc, op="cached_attention", what="key cache after the last slot")



def test_decode_steps_over_long_contexts():
    """Single-token steps run their key loop with the CPU pipeline's decode tile
    (decoda-lower-to-cpu{attention-decode-key-tile=1024}): contexts below one tile (the peeled
    remainder alone), of exactly one tile and above it (a loop step + the remainder), with GQA
    and a sliding window that starts the loop past 0, against reference.cached_attention."""
    cap = 1100
    for name, window in (("gqa_long", None), ("gqa_long_window", 700)):
        c = Config(name, 4, 2, d=32, window=window)
        qs, ks = (1, 1, c.hq, c.d), (1, 1, c.hkv, c.d)
        cs = (1, cap, c.hkv, c.d)
        args = [("q", qs, "f32"), ("k", ks, "f32"), ("v", ks, "f32"), ("key_cache", cs, "f32"),
                ("value_cache", cs, "f32"), ("offset", (), "i64")]
        t_ = lambda sh: tensor_type(sh, "f32")  # noqa: E731
        text = module("decode", args, [("out", qs, "f32"), ("kc", cs, "f32"), ("vc", cs, "f32")],
                      f"""
  %off64 = tensor.extract %offset[] : tensor<i64>
  %off = arith.index_cast %off64 : i64 to index
  %o, %kc, %vc = decoda.cached_attention %q, %k, %v, %key_cache, %value_cache[%off]
      {c.attrs()} : {t_(qs)}, {t_(ks)}, {t_(ks)}, {t_(cs)}, {t_(cs)}
  return %o, %kc, %vc : {t_(qs)}, {t_(cs)}, {t_(cs)}""")
        entry = CompiledModule(text, name=name).entry("decode", [d for _, _, d in args],
                                                      ["f32"] * 3)
        gen = testing.rng(zlib.crc32(name.encode()))
        kc = testing.randn(gen, cs, "f32")
        vc = testing.randn(gen, cs, "f32")
        for off in (0, 500, 1023, 1024, 1090, cap - 1):
            q, k, v = (testing.randn(gen, qs, "f32"), testing.randn(gen, ks, "f32"),
                       testing.randn(gen, ks, "f32"))
            o, kc2, vc2 = entry(q, k, v, kc, vc, np.array(off, np.int64))
            ro, rkc, rvc = R.cached_attention(q, k, v, kc, vc, off, num_heads=c.hq,
                                              num_kv_heads=c.hkv, causal=True, window=window)
            check("cached_attention", o, ro, "f32", what=f" {name} decode at offset {off}")
            testing.assert_equal(kc2, rkc, op="cached_attention", what=f" {name} key cache")
            testing.assert_equal(vc2, rvc, op="cached_attention", what=f" {name} value cache")


if __name__ == "__main__":
    testing.run_tests(globals())
