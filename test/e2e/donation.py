# RUN: %PYTHON %s
"""Donated inputs (docs/ABI.md): decoda-compile donates the KV-cache arguments of a
cached_attention step to its updated-cache results. Called with donate=True, the model appends
into the caller's arrays (the runtime never copies into them, so their new contents prove the
model wrote there) and returns those very arrays; called without, the inputs stay as they were.
Prefill + decode steps through donated caches equal full causal attention (reference.attention);
every call equals reference.cached_attention on the caches that went in; both ways give the same
bits. Bad donations (an input that is not donatable, a view, two caches in one buffer, a read-only
array) are DecodaErrors naming the input; a failed run-time check with donated caches is reported
and the model keeps working."""

import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
from harness import R, attention_attrs, check, module, np, tensor_type, testing  # noqa: E402
from decoda import runtime  # noqa: E402
from decoda.compiler import compile_mlir  # noqa: E402
from decoda.runtime import DecodaError  # noqa: E402

B, S, HQ, HKV, D = 2, 24, 8, 2, 16
PREFILL, STEPS = 9, 6


def _text():
    t = lambda s: tensor_type(s, "f32")  # noqa: E731
    qs, ks, cs = (B, None, HQ, D), (B, None, HKV, D), (B, S, HKV, D)
    args = [("q", qs, "f32"), ("k", ks, "f32"), ("v", ks, "f32"), ("key_cache", cs, "f32"),
            ("value_cache", cs, "f32"), ("offset", (), "i64")]
    body = f"""
  %off64 = tensor.extract %offset[] : tensor<i64>
  %off = arith.index_cast %off64 : i64 to index
  %o, %kc, %vc = decoda.cached_attention %q, %k, %v, %key_cache, %value_cache[%off]
      {attention_attrs(HQ, HKV, causal=True)} : {t(qs)}, {t(ks)}, {t(ks)}, {t(cs)}, {t(cs)}
  return %o, %kc, %vc : {t(qs)}, {t(cs)}, {t(cs)}"""
    results = [("out", qs, "f32"), ("key_cache_out", cs, "f32"), ("value_cache_out", cs, "f32")]
    return module("step", args, results, body)


_MODELS = {}


def _model(donate_caches=True):
    if donate_caches not in _MODELS:
        flags = () if donate_caches else ("--donate-caches=false",)
        path = compile_mlir(_text(), f"donation_{int(donate_caches)}", flags)
        _MODELS[donate_caches] = runtime.load(str(path))
    return _MODELS[donate_caches]


def _tokens(gen, n):
    return (testing.randn(gen, (B, n, HQ, D), "f32"), testing.randn(gen, (B, n, HKV, D), "f32"),
            testing.randn(gen, (B, n, HKV, D), "f32"))


def test_signature_lists_the_donations():
    testing.check(_model().donations("step") == {"key_cache": "key_cache_out",
                                                  "value_cache": "value_cache_out"},
                  f"donations: {_model().donations('step')}")
    testing.check(_model(False).donations("step") == {},
                  "--donate-caches=false still donates")
    sig = _model().signature("step")
    testing.check([o.name for o in sig.outputs] == ["out", "key_cache_out", "value_cache_out"],
                  "a donated output is still listed as an output")


def test_prefill_then_decode_in_place():
    model, plain = _model(), _model(False)
    gen = testing.rng(11)
    total = PREFILL + STEPS
    q_all, k_all, v_all = _tokens(gen, total)
    kc0 = testing.randn(gen, (B, S, HKV, D), "f32", scale=100.0)  # garbage beyond the tokens
    vc0 = testing.randn(gen, (B, S, HKV, D), "f32", scale=100.0)
    kc, vc = kc0.copy(), vc0.copy()        # donated: updated in place
    pkc, pvc = kc0.copy(), vc0.copy()      # the same steps without donation
    outs, off = [], 0
    for n in [PREFILL] + [1] * STEPS:
        sl = slice(off, off + n)
        before_k, before_v = kc.copy(), vc.copy()
        offset = np.array(off, np.int64)
        o, kc_out, vc_out = model.run("step", q_all[:, sl], k_all[:, sl], v_all[:, sl], kc, vc,
                                      offset, donate=True)
        testing.check(kc_out is kc and vc_out is vc,
                      f"offset {off}: the donated caches are not returned as the outputs")
        ro, rkc, rvc = R.cached_attention(q_all[:, sl], k_all[:, sl], v_all[:, sl], before_k,
                                          before_v, off, num_heads=HQ, num_kv_heads=HKV,
                                          causal=True)
        check("cached_attention", o, ro, "f32", what=f" donated, offset {off}, T={n}")
        testing.assert_equal(kc, rkc, op="cached_attention", what=f"key cache at {off}")
        testing.assert_equal(vc, rvc, op="cached_attention", what=f"value cache at {off}")
        # Not donated (the model donates, the runtime copies): the inputs stay as they were.
        saved = (pkc.copy(), pvc.copy())
        po, pkc2, pvc2 = model.run("step", q_all[:, sl], k_all[:, sl], v_all[:, sl], pkc, pvc,
                                   offset)
        testing.assert_equal(pkc, saved[0], op="cached_attention",
                             what=f"undonated key cache input at {off}")
        testing.assert_equal(pvc, saved[1], op="cached_attention",
                             what=f"undonated value cache input at {off}")
        testing.check(not np.shares_memory(pkc2, pkc), "an undonated output aliases its input")
        testing.assert_equal(po, o, op="cached_attention", what=f"donated vs not at {off}")
        # A model compiled without donation gives the same bits.
        qo, _, _ = plain.run("step", q_all[:, sl], k_all[:, sl], v_all[:, sl], pkc, pvc, offset)
        testing.assert_equal(qo, o, op="cached_attention", what=f"--donate-caches=false at {off}")
        pkc, pvc = pkc2, pvc2
        outs.append(o)
        off += n
    testing.assert_equal(pkc, kc, op="cached_attention", what="final key caches")
    full = R.attention(q_all, k_all, v_all, num_heads=HQ, num_kv_heads=HKV, causal=True)
    check("cached_attention", np.concatenate(outs, axis=1), full, "f32",
          what=f" prefill {PREFILL} + {STEPS} donated decode steps vs full attention")


def _expect_error(fn, status, *needles):
    try:
        fn()
    except DecodaError as e:
        for n in needles:
            testing.check(n in str(e), f"error {str(e)!r} does not mention {n!r}")
        testing.check(e.status == status, f"status {e.status}, expected {status}: {e}")
    else:
        testing.check(False, f"no DecodaError (expected one mentioning {needles})")


def test_bad_donations_are_errors():
    model = _model()
    gen = testing.rng(5)
    q, k, v = _tokens(gen, 1)
    kc = testing.randn(gen, (B, S, HKV, D), "f32")
    vc = testing.randn(gen, (B, S, HKV, D), "f32")
    off = np.array(3, np.int64)
    _expect_error(lambda: model.run("step", q, k, v, kc, vc, off, donate=["q"]), "ARGUMENT",
                  "input 'q' cannot be donated")
    _expect_error(lambda: model.run("step", q, k, v, kc, vc, off, donate=["nope"]), "ARGUMENT",
                  "names no input")
    wide = np.zeros((B, S, HKV, 2 * D), np.float32)
    _expect_error(lambda: model.run("step", q, k, v, wide[..., :D], vc, off, donate=True),
                  "ARGUMENT", "donated input 'key_cache'", "C-contiguous")
    frozen = kc.copy()
    frozen.flags.writeable = False
    _expect_error(lambda: model.run("step", q, k, v, frozen, vc, off, donate=True), "ARGUMENT",
                  "writable")
    # Both caches in one buffer: the C runtime refuses overlapping donated inputs.
    _expect_error(lambda: model.run("step", q, k, v, kc, kc, off, donate=True), "ARGUMENT",
                  "donated input 'key_cache' overlaps input 'value_cache'")
    # A model without donations has nothing to donate.
    _expect_error(lambda: _model(False).run("step", q, k, v, kc, vc, off, donate=["key_cache"]),
                  "ARGUMENT", "cannot be donated")
    # A failed check with donated caches: an error, then the model works on.
    _expect_error(lambda: model.run("step", q, k, v, kc, vc, np.array(S, np.int64),
                                    donate=True), "RUNTIME", "decoda.cached_attention")
    before = kc.copy(), vc.copy()
    o, _, _ = model.run("step", q, k, v, kc, vc, off, donate=True)
    ro, rkc, _ = R.cached_attention(q, k, v, before[0], before[1], 3, num_heads=HQ,
                                    num_kv_heads=HKV, causal=True)
    check("cached_attention", o, ro, "f32", what=" donated step after a failed check")
    testing.assert_equal(kc, rkc, op="cached_attention", what="key cache after a failed check")


if __name__ == "__main__":
    testing.run_tests(globals())
