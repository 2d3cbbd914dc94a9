"""Inputs (arg0, ...) and reference outputs (out0) for Inputs/padding_mask_cases.mlir, from
python/decoda/reference.py (materialised softmax from the op's definition).

  padding_mask_data.py CASE IN.npz OUT.npz

The mask is Hugging Face's: 0 where a key is visible, the mask type's lowest value where it is
padding (or, for the prompt cases, in the future of the query). Checks the reference itself on
the rows that see only padding: each output is the plain mean of its head's values.
"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "python"))
from decoda import reference as R  # noqa: E402

rng = np.random.default_rng(11)
F32_LOWEST = float(np.finfo(np.float32).min)
BF16_LOWEST = -3.3895313892515355e38  # -(2 - 2^-7) 2^127


def bits(a, st):
    if st == "bf16":
        return (np.asarray(a, np.float32).view(np.uint32) >> 16).astype(np.uint16)
    return np.asarray(a, np.float32)


def prompt_mask(b, t, pads, lowest):
    """[B, 1, T, T]: causal, and row r's first pads[r] keys padding."""
    m = np.zeros((b, 1, t, t), np.float32)
    m[:, :, np.triu_indices(t, 1)[0], np.triu_indices(t, 1)[1]] = lowest
    for r, n in enumerate(pads):
        m[r, :, :, :n] = lowest
    return m


def step_mask(b, tq, tk, pads, lowest):
    m = np.zeros((b, 1, tq, tk), np.float32)
    for r, n in enumerate(pads):
        m[r, :, :, :n] = lowest
    return m


def case(name):
    if name in ("pad_f32", "pad_bf16", "pad_bf16_mask16"):
        st = "f32" if name == "pad_f32" else "bf16"
        h, hkv, d = (2, 1, 32) if st == "f32" else (4, 2, 64)
        t, pads = 70, (0, 66)
        q = R.to_storage(rng.standard_normal((2, t, h, d)) * 0.5, st)
        k = R.to_storage(rng.standard_normal((2, t, hkv, d)) * 0.5, st)
        v = R.to_storage(rng.uniform(-1, 1, (2, t, hkv, d)), st)
        lowest = BF16_LOWEST if name == "pad_bf16_mask16" else F32_LOWEST
        m = prompt_mask(2, t, pads, lowest)
        o = R.attention(q, k, v, num_heads=h, num_kv_heads=hkv, mask=m, storage=st)
        # Queries 0 .. 65 of row 1 see only padding (and, through the causal part of the
        # mask, the lowest value on every later key): the mean of all their head's values.
        for hq in range(h):
            want = np.asarray(v, np.float32)[1, :, hq * hkv // h].mean(axis=0)
            got = np.asarray(o, np.float32)[1, 0, hq]
            assert np.allclose(got, want, atol=1e-2), (name, got[:4], want[:4])
        mask_st = "bf16" if name == "pad_bf16_mask16" else "f32"
        return [bits(q, st), bits(k, st), bits(v, st), bits(m, mask_st)], [bits(o, st)]
    if name in ("pad_decode_f32", "pad_decode_bf16", "pad_spec_bf16"):
        st = "f32" if name == "pad_decode_f32" else "bf16"
        tq, h = (8, 8) if name == "pad_spec_bf16" else (1, 4)
        hkv, d, tk, pads = 2, 64, 300, (250, 300)
        q = R.to_storage(rng.standard_normal((2, tq, h, d)) * 0.5, st)
        k = R.to_storage(rng.standard_normal((2, tk, hkv, d)) * 0.5, st)
        v = R.to_storage(rng.uniform(-1, 1, (2, tk, hkv, d)), st)
        m = step_mask(2, tq, tk, pads, F32_LOWEST)
        o = R.attention(q, k, v, num_heads=h, num_kv_heads=hkv, mask=m, storage=st)
        for hq in range(h):
            want = np.asarray(v, np.float32)[1, :, hq * hkv // h].mean(axis=0)
            got = np.asarray(o, np.float32)[1, 0, hq]
            assert np.allclose(got, want, atol=1e-2), (name, got[:4], want[:4])
        return [bits(q, st), bits(k, st), bits(v, st), bits(m, "f32")], [bits(o, st)]
    raise SystemExit(f"unknown case {name}")


def main():
    name, inp, outp = sys.argv[1:]
    ins, outs = case(name)
    np.savez(inp, **{f"arg{i}": a for i, a in enumerate(ins)})
    np.savez(outp, **{f"out{i}": a for i, a in enumerate(outs)})


if __name__ == "__main__":
    main()
