# RUN: %PYTHON %s
"""Prefill and decode entry points (docs/ABI.md): for a Llama-style block with a KV cache (RMSNorm,
Q/K/V projections, RoPE at positions offset + i, GQA cached attention, output projection,
residuals, SwiGLU MLP), decoda-compile emits `block` (dynamic query length: prefill) and
`block_decode` (one token, static shapes). prefill(T) through `block`, then N single-token steps
through `block_decode`, with the caches donated and updated in place, equals the NumPy reference
of the block over all T + N tokens at once (python/decoda/reference.py, written from the
formulas). The decode entry takes only one token (a clear SHAPE error otherwise), and
--decode-entries=false emits none."""

import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
from harness import R, check, np, testing  # noqa: E402
from decoda import runtime  # noqa: E402
from decoda.compiler import compile_mlir  # noqa: E402
from decoda.runtime import DecodaError  # noqa: E402

D, H, KVH, HD, F, S = 64, 4, 2, 16, 96, 32
THETA, EPS = 10000.0, 1e-5
PREFILL, STEPS = 7, 5
WEIGHTS = [("attn_norm", (D,)), ("wq", (H * HD, D)), ("wk", (KVH * HD, D)),
           ("wv", (KVH * HD, D)), ("wo", (D, H * HD)), ("mlp_norm", (D,)), ("w_gate", (F, D)),
           ("w_up", (F, D)), ("w_down", (D, F))]


def t(shape, et="f32"):
    return "tensor<" + "x".join("?" if d is None else str(d) for d in shape) + \
        ("x" if shape else "") + et + ">"


def block_text():
    T = None
    cache = t((1, S, KVH, HD))
    args = ([f'%h: {t((1, T, D))} {{decoda.name = "h"}}',
             f'%pos: {t((1, T), "i64")} {{decoda.name = "positions"}}'] +
            [f'%{n}: {t(s)} {{decoda.name = "{n}"}}' for n, s in WEIGHTS] +
            [f'%kc: {cache} {{decoda.name = "key_cache"}}',
             f'%vc: {cache} {{decoda.name = "value_cache"}}',
             '%offset: tensor<i64> {decoda.name = "offset"}'])
    res = (f'{t((1, T, D))} {{decoda.name = "out"}}, {cache} {{decoda.name = "key_cache_out"}}, '
           f'{cache} {{decoda.name = "value_cache_out"}}')
    return f"""func.func @block({", ".join(args)}) -> ({res}) {{
  %c1 = arith.constant 1 : index
  %n = tensor.dim %h, %c1 : {t((1, T, D))}
  %x = decoda.rms_norm %h, %attn_norm {{eps = {EPS:.6e} : f64}} : {t((1, T, D))}, {t((D,))}
  %q2 = decoda.linear %x, %wq : {t((1, T, D))}, {t((H * HD, D))}
  %k2 = decoda.linear %x, %wk : {t((1, T, D))}, {t((KVH * HD, D))}
  %v2 = decoda.linear %x, %wv : {t((1, T, D))}, {t((KVH * HD, D))}
  %q = tensor.expand_shape %q2 [[0], [1], [2, 3]] output_shape [1, %n, {H}, {HD}]
      : {t((1, T, H * HD))} into {t((1, T, H, HD))}
  %k = tensor.expand_shape %k2 [[0], [1], [2, 3]] output_shape [1, %n, {KVH}, {HD}]
      : {t((1, T, KVH * HD))} into {t((1, T, KVH, HD))}
  %v = tensor.expand_shape %v2 [[0], [1], [2, 3]] output_shape [1, %n, {KVH}, {HD}]
      : {t((1, T, KVH * HD))} into {t((1, T, KVH, HD))}
  %qr = decoda.rope %q positions(%pos : {t((1, T), "i64")}) {{theta = {THETA} : f64}}
      : {t((1, T, H, HD))}
  %kr = decoda.rope %k positions(%pos : {t((1, T), "i64")}) {{theta = {THETA} : f64}}
      : {t((1, T, KVH, HD))}
  %p = tensor.extract %offset[] : tensor<i64>
  %off = arith.index_cast %p : i64 to index
  %o, %kc2, %vc2 = decoda.cached_attention %qr, %kr, %v, %kc, %vc[%off]
      {{num_heads = {H} : i64, num_kv_heads = {KVH} : i64, causal}}
      : {t((1, T, H, HD))}, {t((1, T, KVH, HD))}, {t((1, T, KVH, HD))}, {cache}, {cache}
  %o2 = tensor.collapse_shape %o [[0], [1], [2, 3]] : {t((1, T, H, HD))} into {t((1, T, H * HD))}
  %attn = decoda.linear %o2, %wo : {t((1, T, H * HD))}, {t((D, H * HD))}
  %u = decoda.residual_add %h, %attn : {t((1, T, D))}
  %y = decoda.rms_norm %u, %mlp_norm {{eps = {EPS:.6e} : f64}} : {t((1, T, D))}, {t((D,))}
  %m = decoda.gated_mlp %y, %w_gate, %w_up, %w_down {{kind = #decoda.glu<swiglu>}}
      : {t((1, T, D))}, {t((F, D))}, {t((F, D))}, {t((D, F))}
  %out = decoda.residual_add %u, %m : {t((1, T, D))}
  return %out, %kc2, %vc2 : {t((1, T, D))}, {cache}, {cache}
}}
"""


def reference_block(h, w, positions):
    """The block over all tokens at once, causal attention from the formulas."""
    x = R.rms_norm(h, w["attn_norm"], EPS)
    n = h.shape[1]
    q = R.linear(x, w["wq"]).reshape(1, n, H, HD)
    k = R.linear(x, w["wk"]).reshape(1, n, KVH, HD)
    v = R.linear(x, w["wv"]).reshape(1, n, KVH, HD)
    q, k = R.rope(q, positions, THETA), R.rope(k, positions, THETA)
    o = R.attention(q, k, v, num_heads=H, num_kv_heads=KVH, causal=True).reshape(1, n, H * HD)
    u = R.residual_add(h, R.linear(o, w["wo"]))
    y = R.rms_norm(u, w["mlp_norm"], EPS)
    return R.residual_add(u, R.gated_mlp(y, w["w_gate"], w["w_up"], w["w_down"], "swiglu"))


_MODEL = {}


def _model(flags=()):
    key = tuple(flags)
    if key not in _MODEL:
        path = compile_mlir(block_text(), "block" + str(len(_MODEL)), flags)
        _MODEL[key] = runtime.load(str(path))
    return _MODEL[key]


def _weights(gen):
    w = {n: testing.randn(gen, s, "f32", scale=1.0 / np.sqrt(s[-1])) for n, s in WEIGHTS}
    w["attn_norm"] = 1.0 + 0.1 * testing.randn(gen, (D,), "f32")
    w["mlp_norm"] = 1.0 + 0.1 * testing.randn(gen, (D,), "f32")
    return w


def test_entries_and_signatures():
    model = _model()
    testing.check(model.entries == ("block", "block_decode"), f"entries {model.entries}")
    dec = model.signature("block_decode")
    shapes = {s.name: s.shape for s in dec.inputs}
    testing.check(shapes["h"] == (1, 1, D) and shapes["positions"] == (1, 1),
                  f"block_decode takes one token: {shapes}")
    testing.check(shapes["key_cache"] == (1, S, KVH, HD), f"cache shape {shapes['key_cache']}")
    testing.check(model.signature("block").inputs[0].shape == (1, -1, D),
                  "block keeps the dynamic query length")
    for e in model.entries:
        testing.check(model.donations(e) == {"key_cache": "key_cache_out",
                                             "value_cache": "value_cache_out"},
                      f"{e}: donations {model.donations(e)}")
    testing.check(_model(["--decode-entries=false"]).entries == ("block",),
                  "--decode-entries=false still adds a decode entry")


def test_prefill_then_decode_equals_full_forward():
    model = _model()
    gen = testing.rng(2024)
    w = _weights(gen)
    wl = [w[n] for n, _ in WEIGHTS]
    total = PREFILL + STEPS
    h = testing.randn(gen, (1, total, D), "f32")
    positions = np.arange(total, dtype=np.int64)[None, :]
    kc = testing.randn(gen, (1, S, KVH, HD), "f32", scale=50.0)  # garbage past the tokens
    vc = testing.randn(gen, (1, S, KVH, HD), "f32", scale=50.0)
    outs = []
    o, kc, vc = model.run("block", h[:, :PREFILL], positions[:, :PREFILL], *wl, kc, vc,
                          np.array(0, np.int64), donate=True)
    outs.append(o)
    for i in range(PREFILL, total):
        o, kc2, vc2 = model.run("block_decode", h[:, i:i + 1], positions[:, i:i + 1], *wl, kc,
                                vc, np.array(i, np.int64), donate=True)
        testing.check(kc2 is kc and vc2 is vc, "decode: the caches were not updated in place")
        outs.append(o)
    got = np.concatenate(outs, axis=1)
    ref = reference_block(h, w, positions[0])
    check("block", got, ref, "f32", rtol=1e-4, atol=1e-4 * float(np.max(np.abs(ref))),
          what=f": prefill {PREFILL} + {STEPS} decode steps vs the full forward over {total}")
    # The decode entry gives what the dynamic entry gives for T = 1.
    kc_a, vc_a = kc.copy(), vc.copy()
    a, _, _ = model.run("block", h[:, -1:], positions[:, -1:], *wl, kc_a, vc_a,
                        np.array(total - 1, np.int64))
    b, _, _ = model.run("block_decode", h[:, -1:], positions[:, -1:], *wl, kc_a, vc_a,
                        np.array(total - 1, np.int64))
    check("block", b, a, "f32", what=": block_decode vs block at T=1")


def test_decode_entry_takes_one_token():
    model = _model()
    gen = testing.rng(1)
    w = [testing.randn(gen, s, "f32") for _, s in WEIGHTS]
    kc = np.zeros((1, S, KVH, HD), np.float32)
    try:
        model.run("block_decode", np.zeros((1, 2, D), np.float32), np.zeros((1, 2), np.int64),
                  *w, kc, kc.copy(), np.array(0, np.int64))
    except DecodaError as e:
        testing.check(e.status == "SHAPE" and "input 'h'" in str(e) and "[1, 1, 64]" in str(e),
                      f"unexpected error: {e}")
    else:
        testing.check(False, "block_decode accepted two tokens")


if __name__ == "__main__":
    testing.run_tests(globals())
