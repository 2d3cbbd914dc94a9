// A whole decoder-only model as Hugging Face / Optimum export it (python/decoda/onnx_models.py
// decoder_model, case decoder_kv: input_ids through an embedding Gather, attention_mask and
// position_ids, two Llama layers with GQA and RoPE, past_key_values concatenated with the new
// keys and values into present.*, final norm, lm_head) compiled for CUDA and run on the PTX
// interpreter against ONNX Runtime, on the case's four input sets: a prompt of 6 tokens in a
// batch of two (empty cache), one decode step over 6 cached tokens, a chunk of 4 tokens over 3
// cached, and a batch of two whose row 1 is left-padded by 2 (attention_mask zeros; its padded
// queries see only padded keys, each logit the f32 lowest value the export adds, and ONNX
// Runtime averages their values uniformly). Outputs: out0 the logits, out1..4 the presents.
// Before: the model did not compile for CUDA (the embedding's token-id check was a reduction
// into a buffer in host code, refused by decoda-gpu-device-buffers; it is now a loop over the
// ids carrying the condition), and the left-padded set was NaN on batch row 1 (the attention
// kernels' exponent overflowed on rows of lowest-value logits; attention-padding-mask-sim.mlir).
// With --float-type=bf16 the attention mask stays f32 (decoda-convert-float-type): in bf16 the
// f32 lowest value rounds to -inf, and the padded rows gave zeros where the f32 model averages.
// An id outside the vocabulary is refused at run time by the embedding's check, naming the op.
// Launches. A decode step of the bf16 build with bf16 inputs and outputs (--float-type-io, the
// caches in bf16) is 23 for the two layers and a batch of two: the past copies of every layer
// in one kernel at the start (decoda-concats-in-place places them there, independent neighbours
// merge), the embedding, the mask; per layer the RMSNorm, the q/k/v GEMV, RoPE writing the new
// keys into the present slice with the new values' copy in the same launch, the attention's
// split and combine, o, add + RMSNorm, gate/up, down (9; at batch 1 the norms fold into the
// GEMVs); then the final norm and lm_head. It was 47 before 7 Dec 2026: every Transpose of the
// graph stayed f32 between conversion kernels (decoda-convert-float-type now converts linalg ops
// that only move elements) and the presents were concatenated from temporaries by copy kernels;
// 25 until the rotated keys went straight into the present (decoda-write-through-transposes)
// and the values' copy, a 3-D grid, merged with the RoPE launch (decoda-gpu-merge-launches).
// The f32 build: prompt 41 -> 36 -> 34, decode 32 -> 27 -> 25; the bf16 build with f32 inputs
// and outputs 35 -> 31 (the caches converted at the boundary).
// RUN: rm -rf %t && mkdir -p %t
// RUN: %PYTHON %S/Inputs/onnx_ort_io.py --case decoder_kv 0 %t/m.onnx %t/in0.npz %t/out0.npz
// RUN: %PYTHON %S/Inputs/onnx_ort_io.py --case decoder_kv 1 %t/m.onnx %t/in1.npz %t/out1.npz
// RUN: %PYTHON %S/Inputs/onnx_ort_io.py --case decoder_kv 2 %t/m.onnx %t/in2.npz %t/out2.npz
// RUN: %PYTHON %S/Inputs/onnx_ort_io.py --case decoder_kv 3 %t/m.onnx %t/in3.npz %t/out3.npz
// RUN: decoda-compile %t/m.onnx --target=cuda --emit=ptx -o %t/f.ptx --dump-ir-after-each=%t/f
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/f %t/f.ptx --inputs %t/in0.npz --expect %t/out0.npz --rtol 1e-4 --atol 1e-5 | FileCheck %s --check-prefixes=OUT,PROMPT
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/f %t/f.ptx --inputs %t/in1.npz --expect %t/out1.npz --rtol 1e-4 --atol 1e-5 | FileCheck %s --check-prefixes=OUT,STEP
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/f %t/f.ptx --inputs %t/in2.npz --expect %t/out2.npz --rtol 1e-4 --atol 1e-5 | FileCheck %s --check-prefixes=OUT,STEP
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/f %t/f.ptx --inputs %t/in3.npz --expect %t/out3.npz --rtol 1e-4 --atol 1e-5 | FileCheck %s --check-prefixes=OUT,PROMPT
// RUN: decoda-compile %t/m.onnx --target=cuda --float-type=bf16 --emit=ptx -o %t/b.ptx --dump-ir-after-each=%t/b
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/b %t/b.ptx --inputs %t/in1.npz --expect %t/out1.npz --rtol 5e-2 --atol 5e-2 | FileCheck %s --check-prefixes=OUT,BF16-STEP
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/b %t/b.ptx --inputs %t/in3.npz --expect %t/out3.npz --rtol 5e-2 --atol 5e-2 | FileCheck %s --check-prefixes=OUT,BF16-PROMPT
// RUN: decoda-compile %t/m.onnx --target=cuda --float-type=bf16 --float-type-io --emit=ptx -o %t/io.ptx --dump-ir-after-each=%t/io
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/io %t/io.ptx --inputs %t/in1.npz --expect %t/out1.npz --rtol 5e-2 --atol 5e-2 | FileCheck %s --check-prefixes=OUT,IO-STEP
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/io %t/io.ptx --inputs %t/in3.npz --expect %t/out3.npz --rtol 5e-2 --atol 5e-2 | FileCheck %s --check-prefixes=OUT,IO-PROMPT
// RUN: %PYTHON -c "import numpy as np; d = dict(np.load('%t/in1.npz')); d['arg0'] = d['arg0'].copy(); d['arg0'][1, 0] = 300; np.savez('%t/bad.npz', **d)"
// RUN: not %PYTHON %S/Inputs/gpusim_run.py %t/f %t/f.ptx --inputs %t/bad.npz --expect %t/out1.npz --quiet 2>&1 | FileCheck %s --check-prefix=BADID
// OUT: out0: ok
// OUT: out1: ok
// OUT: out2: ok
// OUT: out3: ok
// OUT: out4: ok
// The prompts' past caches are empty: their copies into the presents have no blocks, which the
// support code does not launch (empty-grid-runtime.mlir).
// PROMPT: 33 launches (and 1 of an empty grid
// STEP: 25 launches
// BF16-STEP: 31 launches
// BF16-PROMPT: 30 launches (and 1 of an empty grid
// IO-STEP: 23 launches
// IO-PROMPT: 22 launches (and 1 of an empty grid
// BADID: run-time check failed: "decoda.embedding: token id outside [0, V) of the embedding table"
