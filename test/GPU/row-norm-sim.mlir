// Numerics of the row-norm kernels (decoda-gpu-row-norm) on the PTX interpreter against
// reference.py (Inputs/norm_data.py), one launch per norm: f32 RMSNorm (one warp per row);
// bf16 LayerNorm with a bias over D = 300 (two warps, features past D); bf16 add_rms_norm with
// a scaled branch and a weight offset at D = 2048 (eight warps through shared memory; the sum
// and the norm); f16 add_layer_norm; QK-norm over heads; f16 RMSNorm over an odd D = 1001
// (scalar chunks). bf16/f16 results are exact after the
// rounding, f32 within 1e-6. The race check catches the missing barrier between the warps'
// partial sums and their reads.
// RUN: rm -rf %t && mkdir -p %t
// RUN: decoda-compile %S/Inputs/norm_cases.mlir --target=cuda --emit=ptx -o %t/n.ptx --dump-ir-after-each=%t/n
// RUN: %PYTHON %S/Inputs/norm_data.py rms_f32 %t/1-in.npz %t/1-out.npz
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/n %t/n.ptx --entry rms_f32 --inputs %t/1-in.npz --expect %t/1-out.npz --rtol 1e-5 --atol 1e-5 | FileCheck %s --check-prefix=RMS
// RMS: launch rms_f32_kernel: grid [14, 1, 1] block [32, 1, 1] shared 0 bytes; shfl 70
// RMS: out0: ok (896 elements
// RMS: 1 launches
// RUN: %PYTHON %S/Inputs/norm_data.py layer_bias_bf16 %t/2-in.npz %t/2-out.npz
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/n %t/n.ptx --entry layer_bias_bf16 --inputs %t/2-in.npz --expect %t/2-out.npz --rtol 1e-2 --atol 1e-2 | FileCheck %s --check-prefix=LAYER
// LAYER: launch layer_bias_bf16_kernel: grid [6, 1, 1] block [64, 1, 1] shared 16 bytes; bar 12
// LAYER: out0: ok (1800 elements, max abs error 0)
// RUN: %PYTHON %S/Inputs/norm_data.py add_rms_bf16 %t/3-in.npz %t/3-out.npz
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/n %t/n.ptx --entry add_rms_bf16 --inputs %t/3-in.npz --expect %t/3-out.npz --rtol 1e-2 --atol 1e-2 | FileCheck %s --check-prefix=ADDRMS
// ADDRMS: launch add_rms_bf16_kernel: grid [3, 1, 1] block [256, 1, 1] shared 64 bytes
// ADDRMS: out0: ok (6144 elements, max abs error 0)
// ADDRMS: out1: ok (6144 elements, max abs error 0)
// ADDRMS: 1 launches
// RUN: %PYTHON %S/Inputs/norm_data.py add_layer_f16 %t/4-in.npz %t/4-out.npz
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/n %t/n.ptx --entry add_layer_f16 --inputs %t/4-in.npz --expect %t/4-out.npz --rtol 1e-3 --atol 1e-3 | FileCheck %s --check-prefix=ADDLAYER
// ADDLAYER: out0: ok (1440 elements
// ADDLAYER: out1: ok (1440 elements
// RUN: %PYTHON %S/Inputs/norm_data.py qk_norm_f32 %t/5-in.npz %t/5-out.npz
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/n %t/n.ptx --entry qk_norm_f32 --inputs %t/5-in.npz --expect %t/5-out.npz --rtol 1e-5 --atol 1e-5 | FileCheck %s --check-prefix=QK
// QK: launch qk_norm_f32_kernel: grid [36, 1, 1]
// QK: out0: ok (576 elements
// RUN: %PYTHON %S/Inputs/norm_data.py rms_odd_f16 %t/6-in.npz %t/6-out.npz
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/n %t/n.ptx --entry rms_odd_f16 --inputs %t/6-in.npz --expect %t/6-out.npz --rtol 1e-3 --atol 1e-3 | FileCheck %s --check-prefix=ODD
// ODD: launch rms_odd_f16_kernel: grid [4, 1, 1] block [128, 1, 1]
// ODD: out0: ok (4004 elements
// RUN: awk '/gpu.binary @add_rms_bf16_kernel/{on=1} on && /bar.sync/ && !done {done=1; next} {print}' %t/n.ptx > %t/nobar.ptx
// RUN: not %PYTHON %S/Inputs/gpusim_run.py %t/n %t/nobar.ptx --entry add_rms_bf16 --inputs %t/3-in.npz --expect %t/3-out.npz 2>&1 | FileCheck %s --check-prefix=NOBAR
// NOBAR: shared race: thread {{[0-9]+}} reads bytes at {{[0-9]+}} that thread {{[0-9]+}} wrote
