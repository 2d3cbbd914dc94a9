# RUN: %PYTHON %s
"""decoda.qlinear through decoda-cpu-int8-codegen (AVX-512 VNNI vpdpbusd on x + 128 as u8 against
the weight packed 4 k to a lane, corrected by (128 + zero point) · Σ_k w) against
reference.qlinear: ragged rows / columns / k (N, K not multiples of 32 / 4 / 64), rows that
leave 2- and 1-row tiles, a batch dim, dynamic T, per-tensor and per-token x_scale, rank-0 and
per-token zero points, per-channel w_scale, bias, requantisation to i8, weights as arguments
(packed at run time) and as constants (packed at compile time). With unit scales the f32
output is the i32 accumulator itself (|acc| < 2^24), compared bit for bit; extreme values
(x = -128, w = ±127) are among the inputs. The same cases for CPUs without AVX-512 VNNI
(--target-cpu=haswell, x86-64, skylake-avx512, --target-features=-avx512vnni): the i32 vector
form, exact as well."""

import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(__file__))
from harness import (CompiledModule, R, check, disassembly_count, module, np,  # noqa: E402
                     tensor_type, testing)
from decoda.compiler import bin_dir  # noqa: E402

_t = tensor_type

# (name, B, T, K, N, x_scale per token, zero point ("none"|"tensor"|"token"), w_scale per
#  channel, bias, requantize)
CASES = [
    ("m1_n1_k3", 1, 1, 3, 1, False, "none", False, False, False),
    ("m5_n17_k40", 1, 5, 40, 17, True, "none", True, False, False),
    ("m7_n50_k130_zp", 1, 7, 130, 50, False, "tensor", True, True, False),
    ("m37_n95_k64_tok", 1, 37, 64, 95, True, "token", True, True, False),
    ("b3_m13_n33_k257", 3, 13, 257, 33, True, "token", False, False, False),
    ("m11_n70_k1030_rq", 1, 11, 1030, 70, False, "none", True, True, True),
    ("m2_n64_k2048", 1, 2, 2048, 64, True, "none", True, False, False),
    ("m1_n40_k301_rq_zp", 1, 1, 301, 40, True, "token", True, True, True),
]


def _types(b, seq, k, n, per_token, zp, per_channel, bias, rq, const_w):
    xs_shape = (b, seq, 1) if per_token else ()
    args = [("x", (b, seq, k), "i8")]
    if not const_w:
        args.append(("w", (n, k), "i8"))
    args += [("xs", xs_shape, "f32"), ("ws", (n,) if per_channel else (), "f32")]
    if zp != "none":
        args.append(("zp", xs_shape if zp == "token" else (), "i8"))
    if bias:
        args.append(("bias", (n,), "f32"))
    if rq:
        args.append(("os", (), "f32"))
    return args


def _fn(fname, case, dynamic, w=None):
    name, b, t, k, n, per_token, zp, per_channel, bias, rq = case
    seq = None if dynamic else t
    args = _types(b, seq, k, n, per_token, zp, per_channel, bias, rq, w is not None)
    shapes = {a: s for a, s, _ in args}
    text = ""
    if w is not None:
        hexw = np.ascontiguousarray(w, np.int8).tobytes().hex().upper()
        text += f'  %w = arith.constant dense<"0x{hexw}"> : {_t((n, k), "i8")}\n'
    opt = ""
    if zp != "none":
        opt += f" x_zero_point(%zp : {_t(shapes['zp'], 'i8')})"
    if bias:
        opt += f" bias(%bias : {_t((n,), 'f32')})"
    if rq:
        opt += f" requantize(%os : {_t((), 'f32')})"
    out_t = "i8" if rq else "f32"
    text += (f"  %y = decoda.qlinear %x, %w, %xs, %ws{opt} : {_t((b, seq, k), 'i8')}, "
             f"{_t((n, k), 'i8')}, {_t(shapes['xs'], 'f32')}, {_t(shapes['ws'], 'f32')} -> "
             f"{_t((b, seq, n), out_t)}\n  return %y : {_t((b, seq, n), out_t)}")
    return module(fname, args, [("y", (b, seq, n), out_t)], text), [d for _, _, d in args], out_t


def _weights(case, gen):
    _, b, t, k, n = case[:5]
    w = gen.integers(-127, 128, size=(n, k), dtype=np.int8)
    w[0, : min(k, 5)] = 127
    if n > 1:
        w[1, : min(k, 5)] = -127
    return w


def _inputs(case, gen):
    _, b, t, k, n, per_token, zp, per_channel, bias, rq = case
    x = gen.integers(-128, 128, size=(b, t, k), dtype=np.int8)
    x[..., 0, : min(k, 4)] = -128
    xs_shape = (b, t, 1) if per_token else ()
    vals = {"x": x}
    vals["xs"] = (gen.uniform(0.5, 2.0, size=xs_shape) * 0.01).astype(np.float32)
    vals["ws"] = (gen.uniform(0.5, 2.0, size=(n,) if per_channel else ()) * 0.01).astype(np.float32)
    if zp != "none":
        vals["zp"] = gen.integers(-20, 21, size=xs_shape if zp == "token" else (), dtype=np.int8)
    if bias:
        vals["bias"] = gen.standard_normal(n).astype(np.float32)
    if rq:
        vals["os"] = np.array(0.02 * np.sqrt(k) * 0.4, np.float32)
    return vals


def _reference(case, w, vals):
    rq = case[-1]
    return R.qlinear(vals["x"], w, vals["xs"], vals["ws"], x_zero_point=vals.get("zp"),
                     bias=vals.get("bias"), out_scale=vals.get("os") if rq else None)


def _ir_after_codegen(text):
    proc = subprocess.run(
        [str(bin_dir() / "decoda-opt"), "--decoda-graph-opt", "--decoda-lower-to-cpu",
         "--mlir-print-ir-after=decoda-cpu-int8-codegen", "-o", os.devnull],
        input=text, capture_output=True, text=True)
    testing.check(proc.returncode == 0, f"decoda-opt failed:\n{proc.stderr[-2000:]}")
    return proc.stderr


def _compare(case, y, ref, what):
    if case[-1]:  # requantised: i8 from the same f32 epilogue
        testing.check(y.dtype == np.int8, f"{what}: expected i8, got {y.dtype}")
        diff = np.abs(y.astype(np.int32) - ref.astype(np.int32))
        testing.check(diff.max(initial=0) == 0,
                      f"{what}: requantised output differs from the reference in "
                      f"{int(np.count_nonzero(diff))} places (max {diff.max()})")
    else:
        check("qlinear", y, ref, "f32", rtol=1e-6, atol=1e-6 * max(np.abs(ref).max(), 1e-30),
              what=what)


def test_vnni_code_is_emitted():
    """Both the run-time and the compile-time packed forms are VNNI code; no i8 contraction is
    left to the scalar loops."""
    case = CASES[2]
    gen = testing.rng(1)
    w = _weights(case, gen)
    text = _fn("arg", case, True)[0] + _fn("const", case, True, w)[0]
    ir = _ir_after_codegen(text)
    testing.check(ir.count('"llvm.x86.avx512.vpdpbusd.512"') >= 2,
                  "expected vpdpbusd intrinsic calls after decoda-cpu-int8-codegen")
    testing.check("_vnni32 : memref<2x33x128xi8>" in ir and
                  "_vnni32_colsum : memref<64xi32>" in ir,
                  "expected the compile-time packed weight [ceil(50/32)][ceil(130/4)][128] and "
                  "its column sums")
    testing.check("decoda.qlinear_acc" not in ir, "an i8 contraction was left for the scalar loops")


def test_qlinear():
    for i, case in enumerate(CASES):
        gen = testing.rng(100 + i)
        w = _weights(case, gen)
        texts, dts = [], {}
        for dynamic in (False, True):
            for const in (False, True):
                fname = f"{case[0]}_{'dyn' if dynamic else 'static'}_{'const' if const else 'arg'}"
                text, d, out_t = _fn(fname, case, dynamic, w if const else None)
                texts.append(text)
                dts[fname] = (d, out_t)
        mod = CompiledModule("\n".join(texts), name=f"qlinear_{case[0]}")
        vals = _inputs(case, gen)
        ref = _reference(case, w, vals)
        for fname, (d, out_t) in dts.items():
            names = [a for a, _, _ in _types(1, 1, 1, 1, *case[5:], "const" in fname)]
            arrays = [w if a == "w" else vals[a] for a in names]
            (y,) = mod.entry(fname, d, [out_t])(*arrays)
            _compare(case, y, ref, f" {fname}")


# Targets without AVX-512 VNNI: decoda-compile picks the i32 vector form of
# decoda-cpu-int8-codegen (vnni=false) from the target's features. This machine runs their code.
NO_VNNI_TARGETS = [
    ("haswell", ["--target-cpu=haswell"]),                        # AVX2, no AVX-512
    ("x86-64", ["--target-cpu=x86-64"]),                          # SSE2 baseline
    ("skylake-avx512", ["--target-cpu=skylake-avx512"]),          # AVX-512 BW, no VNNI
    ("host-no-vnni", ["--target-features=-avx512vnni"]),         # this host minus VNNI
]


def _compile_capturing(text, name, flags):
    """decoda-compile text -> name.so with flags; returns (loaded model, stderr, .so path)."""
    import tempfile
    from pathlib import Path
    from decoda import runtime
    work = Path(tempfile.mkdtemp(prefix="decoda-novnni-"))
    src = work / f"{name}.mlir"
    src.write_text(text)
    so = work / f"{name}.so"
    proc = subprocess.run([str(bin_dir() / "decoda-compile"), str(src), "-o", str(so), *flags],
                          capture_output=True, text=True)
    testing.check(proc.returncode == 0,
                  f"{name}: decoda-compile {' '.join(flags)} failed ({proc.returncode}):\n"
                  f"{proc.stderr[-3000:]}")
    return runtime.load(str(so)), proc.stderr, so


def test_qlinear_without_vnni():
    """Every case, dynamic T, weights as arguments and as constants, for CPUs without AVX-512
    VNNI: the remark names the i32 form, no vpdpbusd in the library (vpmaddwd instead), and the
    results equal the reference exactly as on VNNI (i8 requantised outputs bit for bit)."""
    for target, flags in NO_VNNI_TARGETS:
        texts, dts = [], {}
        cases = {}
        for i, case in enumerate(CASES):
            gen = testing.rng(100 + i)
            w = _weights(case, gen)
            cases[case[0]] = (case, w, _inputs(case, gen))
            for const in (False, True):
                fname = f"{case[0]}_{'const' if const else 'arg'}"
                text, d, out_t = _fn(fname, case, True, w if const else None)
                texts.append(text)
                dts[fname] = (case[0], d, out_t)
        model, stderr, so = _compile_capturing("\n".join(texts), f"qlinear_{target}", flags)
        testing.check("as i32 vector multiply-adds (vnni=false" in stderr and "vpdpbusd" not in
                      stderr, f"{target}: expected the remark of the i32 form, got:\n{stderr}")
        testing.check(disassembly_count(so, "vpdpbusd") == 0,
                      f"{target}: vpdpbusd in a library for a CPU without AVX-512 VNNI")
        testing.check(disassembly_count(so, "vpmaddwd") + disassembly_count(so, "pmaddwd") > 0,
                      f"{target}: expected (v)pmaddwd for the u8 x s8 products")
        for fname, (cname, d, out_t) in dts.items():
            case, w, vals = cases[cname]
            names = [a for a, _, _ in _types(1, 1, 1, 1, *case[5:], fname.endswith("const"))]
            arrays = [w if a == "w" else vals[a] for a in names]
            from harness import Entry
            (y,) = Entry(model, fname, d, [out_t])(*arrays)
            _compare(case, y, _reference(case, w, vals), f" {fname} ({target})")


def test_vnni_form_on_this_host():
    """The default target (this machine) has AVX-512 VNNI here: the remark says vpdpbusd and the
    library contains it. Skipped on a host without VNNI, where the i32 form is correct."""
    flags_in_cpuinfo = open("/proc/cpuinfo").read() if os.path.exists("/proc/cpuinfo") else ""
    if " avx512_vnni" not in flags_in_cpuinfo:
        print("skipped: this host has no AVX-512 VNNI")
        return
    case = CASES[1]
    w = _weights(case, testing.rng(3))
    _, stderr, so = _compile_capturing(_fn("f", case, True, w)[0], "qlinear_host", [])
    testing.check("as AVX-512 VNNI vpdpbusd register tiles" in stderr,
                  f"expected the remark of the VNNI form, got:\n{stderr}")
    testing.check(disassembly_count(so, "vpdpbusd") > 0, "no vpdpbusd in the host library")


def test_accumulator_bit_exact():
    """Unit scales, no bias: the f32 result is the i32 accumulator (exact below 2^24), against
    the reference's int64 sum; with a per-token zero point and x = -128 rows."""
    b, t, k, n = 1, 19, 515, 45
    gen = testing.rng(7)
    x = gen.integers(-128, 128, size=(b, t, k), dtype=np.int8)
    x[0, 3, :] = -128
    w = gen.integers(-127, 128, size=(n, k), dtype=np.int8)
    w[5, :] = 127
    w[6, :] = -127
    zp = gen.integers(-128, 128, size=(b, t, 1), dtype=np.int8)
    zp[0, 3, 0] = 127
    one_t, one_c = np.ones((b, t, 1), np.float32), np.float32(1.0)
    acc = (x.astype(np.int64) - zp.astype(np.int64)) @ w.astype(np.int64).T
    testing.check(np.abs(acc).max() < 2**24, "test inputs must keep |acc| < 2^24")
    for const in (False, True):
        args = [("x", (b, None, k), "i8")] + ([] if const else [("w", (n, k), "i8")]) + [
            ("xs", (b, None, 1), "f32"), ("ws", (), "f32"), ("zp", (b, None, 1), "i8")]
        wdef = (f'  %w = arith.constant dense<"0x{w.tobytes().hex().upper()}"> : '
                f'{_t((n, k), "i8")}\n' if const else "")
        text = module("f", args, [("y", (b, None, n), "f32")], wdef + f"""
  %y = decoda.qlinear %x, %w, %xs, %ws x_zero_point(%zp : {_t((b, None, 1), "i8")}) : {_t((b, None, k), "i8")}, {_t((n, k), "i8")}, {_t((b, None, 1), "f32")}, {_t((), "f32")} -> {_t((b, None, n), "f32")}
  return %y : {_t((b, None, n), "f32")}""")
        mod = CompiledModule(text, name=f"qlinear_exact_{const}")
        arrays = [x] + ([] if const else [w]) + [one_t, one_c, zp]
        (y,) = mod.entry("f", [d for _, _, d in args], ["f32"])(*arrays)
        bad = np.count_nonzero(y.astype(np.int64) != acc)
        testing.check(bad == 0, f"const={const}: {bad} accumulators differ from the exact sum")


if __name__ == "__main__":
    testing.run_tests(globals())
