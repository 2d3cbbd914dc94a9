"""Inputs (arg0, arg1, ...) and NumPy reference outputs (out0, ...) for the attention cases of
Inputs/attention_cases.mlir, from python/decoda/reference.py (materialised softmax, written from
the op definitions).

  attention_data.py CASE IN.npz OUT.npz
"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "python"))
from decoda import reference as R  # noqa: E402

rng = np.random.default_rng(5)


def act(shape, st, s=1.0):
    return R.to_storage(rng.standard_normal(shape) * s, st)


def uni(shape, st):
    return R.to_storage(rng.uniform(-1.0, 1.0, shape), st)


def bits(a, st):
    if st == "bf16":
        return (np.asarray(a, np.float32).view(np.uint32) >> 16).astype(np.uint16)
    return np.asarray(a, {"f32": np.float32, "f16": np.float16}[st])


def case(name):
    if name == "gqa_causal":
        st, t = "f32", 45
        q, k, v = act((1, t, 4, 32), st), act((1, t, 2, 32), st), act((1, t, 2, 32), st)
        return st, [q, k, v], [R.attention(q, k, v, num_heads=4, num_kv_heads=2, causal=True)]
    if name == "mqa_window_bf16":
        st, t = "bf16", 37
        q, k, v = act((2, t, 3, 40), st), act((2, t, 1, 40), st), act((2, t, 1, 40), st)
        return st, [q, k, v], [R.attention(q, k, v, num_heads=3, num_kv_heads=1, causal=True, window=7,
                                           storage=st)]
    if name == "chunk_sinks_f16":
        st = "f16"
        q, k, v = act((1, 5, 2, 24), st, 2.0), act((1, 50, 2, 24), st, 2.0), act((1, 50, 2, 16), st)
        s = act((2,), st)
        return st, [q, k, v, s], [R.attention(q, k, v, num_heads=2, num_kv_heads=2, scale=0.3, chunk_size=16,
                                              softcap=30.0, sinks=s)]
    if name == "mask_segments":
        st = "f32"
        q, k, v = act((1, 20, 2, 16), st), act((1, 20, 2, 16), st), act((1, 20, 2, 16), st)
        m = act((1, 2, 20, 20), st)
        seg = np.repeat(np.arange(3), [7, 9, 4])[None].astype(np.int32)
        return st, [q, k, v, m, seg], [R.attention(q, k, v, num_heads=2, num_kv_heads=2, mask=m, segment_ids=seg)]
    if name == "cached_bf16":
        st = "bf16"
        q, k, v = act((1, 3, 4, 32), st), act((1, 3, 2, 32), st), act((1, 3, 2, 32), st)
        kc, vc = act((1, 64, 2, 32), st), act((1, 64, 2, 32), st)
        o, kc2, vc2 = R.cached_attention(q, k, v, kc, vc, 29, num_heads=4, num_kv_heads=2, causal=True, storage=st)
        return st, [q, k, v, kc, vc, np.array(29, np.int64)], [o, kc2, vc2]
    if name == "d128_bf16":
        st, t = "bf16", 9
        q, k, v = act((1, t, 4, 128), st), act((1, t, 1, 128), st), act((1, t, 1, 128), st)
        return st, [q, k, v], [R.attention(q, k, v, num_heads=4, num_kv_heads=1, causal=True, storage=st)]
    # Tensor-core cases: V uniform in [-1, 1], so max|v| <= 1 in the tolerances of
    # flash-attention-sim.mlir.
    if name == "tc_gqa_bf16":
        st, t = "bf16", 70
        q, k = act((1, t, 4, 64), st), act((1, t, 2, 64), st)
        v = uni((1, t, 2, 64), st)
        return st, [q, k, v], [R.attention(q, k, v, num_heads=4, num_kv_heads=2, causal=True, storage=st)]
    if name == "tc_chunk_sinks_f16":
        st = "f16"
        q, k, v = act((1, 20, 2, 32), st, 2.0), act((1, 45, 2, 32), st, 2.0), uni((1, 45, 2, 64), st)
        s = act((2,), st)
        return st, [q, k, v, s], [R.attention(q, k, v, num_heads=2, num_kv_heads=2, scale=0.2, chunk_size=16,
                                              softcap=20.0, sinks=s, storage=st)]
    if name == "tc_window_d128_bf16":
        st, t = "bf16", 50
        q, k, v = act((2, t, 3, 128), st), act((2, t, 1, 128), st), uni((2, t, 1, 128), st)
        return st, [q, k, v], [R.attention(q, k, v, num_heads=3, num_kv_heads=1, causal=True, window=20,
                                           storage=st)]
    if name == "tc_mask_segments_f16":
        st, t = "f16", 33
        q, k, v = act((1, t, 2, 16), st), act((1, t, 2, 16), st), uni((1, t, 2, 16), st)
        m = act((1, 2, t, t), st)
        seg = np.repeat(np.arange(3), [10, 15, 8])[None].astype(np.int32)
        return st, [q, k, v, m, seg], [R.attention(q, k, v, num_heads=2, num_kv_heads=2, causal=True, mask=m,
                                                   segment_ids=seg, storage=st)]
    if name == "tc_long_bf16":
        st = "bf16"
        q, k, v = act((1, 9, 2, 64), st), act((1, 200, 1, 64), st), uni((1, 200, 1, 64), st)
        return st, [q, k, v], [R.attention(q, k, v, num_heads=2, num_kv_heads=1, storage=st)]
    # The wgmma form's cases (Inputs/attention_wgmma_cases.mlir), V uniform as above.
    if name == "wg_chunk_sinks_f16":
        st = "f16"
        q, k, v = act((1, 20, 2, 64), st, 1.5), act((1, 150, 2, 64), st, 1.5), uni((1, 150, 2, 128), st)
        s = act((2,), st)
        return st, [q, k, v, s], [R.attention(q, k, v, num_heads=2, num_kv_heads=2, scale=0.2, chunk_size=16,
                                              softcap=20.0, sinks=s, storage=st)]
    if name == "wg_mask_segments_f16":
        st, t = "f16", 70
        q, k, v = act((1, t, 2, 64), st, 0.5), act((1, t, 2, 64), st, 0.5), uni((1, t, 2, 64), st)
        m = act((1, 2, t, t), st)
        seg = np.repeat(np.arange(3), [20, 35, 15])[None].astype(np.int32)
        return st, [q, k, v, m, seg], [R.attention(q, k, v, num_heads=2, num_kv_heads=2, causal=True, mask=m,
                                                   segment_ids=seg, storage=st)]
    if name == "wg_gqa_d128_bf16":
        st, t = "bf16", 40
        q, k, v = act((2, t, 4, 128), st, 0.5), act((2, t, 2, 128), st, 0.5), uni((2, t, 2, 128), st)
        return st, [q, k, v], [R.attention(q, k, v, num_heads=4, num_kv_heads=2, causal=True, storage=st)]
    if name == "wg_rows_window_bf16":
        st, t = "bf16", 150
        q, k, v = act((1, t, 4, 64), st, 0.5), act((1, t, 2, 64), st, 0.5), uni((1, t, 2, 64), st)
        return st, [q, k, v], [R.attention(q, k, v, num_heads=4, num_kv_heads=2, causal=True, window=100,
                                           storage=st)]
    if name == "wg_cached_chunk_bf16":
        st, off, t = "bf16", 100, 40
        q, k, v = act((2, t, 4, 128), st, 0.5), act((2, t, 1, 128), st, 0.5), uni((2, t, 1, 128), st)
        kc, vc = act((2, 256, 1, 128), st, 0.5), uni((2, 256, 1, 128), st)
        # Past the key count (offset + T = 140) the caches hold NaN, as unwritten memory may.
        kc[:, off + t:] = np.nan
        vc[:, off + t:] = np.nan
        o, _, _ = R.cached_attention(q, k, v, kc, vc, off, num_heads=4, num_kv_heads=1, causal=True,
                                     storage=st)
        return st, [q, k, v, kc, vc, np.array(off, np.int64)], [o]
    if name == "wg_spec_d128_bf16":
        st = "bf16"
        q, k, v = act((1, 8, 8, 128), st, 0.5), act((1, 700, 1, 128), st, 0.5), uni((1, 700, 1, 128), st)
        return st, [q, k, v], [R.attention(q, k, v, num_heads=8, num_kv_heads=1, causal=True, storage=st)]
    if name == "wg_interior_causal_f16":
        st, t = "f16", 200
        q, k, v = act((1, t, 2, 64), st, 0.5), act((1, t, 1, 64), st, 0.5), uni((1, t, 1, 64), st)
        return st, [q, k, v], [R.attention(q, k, v, num_heads=2, num_kv_heads=1, causal=True, storage=st)]
    if name == "wg_sink_causal_f16":
        # Key 0 scores far above the rest for every row (an attention sink): a row's max is set
        # by the first tile and stays, so the later tiles take the kernel's path that skips O's
        # rescale (every correction exactly 1 in the warp).
        st, t = "f16", 200
        q = R.to_storage(np.abs(rng.standard_normal((1, t, 2, 64))) * 0.5 + 0.25, st)
        k = act((1, t, 1, 64), st, 0.5)
        k[:, 0] = R.to_storage(np.full((1, 64), 1.5), st)
        v = uni((1, t, 1, 64), st)
        return st, [q, k, v], [R.attention(q, k, v, num_heads=2, num_kv_heads=1, causal=True, storage=st)]
    if name == "wg_interior_full_f16":
        st = "f16"
        q, k, v = act((1, 30, 2, 64), st, 0.5), act((1, 150, 2, 64), st, 0.5), uni((1, 150, 2, 64), st)
        return st, [q, k, v], [R.attention(q, k, v, num_heads=2, num_kv_heads=2, softcap=30.0, storage=st)]
    if name == "wg_interior_window_f16":
        st, t = "f16", 300
        q, k, v = act((1, t, 2, 64), st, 0.5), act((1, t, 1, 64), st, 0.5), uni((1, t, 1, 64), st)
        return st, [q, k, v], [R.attention(q, k, v, num_heads=2, num_kv_heads=1, causal=True, window=160,
                                           storage=st)]
    if name == "wg_fused_qkv_bf16":
        # One [B, T, 3 * H * D] projection output, q/k/v its thirds in the order k, q, v (q at
        # an offset of 128 elements): Q is read through its strided view (no copy).
        st, t, h, d = "bf16", 70, 2, 64
        k, q, v = act((2, t, h, d), st, 0.5), act((2, t, h, d), st, 0.5), uni((2, t, h, d), st)
        qkv = np.concatenate([a.reshape(2, t, h * d) for a in (k, q, v)], axis=-1)
        return st, [qkv], [R.attention(q, k, v, num_heads=h, num_kv_heads=h, causal=True,
                                                storage=st)]
    # Head dims held as padded 64-column blocks (Inputs/attention_wgmma_headdims_cases.mlir).
    if name == "wg_d96_gqa_bf16":
        st, t = "bf16", 70
        q, k, v = act((1, t, 4, 96), st, 0.5), act((1, t, 2, 96), st, 0.5), uni((1, t, 2, 96), st)
        return st, [q, k, v], [R.attention(q, k, v, num_heads=4, num_kv_heads=2, causal=True, storage=st)]
    if name == "wg_d80_f16":
        st, t = "f16", 70
        q, k, v = act((2, t, 2, 80), st), act((2, t, 2, 80), st), uni((2, t, 2, 80), st)
        return st, [q, k, v], [R.attention(q, k, v, num_heads=2, num_kv_heads=2, scale=0.1, causal=True,
                                           storage=st)]
    if name == "wg_d256_window_softcap_bf16":
        st, t = "bf16", 90
        q, k, v = act((1, t, 2, 256), st, 0.5), act((1, t, 1, 256), st, 0.5), uni((1, t, 1, 256), st)
        return st, [q, k, v], [R.attention(q, k, v, num_heads=2, num_kv_heads=1, causal=True, window=40,
                                           softcap=50.0, storage=st)]
    if name == "wg_d192_dv128_bf16":
        st, t = "bf16", 70
        q, k, v = act((1, t, 2, 192), st, 0.5), act((1, t, 2, 192), st, 0.5), uni((1, t, 2, 128), st)
        return st, [q, k, v], [R.attention(q, k, v, num_heads=2, num_kv_heads=2, scale=0.0723, causal=True,
                                           storage=st)]
    if name == "wg_d256_decode_bf16":
        st = "bf16"
        q, k, v = act((1, 1, 8, 256), st, 0.5), act((1, 700, 2, 256), st, 0.5), uni((1, 700, 2, 256), st)
        return st, [q, k, v], [R.attention(q, k, v, num_heads=8, num_kv_heads=2, causal=True, storage=st)]
    if name == "wg_d32_dv48_f16":
        st = "f16"
        q, k, v = act((2, 20, 2, 32), st, 1.5), act((2, 150, 2, 32), st, 1.5), uni((2, 150, 2, 48), st)
        return st, [q, k, v], [R.attention(q, k, v, num_heads=2, num_kv_heads=2, storage=st)]
    # SIMT tiles in dynamic shared memory (Inputs/attention_dynamic_shared_cases.mlir).
    if name == "dyn_d256_gqa_f32":
        st, t = "f32", 20
        q, k, v = act((1, t, 4, 256), st, 0.5), act((1, t, 2, 256), st, 0.5), act((1, t, 2, 256), st)
        return st, [q, k, v], [R.attention(q, k, v, num_heads=4, num_kv_heads=2, causal=True)]
    if name == "dyn_d256_decode_f32":
        st = "f32"
        q, k, v = act((1, 1, 8, 256), st, 0.5), act((1, 300, 2, 256), st, 0.5), act((1, 300, 2, 256), st)
        return st, [q, k, v], [R.attention(q, k, v, num_heads=8, num_kv_heads=2, causal=True)]
    if name in ("dyn_mla_decode_bf16", "dyn_mla_chunk_bf16"):
        # The latent cache [c ; k_rope] as keys, c (its first 512 columns) as values.
        st = "bf16"
        b, tq, s = (2, 1, 200) if name == "dyn_mla_decode_bf16" else (1, 3, 100)
        q, k = act((b, tq, 16, 576), st, 0.5), act((b, s, 1, 576), st, 0.5)
        v = np.ascontiguousarray(k[..., :512])
        return st, [q, k, v], [R.attention(q, k, v, num_heads=16, num_kv_heads=1, scale=0.07216878364870323,
                                           causal=True, storage=st)]
    # The SIMT split form over several row blocks (Inputs/attention_rowblocks_cases.mlir).
    if name in ("rb_spec_f32", "rb_spec_short_f32"):
        st = "f32"
        s = 300 if name == "rb_spec_f32" else 40
        q, k, v = act((1, 5, 8, 64), st), act((1, s, 2, 64), st), act((1, s, 2, 64), st)
        return st, [q, k, v], [R.attention(q, k, v, num_heads=8, num_kv_heads=2, causal=True)]
    if name == "rb_mla40_bf16":
        st = "bf16"
        q, k = act((2, 1, 40, 576), st, 0.5), act((2, 130, 1, 576), st, 0.5)
        v = np.ascontiguousarray(k[..., :512])
        return st, [q, k, v], [R.attention(q, k, v, num_heads=40, num_kv_heads=1, scale=0.07216878364870323,
                                           causal=True, storage=st)]
    # V the first Dv columns of K (Inputs/attention_vfromk_cases.mlir): K alone is an input.
    if name in ("vk_mla_decode_bf16", "vk_mla_chunk_bf16", "vk_offset_bf16"):
        st = "bf16"
        b, tq, s = {"vk_mla_decode_bf16": (2, 1, 200), "vk_mla_chunk_bf16": (1, 3, 100),
                    "vk_offset_bf16": (1, 1, 150)}[name]
        q, k = act((b, tq, 16, 576), st, 0.5), act((b, s, 1, 576), st, 0.5)
        v = np.ascontiguousarray(k[..., 64:] if name == "vk_offset_bf16" else k[..., :512])
        return st, [q, k], [R.attention(q, k, v, num_heads=16, num_kv_heads=1, scale=0.07216878364870323,
                                        causal=True, storage=st)]
    if name == "vk_ragged_f32":
        st, t = "f32", 37
        q, k = act((1, t, 4, 70), st, 0.5), act((1, t, 2, 70), st, 0.5)
        v = np.ascontiguousarray(k[..., :40])
        return st, [q, k], [R.attention(q, k, v, num_heads=4, num_kv_heads=2, causal=True)]
    if name in ("vk_mla_f32", "vk_mla_bf16_full"):
        st, s = ("f32", 180) if name == "vk_mla_f32" else ("bf16", 300)
        qn, qr = act((2, 1, 16, 64), st, 0.5), act((2, 1, 16, 64), st, 0.5)
        c, kr = act((2, s, 512), st, 0.5), act((2, s, 64), st, 0.5)
        wuk, wuv = act((16, 64, 512), st, 0.05), act((16, 64, 512), st, 0.05)
        return st, [qn, qr, c, kr, wuk, wuv], [R.mla(qn, qr, c, kr, wuk, wuv, num_heads=16, causal=True,
                                                     storage=st)]
    raise SystemExit(f"unknown case {name}")


def main():
    name, inp, outp = sys.argv[1:]
    st, ins, outs = case(name)
    # max|v| bounds the error of rounding P to the storage type before P·V (the tolerances).
    values = ins[2:3] + (ins[4:5] if name.startswith("cached") else [])  # v (and the value cache)
    if name == "wg_fused_qkv_bf16":
        values = [np.asarray(ins[0], np.float32)[..., 256:]]  # v, the last third
    if name.startswith("vk_"):
        values = ins[1:2]  # k, whose columns are v
    print(f"{name}: max|v| = {max(float(np.max(np.abs(np.asarray(a, np.float32)))) for a in values):.4f}")
    conv = lambda a: a if np.asarray(a).dtype.kind in "iu" else bits(a, st)  # noqa: E731
    np.savez(inp, **{f"arg{i}": conv(a) for i, a in enumerate(ins)})
    np.savez(outp, **{f"out{i}": conv(a) for i, a in enumerate(outs)})


if __name__ == "__main__":
    main()
