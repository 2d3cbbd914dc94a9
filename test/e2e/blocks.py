# RUN: %PYTHON %s
"""Whole decoder blocks written in the decoda dialect (the files in examples/), compiled for the
CPU and run against a composition of reference.py functions:

- Llama pre-norm block (RMSNorm, GQA + RoPE, causal, SwiGLU): examples/llama_block.mlir itself,
  in f32 and (its text retyped) in bf16;
- post-norm block (LayerNorm, MHA, GELU MLP, biases): examples/post_norm_block.mlir;
- SiTU-GLU block (β1 = 4, β2 = 25): examples/situ_glu_block.mlir, plus the bound |h| ≤ β1·β2
  of a lone decoda.glu on inputs of ±1e4;
- clamped SwiGLU + sliding window + attention sinks (gpt-oss style): examples/gpt_oss_block.mlir;
- QK-norm block (Qwen3 style): examples/qk_norm_block.mlir;
- document masking (packed sequences, segment ids, per-document RoPE positions):
  examples/document_masking_block.mlir;
- MLA block with decoupled RoPE (DeepSeek-V2 shapes scaled down): examples/mla_block.mlir;
- mHC: 4 residual streams, 20 Sinkhorn iterations, static and per-token logits:
  examples/mhc_block.mlir;
- MoE: 8 experts, top-2, one shared expert, softmax and sigmoid routers: examples/moe_block.mlir.

Inputs are generated from each function's signature (weights ~ N(0, 1/fan_in), norm weights
~ 1 + N(0, 0.1²), biases ~ N(0, 0.1²)); every block runs at several sequence lengths.
"""

import math
import os
import re
import sys

sys.path.insert(0, os.path.dirname(__file__))
from harness import CompiledModule, R, check, module, np, tensor_type, testing  # noqa: E402

EXAMPLES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "examples")
LENGTHS = (1, 9, 70)   # one token, a short prompt, more than one key tile


def _example(name):
    with open(os.path.join(EXAMPLES, name)) as f:
        return f.read()


def _signature(text, fn):
    """[(name, dims, dtype)] of the arguments of func @fn; dims hold None for '?'."""
    start = text.index(f"func.func @{fn}(")
    header = text[start:text.index(") ->", start)]
    args = []
    for name, ty in re.findall(r"%(\w+): tensor<([^>]+)>", header):
        *dims, dtype = ty.split("x")
        args.append((name, [None if d == "?" else int(d) for d in dims], dtype))
    return args


def _inputs(text, fn, t, gen, dtype="f32", special=None):
    """A dict of inputs for func @fn at sequence length t, in argument order."""
    special = special or {}
    out = {}
    for name, dims, _ in _signature(text, fn):
        shape = tuple(t if d is None else d for d in dims)
        if name in special:
            out[name] = special[name](shape)
        elif name in ("h", "x"):
            out[name] = testing.randn(gen, shape, dtype)
        elif name.endswith("norm") or name.startswith("ln") and name.endswith("_w"):
            out[name] = testing.randn(gen, shape, dtype, mean=1.0, scale=0.1)
        elif name.startswith("b") or name.startswith("ln"):
            out[name] = testing.randn(gen, shape, dtype, scale=0.1)
        else:
            out[name] = testing.randn(gen, shape, dtype, scale=1.0 / math.sqrt(shape[-1]))
    return out


def _heads(x, h):
    b, t, n = x.shape
    return x.reshape(b, t, h, n // h)


def _merge(x):
    b, t = x.shape[:2]
    return x.reshape(b, t, -1)


def _gqa_attention(x, p, hq, hkv, *, theta, st="f32", bias=False, qk_norm=None, positions=None,
                   **attn):
    """q/k/v projections, optional QK-norm, RoPE, attention, output projection."""
    lin = (lambda n, b: R.linear(x, p[n], p[b] if bias else None, storage=st))
    q, k, v = _heads(lin("wq", "bq"), hq), _heads(lin("wk", "bk"), hkv), _heads(lin("wv", "bv"),
                                                                                  hkv)
    if qk_norm:
        q = R.rms_norm(q, p["q_norm"], qk_norm, storage=st)
        k = R.rms_norm(k, p["k_norm"], qk_norm, storage=st)
    if theta is not None:
        q = R.rope(q, positions, theta=theta, storage=st)
        k = R.rope(k, positions, theta=theta, storage=st)
    o = R.attention(q, k, v, num_heads=hq, num_kv_heads=hkv, storage=st, **attn)
    return R.linear(_merge(o), p["wo"], p.get("bo"), storage=st)


def _run_example(text, fn, reference, *, lengths=LENGTHS, special=None, dtype="f32",
                 compiled=None):
    model = compiled or CompiledModule(text, name=fn)
    sig = _signature(text, fn)
    entry = model.entry(fn, [d for _, _, d in sig], [dtype])
    for t in lengths:
        gen = testing.rng(1000 + t)
        p = _inputs(text, fn, t, gen, dtype, special)
        (out,) = entry(*p.values())
        check(fn, out, reference(p), dtype, what=f" T={t}")
    return model


# ------------------------------------------------------------------------------------------------


def _llama_reference(p, st="f32"):
    h = p["h"]
    x = R.rms_norm(h, p["attn_norm"], 1e-5, storage=st)
    attn = _gqa_attention(x, p, 8, 2, theta=5e5, st=st, causal=True)
    u = R.residual_add(h, attn, storage=st)
    y = R.rms_norm(u, p["mlp_norm"], 1e-5, storage=st)
    m = R.gated_mlp(y, p["w_gate"], p["w_up"], p["w_down"], "swiglu", storage=st)
    return R.residual_add(u, m, storage=st)


def test_llama_block():
    _run_example(_example("llama_block.mlir"), "llama_block", _llama_reference)


def test_llama_block_bf16():
    text = _example("llama_block.mlir").replace("xf32>", "xbf16>")
    _run_example(text, "llama_block", lambda p: _llama_reference(p, "bf16"), dtype="bf16",
                 lengths=(9, 70))


def test_post_norm_block():
    def reference(p):
        h = p["h"]
        attn = _gqa_attention(h, p, 4, 4, theta=None, bias=True, causal=True)
        u = R.layer_norm(R.residual_add(h, attn), p["ln1_w"], p["ln1_b"], 1e-5)
        m = R.mlp(u, p["w_up"], p["w_down"], "gelu_erf", p["b_up"], p["b_down"])
        return R.layer_norm(R.residual_add(u, m), p["ln2_w"], p["ln2_b"], 1e-5)
    _run_example(_example("post_norm_block.mlir"), "post_norm_block", reference)


def _pre_norm_reference(p, glu, *, hq=4, hkv=2, theta, eps, attn_kwargs=None, qk_norm=None,
                        positions=None, attn_bias=False):
    h = p["h"]
    x = R.rms_norm(h, p["attn_norm"], eps)
    attn = _gqa_attention(x, p, hq, hkv, theta=theta, bias=attn_bias, qk_norm=qk_norm,
                          positions=positions, causal=True, **(attn_kwargs or {}))
    u = R.residual_add(h, attn)
    y = R.rms_norm(u, p["mlp_norm"], eps)
    m = R.gated_mlp(y, p["w_gate"], p["w_up"], p["w_down"], glu)
    return R.residual_add(u, m)


def test_situ_glu_block():
    glu = R.Glu("situ", beta1=4.0, beta2=25.0)
    # MLP weights scaled up so that both caps are active (|g| > β1, |u| > β2 for some entries).
    big = {n: (lambda s, n=n: testing.randn(testing.rng(len(n)), s, scale=8.0 / math.sqrt(s[-1])))
           for n in ("w_gate", "w_up")}
    text = _example("situ_glu_block.mlir")
    _run_example(text, "situ_glu_block",
                 lambda p: _pre_norm_reference(p, glu, theta=1e4, eps=1e-6), special=big)
    p = _inputs(text, "situ_glu_block", 70, testing.rng(1070), special=big)
    y = R.rms_norm(R.residual_add(p["h"], _gqa_attention(
        R.rms_norm(p["h"], p["attn_norm"], 1e-6), p, 4, 2, theta=1e4, causal=True)),
        p["mlp_norm"], 1e-6)
    g, u = R.linear(y, p["w_gate"]), R.linear(y, p["w_up"])
    testing.check(np.abs(g).max() > 4.0 and np.abs(u).max() > 25.0,
                  f"situ block: the caps are not exercised (max|g| {np.abs(g).max():.3g}, "
                  f"max|u| {np.abs(u).max():.3g})")


def test_situ_glu_bound_on_extreme_inputs():
    """|h| ≤ β1·β2 = 100 for gate/up inputs of ±1e4 (and mixed magnitudes), in every dtype."""
    n = 512
    texts = []
    for dt in ("f32", "f16", "bf16"):
        ty = tensor_type((n,), dt)
        texts.append(module(f"situ_{dt}", [("g", (n,), dt), ("u", (n,), dt)], [("h", (n,), dt)],
                            f"""
  %h = decoda.glu %g, %u {{kind = #decoda.glu<situ, beta1 = 4.0, beta2 = 25.0>}} : {ty}
  return %h : {ty}"""))
    mod = CompiledModule("\n".join(texts), name="situ_bound")
    gen = testing.rng(9)
    signs = gen.choice([-1.0, 1.0], size=(2, n))
    mags = np.where(gen.random((2, n)) < 0.75, 1e4, 10.0 ** gen.uniform(-2, 4, size=(2, n)))
    g, u = signs * mags
    g[:4], u[:4] = [1e4, 1e4, -1e4, -1e4], [1e4, -1e4, 1e4, -1e4]
    for dt in ("f32", "f16", "bf16"):
        gs, us = R.to_storage(g, dt), R.to_storage(u, dt)
        (h,) = mod.entry(f"situ_{dt}", [dt, dt], [dt])(gs, us)
        hmax = float(np.max(np.abs(np.asarray(h, np.float64))))
        testing.check(np.all(np.isfinite(np.asarray(h, np.float64))), f"situ {dt}: non-finite h")
        testing.check(hmax <= 100.0, f"situ {dt}: max|h| = {hmax!r} > β1·β2 = 100")
        testing.check(hmax >= 99.0,
                      f"situ {dt}: max|h| = {hmax!r}, expected ≈ 100 at g = u = 1e4")
        check("glu", h, R.glu(gs, us, "situ", beta1=4.0, beta2=25.0, storage=dt), dt,
              what=f" situ {dt} on ±1e4")
        print(f"  situ {dt}: max|h| = {hmax!r} on inputs of ±1e4")


def test_gpt_oss_block_clamped_swiglu_window_sinks():
    glu = R.Glu("clamped_swiglu", limit=7.0)
    text = _example("gpt_oss_block.mlir")
    special = {"sinks": lambda s: testing.uniform(testing.rng(5), s, -1.0, 3.0)}
    # MLP weights scaled up so that the clamp at 7 is active.
    for n in ("w_gate", "w_up"):
        special[n] = lambda s, n=n: testing.randn(testing.rng(len(n)), s,
                                                  scale=10.0 / math.sqrt(s[-1]))

    def reference(p):
        return _pre_norm_reference(p, glu, theta=1.5e5, eps=1e-5, attn_bias=True,
                                   attn_kwargs={"window": 8, "sinks": p["sinks"]})
    _run_example(text, "gpt_oss_block", reference, special=special, lengths=(1, 9, 20, 70))
    p = _inputs(text, "gpt_oss_block", 70, testing.rng(1070), special=special)
    y = R.rms_norm(R.residual_add(p["h"], _gqa_attention(
        R.rms_norm(p["h"], p["attn_norm"], 1e-5), p, 4, 2, theta=1.5e5, bias=True, causal=True,
        window=8, sinks=p["sinks"])), p["mlp_norm"], 1e-5)
    g, u = R.linear(y, p["w_gate"]), R.linear(y, p["w_up"])
    testing.check(g.max() > 7.0 and np.abs(u).max() > 7.0,
                  "gpt-oss block: the clamp at 7 is not exercised")


def test_qk_norm_block():
    _run_example(_example("qk_norm_block.mlir"), "qk_norm_block",
                 lambda p: _pre_norm_reference(p, "swiglu", theta=1e6, eps=1e-6, qk_norm=1e-6))


def _packed(shape, gen):
    """Sorted document ids (1-4 documents per row) and positions restarting in each document."""
    b, t = shape
    seg = np.sort(gen.integers(0, 4, size=(b, t)), axis=1).astype(np.int64)
    pos = np.zeros((b, t), np.int64)
    for i in range(b):
        for j in range(1, t):
            pos[i, j] = pos[i, j - 1] + 1 if seg[i, j] == seg[i, j - 1] else 0
    return seg, pos


def test_document_masking_block():
    gen = testing.rng(3)
    cache = {}

    def ids(shape, which):
        if shape not in cache:
            cache[shape] = _packed(shape, gen)
        return cache[shape][which]

    special = {"segment_ids": lambda s: ids(s, 0), "positions": lambda s: ids(s, 1)}

    def reference(p):
        return _pre_norm_reference(
            p, "swiglu", theta=1e4, eps=1e-5, positions=p["positions"],
            attn_kwargs={"segment_ids": p["segment_ids"]})
    _run_example(_example("document_masking_block.mlir"), "document_masking_block", reference,
                 special=special)


def test_mla_block():
    def reference(p):
        h = p["h"]
        x = R.rms_norm(h, p["attn_norm"], 1e-6)
        cq = R.rms_norm(R.linear(x, p["w_dq"]), p["q_norm"], 1e-6)
        q = _heads(R.linear(cq, p["w_uq"]), 4)
        q_nope = np.ascontiguousarray(q[..., :16])
        q_rope = R.rope(np.ascontiguousarray(q[..., 16:]), theta=1e4, layout="interleaved")
        kv = R.linear(x, p["w_dkv"])
        c = R.rms_norm(np.ascontiguousarray(kv[..., :32]), p["kv_norm"], 1e-6)
        k_rope = R.rope(np.ascontiguousarray(kv[..., None, 32:]), theta=1e4,
                        layout="interleaved")[:, :, 0, :]
        o = R.mla(q_nope, q_rope, c, k_rope, p["w_uk"], p["w_uv"], num_heads=4, causal=True)
        u = R.residual_add(h, R.linear(_merge(o), p["wo"]))
        y = R.rms_norm(u, p["mlp_norm"], 1e-6)
        return R.residual_add(u, R.gated_mlp(y, p["w_gate"], p["w_up"], p["w_down"], "swiglu"))
    _run_example(_example("mla_block.mlir"), "mla_block", reference)


def test_mhc_block():
    gen = testing.rng(21)
    special = {
        "x": lambda s: testing.randn(gen, s),
        "attn_read": lambda s: testing.randn(gen, s),
        "attn_mix": lambda s: testing.randn(gen, s, scale=2.0),
        "attn_write": lambda s: testing.randn(gen, s),
        "b_read": lambda s: testing.randn(gen, s),
        "b_mix": lambda s: testing.randn(gen, s, scale=2.0),
        "b_write": lambda s: testing.randn(gen, s),
    }

    def reference(p):
        x = p["x"]
        t = x.shape[1]

        def attention_layer(h):
            n = R.rms_norm(h, p["attn_norm"], 1e-6)
            return _gqa_attention(n, p, 2, 2, theta=1e4, causal=True)

        def mlp_layer(h):
            n = R.rms_norm(h, p["mlp_norm"], 1e-6)
            return R.gated_mlp(n, p["w_gate"], p["w_up"], p["w_down"], "swiglu")

        x1 = R.hyper_connection(x, p["attn_read"], p["attn_mix"], p["attn_write"],
                                attention_layer, 20)
        phi = R.rms_norm(x1.reshape(1, t, 128), p["phi_norm"], 1e-6)
        read = R.linear(phi, p["w_read"], p["b_read"])
        mix = R.linear(phi, p["w_mix"], p["b_mix"]).reshape(1, t, 4, 4)
        write = R.linear(phi, p["w_write"], p["b_write"])
        return R.hyper_connection(x1, read, mix, write, mlp_layer, 20)
    _run_example(_example("mhc_block.mlir"), "mhc_block", reference, special=special)


def test_moe_blocks_softmax_and_sigmoid():
    text = _example("moe_block.mlir")
    special = {"selection_bias": lambda s: testing.randn(testing.rng(8), s, scale=0.05)}

    def reference(p, sigmoid):
        h = p["h"]
        x = R.rms_norm(h, p["attn_norm"], 1e-6)
        u = R.residual_add(h, _gqa_attention(x, p, 4, 2, theta=1e6, causal=True))
        y = R.rms_norm(u, p["mlp_norm"], 1e-6)
        kw = dict(selection_bias=p["selection_bias"], normalize=True,
                  routed_scale=2.5) if sigmoid else {}
        m = R.moe(y, p["router"], p["w_gate"], p["w_up"], p["w_down"], top_k=2,
                  scoring="sigmoid" if sigmoid else "softmax", kind="swiglu",
                  shared_gate=p["shared_gate"], shared_up=p["shared_up"],
                  shared_down=p["shared_down"], **kw)
        return R.residual_add(u, m)
    model = CompiledModule(text, name="moe_block")
    _run_example(text, "moe_softmax_block", lambda p: reference(p, False), compiled=model,
                 special=special)
    _run_example(text, "moe_sigmoid_block", lambda p: reference(p, True), compiled=model,
                 special=special)


if __name__ == "__main__":
    testing.run_tests(globals())
