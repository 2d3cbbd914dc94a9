// The decoder-only model as other architectures' Hugging Face exports spell it
// (python/decoda/onnx_models.py DECODER_VARIANTS; the Llama form is onnx-decoder-model-sim.mlir),
// compiled for CUDA and run on the PTX interpreter against ONNX Runtime on the four input sets
// (prompt of 6 in a batch of two, one decode step over 6 cached, a chunk of 4 over 3 cached, a
// left-padded batch), in f32 and in bf16 with bf16 inputs and outputs (--float-type-io: the
// decode step and the padded prompt):
//   qwen2:   q/k/v biases (fused with the projections: decoda-fuse-projections), RoPE base 1e6;
//   phi3:    one qkv_proj sliced into q/k/v, one gate_up_proj split into the GLU's halves
//            (raised to a gated MLP since 7 Dec 2026, its constant weight split at compile
//            time: gate and up one GEMV kernel with the GLU in its epilogue, the bf16 decode
//            step 27 -> 25 launches), rotary on 12 of 16 features, 4 KV heads;
//   gemma:   tanh-GELU gate, (1 + w) norm weights, embeddings times sqrt(hidden) into the first
//            norm (raised since 7 Dec 2026: the norm's input computed by an elementwise op),
//            lm_head tied to the embedding table through a Transpose (read untransposed since
//            then, decoda-transpose-constant-weights: the bf16 decode step 27 -> 25 launches, the
//            head a GEMV instead of a transpose kernel and a SIMT loop nest), head dim 32 over a
//            hidden of 64, one KV head;
//   mistral: a sliding window of 3 keys in the additive mask.
// Every variant's new keys are rotated straight into the present cache's slice
// (decoda-write-through-transposes) and the new values' copy merges with that RoPE launch
// (decoda-gpu-merge-launches merging 3-D grids): one launch less a layer than before.
// Gemma's logits reach 59 (a tied head over unit-variance embeddings): bf16 is held to 0.3.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %PYTHON %S/Inputs/onnx_ort_io.py --case decoder_kv_qwen2 0 %t/qwen2.onnx %t/qwen2_in0.npz %t/qwen2_out0.npz
// RUN: %PYTHON %S/Inputs/onnx_ort_io.py --case decoder_kv_qwen2 1 %t/qwen2.onnx %t/qwen2_in1.npz %t/qwen2_out1.npz
// RUN: %PYTHON %S/Inputs/onnx_ort_io.py --case decoder_kv_qwen2 2 %t/qwen2.onnx %t/qwen2_in2.npz %t/qwen2_out2.npz
// RUN: %PYTHON %S/Inputs/onnx_ort_io.py --case decoder_kv_qwen2 3 %t/qwen2.onnx %t/qwen2_in3.npz %t/qwen2_out3.npz
// RUN: decoda-compile %t/qwen2.onnx --target=cuda --emit=ptx -o %t/qwen2.ptx --dump-ir-after-each=%t/qwen2
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/qwen2 %t/qwen2.ptx --inputs %t/qwen2_in0.npz --expect %t/qwen2_out0.npz --rtol 1e-4 --atol 1e-5 --quiet | FileCheck %s --check-prefixes=OUT,QWEN2-PROMPT
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/qwen2 %t/qwen2.ptx --inputs %t/qwen2_in1.npz --expect %t/qwen2_out1.npz --rtol 1e-4 --atol 1e-5 --quiet | FileCheck %s --check-prefixes=OUT,QWEN2-STEP
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/qwen2 %t/qwen2.ptx --inputs %t/qwen2_in2.npz --expect %t/qwen2_out2.npz --rtol 1e-4 --atol 1e-5 --quiet | FileCheck %s --check-prefixes=OUT,QWEN2-STEP
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/qwen2 %t/qwen2.ptx --inputs %t/qwen2_in3.npz --expect %t/qwen2_out3.npz --rtol 1e-4 --atol 1e-5 --quiet | FileCheck %s --check-prefixes=OUT,QWEN2-PROMPT
// RUN: decoda-compile %t/qwen2.onnx --target=cuda --float-type=bf16 --float-type-io --emit=ptx -o %t/qwen2-io.ptx --dump-ir-after-each=%t/qwen2-io
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/qwen2-io %t/qwen2-io.ptx --inputs %t/qwen2_in1.npz --expect %t/qwen2_out1.npz --rtol 5e-2 --atol 5e-2 --quiet | FileCheck %s --check-prefixes=OUT,QWEN2-IO-STEP
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/qwen2-io %t/qwen2-io.ptx --inputs %t/qwen2_in3.npz --expect %t/qwen2_out3.npz --rtol 5e-2 --atol 5e-2 --quiet | FileCheck %s --check-prefixes=OUT,QWEN2-IO-PROMPT
// RUN: %PYTHON %S/Inputs/onnx_ort_io.py --case decoder_kv_phi3 0 %t/phi3.onnx %t/phi3_in0.npz %t/phi3_out0.npz
// RUN: %PYTHON %S/Inputs/onnx_ort_io.py --case decoder_kv_phi3 1 %t/phi3.onnx %t/phi3_in1.npz %t/phi3_out1.npz
// RUN: %PYTHON %S/Inputs/onnx_ort_io.py --case decoder_kv_phi3 2 %t/phi3.onnx %t/phi3_in2.npz %t/phi3_out2.npz
// RUN: %PYTHON %S/Inputs/onnx_ort_io.py --case decoder_kv_phi3 3 %t/phi3.onnx %t/phi3_in3.npz %t/phi3_out3.npz
// RUN: decoda-compile %t/phi3.onnx --target=cuda --emit=ptx -o %t/phi3.ptx --dump-ir-after-each=%t/phi3
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/phi3 %t/phi3.ptx --inputs %t/phi3_in0.npz --expect %t/phi3_out0.npz --rtol 1e-4 --atol 1e-5 --quiet | FileCheck %s --check-prefixes=OUT,PHI3-PROMPT
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/phi3 %t/phi3.ptx --inputs %t/phi3_in1.npz --expect %t/phi3_out1.npz --rtol 1e-4 --atol 1e-5 --quiet | FileCheck %s --check-prefixes=OUT,PHI3-STEP
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/phi3 %t/phi3.ptx --inputs %t/phi3_in2.npz --expect %t/phi3_out2.npz --rtol 1e-4 --atol 1e-5 --quiet | FileCheck %s --check-prefixes=OUT,PHI3-STEP
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/phi3 %t/phi3.ptx --inputs %t/phi3_in3.npz --expect %t/phi3_out3.npz --rtol 1e-4 --atol 1e-5 --quiet | FileCheck %s --check-prefixes=OUT,PHI3-PROMPT
// RUN: decoda-compile %t/phi3.onnx --target=cuda --float-type=bf16 --float-type-io --emit=ptx -o %t/phi3-io.ptx --dump-ir-after-each=%t/phi3-io
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/phi3-io %t/phi3-io.ptx --inputs %t/phi3_in1.npz --expect %t/phi3_out1.npz --rtol 5e-2 --atol 5e-2 --quiet | FileCheck %s --check-prefixes=OUT,PHI3-IO-STEP
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/phi3-io %t/phi3-io.ptx --inputs %t/phi3_in3.npz --expect %t/phi3_out3.npz --rtol 5e-2 --atol 5e-2 --quiet | FileCheck %s --check-prefixes=OUT,PHI3-IO-PROMPT
// RUN: %PYTHON %S/Inputs/onnx_ort_io.py --case decoder_kv_gemma 0 %t/gemma.onnx %t/gemma_in0.npz %t/gemma_out0.npz
// RUN: %PYTHON %S/Inputs/onnx_ort_io.py --case decoder_kv_gemma 1 %t/gemma.onnx %t/gemma_in1.npz %t/gemma_out1.npz
// RUN: %PYTHON %S/Inputs/onnx_ort_io.py --case decoder_kv_gemma 2 %t/gemma.onnx %t/gemma_in2.npz %t/gemma_out2.npz
// RUN: %PYTHON %S/Inputs/onnx_ort_io.py --case decoder_kv_gemma 3 %t/gemma.onnx %t/gemma_in3.npz %t/gemma_out3.npz
// RUN: decoda-compile %t/gemma.onnx --target=cuda --emit=ptx -o %t/gemma.ptx --dump-ir-after-each=%t/gemma
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/gemma %t/gemma.ptx --inputs %t/gemma_in0.npz --expect %t/gemma_out0.npz --rtol 1e-4 --atol 1e-5 --quiet | FileCheck %s --check-prefixes=OUT,GEMMA-PROMPT
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/gemma %t/gemma.ptx --inputs %t/gemma_in1.npz --expect %t/gemma_out1.npz --rtol 1e-4 --atol 1e-5 --quiet | FileCheck %s --check-prefixes=OUT,GEMMA-STEP
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/gemma %t/gemma.ptx --inputs %t/gemma_in2.npz --expect %t/gemma_out2.npz --rtol 1e-4 --atol 1e-5 --quiet | FileCheck %s --check-prefixes=OUT,GEMMA-STEP
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/gemma %t/gemma.ptx --inputs %t/gemma_in3.npz --expect %t/gemma_out3.npz --rtol 1e-4 --atol 1e-5 --quiet | FileCheck %s --check-prefixes=OUT,GEMMA-PROMPT
// RUN: decoda-compile %t/gemma.onnx --target=cuda --float-type=bf16 --float-type-io --emit=ptx -o %t/gemma-io.ptx --dump-ir-after-each=%t/gemma-io
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/gemma-io %t/gemma-io.ptx --inputs %t/gemma_in1.npz --expect %t/gemma_out1.npz --rtol 5e-2 --atol 0.3 --quiet | FileCheck %s --check-prefixes=OUT,GEMMA-IO-STEP
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/gemma-io %t/gemma-io.ptx --inputs %t/gemma_in3.npz --expect %t/gemma_out3.npz --rtol 5e-2 --atol 0.3 --quiet | FileCheck %s --check-prefixes=OUT,GEMMA-IO-PROMPT
// RUN: %PYTHON %S/Inputs/onnx_ort_io.py --case decoder_kv_mistral 0 %t/mistral.onnx %t/mistral_in0.npz %t/mistral_out0.npz
// RUN: %PYTHON %S/Inputs/onnx_ort_io.py --case decoder_kv_mistral 1 %t/mistral.onnx %t/mistral_in1.npz %t/mistral_out1.npz
// RUN: %PYTHON %S/Inputs/onnx_ort_io.py --case decoder_kv_mistral 2 %t/mistral.onnx %t/mistral_in2.npz %t/mistral_out2.npz
// RUN: %PYTHON %S/Inputs/onnx_ort_io.py --case decoder_kv_mistral 3 %t/mistral.onnx %t/mistral_in3.npz %t/mistral_out3.npz
// RUN: decoda-compile %t/mistral.onnx --target=cuda --emit=ptx -o %t/mistral.ptx --dump-ir-after-each=%t/mistral
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/mistral %t/mistral.ptx --inputs %t/mistral_in0.npz --expect %t/mistral_out0.npz --rtol 1e-4 --atol 1e-5 --quiet | FileCheck %s --check-prefixes=OUT,MISTRAL-PROMPT
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/mistral %t/mistral.ptx --inputs %t/mistral_in1.npz --expect %t/mistral_out1.npz --rtol 1e-4 --atol 1e-5 --quiet | FileCheck %s --check-prefixes=OUT,MISTRAL-STEP
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/mistral %t/mistral.ptx --inputs %t/mistral_in2.npz --expect %t/mistral_out2.npz --rtol 1e-4 --atol 1e-5 --quiet | FileCheck %s --check-prefixes=OUT,MISTRAL-STEP
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/mistral %t/mistral.ptx --inputs %t/mistral_in3.npz --expect %t/mistral_out3.npz --rtol 1e-4 --atol 1e-5 --quiet | FileCheck %s --check-prefixes=OUT,MISTRAL-PROMPT
// RUN: decoda-compile %t/mistral.onnx --target=cuda --float-type=bf16 --float-type-io --emit=ptx -o %t/mistral-io.ptx --dump-ir-after-each=%t/mistral-io
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/mistral-io %t/mistral-io.ptx --inputs %t/mistral_in1.npz --expect %t/mistral_out1.npz --rtol 5e-2 --atol 5e-2 --quiet | FileCheck %s --check-prefixes=OUT,MISTRAL-IO-STEP
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/mistral-io %t/mistral-io.ptx --inputs %t/mistral_in3.npz --expect %t/mistral_out3.npz --rtol 5e-2 --atol 5e-2 --quiet | FileCheck %s --check-prefixes=OUT,MISTRAL-IO-PROMPT
// OUT: out0: ok
// OUT: out1: ok
// OUT: out2: ok
// OUT: out3: ok
// OUT: out4: ok
// The prompts' past caches are empty: their copies into the presents have no blocks, which the
// support code does not launch (empty-grid-runtime.mlir).
// QWEN2-PROMPT: 35 launches (and 1 of an empty grid
// QWEN2-STEP: 25 launches
// QWEN2-IO-STEP: 23 launches
// QWEN2-IO-PROMPT: 22 launches (and 1 of an empty grid
// PHI3-PROMPT: 33 launches (and 1 of an empty grid
// PHI3-STEP: 25 launches
// PHI3-IO-STEP: 23 launches
// PHI3-IO-PROMPT: 22 launches (and 1 of an empty grid
// GEMMA-PROMPT: 31 launches (and 1 of an empty grid
// GEMMA-STEP: 25 launches
// GEMMA-IO-STEP: 23 launches
// GEMMA-IO-PROMPT: 20 launches (and 1 of an empty grid
// MISTRAL-PROMPT: 33 launches (and 1 of an empty grid
// MISTRAL-STEP: 25 launches
// MISTRAL-IO-STEP: 23 launches
// MISTRAL-IO-PROMPT: 22 launches (and 1 of an empty grid
