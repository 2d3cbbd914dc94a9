// The PyTorch-exported GPT-2 block (test/Frontend/ONNX/models, dynamic batch and sequence; its
// Conv1D projections reshape the tokens to [B·T, F] and back with computed shapes) for CUDA, on
// the PTX interpreter against ONNX Runtime. Before decoda-expand-tensor-reshapes the export did
// not compile for CUDA (decoda-gpu-device-buffers refused the shape buffers the host code wrote
// for memref.reshape; expansions into [B, T, F] then crashed expand-strided-metadata).
// RUN: rm -rf %t && mkdir -p %t
// A one-token build (--static-dims): constant shapes, every reshape a static view.
// RUN: %PYTHON %S/Inputs/onnx_ort_io.py %S/../Frontend/ONNX/models/torch_gpt2_block_dynamic.onnx %t/in1.npz %t/out1.npz batch=1 sequence=1
// RUN: decoda-compile %S/../Frontend/ONNX/models/torch_gpt2_block_dynamic.onnx --static-dims=batch=1,sequence=1 --target=cuda --emit=ptx -o %t/s.ptx --dump-ir-after-each=%t/s
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/s %t/s.ptx --inputs %t/in1.npz --expect %t/out1.npz --rtol 1e-4 --atol 1e-5 | FileCheck %s --check-prefix=STATIC
// STATIC: out0: ok (64 elements
// STATIC: 9 launches;
// The same block as an fp16 export has it (f16_gpt2_block_dynamic.onnx): its MLP a decoda.mlp
// (NewGELU's f16 constants matched), one token and 64 tokens (the projections on f16 wgmma),
// against ONNX Runtime running the file in f16.
// RUN: %PYTHON %S/Inputs/onnx_ort_io.py %S/../Frontend/ONNX/models/f16_gpt2_block_dynamic.onnx %t/h1.npz %t/h1o.npz batch=1 sequence=1
// RUN: decoda-compile %S/../Frontend/ONNX/models/f16_gpt2_block_dynamic.onnx --static-dims=batch=1,sequence=1 --target=cuda --emit=ptx -o %t/h1.ptx --dump-ir-after-each=%t/h1
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/h1 %t/h1.ptx --inputs %t/h1.npz --expect %t/h1o.npz --rtol 1e-2 --atol 1e-2 | FileCheck %s --check-prefix=HALF1
// HALF1: out0: ok (64 elements
// HALF1: 9 launches;
// RUN: %PYTHON %S/Inputs/onnx_ort_io.py %S/../Frontend/ONNX/models/f16_gpt2_block_dynamic.onnx %t/h64.npz %t/h64o.npz batch=1 sequence=64
// RUN: decoda-compile %S/../Frontend/ONNX/models/f16_gpt2_block_dynamic.onnx --static-dims=batch=1,sequence=64 --target=cuda --emit=ptx -o %t/h64.ptx --dump-ir-after-each=%t/h64
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/h64 %t/h64.ptx --inputs %t/h64.npz --expect %t/h64o.npz --rtol 1e-2 --atol 1e-2 | FileCheck %s --check-prefix=HALF64
// HALF64: wgmma
// HALF64: out0: ok (4096 elements
// (10 since 7 Dec 2026: q's slice of the fused c_attn output read in place by the attention
// kernel, no copy of it.)
// HALF64: 10 launches;
