// A decoder layer as onnxruntime-genai's model builder exports an int4 Llama for CUDA (f16:
// SkipSimplifiedLayerNormalization, q/k/v/o and gate/up/down as 4-bit MatMulNBits,
// GroupQueryAttention with rotary and its lengths from the attention_mask, SiLU as
// Sigmoid * x; onnx_models.ms_genai_int4_layer_f16), on the PTX interpreter against ONNX
// Runtime: the dynamic build and a --static-dims=sequence=1 decode build (whose attention
// result is static inside the if's dynamic type: the branch yields a memref.cast of its buffer,
// which decoda-gpu-device-buffers still frees as the if result's own). Sets of
// onnx_models.GQA_RUNTIME_SETS: 1 a decode step into a past buffer with rows of different
// lengths (the per-row mask), 2 a concatenated decode step with full rows (no mask), 7 a
// batch-1 decode step into a past buffer.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %PYTHON %S/Inputs/onnx_ort_io.py --case ms_genai_int4_layer_f16 1 %t/l.onnx %t/l1.npz %t/l1o.npz
// RUN: %PYTHON %S/Inputs/onnx_ort_io.py --case ms_genai_int4_layer_f16 2 %t/l.onnx %t/l2.npz %t/l2o.npz
// RUN: %PYTHON %S/Inputs/onnx_ort_io.py --case ms_genai_int4_layer_f16 7 %t/l.onnx %t/l7.npz %t/l7o.npz
// RUN: decoda-compile %t/l.onnx --target=cuda --emit=ptx -o %t/l.ptx --dump-ir-after-each=%t/l
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/l %t/l.ptx --inputs %t/l1.npz --expect %t/l1o.npz --rtol 4e-3 --atol 4e-3 | FileCheck %s --check-prefixes=OUT,MASK
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/l %t/l.ptx --inputs %t/l2.npz --expect %t/l2o.npz --rtol 4e-3 --atol 4e-3 | FileCheck %s --check-prefixes=OUT,FULL
// RUN: decoda-compile %t/l.onnx --target=cuda --static-dims=sequence=1 --emit=ptx -o %t/s.ptx --dump-ir-after-each=%t/s
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/s %t/s.ptx --inputs %t/l1.npz --expect %t/l1o.npz --rtol 4e-3 --atol 4e-3 | FileCheck %s --check-prefixes=OUT,MASK
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/s %t/s.ptx --inputs %t/l2.npz --expect %t/l2o.npz --rtol 4e-3 --atol 4e-3 | FileCheck %s --check-prefixes=OUT,FULL
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/l %t/l.ptx --inputs %t/l7.npz --expect %t/l7o.npz --rtol 4e-3 --atol 4e-3 | FileCheck %s --check-prefixes=OUT,ONE
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/s %t/s.ptx --inputs %t/l7.npz --expect %t/l7o.npz --rtol 4e-3 --atol 4e-3 | FileCheck %s --check-prefixes=OUT,ONE

// RUN: decoda-compile %t/l.onnx --target=cuda --shared-kv-buffers --static-dims=sequence=1 --emit=ptx -o %t/sh.ptx --dump-ir-after-each=%t/sh
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/sh %t/sh.ptx --inputs %t/l1.npz --expect %t/l1o.npz --rtol 4e-3 --atol 4e-3 | FileCheck %s --check-prefix=SHARED
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/sh %t/sh.ptx --inputs %t/l7.npz --expect %t/l7o.npz --rtol 4e-3 --atol 4e-3 | FileCheck %s --check-prefix=SHAREDONE

// Outputs: the residual stream, the layer's output, present key and value.
// OUT: out0: ok
// OUT: out1: ok
// OUT: out2: ok
// OUT: out3: ok
// Per layer (the lengths from the mask, 3 kernels, and the rows' past lengths, 1, are the
// model's: every layer's GQA reads the same): the norm, q/k/v, one kernel for q's RoPE and
// present's K and V (K rotated as it is stored, read as the projection wrote it: no RoPE of k
// nor transposed copy of its own), the attention (split and combine; with rows of different
// lengths their mask before), o, the second norm, gate/up, down.
// MASK: 14 launches;
// FULL: 13 launches;
// Set 7, a batch-1 decode step (one row: the GEMV dispatch's M = 1 kernels): both norms
// computed by the kernels that read them (q/k/v's, gate/up's), the norm calls kept for every
// other row count: 11 launches, 7 of them the layer's.
// ONE: 11 launches;

// --shared-kv-buffers (genai's past_present_share_buffer): present is the donated past with
// the rows' new tokens written in place; the same kernels.
// SHARED: out0: ok
// SHARED: out1: ok
// SHARED: 14 launches;
// SHAREDONE: out0: ok
// SHAREDONE: out1: ok
// SHAREDONE: 11 launches;
