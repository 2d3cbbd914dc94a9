# RUN: rm -rf %t && mkdir -p %t
# RUN: cc -shared -fPIC %S/Inputs/fake_model.c -o %t/model.so
# RUN: cc -shared -fPIC -DVARIANT=0 %S/Inputs/bad_model.c -o %t/notmodel.so
# RUN: cc -shared -fPIC -DVARIANT=1 %S/Inputs/bad_model.c -o %t/badsig.so
# RUN: cc -shared -fPIC -DVARIANT=11 %S/Inputs/bad_model.c -o %t/one.so
# RUN: %PYTHON %s %t
"""decoda.runtime (the ctypes binding of libdecoda_runtime) on the hand-written model."""

import os
import subprocess
import sys

import numpy as np

import decoda
from decoda import reference as R
from decoda import runtime as rt
from decoda import testing as T

DIR = sys.argv[1]
MODEL = os.path.join(DIR, "model.so")


def expect_error(fn, status, *fragments):
    """``fn()`` raises DecodaError with ``status`` and a message containing every fragment."""
    try:
        fn()
    except rt.DecodaError as e:
        T.check(e.status == status, f"status {e.status!r}, expected {status!r}: {e}")
        for f in fragments:
            T.check(f in str(e), f"message {str(e)!r} lacks {f!r}")
        return str(e)
    raise AssertionError(f"no DecodaError ({status}), expected one mentioning {fragments}")


def test_package_exports():
    T.check(decoda.load is rt.load and decoda.DecodaError is rt.DecodaError,
            "decoda exports load and DecodaError")
    T.check(issubclass(rt.DecodaError, RuntimeError), "DecodaError is a RuntimeError")


def test_entries_and_signatures():
    m = rt.load(MODEL)
    T.assert_equal(list(m.entries), ["add", "embed", "consts", "mix", "scale2"], op="entries")
    s = m.signature("add")
    T.check(s.name == "add", "name")
    T.check(s.inputs == (rt.TensorSpec("x", "f32", (-1, 4)), rt.TensorSpec("y", "f32", (-1, 4))),
            f"add inputs {s.inputs}")
    T.check([o.name for o in s.outputs] == ["sum", "x_alias"], "add outputs")
    T.check(m.signature(1).inputs[1] == rt.TensorSpec("table", "f16", (4, 2)), "by index")
    T.check(m.signature("consts").outputs[3] == rt.TensorSpec("g", "f64", ()), "rank 0")
    T.check(m.signature("mix").inputs[0].dtype == "i1", "i1")
    T.check(m.signature("scale2").outputs[0] == rt.TensorSpec("y", "bf16", (-1,)), "bf16")
    expect_error(lambda: m.signature(), "ARGUMENT", "has 5 entries", "choose one")
    expect_error(lambda: m.signature("nope"), "ARGUMENT", "no entry 'nope'",
                 "entries: add, embed, consts, mix, scale2")
    expect_error(lambda: m.signature(5), "ARGUMENT", "entry index 5 out of range")
    T.check("model.so" in repr(m), "repr names the path")
    one = rt.load(os.path.join(DIR, "one.so"))
    T.check(one.signature() == rt.EntrySignature("f", (rt.TensorSpec("x", "f32", (4,)),), ()),
            "single entry without --entry")


def test_load_errors():
    missing = os.path.join(DIR, "missing.so")
    expect_error(lambda: rt.load(missing), "IO", "cannot open model", missing,
                 "No such file or directory")
    text = os.path.join(DIR, "model.txt")
    with open(text, "w") as f:
        f.write("not a model\n")
    expect_error(lambda: rt.load(text), "FORMAT", text, "is not a Decoda model")
    notmodel = os.path.join(DIR, "notmodel.so")
    expect_error(lambda: rt.load(notmodel), "FORMAT", notmodel,
                 "is not a Decoda model: it does not export decoda_abi_version")
    expect_error(lambda: rt.load(os.path.join(DIR, "badsig.so")), "FORMAT",
                 "malformed decoda_signature, line 3 'input x f33 1 4': unknown dtype 'f33'")


def test_add_and_call_forms():
    m = rt.load(MODEL)
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    y = np.full((3, 4), 0.25, np.float32)
    s, xa = m(x, y, entry="add")
    T.assert_equal(s, x + y, op="add", what="sum")
    T.assert_equal(xa, x, op="add", what="x_alias")
    T.check(s.dtype == np.float32 and xa.dtype == np.float32, "f32 outputs")
    xa[0, 0] = 99  # outputs are copies owned by NumPy, never the input's memory
    T.check(x[0, 0] == 0, "the aliasing output is a copy")
    for result in (m.run("add", x, y), m.run(0, x, y), m(x, y, entry=0)):
        T.assert_equal(result[0], x + y, op="add", what="run forms")
    # Non-contiguous, byte-swapped and list inputs are converted; an empty dynamic extent runs.
    big = np.arange(32, dtype=np.float32).reshape(4, 8)
    T.assert_equal(m.run("add", big[:, ::2], big[:, 1::2])[0], big[:, ::2] + big[:, 1::2],
                   op="add", what="strided inputs")
    T.assert_equal(m.run("add", x.astype(">f4"), y)[0], x + y, op="add", what="big-endian")
    T.assert_equal(m.run("add", [[1, 2, 3, 4]], [[0.5] * 4])[0], [[1.5, 2.5, 3.5, 4.5]],
                   op="add", what="lists")
    e = np.zeros((0, 4), np.float32)
    s0, x0 = m.run("add", e, e)
    T.check(s0.shape == (0, 4) and x0.shape == (0, 4), f"empty: {s0.shape}")
    one = rt.load(os.path.join(DIR, "one.so"))
    T.check(one(np.zeros(4, np.float32)) == (), "no outputs -> ()")


def test_dtypes():
    m = rt.load(MODEL)
    out = m.run("mix", np.array([True, False, True]), np.array([-1, 2, 3], np.int8),
                np.array([10, 20, 30], np.int32), np.array(2.0))
    T.check(out.dtype == np.float64, "mix output dtype")
    T.assert_equal(out, [-2.0, 40.0, 6.0], op="mix")
    T.assert_equal(m.run("mix", [True, False, True], [-1, 2, 3], [10, 20, 30], 0.5),
                   [-0.5, 10.0, 1.5], op="mix", what="Python values")
    table = (np.arange(8, dtype=np.float16) / 4).reshape(4, 2)
    emb = m.run("embed", np.array([3, 0, 1], np.int64), table)
    T.check(emb.dtype == np.float16 and emb.shape == (3, 2), "embed output")
    T.assert_equal(emb, table[[3, 0, 1]], op="embed")
    c, t, t2, g, o = m.run("consts")
    T.assert_equal(c, np.array([1.5, -2.0, 0.25], np.float32), op="consts", what="constant")
    T.assert_equal(t, np.arange(6, dtype=np.int32).reshape(2, 3).T, op="consts", what="strided")
    T.assert_equal(t2, np.arange(6, dtype=np.int32).reshape(2, 3), op="consts", what="shared")
    T.check(g.shape == () and g.dtype == np.float64 and float(g) == 42.0, "rank-0 global")
    T.check(o.dtype == np.int8 and list(o) == [-7, 9], "offset view")
    bits = rt.float32_to_bf16([1.0, -3.5, 0.5, 0.0])
    y = m.run("scale2", bits)
    T.check(y.dtype == np.uint16, "bf16 output as uint16")
    T.assert_equal(rt.bf16_to_float32(y), [2.0, -7.0, 1.0, 0.0], op="scale2")


def test_validation_errors():
    m = rt.load(MODEL)
    x = np.zeros((2, 4), np.float32)
    expect_error(lambda: m.run("add", x), "ARGUMENT", "entry 'add' takes 2 inputs (x, y), got 1")
    expect_error(lambda: m.run("add", x, x, x), "ARGUMENT", "takes 2 inputs (x, y), got 3")
    expect_error(lambda: m.run("add", x, x.astype(np.float64)), "DTYPE",
                 "entry 'add': input 'y' (#1): expected dtype f32, found f64")
    expect_error(lambda: m.run("add", x, np.zeros((2, 5), np.float32)), "SHAPE",
                 "entry 'add': input 'y' (#1): expected shape [?, 4], found [2, 5] "
                 "(dimension 1 is 5, expected 4)")
    expect_error(lambda: m.run("add", np.zeros(8, np.float32), x), "SHAPE",
                 "input 'x' (#0): expected shape [?, 4] (rank 2), found [8] (rank 1)")
    expect_error(lambda: m.run("add", np.zeros((1,) * 9, np.float32), x), "SHAPE",
                 "found rank 9")
    expect_error(lambda: m.run("add", x.astype(np.complex64), x), "DTYPE",
                 "input 'x' (#0): expected dtype f32, found NumPy dtype complex64")
    expect_error(lambda: m.run("scale2", np.ones(3, np.float32)), "DTYPE",
                 "expected dtype bf16, found f32", "uint16 arrays of bf16 bit patterns")
    expect_error(lambda: m.run("nope", x), "ARGUMENT", "no entry 'nope'")
    expect_error(lambda: m(x, x), "ARGUMENT", "has 5 entries")


def test_failed_runtime_check():
    m = rt.load(MODEL)
    table = np.zeros((4, 2), np.float16)
    msg = expect_error(lambda: m.run("embed", np.array([0, 7], np.int64), table), "RUNTIME")
    T.check(msg == "entry 'embed': run-time check failed: embedding id 7 out of range [0, 4)",
            msg)
    T.check(m.run("embed", np.array([2], np.int64), table).shape == (1, 2), "runs afterwards")


def test_close():
    m = rt.load(MODEL)
    with m:
        T.check(m.run("consts")[0].shape == (3,), "open")
    expect_error(lambda: m.run("consts"), "ARGUMENT", "is closed")
    m.close()  # twice is fine
    for _ in range(50):  # load/unload cycles
        rt.load(MODEL).run("consts")


def test_bf16_helpers():
    # Round to nearest, ties to even: 1 + 2^-8 is halfway between 1 and 1 + 2^-7.
    cases = [(1.0, 0x3F80), (1 + 2**-8, 0x3F80), (1 + 3 * 2**-8, 0x3F82), (-2.0, 0xC000),
             (0.0, 0x0000), (-0.0, 0x8000), (float("inf"), 0x7F80), (float("-inf"), 0xFF80),
             (3.4e38, 0x7F80), (1e-40, 0x0001)]
    got = rt.float32_to_bf16(np.array([c[0] for c in cases], np.float32))
    T.assert_equal(got, np.array([c[1] for c in cases], np.uint16), op="float32_to_bf16")
    nan = rt.float32_to_bf16(np.array([np.nan, -np.nan], np.float32))
    T.check(all((v & 0x7F80) == 0x7F80 and (v & 0x7F) != 0 for v in nan.tolist()), "NaN stays NaN")
    T.check(rt.float32_to_bf16(1.0).shape == () and rt.bf16_to_float32(0x4000) == 2.0, "0-d")
    # Every non-NaN bf16 pattern survives the round trip.
    allbits = np.arange(65536, dtype=np.uint32).astype(np.uint16)
    vals = rt.bf16_to_float32(allbits)
    keep = ~np.isnan(vals)
    T.assert_equal(rt.float32_to_bf16(vals[keep]), allbits[keep], op="bf16 round trip")
    # The same rounding as the reference emulation of bf16.
    xs = T.rng(3).standard_normal(4096).astype(np.float32) * 100
    T.assert_equal(rt.bf16_to_float32(rt.float32_to_bf16(xs)), R.to_bf16(xs),
                   op="float32_to_bf16", what="vs decoda.reference.to_bf16")


def test_library_lookup():
    env = dict(os.environ)
    env.pop("DECODA_RUNTIME_LIB", None)
    code = "import decoda.runtime as rt; print(rt.library_path())"
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         check=True).stdout.strip()
    T.check(out.endswith(os.path.join("build", "lib", "libdecoda_runtime.so")), out)
    # A missing library fails on load, not on import.
    env["DECODA_RUNTIME_LIB"] = os.path.join(DIR, "nonexistent.so")
    code = ("import decoda, decoda.runtime as rt\n"
            "try:\n    decoda.load('x.so')\nexcept rt.DecodaError as e:\n    print(e)\n")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         check=True).stdout
    T.check("nonexistent.so' does not exist" in out and "DECODA_RUNTIME_LIB" in out, out)


if __name__ == "__main__":
    T.run_tests(globals())
