# RUN: %PYTHON %s
"""The whole decoder-only ONNX model with a KV cache (Hugging Face naming: input_ids,
attention_mask, position_ids, past_key_values.{i}.key/value -> logits, present.{i}.key/value;
dynamic batch, sequence and past length), compiled and run against ONNX Runtime on a prefill, a
decode step, a chunked prefill on a cache and a left-padded batch; then greedy generation
(python/tools/generate.py) with the cache, every step's logits and token checked against ONNX
Runtime's own chain."""

import contextlib
import io
import os
import sys
import time

sys.path.insert(0, os.path.dirname(__file__))
from harness import M, Runner  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "..", "..", "python",
                                "tools"))
import generate  # noqa: E402

runner = Runner("models/model")
for case in M.cases("models"):
    runner.run_case(case)

t0 = time.perf_counter()
argv = ["--steps", "6", "--batch", "2", "--prompt-len", "5"]
if runner.ort_only:
    argv.append("--ort-only")
out = io.StringIO()
with contextlib.redirect_stdout(out):
    rc = generate.main(argv)
print("\n".join("  " + line for line in out.getvalue().splitlines()))
runner._record("greedy_generation", rc == 0, "generate.py " + " ".join(argv) + f" exited {rc}",
               t0)
runner.finish()
