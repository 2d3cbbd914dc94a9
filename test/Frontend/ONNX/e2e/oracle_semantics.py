# RUN: %PYTHON %s
"""ONNX Runtime (the oracle) agrees with Decoda's NumPy references on the ONNX ops that map onto
decoda ops, which pins down the mapping the importer implements: GroupQueryAttention's
local_window_size is decoda's `window` (p - j < w), softcap and scale carry over, query head h
reads KV head h // (Hq / Hkv); Attention-23 and MultiHeadAttention likewise; RotaryEmbedding
(ONNX 4-D is [B, H, S, D]; com.microsoft orders its inputs input, position_ids, cos, sin) is
decoda.rope; the norms and GELU forms are decoda's. Also the decoder fixture itself: a decode
step after a prefill equals the longer prefill, and left padding equals the unpadded sequence.

Needs only ONNX Runtime, not the importer."""

import atexit
import math
import os
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.dirname(__file__))
import numpy as np  # noqa: E402
from onnx import numpy_helper  # noqa: E402

from decoda import onnx_models as M  # noqa: E402
from decoda import reference as R  # noqa: E402
from decoda import testing  # noqa: E402
from decoda.ort import OrtSession  # noqa: E402

WORK = tempfile.mkdtemp(prefix="decoda-oracle-")
atexit.register(shutil.rmtree, WORK, True)


def _run(name, index=0):
    case = M.case(name)
    model = case.build()
    path = M.save(model, os.path.join(WORK, f"{name}.onnx"))
    feeds = case.feeds(model)[index]
    with OrtSession(path) as s:
        outs = s.run(feeds)
    weights = {t.name: numpy_helper.to_array(t) for t in model.graph.initializer}
    return feeds, outs, weights


def _close(actual, expected, op, tol=2e-6):
    scale = max(float(np.max(np.abs(expected))), 1.0)
    testing.assert_allclose(actual, expected, rtol=0.0, atol=tol * scale, op=op)


def _heads(x, h):  # [B, S, h*D] -> [B, S, h, D]
    return x.reshape(x.shape[0], x.shape[1], h, -1)


def test_group_query_attention():
    for name, kw in [("ms_gqa_prefill", {}), ("ms_gqa_decode", {}),
                     ("ms_gqa_chunked_prefill", {}), ("ms_gqa_local_window", {"window": 3}),
                     ("ms_gqa_softcap", {"softcap": 2.0, "scale": 0.5})]:
        f, o, _ = _run(name)
        b, s, _ = f["query"].shape
        k = np.concatenate([f["past_key"].transpose(0, 2, 1, 3), _heads(f["key"], 2)], 1)
        v = np.concatenate([f["past_value"].transpose(0, 2, 1, 3), _heads(f["value"], 2)], 1)
        ref = R.attention(_heads(f["query"], 4), k, v, causal=True, **kw)
        _close(o["y"], ref.reshape(b, s, -1), name)
        testing.assert_equal(o["present_key"], k.transpose(0, 2, 1, 3), op=name)
        testing.assert_equal(o["present_value"], v.transpose(0, 2, 1, 3), op=name)
    f, o, _ = _run("ms_gqa_rotary")
    b, s, _ = f["query"].shape
    q, k = R.rope(_heads(f["query"], 4)), R.rope(_heads(f["key"], 2))
    ref = R.attention(q, k, _heads(f["value"], 2), causal=True)
    _close(o["y"], ref.reshape(b, s, -1), "ms_gqa_rotary")
    _close(o["present_key"], k.transpose(0, 2, 1, 3), "ms_gqa_rotary present_key")


def _gqa_rows_reference(f, heads, kv_heads, window=None, sinks=None):
    """GroupQueryAttention with run-time row lengths, from the formulas: row b has
    seqlens_k[b] + 1 tokens; past_b = 0 for a prompt (S = total_sequence_length), else
    seqlens_k[b] + 1 - S; present holds the past's first past_b entries, the S new ones, zeros
    to max(P, total); query s sees keys j <= past_b + s, j <= seqlens_k[b] (and
    past_b + s - j < window)."""
    q, k, v = f["query"], f["key"], f["value"]
    b_, s_, _ = q.shape
    pk, pv, lens = f["past_key"], f["past_value"], f["seqlens_k"]
    total = int(f["total_sequence_length"])
    p_ = pk.shape[2]
    length = max(p_, total)
    pres_k = np.zeros((b_, kv_heads, length, pk.shape[3]), np.float32)
    pres_v = np.zeros_like(pres_k)
    y = np.zeros((b_, s_, heads, pk.shape[3]), np.float32)
    for b in range(b_):
        past = 0 if s_ == total else int(lens[b]) + 1 - s_
        pres_k[b, :, :past] = pk[b, :, :past]
        pres_v[b, :, :past] = pv[b, :, :past]
        pres_k[b, :, past:past + s_] = _heads(k[b:b + 1], kv_heads)[0].transpose(1, 0, 2)
        pres_v[b, :, past:past + s_] = _heads(v[b:b + 1], kv_heads)[0].transpose(1, 0, 2)
        pos = past + np.arange(s_)[:, None]
        j = np.arange(total)[None, :]
        seen = (j <= pos) & (j <= lens[b])
        if window is not None:
            seen &= pos - j < window
        add = np.where(seen, 0.0, -np.inf).astype(np.float32)[None, None]
        y[b] = R.attention(_heads(q[b:b + 1], heads),
                           pres_k[b:b + 1, :, :total].transpose(0, 2, 1, 3),
                           pres_v[b:b + 1, :, :total].transpose(0, 2, 1, 3), mask=add,
                           sinks=sinks)[0]
    return y.reshape(b_, s_, -1), pres_k, pres_v


def test_group_query_attention_runtime_lengths():
    """Past buffers longer than the sequence (onnxruntime-genai's shared past/present), rows of
    different lengths, prompts into a buffer, head_sink, smooth_softmax (a sink logit of 0)."""
    for name, kw in [("ms_gqa_runtime_lengths", {}),
                     ("ms_gqa_runtime_lengths_head_sink", {}),
                     ("ms_gqa_runtime_lengths_smooth_softmax", {"sinks": np.zeros(4, np.float32)})]:
        for i, st in enumerate(M.GQA_RUNTIME_SETS):
            f, o, _ = _run(name, i)
            sinks = f.get("head_sink", kw.get("sinks"))
            y, pk, pv = _gqa_rows_reference(f, 4, 2, sinks=sinks)
            _close(o["y"], y, f"{name} ({st[0]})")
            testing.assert_equal(o["present_key"], pk, op=f"{name} ({st[0]}) present_key")
            testing.assert_equal(o["present_value"], pv, op=f"{name} ({st[0]}) present_value")

def test_attention_23():
    t = (0, 2, 1, 3)
    f, o, _ = _run("attention23_4d_gqa_causal")
    ref = R.attention(f["q"].transpose(t), f["k"].transpose(t), f["v"].transpose(t), causal=True)
    _close(o["y"], ref.transpose(t), "attention23 gqa causal")
    f, o, _ = _run("attention23_kv_cache")
    k = np.concatenate([f["past_key"], f["k"]], 2)
    v = np.concatenate([f["past_value"], f["v"]], 2)
    ref = R.attention(f["q"].transpose(t), k.transpose(t), v.transpose(t), causal=True)
    _close(o["y"], ref.transpose(t), "attention23 kv cache")
    testing.assert_equal(o["present_key"], k, op="attention23 present_key")
    f, o, _ = _run("attention23_bool_mask_softcap")
    add = np.where(f["attn_mask"], 0.0, -np.inf).astype(np.float32)[None, None]
    ref = R.attention(f["q"].transpose(t), f["k"].transpose(t), f["v"].transpose(t), softcap=2.0,
                      mask=add)
    _close(o["y"], ref.transpose(t), "attention23 bool mask softcap")
    f, o, _ = _run("attention23_3d_float_mask")
    ref = R.attention(_heads(f["q"], 4), _heads(f["k"], 4), _heads(f["v"], 4), scale=0.3,
                      mask=f["attn_mask"])
    _close(o["y"], ref.reshape(2, 5, -1), "attention23 3d float mask")


def test_multi_head_attention():
    f, o, _ = _run("ms_multi_head_attention")
    ref = R.attention(_heads(f["query"], 4), _heads(f["key"], 4), _heads(f["value"], 4))
    _close(o["y"], ref.reshape(2, 5, -1), "MultiHeadAttention")
    f, o, _ = _run("ms_multi_head_attention_causal_bias")
    ref = R.attention(_heads(f["query"], 4), _heads(f["key"], 4), _heads(f["value"], 4),
                      causal=True, scale=0.25, mask=f["attention_bias"])
    _close(o["y"], ref.reshape(2, 5, -1), "MultiHeadAttention causal bias")


def test_rotary_embedding():
    for name, layout, rd in [("rotary_embedding23_4d_half", "half_split", None),
                             ("rotary_embedding23_partial", "half_split", 8),
                             ("ms_rotary_embedding_4d_interleaved", "interleaved", None)]:
        f, o, _ = _run(name)
        ref = R.rope(f["x"].transpose(0, 2, 1, 3), positions=f["position_ids"], layout=layout,
                     rotary_dim=rd)
        _close(o["y"], ref.transpose(0, 2, 1, 3), name)
    for name, layout, rd in [("rotary_embedding23_3d_interleaved", "interleaved", None),
                             ("ms_rotary_embedding_3d", "half_split", None),
                             ("ms_rotary_embedding_partial", "half_split", 8)]:
        f, o, _ = _run(name)
        ref = R.rope(_heads(f["x"], 2), positions=f["position_ids"], layout=layout, rotary_dim=rd)
        _close(o["y"], ref.reshape(f["x"].shape), name)


def test_norms():
    f, o, w = _run("rms_normalization_op23")
    _close(o["y"], R.rms_norm(f["x"], w["scale"], eps=1e-6), "RMSNormalization")
    f, o, w = _run("ms_simplified_layer_norm")
    _close(o["y"], R.rms_norm(f["x"], w["scale"], eps=1e-6), "SimplifiedLayerNormalization")
    f, o, w = _run("ms_skip_simplified_layer_norm")
    s, n = R.add_rms_norm(f["x"], f["skip"], w["gamma"], eps=1e-6)
    _close(o["y"], n, "SkipSimplifiedLayerNormalization")
    _close(o["residual"], s, "SkipSimplifiedLayerNormalization sum")
    f, o, w = _run("ms_skip_layer_norm")
    summed = f["x"] + f["skip"] + w["bias"]
    _close(o["y"], R.layer_norm(summed, w["gamma"], w["beta"], eps=1e-5), "SkipLayerNormalization")
    _close(o["residual"], summed, "SkipLayerNormalization sum")
    f, o, w = _run("layer_normalization")
    _close(o["y"], R.layer_norm(f["x"], w["scale"], w["bias"], eps=1e-5), "LayerNormalization")
    f, o, w = _run("rms_norm_cast_fp32")
    ref = (R.rms_norm(f["x"].astype(np.float32), np.ones(M.D, np.float32), eps=1e-6)
           .astype(np.float16) * w["weight"])
    _close(o["y"].astype(np.float32), ref.astype(np.float32), "rms_norm_cast_fp32", tol=1e-3)


def test_gelus():
    f, o, w = _run("ms_fast_gelu")
    _close(o["y"], R.gelu_tanh(f["x"] + w["bias"]), "FastGelu")
    f, o, w = _run("ms_bias_gelu")
    _close(o["y"], R.gelu_erf(f["x"] + w["bias"]), "BiasGelu")
    f, o, _ = _run("ms_quick_gelu")
    _close(o["y"], f["x"] * R.sigmoid(1.702 * f["x"]), "QuickGelu")
    f, o, _ = _run("gelu_none_opset20")
    _close(o["y"], R.gelu_erf(f["x"]), "Gelu-20 none")
    f, o, _ = _run("gelu_tanh_opset20")
    _close(o["y"], R.gelu_tanh(f["x"]), "Gelu-20 tanh")


def test_decoder_cache_consistency():
    cfg = M.DecoderConfig()
    path = M.save(M.decoder_model(cfg), os.path.join(WORK, "decoder_kv.onnx"))
    full = M.decoder_feeds(cfg, 2, 6, 0, seed=5)
    with OrtSession(path) as s:
        ref = s.run(full)
        head = {k: (v[:, :5] if k in ("input_ids", "attention_mask", "position_ids") else v)
                for k, v in full.items()}
        first = s.run(head)
        step = {"input_ids": full["input_ids"][:, 5:], "attention_mask": full["attention_mask"],
                "position_ids": full["position_ids"][:, 5:]}
        for i in range(cfg.layers):
            for kv in ("key", "value"):
                step[f"past_key_values.{i}.{kv}"] = first[f"present.{i}.{kv}"]
        last = s.run(step)
        _close(last["logits"][:, 0], ref["logits"][:, 5], "decode step after prefill", tol=1e-5)
        padded = M.decoder_feeds(cfg, 2, 5, 0, seed=6, left_pad=(0, 2))
        out = s.run(padded)
        alone = {"input_ids": padded["input_ids"][1:, 2:],
                 "attention_mask": np.ones((1, 3), np.int64),
                 "position_ids": np.arange(3, dtype=np.int64)[None]}
        for i in range(cfg.layers):
            for kv in ("key", "value"):
                alone[f"past_key_values.{i}.{kv}"] = np.zeros((1, cfg.kv_heads, 0, cfg.head_dim),
                                                              np.float32)
        _close(out["logits"][1, 2:], s.run(alone)["logits"][0], "left padding", tol=1e-5)
    testing.check(math.isfinite(float(np.abs(ref["logits"]).max())), "finite logits")


def test_every_group_has_a_test_file():
    """Each (family, group) of onnx_models.GROUPS is run by one file here (run_group), the
    models family by decoder_kv.py."""
    here = os.path.dirname(os.path.abspath(__file__))
    text = "".join(open(os.path.join(here, f)).read() for f in os.listdir(here)
                   if f.endswith(".py"))
    for family, groups in M.GROUPS.items():
        for group in groups:
            if family == "models":
                testing.check(os.path.exists(os.path.join(here, "decoder_kv.py")), "decoder_kv.py")
                continue
            testing.check(f'run_group("{family}", "{group}")' in text,
                          f"no e2e test file runs {family}/{group}")
    names = [c.name for c in M.cases()]
    testing.check(len(names) == len(set(names)), "case names are unique")


if __name__ == "__main__":
    testing.run_tests(dict(globals()))
