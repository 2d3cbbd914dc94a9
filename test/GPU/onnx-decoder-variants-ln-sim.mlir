// The decoder-only model as the LayerNorm families' Hugging Face exports spell it
// (python/decoda/onnx_models.py DECODER_VARIANTS; the RMSNorm families are
// onnx-decoder-variants-sim.mlir, the Llama form onnx-decoder-model-sim.mlir), compiled for CUDA
// and run on the PTX interpreter against ONNX Runtime on the four input sets (prompt of 6 in a
// batch of two, one decode step over 6 cached, a chunk of 4 over 3 cached, a left-padded
// batch), in f32 and in bf16 with bf16 inputs and outputs (--float-type-io: the decode step and
// the padded prompt):
//   gpt2: learned positions added to the embeddings, decomposed LayerNorms, one c_attn with a
//         bias split into q/k/v (no RoPE: Q, K and V are strided views of the projection, which
//         the attention kernels read in place since 7 Dec 2026: the bf16 decode step 25 -> 23
//         launches), tanh-GELU MLP with biases, lm_head tied to the embedding table, MHA;
//   neox: LayerNormalization ops, q/k/v interleaved per head in one projection (viewed
//         [B, S, H, 3 * Dh], transposed, split; since 7 Dec 2026 q and k are slices of the
//         projection and only v's third is transposed), rotary on 4 of 16 features, attention
//         and MLP in parallel off two norms of one input (raised to two residual adds, each a
//         projection's epilogue; the two norms side by side and one launch), erf-GELU MLP,
//         biases: the bf16 decode step 32 -> 21 launches that day;
//   phi2: attention and MLP in parallel off one shared LayerNorm (the Falcon form too), rotary
//         on 8 of 16 features, biases everywhere incl. lm_head: 22 -> 21.
// GPT-2's logits reach 35 through its tied head: bf16 is held to 0.3 (its CPU bf16 build errs
// as much, 0.15).
// RUN: rm -rf %t && mkdir -p %t
// RUN: %PYTHON %S/Inputs/onnx_ort_io.py --case decoder_kv_gpt2 0 %t/gpt2.onnx %t/gpt2_in0.npz %t/gpt2_out0.npz
// RUN: %PYTHON %S/Inputs/onnx_ort_io.py --case decoder_kv_gpt2 1 %t/gpt2.onnx %t/gpt2_in1.npz %t/gpt2_out1.npz
// RUN: %PYTHON %S/Inputs/onnx_ort_io.py --case decoder_kv_gpt2 2 %t/gpt2.onnx %t/gpt2_in2.npz %t/gpt2_out2.npz
// RUN: %PYTHON %S/Inputs/onnx_ort_io.py --case decoder_kv_gpt2 3 %t/gpt2.onnx %t/gpt2_in3.npz %t/gpt2_out3.npz
// RUN: decoda-compile %t/gpt2.onnx --target=cuda --emit=ptx -o %t/gpt2.ptx --dump-ir-after-each=%t/gpt2
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/gpt2 %t/gpt2.ptx --inputs %t/gpt2_in0.npz --expect %t/gpt2_out0.npz --rtol 1e-4 --atol 1e-5 --quiet | FileCheck %s --check-prefixes=OUT,GPT2-PROMPT
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/gpt2 %t/gpt2.ptx --inputs %t/gpt2_in1.npz --expect %t/gpt2_out1.npz --rtol 1e-4 --atol 1e-5 --quiet | FileCheck %s --check-prefixes=OUT,GPT2-STEP
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/gpt2 %t/gpt2.ptx --inputs %t/gpt2_in2.npz --expect %t/gpt2_out2.npz --rtol 1e-4 --atol 1e-5 --quiet | FileCheck %s --check-prefixes=OUT,GPT2-STEP
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/gpt2 %t/gpt2.ptx --inputs %t/gpt2_in3.npz --expect %t/gpt2_out3.npz --rtol 1e-4 --atol 1e-5 --quiet | FileCheck %s --check-prefixes=OUT,GPT2-PROMPT
// RUN: decoda-compile %t/gpt2.onnx --target=cuda --float-type=bf16 --float-type-io --emit=ptx -o %t/gpt2-io.ptx --dump-ir-after-each=%t/gpt2-io
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/gpt2-io %t/gpt2-io.ptx --inputs %t/gpt2_in1.npz --expect %t/gpt2_out1.npz --rtol 5e-2 --atol 0.3 --quiet | FileCheck %s --check-prefixes=OUT,GPT2-IO-STEP
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/gpt2-io %t/gpt2-io.ptx --inputs %t/gpt2_in3.npz --expect %t/gpt2_out3.npz --rtol 5e-2 --atol 0.3 --quiet | FileCheck %s --check-prefixes=OUT,GPT2-IO-PROMPT
// RUN: %PYTHON %S/Inputs/onnx_ort_io.py --case decoder_kv_neox 0 %t/neox.onnx %t/neox_in0.npz %t/neox_out0.npz
// RUN: %PYTHON %S/Inputs/onnx_ort_io.py --case decoder_kv_neox 1 %t/neox.onnx %t/neox_in1.npz %t/neox_out1.npz
// RUN: %PYTHON %S/Inputs/onnx_ort_io.py --case decoder_kv_neox 2 %t/neox.onnx %t/neox_in2.npz %t/neox_out2.npz
// RUN: %PYTHON %S/Inputs/onnx_ort_io.py --case decoder_kv_neox 3 %t/neox.onnx %t/neox_in3.npz %t/neox_out3.npz
// RUN: decoda-compile %t/neox.onnx --target=cuda --emit=ptx -o %t/neox.ptx --dump-ir-after-each=%t/neox
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/neox %t/neox.ptx --inputs %t/neox_in0.npz --expect %t/neox_out0.npz --rtol 1e-4 --atol 1e-5 --quiet | FileCheck %s --check-prefixes=OUT,NEOX-PROMPT
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/neox %t/neox.ptx --inputs %t/neox_in1.npz --expect %t/neox_out1.npz --rtol 1e-4 --atol 1e-5 --quiet | FileCheck %s --check-prefixes=OUT,NEOX-STEP
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/neox %t/neox.ptx --inputs %t/neox_in2.npz --expect %t/neox_out2.npz --rtol 1e-4 --atol 1e-5 --quiet | FileCheck %s --check-prefixes=OUT,NEOX-STEP
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/neox %t/neox.ptx --inputs %t/neox_in3.npz --expect %t/neox_out3.npz --rtol 1e-4 --atol 1e-5 --quiet | FileCheck %s --check-prefixes=OUT,NEOX-PROMPT
// RUN: decoda-compile %t/neox.onnx --target=cuda --float-type=bf16 --float-type-io --emit=ptx -o %t/neox-io.ptx --dump-ir-after-each=%t/neox-io
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/neox-io %t/neox-io.ptx --inputs %t/neox_in1.npz --expect %t/neox_out1.npz --rtol 5e-2 --atol 5e-2 --quiet | FileCheck %s --check-prefixes=OUT,NEOX-IO-STEP
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/neox-io %t/neox-io.ptx --inputs %t/neox_in3.npz --expect %t/neox_out3.npz --rtol 5e-2 --atol 5e-2 --quiet | FileCheck %s --check-prefixes=OUT,NEOX-IO-PROMPT
// RUN: %PYTHON %S/Inputs/onnx_ort_io.py --case decoder_kv_phi2 0 %t/phi2.onnx %t/phi2_in0.npz %t/phi2_out0.npz
// RUN: %PYTHON %S/Inputs/onnx_ort_io.py --case decoder_kv_phi2 1 %t/phi2.onnx %t/phi2_in1.npz %t/phi2_out1.npz
// RUN: %PYTHON %S/Inputs/onnx_ort_io.py --case decoder_kv_phi2 2 %t/phi2.onnx %t/phi2_in2.npz %t/phi2_out2.npz
// RUN: %PYTHON %S/Inputs/onnx_ort_io.py --case decoder_kv_phi2 3 %t/phi2.onnx %t/phi2_in3.npz %t/phi2_out3.npz
// RUN: decoda-compile %t/phi2.onnx --target=cuda --emit=ptx -o %t/phi2.ptx --dump-ir-after-each=%t/phi2
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/phi2 %t/phi2.ptx --inputs %t/phi2_in0.npz --expect %t/phi2_out0.npz --rtol 1e-4 --atol 1e-5 --quiet | FileCheck %s --check-prefixes=OUT,PHI2-PROMPT
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/phi2 %t/phi2.ptx --inputs %t/phi2_in1.npz --expect %t/phi2_out1.npz --rtol 1e-4 --atol 1e-5 --quiet | FileCheck %s --check-prefixes=OUT,PHI2-STEP
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/phi2 %t/phi2.ptx --inputs %t/phi2_in2.npz --expect %t/phi2_out2.npz --rtol 1e-4 --atol 1e-5 --quiet | FileCheck %s --check-prefixes=OUT,PHI2-STEP
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/phi2 %t/phi2.ptx --inputs %t/phi2_in3.npz --expect %t/phi2_out3.npz --rtol 1e-4 --atol 1e-5 --quiet | FileCheck %s --check-prefixes=OUT,PHI2-PROMPT
// RUN: decoda-compile %t/phi2.onnx --target=cuda --float-type=bf16 --float-type-io --emit=ptx -o %t/phi2-io.ptx --dump-ir-after-each=%t/phi2-io
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/phi2-io %t/phi2-io.ptx --inputs %t/phi2_in1.npz --expect %t/phi2_out1.npz --rtol 5e-2 --atol 5e-2 --quiet | FileCheck %s --check-prefixes=OUT,PHI2-IO-STEP
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/phi2-io %t/phi2-io.ptx --inputs %t/phi2_in3.npz --expect %t/phi2_out3.npz --rtol 5e-2 --atol 5e-2 --quiet | FileCheck %s --check-prefixes=OUT,PHI2-IO-PROMPT
// OUT: out0: ok
// OUT: out1: ok
// OUT: out2: ok
// OUT: out3: ok
// OUT: out4: ok
// The prompts' past caches are empty: their copies into the presents have no blocks, which
// the support code does not launch (empty-grid-runtime.mlir).
// GPT2-PROMPT: 39 launches (and 1 of an empty grid
// GPT2-STEP: 23 launches
// GPT2-IO-STEP: 23 launches
// GPT2-IO-PROMPT: 22 launches (and 1 of an empty grid
// NEOX-PROMPT: 36 launches (and 1 of an empty grid
// NEOX-STEP: 21 launches
// NEOX-IO-STEP: 21 launches
// NEOX-IO-PROMPT: 20 launches (and 1 of an empty grid
// PHI2-PROMPT: 38 launches (and 1 of an empty grid
// PHI2-STEP: 21 launches
// PHI2-IO-STEP: 21 launches
// PHI2-IO-PROMPT: 20 launches (and 1 of an empty grid
