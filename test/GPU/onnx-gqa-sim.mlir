// com.microsoft GroupQueryAttention with run-time row lengths (seqlens_k and
// total_sequence_length as model inputs, onnxruntime-genai's form) for CUDA, on the PTX
// interpreter against ONNX Runtime: one build per model serves every form of past the same file
// accepts. Before, GroupQueryAttention did not compile for CUDA at all (its row checks reduced
// device data and read the result on the host, which decoda-gpu-device-buffers refuses); the
// rows are now checked by host reads of the seqlens_k argument and the positions, present and
// masks computed by kernels. Input sets (onnx_models.GQA_RUNTIME_SETS): 1 a decode step into a
// past buffer longer than the tokens with rows of different lengths, 4 a right-padded prompt
// into a buffer, 5 a three-token chunk into a buffer, 2 a concatenated decode step. A step
// whose rows all hold total_sequence_length tokens (5, 2) takes the attention without the
// per-row mask (one build, a host branch on the row pass's result); rows of different
// lengths (1, 4) build the mask, a kernel of its own in that branch. q's RoPE and present's K
// and V are one kernel: K rotated as present's writes store it, K and V read as the node's
// inputs lay them out (no RoPE kernel of k nor transposed copies first), nothing effectful
// between the loops (the checks of the tables and of a shared buffer's length come before).
// RUN: rm -rf %t && mkdir -p %t
// RUN: %PYTHON %S/Inputs/onnx_ort_io.py --case ms_gqa_runtime_lengths_rotary_window 1 %t/rw.onnx %t/rw1.npz %t/rw1o.npz
// RUN: %PYTHON %S/Inputs/onnx_ort_io.py --case ms_gqa_runtime_lengths_rotary_window 4 %t/rw.onnx %t/rw4.npz %t/rw4o.npz
// RUN: %PYTHON %S/Inputs/onnx_ort_io.py --case ms_gqa_runtime_lengths_rotary_window 5 %t/rw.onnx %t/rw5.npz %t/rw5o.npz
// RUN: decoda-compile %t/rw.onnx --target=cuda --emit=ptx -o %t/rw.ptx --dump-ir-after-each=%t/rw
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/rw %t/rw.ptx --inputs %t/rw1.npz --expect %t/rw1o.npz --rtol 1e-4 --atol 1e-5 | FileCheck %s --check-prefixes=RW,RWMASK
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/rw %t/rw.ptx --inputs %t/rw4.npz --expect %t/rw4o.npz --rtol 1e-4 --atol 1e-5 | FileCheck %s --check-prefixes=RW,RWMASK
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/rw %t/rw.ptx --inputs %t/rw5.npz --expect %t/rw5o.npz --rtol 1e-4 --atol 1e-5 | FileCheck %s --check-prefixes=RW,RWFULL
// RW: out0: ok
// RW: out1: ok
// RW: out2: ok
// RWMASK: 5 launches;
// RWFULL: 4 launches;
// head_sink: the sink logits reach the attention kernel.
// RUN: %PYTHON %S/Inputs/onnx_ort_io.py --case ms_gqa_runtime_lengths_head_sink 1 %t/hs.onnx %t/hs1.npz %t/hs1o.npz
// RUN: %PYTHON %S/Inputs/onnx_ort_io.py --case ms_gqa_runtime_lengths_head_sink 2 %t/hs.onnx %t/hs2.npz %t/hs2o.npz
// RUN: decoda-compile %t/hs.onnx --target=cuda --emit=ptx -o %t/hs.ptx --dump-ir-after-each=%t/hs
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/hs %t/hs.ptx --inputs %t/hs1.npz --expect %t/hs1o.npz --rtol 1e-4 --atol 1e-5 | FileCheck %s --check-prefixes=HS,HSMASK
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/hs %t/hs.ptx --inputs %t/hs2.npz --expect %t/hs2o.npz --rtol 1e-4 --atol 1e-5 | FileCheck %s --check-prefixes=HS,HSFULL
// HS: out0: ok
// HS: out1: ok
// HS: out2: ok
// HSMASK: 5 launches;
// HSFULL: 4 launches;
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
// AM: 8 launches;
// float16, head dim 64, rotary (onnxruntime-genai's CUDA models are f16): the f16 attention
// kernels with the row mask, against ONNX Runtime running the file in f16.
// RUN: %PYTHON %S/Inputs/onnx_ort_io.py --case ms_gqa_runtime_lengths_f16_d64 1 %t/h.onnx %t/h1.npz %t/h1o.npz
// RUN: %PYTHON %S/Inputs/onnx_ort_io.py --case ms_gqa_runtime_lengths_f16_d64 5 %t/h.onnx %t/h5.npz %t/h5o.npz
// RUN: decoda-compile %t/h.onnx --target=cuda --emit=ptx -o %t/h.ptx --dump-ir-after-each=%t/h
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/h %t/h.ptx --inputs %t/h1.npz --expect %t/h1o.npz --rtol 2e-3 --atol 2e-3 | FileCheck %s --check-prefixes=HALF,HALFMASK
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/h %t/h.ptx --inputs %t/h5.npz --expect %t/h5o.npz --rtol 2e-3 --atol 2e-3 | FileCheck %s --check-prefixes=HALF,HALFFULL
// HALF: out0: ok
// HALF: out1: ok
// HALF: out2: ok
// HALFMASK: 5 launches;
// HALFFULL: 4 launches;
// decoda-compile --shared-kv-buffers (genai's shared past/present): present is the past buffer
// with the rows' new tokens written in place, only the window [least past_b, greatest past_b + S)
// rewritten (the update's generic writes a subview of the past argument, no buffer of present's
// size is made); the pasts are donated and checked in the arguments after the call (argN)
// against ONNX Runtime's present (pasts zero after the rows' tokens, as its unshared present is).
// RUN: %PYTHON %S/Inputs/onnx_ort_io.py --case ms_gqa_runtime_lengths_rotary_window 1 %t/sh.onnx %t/sh1.npz %t/sh1o.npz --shared-kv
// RUN: %PYTHON %S/Inputs/onnx_ort_io.py --case ms_gqa_runtime_lengths_rotary_window 4 %t/sh.onnx %t/sh4.npz %t/sh4o.npz --shared-kv
// RUN: decoda-compile %t/sh.onnx --shared-kv-buffers --target=cuda --emit=ptx -o %t/sh.ptx --dump-ir-after-each=%t/sh
// RUN: cat %t/sh/*-one-shot-bufferize.mlir | FileCheck %s --check-prefix=SHAREDIR
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/sh %t/sh.ptx --inputs %t/sh1.npz --expect %t/sh1o.npz --rtol 1e-4 --atol 1e-5 | FileCheck %s --check-prefix=SHARED1
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/sh %t/sh.ptx --inputs %t/sh4.npz --expect %t/sh4o.npz --rtol 1e-4 --atol 1e-5 | FileCheck %s --check-prefix=SHARED
// SHAREDIR:     %[[WIN:.+]] = memref.subview %arg3[0, 0, %{{.+}}, 0] [%{{.+}}, 2, %{{.+}}, 16]
// SHAREDIR:     linalg.generic {{.*}} outs(%[[WIN]] :
// SHAREDIR-NOT: memref.alloc({{.*}}) {{.*}} : memref<?x2x?x16xf32>
// SHARED1: out0: ok
// SHARED1: arg3: ok
// SHARED1: arg4: ok
// SHARED1: 5 launches;
// SHARED: out0: ok
// SHARED: arg3: ok
// SHARED: arg4: ok
// Prompts and chunks long enough for the tensor-core attention (f16, head dim 64, sm_90a's
// wgmma kernel and mma.sync): K and V reach the kernel as memref.transpose views of the
// [B, H, S, D] cache (decoda-gpu-flash-attention forwards the transposed copies), except with
// TMA (row-major tensor maps), which keeps the copies. Set 0: a 64-token prompt, 1: a 32-token
// chunk into a 64-entry buffer.
// RUN: %PYTHON %S/Inputs/onnx_ort_io.py --case ms_gqa_runtime_lengths_f16_d64_long 0 %t/l.onnx %t/l0.npz %t/l0o.npz
// RUN: %PYTHON %S/Inputs/onnx_ort_io.py --case ms_gqa_runtime_lengths_f16_d64_long 1 %t/l.onnx %t/l1.npz %t/l1o.npz
// RUN: decoda-compile %t/l.onnx --target=cuda --gpu-arch=sm_90a --emit=ptx -o %t/l.ptx --dump-ir-after-each=%t/l
// RUN: cat %t/l/*-decoda-gpu-flash-attention.mlir | FileCheck %s --check-prefix=FWD
// RUN: cat %t/l/*-decoda-gpu-flash-attention.mlir | FileCheck %s --check-prefix=ROWSFULL
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/l %t/l.ptx --inputs %t/l0.npz --expect %t/l0o.npz --rtol 2e-3 --atol 4e-3 | FileCheck %s --check-prefix=LONG
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/l %t/l.ptx --inputs %t/l1.npz --expect %t/l1o.npz --rtol 2e-3 --atol 4e-3 | FileCheck %s --check-prefix=LONG
// RUN: decoda-compile %t/l.onnx --target=cuda --gpu-arch=sm_90a --gpu-attention-wgmma=false --emit=ptx -o %t/lm.ptx --dump-ir-after-each=%t/lm
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/lm %t/lm.ptx --inputs %t/l1.npz --expect %t/l1o.npz --rtol 2e-3 --atol 4e-3 | FileCheck %s --check-prefix=LONGMMA
// RUN: decoda-compile %t/l.onnx --target=cuda --gpu-arch=sm_90a --gpu-attention-tma --emit=ptx -o %t/lt.ptx --dump-ir-after-each=%t/lt
// RUN: cat %t/lt/*-decoda-gpu-flash-attention.mlir | FileCheck %s --check-prefix=NOFWD
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/lt %t/lt.ptx --inputs %t/l1.npz --expect %t/l1o.npz --rtol 2e-3 --atol 4e-3 | FileCheck %s --check-prefix=LONGTMA
// FWD:     %[[K:.+]] = memref.transpose %{{.+}} (d0, d1, d2, d3) -> (d0, d2, d1, d3) : memref<?x2x?x64xf16{{.*}}> to memref<?x?x2x64xf16, strided<[?, 64, ?, 1]{{.*}}>>
// FWD:     %[[V:.+]] = memref.transpose %{{.+}} (d0, d1, d2, d3) -> (d0, d2, d1, d3)
// FWD-NOT: linalg.transpose {{.*}} outs(%{{.+}} : memref<?x?x2x64xf16>)
// Both sets have full rows: the branch taken calls the kernel without a mask operand (so its
// interior tiles take the unmasked path); the other branch builds the mask and passes it.
// ROWSFULL:      func.func private @[[MASKED:__decoda_gpu_attention[_0-9]*]]({{.*}}, %arg4: memref<?x1x?x?xf16>) ->
// ROWSFULL:      func.func private @[[PLAIN:__decoda_gpu_attention[_0-9]*]]({{.*}}, %arg3: index) ->
// ROWSFULL:      scf.if %{{.+}}#2 -> (memref<?x?x4x64xf16>) {
// ROWSFULL-NOT:    linalg.generic
// ROWSFULL:        call @[[PLAIN]](%{{[^,]+}}, %transpose{{[_0-9]*}}, %transpose{{[_0-9]*}}, %{{[^,]+}}) :
// ROWSFULL:      } else {
// ROWSFULL:        linalg.generic
// ROWSFULL:        call @[[MASKED]](
// NOFWD:   linalg.transpose {{.*}} outs(%{{.+}} : memref<?x?x2x64xf16>)
// NOFWD-NOT: memref.transpose
// LONG: wgmma
// LONG: out0: ok
// LONG: out1: ok
// LONG: 3 launches;
// LONGMMA: mma
// LONGMMA: out0: ok
// LONGMMA: 3 launches;
// LONGTMA: mbarrier
// LONGTMA: out0: ok
// LONGTMA: 4 launches;
