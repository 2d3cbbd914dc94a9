"""The GroupQueryAttention model gpu_check.sh checks and times (onnxruntime-genai's form:
seqlens_k and total_sequence_length as inputs; Llama-3.2-1B's attention, 32 query heads over 8
KV heads of 64, rotary, float16), and the inputs of its check: one decode step at t = 200 over
a 256-entry past buffer (small: the references travel in gpu_check's 64 MiB).

  make_gqa_case.py MODEL.onnx INPUTS.npz

Run with the repository's python/ on PYTHONPATH (decoda.onnx_models)."""
import sys

import numpy as np

from decoda import onnx_models as M

HEADS, KV_HEADS, HEAD_DIM, TABLE = 32, 8, 64, 4096


def main():
    model_path, inputs_path = sys.argv[1:3]
    build, _ = M._gqa_runtime("gqa_genai_f16", dtype="f16", heads=HEADS, kv_heads=KV_HEADS,
                              dh=HEAD_DIM, rotary=True, rotary_table=TABLE)
    M.save(build(), model_path)
    rng = np.random.default_rng(0)
    t, past = 200, 256
    f16 = np.float16
    np.savez(inputs_path,
             query=(0.5 * rng.standard_normal((1, 1, HEADS * HEAD_DIM))).astype(f16),
             key=(0.5 * rng.standard_normal((1, 1, KV_HEADS * HEAD_DIM))).astype(f16),
             value=(0.5 * rng.standard_normal((1, 1, KV_HEADS * HEAD_DIM))).astype(f16),
             past_key=(0.5 * rng.standard_normal((1, KV_HEADS, past, HEAD_DIM))).astype(f16),
             past_value=(0.5 * rng.standard_normal((1, KV_HEADS, past, HEAD_DIM))).astype(f16),
             seqlens_k=np.asarray([t - 1], np.int32),
             total_sequence_length=np.asarray(t, np.int32))


if __name__ == "__main__":
    main()
