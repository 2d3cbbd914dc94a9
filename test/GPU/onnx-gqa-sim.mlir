// com.microsoft GroupQueryAttention with run-time row lengths (seqlens_k and
// total_sequence_length as model inputs, onnxruntime-genai's form) for CUDA, on the PTX
// interpreter against ONNX Runtime: one build per model serves every form of past the same file
// accepts. Before, GroupQueryAttention did not compile for CUDA at all (its row checks reduced
// device data and read the result on the host, which decoda-gpu-device-buffers refuses); the
// rows are now checked by host reads of the seqlens_k argument and the positions, present and
// masks computed by kernels. Input sets (onnx_models.GQA_RUNTIME_SETS): 1 a decode step into a
// past buffer longer than the tokens with rows of different lengths, 4 a right-padded prompt
// into a buffer, 5 a three-token chunk into a buffer, 2 a concatenated decode step.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %PYTHON %S/Inputs/onnx_ort_io.py --case ms_gqa_runtime_lengths_rotary_window 1 %t/rw.onnx %t/rw1.npz %t/rw1o.npz
// RUN: %PYTHON %S/Inputs/onnx_ort_io.py --case ms_gqa_runtime_lengths_rotary_window 4 %t/rw.onnx %t/rw4.npz %t/rw4o.npz
// RUN: %PYTHON %S/Inputs/onnx_ort_io.py --case ms_gqa_runtime_lengths_rotary_window 5 %t/rw.onnx %t/rw5.npz %t/rw5o.npz
// RUN: decoda-compile %t/rw.onnx --target=cuda --emit=ptx -o %t/rw.ptx --dump-ir-after-each=%t/rw
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/rw %t/rw.ptx --inputs %t/rw1.npz --expect %t/rw1o.npz --rtol 1e-4 --atol 1e-5 | FileCheck %s --check-prefix=RW
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/rw %t/rw.ptx --inputs %t/rw4.npz --expect %t/rw4o.npz --rtol 1e-4 --atol 1e-5 | FileCheck %s --check-prefix=RW
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/rw %t/rw.ptx --inputs %t/rw5.npz --expect %t/rw5o.npz --rtol 1e-4 --atol 1e-5 | FileCheck %s --check-prefix=RW
// RW: out0: ok
// RW: out1: ok
// RW: out2: ok
// RW: 9 launches;
// head_sink: the sink logits reach the attention kernel.
// RUN: %PYTHON %S/Inputs/onnx_ort_io.py --case ms_gqa_runtime_lengths_head_sink 1 %t/hs.onnx %t/hs1.npz %t/hs1o.npz
// RUN: %PYTHON %S/Inputs/onnx_ort_io.py --case ms_gqa_runtime_lengths_head_sink 2 %t/hs.onnx %t/hs2.npz %t/hs2o.npz
// RUN: decoda-compile %t/hs.onnx --target=cuda --emit=ptx -o %t/hs.ptx --dump-ir-after-each=%t/hs
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/hs %t/hs.ptx --inputs %t/hs1.npz --expect %t/hs1o.npz --rtol 1e-4 --atol 1e-5 | FileCheck %s --check-prefix=HS
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/hs %t/hs.ptx --inputs %t/hs2.npz --expect %t/hs2o.npz --rtol 1e-4 --atol 1e-5 | FileCheck %s --check-prefix=HS
// HS: out0: ok
// HS: out1: ok
// HS: out2: ok
// HS: 5 launches;
// seqlens_k and total_sequence_length computed in the graph from an attention_mask input (the
// form onnxruntime-genai exports): the host checks the rows on a copy of the kernels' seqlens_k
// (decoda-gpu-device-buffers), once for the model.
// RUN: %PYTHON %S/Inputs/onnx_ort_io.py --case ms_gqa_attention_mask 1 %t/am.onnx %t/am1.npz %t/am1o.npz
// RUN: %PYTHON %S/Inputs/onnx_ort_io.py --case ms_gqa_attention_mask 4 %t/am.onnx %t/am4.npz %t/am4o.npz
// RUN: decoda-compile %t/am.onnx --target=cuda --emit=ptx -o %t/am.ptx --dump-ir-after-each=%t/am
// RUN: cat %t/am/*-decoda-gpu-device-buffers.mlir | FileCheck %s --check-prefix=AMHOST
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/am %t/am.ptx --inputs %t/am1.npz --expect %t/am1o.npz --rtol 1e-4 --atol 1e-5 | FileCheck %s --check-prefix=AM
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/am %t/am.ptx --inputs %t/am4.npz --expect %t/am4o.npz --rtol 1e-4 --atol 1e-5 | FileCheck %s --check-prefix=AM
// AMHOST:     %[[HOST:.+]] = memref.alloc(%{{.+}}) : memref<?xi32>
// AMHOST:     gpu.memcpy async [%{{.+}}] %[[HOST]], %{{.+}} : memref<?xi32>, memref<?xi32>
// AMHOST:     scf.for
// AMHOST:       memref.load %[[HOST]]
// AMHOST-NOT: gpu.memcpy async [%{{.+}}] %{{.+}}, %{{.+}} : memref<?xi32>, memref<?xi32>
// AM: out0: ok
// AM: out1: ok
// AM: out2: ok
// AM: 12 launches;
// float16, head dim 64, rotary (onnxruntime-genai's CUDA models are f16): the f16 attention
// kernels with the row mask, against ONNX Runtime running the file in f16.
// RUN: %PYTHON %S/Inputs/onnx_ort_io.py --case ms_gqa_runtime_lengths_f16_d64 1 %t/h.onnx %t/h1.npz %t/h1o.npz
// RUN: %PYTHON %S/Inputs/onnx_ort_io.py --case ms_gqa_runtime_lengths_f16_d64 5 %t/h.onnx %t/h5.npz %t/h5o.npz
// RUN: decoda-compile %t/h.onnx --target=cuda --emit=ptx -o %t/h.ptx --dump-ir-after-each=%t/h
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/h %t/h.ptx --inputs %t/h1.npz --expect %t/h1o.npz --rtol 2e-3 --atol 2e-3 | FileCheck %s --check-prefix=HALF
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/h %t/h.ptx --inputs %t/h5.npz --expect %t/h5o.npz --rtol 2e-3 --atol 2e-3 | FileCheck %s --check-prefix=HALF
// HALF: out0: ok
// HALF: out1: ok
// HALF: out2: ok
// HALF: 9 launches;
// decoda-compile --shared-kv-buffers (genai's shared past/present): present is the past buffer
// with the rows' new tokens written in place, only the window [least past_b, greatest past_b + S)
// rewritten (a 2-block kernel for the decode step's K and V instead of 5 over the whole
// buffer); the pasts are donated and checked in the arguments after the call (argN) against
// ONNX Runtime's present (pasts zero after the rows' tokens, as its unshared present is).
// RUN: %PYTHON %S/Inputs/onnx_ort_io.py --case ms_gqa_runtime_lengths_rotary_window 1 %t/sh.onnx %t/sh1.npz %t/sh1o.npz --shared-kv
// RUN: %PYTHON %S/Inputs/onnx_ort_io.py --case ms_gqa_runtime_lengths_rotary_window 4 %t/sh.onnx %t/sh4.npz %t/sh4o.npz --shared-kv
// RUN: decoda-compile %t/sh.onnx --shared-kv-buffers --target=cuda --emit=ptx -o %t/sh.ptx --dump-ir-after-each=%t/sh
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/sh %t/sh.ptx --inputs %t/sh1.npz --expect %t/sh1o.npz --rtol 1e-4 --atol 1e-5 | FileCheck %s --check-prefix=SHARED1
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/sh %t/sh.ptx --inputs %t/sh4.npz --expect %t/sh4o.npz --rtol 1e-4 --atol 1e-5 | FileCheck %s --check-prefix=SHARED
// SHARED1: launch main_kernel_4: grid [2, 1, 1]
// SHARED1: out0: ok
// SHARED1: arg3: ok
// SHARED1: arg4: ok
// SHARED1: 9 launches;
// SHARED: out0: ok
// SHARED: arg3: ok
// SHARED: arg4: ok
