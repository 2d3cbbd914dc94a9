// The PyTorch-exported Llama decoder layer (test/Frontend/ONNX/models, f32, dynamic batch and
// sequence) built for one token with --static-dims=batch=1,sequence=1 (the exporter's
// dim_params), on the PTX interpreter against ONNX Runtime (Inputs/onnx_ort_io.py).
// decoda-raise-onnx runs on the graph as imported, before the static dims, so the norms, RoPE,
// attention, gated MLP and residual adds are decoda ops again and take the GPU kernels (before:
// raised after the static sizes had been folded into the exporter's chains, RoPE and the gated
// MLP stayed elementwise loops: 21 launches). Both RMSNorms are computed by the GEMV kernels
// that read them (the first one's q/k/v result buffer is reused for the GLU's output, which no
// longer keeps it from folding: 9 -> 8). The f32 gated MLP is split by fuse-projections into
// one gate|up projection and a GLU, which stays a kernel of its own.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %PYTHON %S/Inputs/onnx_ort_io.py %S/../Frontend/ONNX/models/torch_llama_decoder_layer_dynamic.onnx %t/in.npz %t/out.npz batch=1 sequence=1
// RUN: decoda-compile %S/../Frontend/ONNX/models/torch_llama_decoder_layer_dynamic.onnx --static-dims=batch=1,sequence=1 --target=cuda --emit=ptx -o %t/m.ptx --dump-ir-after-each=%t/d --report 2>%t/report.txt
// RUN: FileCheck %s --check-prefix=RAISE < %t/report.txt
// RAISE: decoda-raise-onnx: {{.*}}+1 decoda.attention, +1 decoda.gated_mlp, +2 decoda.residual_add, +2 decoda.rms_norm, +2 decoda.rope
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/d %t/m.ptx --inputs %t/in.npz --expect %t/out.npz --rtol 1e-4 --atol 1e-5 | FileCheck %s
// CHECK: launch main_kernel: grid [32, 1, 1] block [128, 1, 1] shared 272 bytes; bar 64
// CHECK: out0: ok (64 elements
// CHECK: 8 launches;

// --float-type=bf16: the same export stored and computed in bf16 (decoda-convert-float-type; the
// f32 gated MLP not split, its in_out weights transposed too): the native block's 7 kernels
// (the norms folded, q/k/v one GEMV, RoPE, flash decoding and its combine, o, gate|up with the
// GLU, down) plus the input's conversion to bf16; against ONNX Runtime's f32 at bf16 tolerance.
// RUN: decoda-compile %S/../Frontend/ONNX/models/torch_llama_decoder_layer_dynamic.onnx --static-dims=batch=1,sequence=1 --float-type=bf16 --target=cuda --emit=ptx -o %t/b.ptx --dump-ir-after-each=%t/b
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/b %t/b.ptx --inputs %t/in.npz --expect %t/out.npz --rtol 5e-2 --atol 5e-2 | FileCheck %s --check-prefix=BF16
// BF16: launch main_kernel: grid [2, 1, 1] block [32, 8, 1]
// BF16: launch main_kernel_5: grid [32, 1, 1] block [128, 1, 1] shared 144 bytes; bar 64
// BF16: out0: ok (64 elements
// BF16: 8 launches;

// --float-type-io: the input and output in bf16 as well (the caller's bf16 tensors), so the
// conversion kernel goes: the native block's 7 launches; the same outputs as ONNX Runtime's
// (the input rounded to bf16 by the harness, as the cast did).
// RUN: decoda-compile %S/../Frontend/ONNX/models/torch_llama_decoder_layer_dynamic.onnx --static-dims=batch=1,sequence=1 --float-type=bf16 --float-type-io --target=cuda --emit=ptx -o %t/io.ptx --dump-ir-after-each=%t/io
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/io %t/io.ptx --inputs %t/in.npz --expect %t/out.npz --rtol 5e-2 --atol 5e-2 | FileCheck %s --check-prefix=IO
// IO-NOT: block [32, 8, 1]
// IO: launch main_kernel{{.*}}: grid [32, 1, 1] block [128, 1, 1] shared 144 bytes; bar 64
// IO: out0: ok (64 elements
// IO: 7 launches;

// The bf16 build at a prefill length (sequence = 64): the projections on wgmma tensor cores
// through TMA (the transposed ONNX weights; gate and up in one kernel of 256 columns), the
// attention (head dim 16, held as a padded 64-column block) on wgmma too (mma.sync before 7 Dec
// 2026); against ONNX Runtime at bf16 tolerance. Nine launches (ten before 7 Dec 2026, when a
// loop kernel of a 3-D grid began to merge into the RoPE launch beside it). The attention is
// main_kernel_3: 64-row blocks (2 x 2: 64 queries of 4 heads over 2 K/V heads), 2 (64 x 64 + 2
// x 64 x (64 + 64)) + 1024 bytes.
// RUN: %PYTHON %S/Inputs/onnx_ort_io.py %S/../Frontend/ONNX/models/torch_llama_decoder_layer_dynamic.onnx %t/in64.npz %t/out64.npz batch=1 sequence=64
// RUN: decoda-compile %S/../Frontend/ONNX/models/torch_llama_decoder_layer_dynamic.onnx --static-dims=batch=1,sequence=64 --float-type=bf16 --target=cuda --emit=ptx -o %t/p.ptx --dump-ir-after-each=%t/p
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/p %t/p.ptx --inputs %t/in64.npz --expect %t/out64.npz --rtol 5e-2 --atol 5e-2 | FileCheck %s --check-prefix=PREFILL
// PREFILL: launch main_kernel_1: {{.*}} wgmma
// PREFILL: launch main_kernel_3: grid [2, 2, 1] block [128, 1, 1] shared 0 + 41984 dynamic bytes; {{.*}} wgmma
// PREFILL: launch main_kernel_6: grid [1, 1, 1] block [256, 1, 1] shared 0 + 197664 dynamic bytes; {{.*}} wgmma
// PREFILL: out0: ok (4096 elements
// PREFILL: 9 launches

// The layer as an fp16 export has it (f16_llama_decoder_layer_dynamic.onnx: f16 weights and
// activations, the RMSNorms' variance, the rotary tables and the softmax in f32 between Casts),
// compiled as it is: decoda-raise-onnx sees through those casts, so one token runs the native
// block's 7 kernels, and 64 tokens (8 kernels; 9 before 3-D grids merged, 7 Dec 2026) the
// projections and the attention (main_kernel_2, head dim 16 padded) on f16 wgmma; against
// ONNX Runtime running
// the file in f16 (one f16 ulp at the outputs' magnitude: 3.9e-3).
// RUN: %PYTHON %S/Inputs/onnx_ort_io.py %S/../Frontend/ONNX/models/f16_llama_decoder_layer_dynamic.onnx %t/h1.npz %t/h1o.npz batch=1 sequence=1
// RUN: decoda-compile %S/../Frontend/ONNX/models/f16_llama_decoder_layer_dynamic.onnx --static-dims=batch=1,sequence=1 --target=cuda --emit=ptx -o %t/h1.ptx --dump-ir-after-each=%t/h1
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/h1 %t/h1.ptx --inputs %t/h1.npz --expect %t/h1o.npz --rtol 1e-2 --atol 1e-2 | FileCheck %s --check-prefix=HALF1
// HALF1: launch main_kernel{{.*}}: grid [32, 1, 1] block [128, 1, 1] shared 144 bytes; bar 64
// HALF1: out0: ok (64 elements
// HALF1: 7 launches;
// RUN: %PYTHON %S/Inputs/onnx_ort_io.py %S/../Frontend/ONNX/models/f16_llama_decoder_layer_dynamic.onnx %t/h64.npz %t/h64o.npz batch=1 sequence=64
// RUN: decoda-compile %S/../Frontend/ONNX/models/f16_llama_decoder_layer_dynamic.onnx --static-dims=batch=1,sequence=64 --target=cuda --emit=ptx -o %t/h64.ptx --dump-ir-after-each=%t/h64
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/h64 %t/h64.ptx --inputs %t/h64.npz --expect %t/h64o.npz --rtol 1e-2 --atol 1e-2 | FileCheck %s --check-prefix=HALF64
// HALF64: launch main_kernel_0: {{.*}} wgmma
// HALF64: launch main_kernel_2: grid [2, 2, 1] block [128, 1, 1] shared 0 + 41984 dynamic bytes; {{.*}} wgmma
// HALF64: out0: ok (4096 elements
// HALF64: 8 launches;
