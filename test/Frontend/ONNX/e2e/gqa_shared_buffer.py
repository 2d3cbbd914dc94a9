# RUN: %PYTHON %s
"""GroupQueryAttention with `decoda-compile --shared-kv-buffers` (onnxruntime-genai's
past_present_share_buffer): the past is a buffer at least total_sequence_length long and
present is that buffer with each row's new tokens written at past_b, donated
(`decoda.donate`). Checked against ONNX Runtime on the buffer forms of
onnx_models.GQA_RUNTIME_SETS (decode steps with equal and different row lengths, a right-padded
prompt, a chunk), the pasts zero after each row's earlier tokens (ONNX Runtime's unshared
present zeroes them; a shared buffer keeps what it held, here zeros): the outputs equal, the
caller's past untouched without donation, and with donation the caller's buffer holds present
(written in place, no copy) while entries outside the rows' new tokens keep their values. A
past shorter than total_sequence_length is refused at run time naming the node."""

import os
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
from harness import M, compile_onnx  # noqa: E402

from decoda import runtime, testing  # noqa: E402
from decoda.ort import OrtSession  # noqa: E402

NAMES = ["query", "key", "value", "past_key", "past_value", "seqlens_k", "total_sequence_length"]
_work = tempfile.mkdtemp(prefix="decoda-gqa-shared-")
_case = M.case("ms_gqa_runtime_lengths_rotary_window")
_path = M.save(_case.build(), os.path.join(_work, "gqa.onnx"))
_model = runtime.load(str(compile_onnx(_path, os.path.join(_work, "gqa.so"),
                                       ["--shared-kv-buffers"])))


def _buffer_sets():
    """The input sets whose past is a buffer (P >= total), each row's entries after its earlier
    tokens zeroed."""
    out = []
    for st, f in zip(M.GQA_RUNTIME_SETS, _case.feeds()):
        _, _, s, p, lens, total = st
        if p < total:
            continue
        for name in ("past_key", "past_value"):
            for b, n in enumerate(lens):
                earlier = 0 if s == total else n + 1 - s
                f[name][b, :, earlier:] = 0.0
        out.append((st[0], f))
    return out


def test_shared_buffer_matches_ort():
    sets = _buffer_sets()
    testing.check(len(sets) == 5, "five buffer input sets")
    with OrtSession(_path) as ort:
        for label, f in sets:
            ref = ort.run(f)
            args = [f[n] for n in NAMES]
            saved = [np.array(a, copy=True) for a in args]
            y, pk, pv = _model.run("main", *args)
            for a, s in zip(args, saved):
                testing.assert_equal(a, s, op=label, what="the caller's inputs (not donated)")
            testing.assert_allclose(y, ref["y"], rtol=1e-5, atol=1e-6, op=label, what="y")
            testing.assert_allclose(pk, ref["present_key"], rtol=1e-6, atol=1e-6, op=label,
                                    what="present_key")
            testing.assert_equal(pv, ref["present_value"], op=label, what="present_value")


def test_donated_buffer_written_in_place():
    label, f = _buffer_sets()[1]  # rows of different lengths
    with OrtSession(_path) as ort:
        ref = ort.run(f)
    args = [f[n] for n in NAMES]
    before = np.array(f["past_value"], copy=True)
    outs = _model.run("main", *args, donate=True)
    y = outs[0] if isinstance(outs, tuple) else outs
    testing.assert_allclose(y, ref["y"], rtol=1e-5, atol=1e-6, op=label, what="y (donated)")
    # The caller's buffers now hold present.
    testing.assert_equal(f["past_value"], ref["present_value"], op=label,
                         what="the donated past_value buffer")
    testing.assert_allclose(f["past_key"], ref["present_key"], rtol=1e-6, atol=1e-6, op=label,
                            what="the donated past_key buffer")
    changed = np.argwhere((f["past_value"] != before).any(axis=(1, 3)))
    lens = f["seqlens_k"]
    testing.check(all(int(j) == int(lens[b]) for b, j in changed),
                  f"{label}: only each row's new token position changed ({changed.tolist()})")


def test_static_dims_keep_the_donation():
    """--static-dims makes the past static; its donated present follows (same type)."""
    so = compile_onnx(_path, os.path.join(_work, "gqa_static.so"),
                      ["--shared-kv-buffers", "--static-dims=batch=2,sequence=1,past=10"])
    model = runtime.load(str(so))
    sig = model.signature("main")
    testing.check([list(t.shape) for t in sig.outputs][1:] == [[2, 2, 10, 16]] * 2,
                  f"static presents: {[t.shape for t in sig.outputs]}")
    with OrtSession(_path) as ort:
        for label, f in _buffer_sets()[:2]:
            ref = ort.run(f)
            args = [f[n] for n in NAMES]
            model.run("main", *args, donate=True)
            testing.assert_allclose(f["past_key"], ref["present_key"], rtol=1e-6, atol=1e-6,
                                    op=label, what="static donated past_key")


def test_short_buffer_refused():
    _, f = _buffer_sets()[0]
    args = [f[n] for n in NAMES]
    args[6] = np.asarray(11, np.int32)  # total 11 > the 10-entry buffer
    args[5] = np.asarray([10, 10], np.int32)
    try:
        _model.run("main", *args)
    except runtime.DecodaError as e:
        testing.check("ONNX node 'GroupQueryAttention'" in str(e)
                      and "total_sequence_length exceeds the past buffer's length" in str(e),
                      f"names the node and the condition: {e}")
        return
    raise AssertionError("a past shorter than total_sequence_length ran")


testing.run_tests(globals())
