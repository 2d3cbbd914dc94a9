# RUN: rm -rf %t && mkdir -p %t
# RUN: %PYTHON %s %t
"""The runtime and decoda-run on a real compiled decoder block (not the hand-written model of
test/Runtime): bad inputs, NaN/Inf, zero-length sequences, statically specialised lengths,
concurrent runs from several threads on one loaded model, and one artifact loaded twice.

The block is a pre-norm GQA block with RoPE, a causal sliding window, sinks and SwiGLU from the
random block generator (python/tools/random_blocks.py), checked against its NumPy reference.
"""

import dataclasses
import os
import shutil
import subprocess
import sys
import threading

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                "python", "tools"))
import random_blocks as RB  # noqa: E402
from decoda import runtime as rt  # noqa: E402
from decoda import testing as T  # noqa: E402
from decoda.compiler import bin_dir, compile_mlir  # noqa: E402

WORK = sys.argv[1] if len(sys.argv) > 1 else "/tmp/decoda-runtime-robustness"
os.makedirs(WORK, exist_ok=True)

SPEC = dataclasses.replace(
    RB.draw_spec(0), dtype="f32", batch=1, d_model=32, heads=4, kv_heads=2, head_dim=8,
    norm="rms", norm_bias=False, weight_offset=0.0, eps=1e-5, placement="pre", qk_norm=False,
    qkv_bias=False, mlp="swiglu", glu_params={}, mlp_bias=False, ffn=64,
    rope=dict(theta=1e4, rotary_dim=8, layout="half_split", scaling=None), causal=True,
    window=6, sinks=True, softcap=None, scale=None, mla=None, weights="args", lengths=[9])
TEXT, PARAMS, ARG_NAMES, REFERENCE = RB.build(SPEC, "block")
WEIGHTS = [PARAMS[n] for n in ARG_NAMES]
MODEL_PATH = str(compile_mlir(TEXT, "block", workdir=WORK))
MODEL = rt.load(MODEL_PATH)


def _h(t, seed=0):
    return np.random.default_rng(seed).standard_normal((1, t, 32)).astype(np.float32)


def _run(h, model=MODEL):
    return model.run("block", h, *WEIGHTS)


def _raises(status, needle, fn, *args):
    try:
        fn(*args)
    except rt.DecodaError as e:
        T.check(e.status == status, f"status {e.status} ({e}), expected {status}")
        T.check(needle in str(e), f"message '{e}' does not mention '{needle}'")
        return str(e)
    raise AssertionError(f"no error (expected {status} mentioning '{needle}')")


def test_matches_reference():
    for t in (1, 5, 9, 40):
        h = _h(t, t)
        msg = RB.compare(_run(h), REFERENCE(h), "f32")
        T.check(msg is None, f"T={t}: {msg}")


def test_wrong_dtype_shape_and_count():
    h = _h(4)
    print("  " + _raises("DTYPE", "'h'", _run, h.astype(np.float16)))
    print("  " + _raises("DTYPE", "'h'", _run, h.astype(np.float64)))
    print("  " + _raises("SHAPE", "'h'", _run, h[0]))                       # rank 2
    print("  " + _raises("SHAPE", "'h'", _run, np.zeros((1, 4, 31), np.float32)))
    print("  " + _raises("SHAPE", "'h'", _run, np.zeros((2, 4, 32), np.float32)))
    print("  " + _raises("SHAPE", "'wq'", lambda: MODEL.run(
        "block", h, WEIGHTS[0], WEIGHTS[1][:, :16], *WEIGHTS[2:])))
    print("  " + _raises("ARGUMENT", "block", lambda: MODEL.run("block", h, *WEIGHTS[:-1])))
    print("  " + _raises("ARGUMENT", "nope", lambda: MODEL.run("nope", h, *WEIGHTS)))
    # The model still works after the rejected calls.
    T.check(RB.compare(_run(h), REFERENCE(h), "f32") is None, "wrong after rejected calls")


def test_nan_and_inf_propagate():
    """A NaN (or ±Inf) in one token: no crash, and the result has NaN exactly where the NumPy
    reference on the same input has them, the finite values agreeing.

    Note what that means (docs/Reliability.md): a key that is masked from a query still poisons
    it, because its probability is exactly 0 and 0 · NaN = NaN in P·V, in the compiled code and in
    the reference alike (as in a plain softmax(QKᵀ)V). A NaN anywhere in the sequence therefore
    reaches every row of the causal block, including rows before it: pad with finite values."""
    t, p = 40, 17
    for bad in (np.nan, np.inf, -np.inf):
        h = _h(t)
        h[0, p, 3] = bad
        y = _run(h)
        with np.errstate(all="ignore"):
            ref = REFERENCE(h)
        T.check(y.shape == ref.shape, f"{bad}: shape {y.shape}")
        T.check(np.isnan(y[0, p]).all(), f"{bad}: token {p} is not all NaN")
        T.assert_equal(np.isnan(y), np.isnan(ref), op="block", what=f"NaN pattern ({bad})")
        fin = np.isfinite(ref)
        if fin.any():
            T.check(RB.compare(y[fin], ref[fin], "f32") is None, f"{bad}: finite values")
        print(f"  {bad} in token {p}: {int(np.isnan(y).sum())}/{y.size} outputs NaN "
              f"(rows before it: {int(np.isnan(y[:, :p]).sum())})")
    # All-NaN input: every output NaN, no crash.
    y = _run(np.full((1, 5, 32), np.nan, np.float32))
    T.check(np.isnan(y).all(), "an all-NaN input gives non-NaN outputs")
    # Inf in a weight: propagates too.
    w = [a.copy() for a in WEIGHTS]
    w[ARG_NAMES.index("w_down")][0, 0] = np.inf
    y = MODEL.run("block", _h(3), *w)
    T.check(not np.isfinite(y).all(), "an infinite weight vanished")


def test_zero_length_sequence():
    y = _run(np.zeros((1, 0, 32), np.float32))
    T.check(y.shape == (1, 0, 32), f"T=0 gives shape {y.shape}")
    T.check(RB.compare(_run(_h(3)), REFERENCE(_h(3)), "f32") is None, "wrong after T=0")


def test_static_length_rejects_other_lengths():
    """--static-dims h:1=8: the sequence length is compiled as 8; the runtime rejects any other
    length (longer or shorter) with a SHAPE error naming the input; 8 gives the dynamic model's
    result."""
    path = compile_mlir(TEXT, "block_t8", ["--static-dims", "h:1=8"], workdir=WORK)
    m = rt.load(str(path))
    T.check(m.signature("block").inputs[0].shape == (1, 8, 32), m.signature("block"))
    h = _h(8)
    T.assert_equal(m.run("block", h, *WEIGHTS), _run(h), op="block", what="static T=8")
    for t in (9, 64, 7, 0):
        print("  " + _raises("SHAPE", "'h'", lambda: m.run("block", _h(t), *WEIGHTS)))
    out = subprocess.run([str(bin_dir() / "decoda-run"), str(path), "--entry", "block",
                          "--input", f"h={_npy(_h(9), 'h9')}"] + _weight_args(),
                         capture_output=True, text=True)
    T.check(out.returncode == 2, f"decoda-run exit {out.returncode}: {out.stderr}")
    T.check("input 'h'" in out.stderr and "[1, 8, 32]" in out.stderr, out.stderr)
    print("  decoda-run: " + out.stderr.strip())


def test_concurrent_runs_one_model():
    """8 threads run the one loaded model at different lengths; every result equals the
    single-threaded one bit for bit."""
    lengths = [1, 3, 9, 17, 33, 64, 5, 70]
    inputs = {t: _h(t, 100 + t) for t in lengths}
    expected = {t: _run(inputs[t]) for t in lengths}
    errors, barrier = [], threading.Barrier(len(lengths))

    def worker(k):
        try:
            barrier.wait()
            for i in range(12):
                t = lengths[(k + i) % len(lengths)]
                y = _run(inputs[t])
                if not np.array_equal(y, expected[t]):
                    errors.append(f"thread {k} iteration {i} T={t}: max diff "
                                  f"{np.max(np.abs(y - expected[t]))}")
                if i % 5 == 0:   # a rejected call in between must not disturb the others
                    try:
                        _run(inputs[t].astype(np.float64))
                        errors.append("no dtype error")
                    except rt.DecodaError:
                        pass
        except Exception as exc:  # noqa: BLE001 - reported by the main thread
            errors.append(f"thread {k}: {exc!r}")

    threads = [threading.Thread(target=worker, args=(k,)) for k in range(len(lengths))]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    T.check(not errors, "\n".join(errors[:10]))


def test_same_artifact_loaded_twice():
    a = rt.load(MODEL_PATH)
    b = rt.load(MODEL_PATH)
    copy = os.path.join(WORK, "block_copy.so")
    shutil.copyfile(MODEL_PATH, copy)
    c = rt.load(copy)
    h = _h(11)
    want = _run(h)
    for m in (a, b, c, a):
        T.assert_equal(_run(h, m), want, op="block", what="second load")
    a.close()   # the other handles (same dlopen handle underneath) keep working
    T.assert_equal(_run(h, b), want, op="block", what="after closing the first load")
    _raises("ARGUMENT", "closed", _run, h, a)
    b.close()
    T.assert_equal(_run(h, MODEL), want, op="block", what="after closing both extra loads")
    c.close()


def _npy(a, name):
    path = os.path.join(WORK, f"{name}.npy")
    np.save(path, a)
    return path


def _weight_args():
    out = []
    for n, w in zip(ARG_NAMES, WEIGHTS):
        out += ["--input", f"{n}={_npy(w, n)}"]
    return out


def test_decoda_run_nan_input():
    h = _h(6)
    h[0, 2, :] = np.nan
    dest = os.path.join(WORK, "out_nan")
    out = subprocess.run([str(bin_dir() / "decoda-run"), MODEL_PATH, "--entry", "block",
                          "--input", f"h={_npy(h, 'hnan')}", "--output-dir", dest]
                         + _weight_args(), capture_output=True, text=True)
    T.check(out.returncode == 0, f"decoda-run exit {out.returncode}: {out.stderr}")
    y = np.load(os.path.join(dest, "out0.npy"))
    T.assert_equal(y, _run(h), op="decoda-run", what="NaN input")
    T.check(np.isnan(y[0, 2]).all(), "NaN not propagated")
    z = os.path.join(WORK, "out_empty")
    out = subprocess.run([str(bin_dir() / "decoda-run"), MODEL_PATH, "--entry", "block",
                          "--input", f"h={_npy(np.zeros((1, 0, 32), np.float32), 'h0')}",
                          "--output-dir", z] + _weight_args(), capture_output=True, text=True)
    T.check(out.returncode == 0, f"decoda-run T=0 exit {out.returncode}: {out.stderr}")
    T.check(np.load(os.path.join(z, "out0.npy")).shape == (1, 0, 32), "decoda-run T=0 shape")


if __name__ == "__main__":
    T.run_tests(globals())
