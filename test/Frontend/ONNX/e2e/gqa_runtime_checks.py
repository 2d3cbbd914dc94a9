# RUN: %PYTHON %s
"""GroupQueryAttention's run-time row lengths (seqlens_k, total_sequence_length as model inputs)
that do not fit are refused by the compiled model with a message naming the node and the
condition, never read out of bounds: a row longer than total_sequence_length, a negative
length, a step whose row holds fewer tokens than the step adds, a row whose earlier tokens are
more than the past holds, total_sequence_length below the sequence length. The inputs just
inside each bound run (and agree with ONNX Runtime in contrib_ops.py)."""

import os
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
from harness import M, compile_onnx  # noqa: E402

from decoda import runtime, testing  # noqa: E402

NODE = "ONNX node 'GroupQueryAttention'"
ROWS = "seqlens_k[b] + 1 must be in [1, total_sequence_length]"
PAST = "seqlens_k[b] + 1 - sequence length (the row's earlier tokens) must be in [0, past length]"
TOTAL = "total_sequence_length is less than the sequence length"

_work = tempfile.mkdtemp(prefix="decoda-gqa-checks-")
_case = M.case("ms_gqa_runtime_lengths")
_path = M.save(_case.build(), os.path.join(_work, "gqa.onnx"))
_model = runtime.load(str(compile_onnx(_path, os.path.join(_work, "gqa.so"))))


def _feeds(batch, seq, past, lens, total):
    rng = np.random.default_rng(0)
    return [rng.standard_normal((batch, seq, 64)).astype(np.float32),
            rng.standard_normal((batch, seq, 32)).astype(np.float32),
            rng.standard_normal((batch, seq, 32)).astype(np.float32),
            rng.standard_normal((batch, 2, past, 16)).astype(np.float32),
            rng.standard_normal((batch, 2, past, 16)).astype(np.float32),
            np.asarray(lens, np.int32), np.asarray(total, np.int32)]


def _refused(what, message, *args):
    try:
        _model.run("main", *_feeds(*args))
    except runtime.DecodaError as e:
        testing.check(NODE in str(e) and message in str(e),
                      f"{what}: the error names the node and '{message}', got: {e}")
        return
    raise AssertionError(f"{what}: ran; expected the check '{message}' to fail")


def test_bounds_run():
    # Just inside: a row of total tokens, a row of exactly S tokens, earlier tokens = past.
    for args in [(2, 1, 10, [6, 0], 7), (1, 3, 4, [6], 7), (2, 4, 10, [3, 0], 4)]:
        outs = _model.run("main", *_feeds(*args))
        testing.check(all(np.isfinite(o).all() for o in outs), f"{args}: finite outputs")


def test_rows_refused():
    _refused("row longer than total", ROWS, 2, 1, 10, [7, 6], 7)
    _refused("negative row length", ROWS, 2, 1, 10, [6, -2], 7)
    _refused("prompt row longer than total", ROWS, 2, 3, 10, [3, 1], 3)
    _refused("row shorter than the step", PAST, 1, 3, 12, [1], 9)
    _refused("earlier tokens beyond the past", PAST, 1, 1, 5, [7], 8)
    _refused("total below the sequence length", TOTAL, 1, 3, 4, [1], 2)


testing.run_tests(globals())
