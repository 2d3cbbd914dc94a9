# RUN: %PYTHON %s
"""The PyTorch exports in test/Frontend/ONNX/models/ (Hugging Face-style Llama RMSNorm, attention,
MLP, decoder layer and a GPT-2 block; torch.onnx.export opset 17, static and dynamic axes) taken
as they come out of the exporter, compiled and run against ONNX Runtime; dynamic files on two
(batch, sequence) bindings, and once more compiled with --static-dims naming their dim_params
(batch=1, sequence=1: the decode-step shape; test/Frontend/ONNX/static-dims.mlir checks the
signature and the refusals), and some in bf16 / f16 (--float-type); and the decoder layer and GPT-2
block as an fp16 export has them (f16_*.onnx)."""

import os
import sys
from pathlib import Path

import onnx

sys.path.insert(0, os.path.dirname(__file__))
from harness import M, Runner, np  # noqa: E402

MODELS = Path(__file__).resolve().parent.parent / "models"


def _positions(rng, shape):
    """HF-style positions: a per-row start plus arange."""
    return rng.integers(0, 8, (shape[0], 1)) + np.arange(shape[1])[None, :]


runner = Runner("torch exports")
files = sorted(MODELS.glob("torch_*.onnx"))
for path in files:
    model = onnx.load(str(path))
    dims = ([{"batch": 2, "sequence": 7}, {"batch": 1, "sequence": 3}]
            if "_dynamic" in path.name else [{}])
    feeds = [M.random_feeds(model, d, seed=i, special={"position_ids": _positions})
             for i, d in enumerate(dims)]
    runner.run_model(path.stem, path, feeds, rtol=1e-4, atol=1e-5,
                     onnx_inputs=M.input_names(model), onnx_outputs=M.output_names(model))
    if "_dynamic" in path.name:
        one = {"batch": 1, "sequence": 1}
        name = path.stem + "_static_dims"
        runner.run_model(name, path,
                         [M.random_feeds(model, one, seed=7, special={"position_ids": _positions})],
                         rtol=1e-4, atol=1e-5, onnx_inputs=M.input_names(model),
                         onnx_outputs=M.output_names(model),
                         flags=["--static-dims=batch=1,sequence=1"])
# The decoder layer and the GPT-2 block stored and computed in bf16 / f16 (--float-type), against
# ONNX Runtime's f32 outputs at the tolerance of those types' rounding.
# With --float-type-io the inputs and outputs are bf16 / f16 too (the harness rounds the f32
# feeds to the entry's type and widens the outputs).
for stem, ft, tol, io in (("torch_llama_decoder_layer_dynamic", "bf16", 5e-2, False),
                          ("torch_llama_decoder_layer_dynamic", "f16", 1e-2, False),
                          ("torch_gpt2_block_dynamic", "bf16", 5e-2, False),
                          ("torch_llama_decoder_layer_dynamic", "bf16", 5e-2, True),
                          ("torch_gpt2_block_dynamic", "f16", 1e-2, True)):
    path = MODELS / f"{stem}.onnx"
    if not path.exists():
        continue
    model = onnx.load(str(path))
    feeds = [M.random_feeds(model, {"batch": 2, "sequence": 7}, seed=3,
                            special={"position_ids": _positions})]
    runner.run_model(f"{stem}_{ft}{'_io' if io else ''}", path, feeds, rtol=tol, atol=tol,
                     onnx_inputs=M.input_names(model), onnx_outputs=M.output_names(model),
                     flags=[f"--float-type={ft}"] + (["--float-type-io"] if io else []))
# The decoder layer and the GPT-2 block as an fp16 export has them (f16_*.onnx, derived from the
# f32 exports: models/README.md), against ONNX Runtime running them in f16, at f16 tolerance
# (ONNX Runtime's f16 and f32 outputs differ by up to 5.5e-3), on two bindings and as a
# one-token build.
for stem in ("f16_llama_decoder_layer_dynamic", "f16_gpt2_block_dynamic"):
    path = MODELS / f"{stem}.onnx"
    if not path.exists():
        continue
    model = onnx.load(str(path))
    for name, dims, flags in ((stem, [{"batch": 2, "sequence": 7},
                                      {"batch": 1, "sequence": 33}], []),
                              (stem + "_static_dims", [{"batch": 1, "sequence": 1}],
                               ["--static-dims=batch=1,sequence=1"])):
        feeds = [M.random_feeds(model, d, seed=5 + i, special={"position_ids": _positions})
                 for i, d in enumerate(dims)]
        runner.run_model(name, path, feeds, rtol=1e-2, atol=1e-2,
                         onnx_inputs=M.input_names(model), onnx_outputs=M.output_names(model),
                         flags=flags)
if not files:
    print(f"no torch_*.onnx in {MODELS}")
runner.finish()
