# RUN: %PYTHON %s
"""decoda-raise-onnx before/after: each exporter-style block is compiled with the graph
pipeline (raising on) and with --no-graph-opt (the imported linalg as it is), both are compared
with ONNX Runtime, and the raising report must show the decoda ops the block is made of, so a
pattern that silently stops firing fails here as well as one that computes the wrong thing."""

import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import onnx

sys.path.insert(0, os.path.dirname(__file__))
from harness import CaseFailure, M, Runner, _run_compiled, compile_onnx, isolated  # noqa: E402

# case -> the minimum count of each raised pattern (names as in the pass's report).
EXPECTED = {
    "llama_block": {"rms_norm": 2, "gated_mlp": 1, "attention": 1, "causal": 1, "residual_add": 2,
                    "rope": 2},
    "gpt2_block_prenorm": {"mlp": 1, "attention": 1, "residual_add": 2, "linear bias": 4},
    "gpt2_block_postnorm": {"mlp": 1, "attention": 1, "residual_add": 2, "layer_norm": 2},
    "rms_norm_pow_div": {"rms_norm": 1},
    "rms_norm_reciprocal": {"rms_norm": 1},
    "rms_norm_mul_self": {"rms_norm": 1},
    "rms_norm_div_one": {"rms_norm": 1},
    "layer_norm_decomposed": {"layer_norm": 1},
    "swiglu_mlp": {"gated_mlp": 1},
    "gelu_erf_mlp": {"mlp": 1},
    "gelu_tanh_mlp": {"mlp": 1},
    "gelu_tanh_mlp_conv1d": {"mlp": 1},
    "attention_mha_div_trilu_add": {"attention": 1, "causal": 1},
    "attention_gqa_mul_where_range": {"attention": 1},
    "attention_gqa_mulq_where_trilu_bool": {"attention": 1},
    "attention_mqa_div_shape_trilu_add": {"attention": 1, "causal": 1},
    "attention_gqa_no_mask": {"attention": 1},
    "rope_rotate_half_range": {"rope": 1},
    "rope_rotate_half_position_ids": {"rope": 1},
    "rope_interleaved_range": {"rope": 1},
    "rope_partial_rotate_half": {"rope": 1},
    "decoder_kv": {"rms_norm": 5, "gated_mlp": 2, "residual_add": 4, "attention": 2, "rope": 4},
    "norm_of_computed_input": {"rms_norm": 1, "layer_norm": 1},
    # Other architectures' exports of the decoder model: Qwen2's q/k/v biases, Phi-3's fused
    # qkv (Slices) and gate_up (Split: the weight split into a gated MLP's), Gemma's scaled
    # embeddings into the first norm and (1 + w) weights, Mistral's sliding-window mask.
    "decoder_kv_qwen2": {"rms_norm": 5, "gated_mlp": 2, "residual_add": 4, "attention": 2,
                         "rope": 4, "linear bias": 6},
    "decoder_kv_phi3": {"rms_norm": 5, "gated_mlp": 2, "residual_add": 4, "attention": 2,
                        "rope": 4},
    "gate_up_fused_mlp": {"gated_mlp": 2},
    "decoder_kv_gemma": {"rms_norm": 5, "gated_mlp": 2, "residual_add": 4, "attention": 2,
                         "rope": 4},
    "decoder_kv_mistral": {"rms_norm": 5, "gated_mlp": 2, "residual_add": 4, "attention": 2,
                           "rope": 4},
    # The LayerNorm families: GPT-2's decomposed LayerNorms, c_attn split, learned positions;
    # GPT-NeoX's per-head q/k/v and parallel block off two norms (two residual adds a layer);
    # Phi-2's parallel block off one norm, lm_head bias (the LayerNormalization ops of both
    # are imported as decoda.layer_norm, not raised).
    "decoder_kv_gpt2": {"layer_norm": 5, "mlp": 2, "residual_add": 4, "attention": 2,
                        "linear bias": 8},
    "decoder_kv_neox": {"mlp": 2, "residual_add": 4, "attention": 2, "rope": 4,
                        "linear bias": 8},
    "decoder_kv_phi2": {"mlp": 2, "residual_add": 4, "attention": 2, "rope": 4,
                        "linear bias": 13},
}

# PyTorch exports (test/Frontend/ONNX/models; their numerics run in torch_exports.py): the
# raising each must show.
FIXTURES = {
    "torch_llama_decoder_layer_dynamic": {"rms_norm": 2, "gated_mlp": 1, "attention": 1,
                                          "causal": 1, "rope": 2, "residual_add": 2},
    "torch_llama_decoder_layer_static": {"rms_norm": 2, "gated_mlp": 1, "attention": 1,
                                         "causal": 1, "rope": 2, "residual_add": 2},
    "torch_llama_attention_dynamic": {"attention": 1, "causal": 1, "rope": 2},
    "torch_llama_mlp_dynamic": {"gated_mlp": 1},
    "torch_llama_rmsnorm_dynamic": {"rms_norm": 1},
    "torch_gpt2_block_dynamic": {"attention": 1, "mlp": 1},
    "torch_gpt2_block_static": {"attention": 1, "mlp": 1},
    # The 16-bit layer: its RMSNorms, rotary tables and softmax in f32 between Casts; the
    # 16-bit GPT-2 block: its mask value float16's lowest, NewGELU's constants rounded to f16.
    "f16_llama_decoder_layer_dynamic": {"rms_norm": 2, "gated_mlp": 1, "attention": 1,
                                        "causal": 1, "rope": 2, "residual_add": 2},
    "f16_gpt2_block_dynamic": {"attention": 1, "mlp": 1},
}
# Fixtures also compiled raised and unraised (--no-graph-opt), both against ONNX Runtime:
# name -> (dim bindings, rtol, atol).
FIXTURE_NUMERICS = {
    "f16_llama_decoder_layer_dynamic": ([{"batch": 2, "sequence": 7}], 1e-2, 1e-2),
    "f16_gpt2_block_dynamic": ([{"batch": 2, "sequence": 7}], 1e-2, 1e-2),
}


def raised_counts(path: Path) -> dict:
    bindir = Path(os.environ["DECODA_BIN_DIR"])
    imported = subprocess.run([str(bindir / "decoda-translate"), "--import-onnx", str(path)],
                              capture_output=True, text=True, check=True).stdout
    report = subprocess.run([str(bindir / "decoda-opt"), "--decoda-raise-onnx=report=true",
                             "-o", os.devnull], input=imported, capture_output=True, text=True,
                            check=True).stderr
    m = re.search(r"decoda-raise-onnx: (.*)", report)
    if not m:
        raise CaseFailure(f"no raising report in: {report[:400]}")
    counts = {}
    for part in re.finditer(r"([a-z_ ]+?) (\d+)", m.group(1)):
        counts[part.group(1).strip(" ,(")] = int(part.group(2))
    return counts


def _positions(rng, shape):
    """Hugging Face-style positions: a per-row start plus arange."""
    return rng.integers(0, 8, (shape[0], 1)) + np.arange(shape[1])[None, :]


def main():
    runner = Runner("raise-onnx before/after")
    for name, want in EXPECTED.items():
        case = M.case(name)
        model = case.build()
        path = M.save(model, runner.work / f"{name}.onnx")
        feeds = case.feeds(model)
        ins, outs = M.input_names(model), M.output_names(model)
        t = __import__("time").perf_counter()
        try:
            counts = raised_counts(path)
            short = {k: v for k, v in want.items() if counts.get(k, 0) < v}
            if short:
                raise CaseFailure(f"raising fired {counts}, expected at least {want}")
            expected = runner.expected(path, feeds)
            errs = []
            for tag, flags in (("raised", []), ("unraised", ["--no-graph-opt"])):
                so = compile_onnx(path, runner.work / f"{name}-{tag}.so", flags)
                errs.append(isolated(lambda so=so: _run_compiled(
                    so, feeds, expected, case.rtol, case.atol, ins, outs), 300.0))
            runner._record(name, True, f"raised {counts}; max abs error vs ONNX Runtime "
                           f"{errs[0]:.3g} raised, {errs[1]:.3g} unraised", t)
        except CaseFailure as exc:
            runner._record(name, False, str(exc), t)
        except Exception as exc:  # noqa: BLE001
            runner._record(name, False, f"unexpected error: {exc!r}", t)
    models = Path(__file__).resolve().parent.parent / "models"
    for name, want in FIXTURES.items():
        t = __import__("time").perf_counter()
        try:
            path = models / f"{name}.onnx"
            counts = raised_counts(path)
            short = {k: v for k, v in want.items() if counts.get(k, 0) < v}
            if short:
                raise CaseFailure(f"raising fired {counts}, expected at least {want}")
            detail = ""
            if name in FIXTURE_NUMERICS:
                bindings, rtol, atol = FIXTURE_NUMERICS[name]
                model = onnx.load(str(path))
                feeds = [M.random_feeds(model, d, seed=i, special={"position_ids": _positions})
                         for i, d in enumerate(bindings)]
                ins, outs = M.input_names(model), M.output_names(model)
                expected = runner.expected(path, feeds)
                errs = []
                for tag, flags in (("raised", []), ("unraised", ["--no-graph-opt"])):
                    so = compile_onnx(path, runner.work / f"{name}-{tag}.so", flags)
                    errs.append(isolated(lambda so=so: _run_compiled(
                        so, feeds, expected, rtol, atol, ins, outs), 300.0))
                detail = (f"; max abs error vs ONNX Runtime {errs[0]:.3g} raised, "
                          f"{errs[1]:.3g} unraised")
            runner._record(name, True, f"raised {counts}{detail}", t)
        except CaseFailure as exc:
            runner._record(name, False, str(exc), t)
    runner.finish()


main()
