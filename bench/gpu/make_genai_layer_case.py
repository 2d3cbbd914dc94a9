"""The decoder layer gpu_check.sh checks as onnxruntime-genai exports an int4 Llama (float16:
SkipSimplifiedLayerNormalization, MatMulNBits q/k/v/o and gate/up/down, GroupQueryAttention
with rotary and its lengths from the attention_mask, SiLU as Sigmoid * x;
onnx_models.ms_genai_int4_layer_f16, small: hidden 64), and the inputs of its check: a decode
step of a batch of two over concatenated pasts (onnx_models.GQA_RUNTIME_SETS[2]: full rows,
the attention without a mask; the gate/up GEMV kernel's two-row form), or with SET another
input set (7: a batch-1 decode step into a past buffer, the GEMV dispatch's one-row kernels
with the norms computed in them).

  make_genai_layer_case.py MODEL.onnx INPUTS.npz [SET]

Run with the repository's python/ on PYTHONPATH (decoda.onnx_models)."""
import sys

import numpy as np

from decoda import onnx_models as M


def main():
    model_path, inputs_path = sys.argv[1:3]
    which = int(sys.argv[3]) if len(sys.argv) > 3 else 2
    build, feeds = M._genai_int4_layer("genai_int4_layer_f16", dtype="f16")
    model = build()
    M.save(model, model_path)
    np.savez(inputs_path, **feeds(model, 0)[which])


if __name__ == "__main__":
    main()
