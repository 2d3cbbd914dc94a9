"""A whole decoder-only model as Hugging Face / Optimum export it, for bench/gpu_check.sh: the
decoder_kv case of python/decoda/onnx_models.py (input_ids, attention_mask, position_ids,
past_key_values.* -> logits, present.*; two Llama layers, hidden 64, vocab 256) and the inputs
of its check: a batch of two whose row 1 is left-padded by 2 tokens (its padded queries see
only padded keys, each logit the f32 lowest value the export adds: the GPU attention kernels
gave NaN there before 7 Dec 2026).

  make_decoder_case.py MODEL.onnx INPUTS.npz [ARCH]

ARCH (default llama) is one of onnx_models.DECODER_VARIANTS: the same model as Qwen2, Phi-3,
Gemma, Mistral, GPT-2, GPT-NeoX or Phi-2 export it (q/k/v biases; fused qkv and gate_up; scaled
embeddings, (1 + w) norms, a tied lm_head; a sliding-window mask; LayerNorms, plain MLPs with
biases, learned positions, parallel attention and MLP).

Run with the repository's python/ on PYTHONPATH (decoda.onnx_models)."""
import sys

import numpy as np

from decoda import onnx_models as M


def main():
    model_path, inputs_path = sys.argv[1:3]
    arch = sys.argv[3] if len(sys.argv) > 3 else "llama"
    if arch == "llama":
        cfg = M.DecoderConfig()
    elif arch in M.DECODER_VARIANTS:
        cfg = M.DECODER_VARIANTS[arch][0]
    else:
        sys.exit(f"make_decoder_case.py: unknown ARCH '{arch}' (llama, "
                 f"{', '.join(M.DECODER_VARIANTS)})")
    M.save(M.decoder_model(cfg), model_path)
    feeds = M.decoder_feeds(cfg, 2, 5, 0, seed=3, left_pad=(0, 2))
    np.savez(inputs_path, **feeds)


if __name__ == "__main__":
    main()
