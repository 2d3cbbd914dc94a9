# RUN: %PYTHON %s
"""decoda.attention with quantize(q_scale, k_scale, v_scale) (INT8 QKᵀ and PV, f32 softmax,
u8 probabilities) against reference.attention with the same scales: MHA, GQA and MQA, causal,
sliding window, chunks, an additive mask, sinks, softcap, segment ids, Tq < Tk, dynamic lengths,
several key tiles with a remainder (--attention-key-tile=16); through the VNNI kernel of
decoda-cpu-int8-attention (every case with D a multiple of 4 and Dv of 16) and its scalar
fallback (D = 8), and the kernel for targets without AVX-512 VNNI (haswell, this host minus
VNNI: the i32 vector form, no vpdpbusd in the library).

Tolerance: the integer sums are exact, but exp in the compiled code and in NumPy may differ in
the last bit, which can move one rint(255·p) across a half and change one term of the PV sum by
|v_i8| · v_scale / (255 · l) <= max|v| / 255 (l >= 1). So every element must be within
2 · max|v| / 255, and at least 98% within 1e-5 · max|ref| (the float attention, for contrast,
differs from the INT8 one by more than that almost everywhere)."""

import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
from harness import (CompiledModule, R, disassembly_count, module, np,  # noqa: E402
                     tensor_type, testing)

_t = tensor_type

# (name, B, Tq, Tk, Hq, Hkv, D, attrs dict, extras)
CASES = [
    ("mha_causal", 1, 37, 37, 4, 4, 16, {"causal": True}, ()),
    ("gqa_window_sinks", 2, 20, 20, 8, 2, 32, {"causal": True, "window": 7}, ("sinks",)),
    ("mqa_step", 1, 3, 40, 4, 1, 16, {"causal": True}, ()),
    ("gqa_chunk_softcap", 1, 33, 33, 4, 2, 8, {"causal": True, "chunk_size": 10,
                                                "softcap": 5.0}, ()),
    ("mask_segments", 2, 18, 18, 2, 2, 16, {}, ("mask", "segment_ids")),
    # Through decoda-cpu-int8-attention's kernel (D a multiple of 4, Dv of 16; the D = 8 case
    # above keeps the scalar form): chunks and a softcap, a window without sinks over 3 key
    # panels, MQA with 32 query rows per work item.
    ("gqa_chunk_softcap_d16", 1, 45, 45, 4, 2, 16, {"causal": True, "chunk_size": 10,
                                                    "softcap": 5.0}, ()),
    ("mha_window_long", 1, 70, 70, 2, 2, 32, {"causal": True, "window": 33}, ()),
    ("mqa_32_heads", 1, 9, 21, 32, 1, 16, {"causal": True}, ("sinks",)),
]


def _fn(fname, case, dynamic):
    name, b, tq, tk, hq, hkv, d, attrs, extras = case
    sq, sk = (None, None) if dynamic else (tq, tk)
    args = [("q", (b, sq, hq, d), "f32"), ("k", (b, sk, hkv, d), "f32"),
            ("v", (b, sk, hkv, d), "f32"), ("qs", (), "f32"), ("ks", (), "f32"),
            ("vs", (), "f32")]
    opt = ""
    if "mask" in extras:
        args.append(("mask", (1, hq, sq, sk), "f32"))
        opt += f" mask(%mask : {_t((1, hq, sq, sk), 'f32')})"
    if "segment_ids" in extras:
        args.append(("seg", (b, sk), "i32"))
        opt += f" segment_ids(%seg : {_t((b, sk), 'i32')})"
    if "sinks" in extras:
        args.append(("sinks", (hq,), "f32"))
        opt += f" sinks(%sinks : {_t((hq,), 'f32')})"
    opt += " quantize(%qs, %ks, %vs : tensor<f32>, tensor<f32>, tensor<f32>)"
    a = [f"num_heads = {hq} : i64", f"num_kv_heads = {hkv} : i64"]
    for key, val in attrs.items():
        if val is True:
            a.append(key)
        elif isinstance(val, float):
            a.append(f"{key} = {val} : f64")
        else:
            a.append(f"{key} = {val} : i64")
    ot = _t((b, sq, hq, d), "f32")
    text = module(fname, args, [("o", (b, sq, hq, d), "f32")], f"""
  %o = decoda.attention %q, %k, %v{opt} {{{", ".join(a)}}} : {_t((b, sq, hq, d), 'f32')}, {_t((b, sk, hkv, d), 'f32')}, {_t((b, sk, hkv, d), 'f32')}
  return %o : {ot}""")
    return text, [dt for _, _, dt in args]


def _inputs(case, gen):
    name, b, tq, tk, hq, hkv, d, attrs, extras = case
    q = testing.randn(gen, (b, tq, hq, d), "f32")
    k = testing.randn(gen, (b, tk, hkv, d), "f32")
    v = testing.randn(gen, (b, tk, hkv, d), "f32")
    vals = {"q": q, "k": k, "v": v,
            "qs": np.float32(np.abs(q).max() / 127), "ks": np.float32(np.abs(k).max() / 127),
            "vs": np.float32(np.abs(v).max() / 127)}
    kw = dict(attrs)
    if "mask" in extras:
        mask = (gen.standard_normal((1, hq, tq, tk)) * 0.5).astype(np.float32)
        mask[..., 0, :] = -np.inf  # a row that sees no key
        vals["mask"] = mask
        kw["mask"] = mask
    if "segment_ids" in extras:
        seg = np.sort(gen.integers(0, 3, size=(b, tk)), axis=1).astype(np.int32)
        vals["seg"] = seg
        kw["segment_ids"] = seg
    if "sinks" in extras:
        sinks = gen.standard_normal(hq).astype(np.float32)
        vals["sinks"] = sinks
        kw["sinks"] = sinks
    return vals, kw


def _check_cases(cases, flags=(), suffix="", vpdpbusd=None):
    """Every case of `cases` compiled with `flags`, static and dynamic lengths, against the
    reference; `vpdpbusd`: whether the library must (True) or must not (False) hold it."""
    for case in cases:
        i = CASES.index(case)
        texts, dts = [], {}
        for dynamic in (False, True):
            fname = f"{case[0]}_{'dyn' if dynamic else 'static'}"
            text, d = _fn(fname, case, dynamic)
            texts.append(text)
            dts[fname] = d
        mod = CompiledModule("\n".join(texts), ["--attention-key-tile=16", *flags],
                             name=f"attention_int8_{case[0]}{suffix}")
        if vpdpbusd is not None:
            n = disassembly_count(mod.path, "vpdpbusd")
            testing.check((n > 0) == vpdpbusd, f"{case[0]}{suffix}: {n} vpdpbusd in the library")
        gen = testing.rng(300 + i)
        vals, kw = _inputs(case, gen)
        ref = R.attention(vals["q"], vals["k"], vals["v"], num_heads=case[4],
                          num_kv_heads=case[5], q_scale=vals["qs"], k_scale=vals["ks"],
                          v_scale=vals["vs"], **kw)
        flt = R.attention(vals["q"], vals["k"], vals["v"], num_heads=case[4],
                          num_kv_heads=case[5], **kw)
        names = [a for a in ("q", "k", "v", "qs", "ks", "vs", "mask", "seg", "sinks") if a in vals]
        for fname, d in dts.items():
            (o,) = mod.entry(fname, d, ["f32"])(*[vals[a] for a in names])
            testing.check(o.shape == ref.shape, f"{fname}: shape {o.shape} != {ref.shape}")
            err = np.abs(o.astype(np.float64) - ref)
            bound = 2 * float(np.abs(vals["v"]).max()) / 255
            testing.check(float(err.max()) <= bound,
                          f"{fname}: max error {err.max():.3e} above {bound:.3e}")
            tight = 1e-5 * float(np.abs(ref).max())
            frac = float(np.mean(err <= tight))
            testing.check(frac >= 0.98, f"{fname}: only {100 * frac:.1f}% of the elements "
                          f"within {tight:.1e} of the reference")
            frac_float = float(np.mean(np.abs(flt - ref) <= tight))
            testing.check(frac_float < 0.5, f"{fname}: the float attention is as close to the "
                          f"INT8 reference ({100 * frac_float:.1f}%): the test cannot tell them apart")
            if "mask" in vals:
                testing.check(np.all(o[:, 0] == 0), f"{fname}: a row without keys must be 0")


def test_attention_int8():
    _check_cases(CASES)


# The VNNI kernel's cases for targets without AVX-512 VNNI (decoda-cpu-int8-attention{vnni=false},
# set from the target CPU): no vpdpbusd in the library, the same results. This machine runs them.
KERNEL_CASES = [c for c in CASES if c[0] in ("gqa_chunk_softcap_d16", "mqa_32_heads")]


def test_attention_int8_without_vnni():
    for target, flags in (("haswell", ["--target-cpu=haswell"]),
                          ("host-no-vnni", ["--target-features=-avx512vnni"])):
        _check_cases(KERNEL_CASES, flags, f"_{target}", vpdpbusd=False)


def test_attention_int8_vnni_on_this_host():
    """Skipped on a host without AVX-512 VNNI, where the default target has none."""
    if " avx512_vnni" not in open("/proc/cpuinfo").read():
        print("skipped: this host has no AVX-512 VNNI")
        return
    _check_cases(KERNEL_CASES[:1], (), "_host", vpdpbusd=True)


if __name__ == "__main__":
    testing.run_tests(globals())
