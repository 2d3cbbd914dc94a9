# RUN: %PYTHON %s
"""decoda.mla compiled for the CPU against reference.mla (which decompresses K and V per head;
the lowering absorbs W_UK into the query and W_UV into the output instead), with DeepSeek-V2
shapes scaled down (128 heads -> 4, qk_nope 128 -> 32, qk_rope 64 -> 16, kv_lora_rank 512 -> 64,
v_head 128 -> 32): causal prefill, non-causal, single-token decode over several key tiles, an
explicit scale, dynamic Tq/Tk, --attention-key-tile=16, f32 and bf16; and a cross-check against
compiled decoda.attention on explicitly decompressed K/V."""

import math
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
from harness import CompiledModule, R, check, module, np, tensor_type, testing  # noqa: E402

H, DN, DR, DC, DV = 4, 32, 16, 64, 32


class Case:
    def __init__(self, name, b, tq, tk, *, causal, scale=None):
        self.name, self.b, self.tq, self.tk = name, b, tq, tk
        self.causal, self.scale = causal, scale

    def function(self, dtype, dynamic=False):
        b = self.b
        tq, tk = (None, None) if dynamic else (self.tq, self.tk)
        shapes = [("q_nope", (b, tq, H, DN)), ("q_rope", (b, tq, H, DR)), ("latent", (b, tk, DC)),
                  ("k_rope", (b, tk, DR)), ("w_uk", (H, DN, DC)), ("w_uv", (H, DV, DC))]
        attrs = [f"num_heads = {H} : i64"]
        if self.scale is not None:
            attrs.append(f"scale = {float(self.scale)!r} : f64")
        if self.causal:
            attrs.append("causal")
        types = ", ".join(tensor_type(s, dtype) for _, s in shapes)
        out = (b, tq, H, DV)
        body = f"""
  %o = decoda.mla %q_nope, %q_rope, %latent, %k_rope, %w_uk, %w_uv {{{", ".join(attrs)}}}
      : {types}
  return %o : {tensor_type(out, dtype)}"""
        return module(f"{self.name}_{dtype}", [(n, s, dtype) for n, s in shapes],
                      [("o", out, dtype)], body)

    def inputs(self, gen, dtype, tq=None, tk=None):
        tq = self.tq if tq is None else tq
        tk = self.tk if tk is None else tk
        b = self.b
        w = 1.0 / math.sqrt(DC)
        return [testing.randn(gen, (b, tq, H, DN), dtype),
                testing.randn(gen, (b, tq, H, DR), dtype),
                testing.randn(gen, (b, tk, DC), dtype),
                testing.randn(gen, (b, tk, DR), dtype),
                testing.randn(gen, (H, DN, DC), dtype, scale=w),
                testing.randn(gen, (H, DV, DC), dtype, scale=w)]

    def reference(self, x, dtype):
        return R.mla(*x, num_heads=H, scale=self.scale, causal=self.causal, storage=dtype)


CASES = [
    Case("prefill_causal", 2, 12, 12, causal=True),
    Case("noncausal", 2, 12, 12, causal=False),
    Case("noncausal_tail", 2, 5, 12, causal=False),
    Case("chunked_prefill_causal", 1, 6, 20, causal=True),
    Case("decode", 2, 1, 70, causal=True),
    Case("long_tail_causal", 1, 9, 150, causal=True),
    Case("scale", 2, 10, 10, causal=True, scale=0.1),
]
LOW = ["prefill_causal", "noncausal_tail", "decode", "long_tail_causal"]


TILE16 = ["chunked_prefill_causal", "decode", "long_tail_causal"]


def _compile(cases, flags=(), extra=""):
    texts, keys = [extra], []
    for c in cases:
        for dt in ("f32", "bf16") if c.name in LOW else ("f32",):
            texts.append(c.function(dt))
            keys.append((c.name, dt))
    mod = CompiledModule("\n".join(texts), flags, "mla")
    return mod, {k: mod.entry(f"{k[0]}_{k[1]}", [k[1]] * 6, [k[1]]) for k in keys}


def _run(fns, label):
    for (name, dt), fn in fns.items():
        c = next(c for c in CASES if c.name == name)
        x = c.inputs(testing.rng(len(name) * 31 + len(dt)), dt)
        (o,) = fn(*x)
        check("mla", o, c.reference(x, dt), dt, what=f" {name} {dt}{label}")


def _attention_on_decompressed(c):
    """decoda.attention over explicitly decompressed K/V with MLA's shapes (causal, MHA, width
    Dn + Dr), for test_mla_matches_attention_on_decompressed_kv."""
    d = DN + DR
    return module("attn", [("q", (c.b, c.tq, H, d), "f32"), ("k", (c.b, c.tk, H, d), "f32"),
                           ("v", (c.b, c.tk, H, DV), "f32")],
                  [("o", (c.b, c.tq, H, DV), "f32")], f"""
  %o = decoda.attention %q, %k, %v {{num_heads = {H} : i64, num_kv_heads = {H} : i64, causal}}
      : {tensor_type((c.b, c.tq, H, d), 'f32')}, {tensor_type((c.b, c.tk, H, d), 'f32')},
        {tensor_type((c.b, c.tk, H, DV), 'f32')}
  return %o : {tensor_type((c.b, c.tq, H, DV), 'f32')}""")


_DEFAULT = []


def _default():
    if not _DEFAULT:
        _DEFAULT.extend(_compile(CASES, extra=_attention_on_decompressed(CASES[0])))
    return _DEFAULT


def test_mla_default_tile():
    _run(_default()[1], "")


def test_mla_key_tile_16():
    _run(_compile([c for c in CASES if c.name in TILE16], ["--attention-key-tile=16"])[1],
         " tile=16")


def test_mla_dynamic_lengths():
    c = Case("dyn", 2, 0, 0, causal=True)
    fn = CompiledModule(c.function("f32", True), name="mla_dyn").entry("dyn_f32", ["f32"] * 6,
                                                                        ["f32"])
    for tq, tk in ((1, 1), (7, 7), (3, 70), (1, 129), (130, 130)):
        x = c.inputs(testing.rng(tq * 1000 + tk), "f32", tq, tk)
        (o,) = fn(*x)
        check("mla", o, c.reference(x, "f32"), "f32", what=f" dynamic Tq={tq} Tk={tk}")


def test_mla_matches_attention_on_decompressed_kv():
    """The same numbers through decoda.attention on explicitly decompressed K/V (a cross-check
    of the two compiled ops against each other, independent of the reference)."""
    c = CASES[0]
    mod, fns = _default()
    qn, qr, lat, kr, wuk, wuv = c.inputs(testing.rng(11), "f32")
    k = np.concatenate([np.einsum("bjc,hnc->bjhn", lat, wuk),
                        np.broadcast_to(kr[:, :, None, :], (c.b, c.tk, H, DR))], axis=-1)
    v = np.einsum("bjc,hvc->bjhv", lat, wuv)
    q = np.concatenate([qn, qr], axis=-1)
    (o_attn,) = mod.entry("attn", ["f32"] * 3, ["f32"])(q.astype(np.float32),
                                                        k.astype(np.float32),
                                                        v.astype(np.float32))
    (o_mla,) = fns[(c.name, "f32")](qn, qr, lat, kr, wuk, wuv)
    check("mla", o_mla, o_attn, "f32", what=" vs compiled attention on decompressed K/V")


if __name__ == "__main__":
    testing.run_tests(globals())
