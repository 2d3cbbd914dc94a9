// Numerics of the GEMV kernel reading block-quantised weights (decoda-gpu-gemv: a
// decoda.dequantize_blocks of constant codes read by a decoda.linear with at most 8 rows)
// without a GPU: the kernels' PTX on the PTX interpreter (Inputs/ptxsim.py), the host on
// Inputs/gpusim_run.py, against NumPy from the op's formula (Inputs/dequant_gemv_data.py:
// y = x ((code - zp) scale)^T in float64, rounded to the output type). Each case is one launch
// (the dequantisation's own kernel is gone). Cases: 4-bit f16 with whole zero points (one FMA
// centres a code); fractional zero points (f32, 3 rows; f16 2-bit, 8 rows); 2-bit with the
// default zero point; 8-bit codes (f32, 2 rows; bf16 in blocks of 128); K = 40 (vectors of 8
// codes, a ragged last block); K = 2048 over 8 columns (the K split over a block's warps).
// f32 within 1e-5 (relative), f16 2e-3, bf16 1e-2: the outputs' rounding (the kernel sums
// in another order than NumPy).
// RUN: rm -rf %t && mkdir -p %t
// RUN: %PYTHON %S/Inputs/dequant_gemv_data.py module %t/m.mlir
// RUN: decoda-compile %t/m.mlir --target=cuda --emit=ptx -o %t/m.ptx --dump-ir-after-each=%t/d
// RUN: %PYTHON %S/Inputs/dequant_gemv_data.py b4_f16_m1 %t/1-in.npz %t/1-out.npz
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/d %t/m.ptx --entry b4_f16_m1 --inputs %t/1-in.npz --expect %t/1-out.npz --rtol 2e-3 --atol 2e-3 | FileCheck %s --check-prefix=B4F16
// B4F16: out0: ok (40 elements
// B4F16: 1 launches
// RUN: %PYTHON %S/Inputs/dequant_gemv_data.py b4_f32_frac_m3 %t/2-in.npz %t/2-out.npz
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/d %t/m.ptx --entry b4_f32_frac_m3 --inputs %t/2-in.npz --expect %t/2-out.npz --rtol 1e-5 --atol 1e-5 | FileCheck %s --check-prefix=FRAC
// FRAC: out0: ok (99 elements
// FRAC: 1 launches
// RUN: %PYTHON %S/Inputs/dequant_gemv_data.py b2_bf16_m1 %t/3-in.npz %t/3-out.npz
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/d %t/m.ptx --entry b2_bf16_m1 --inputs %t/3-in.npz --expect %t/3-out.npz --rtol 1e-2 --atol 1e-2 | FileCheck %s --check-prefix=B2
// B2: out0: ok (24 elements
// B2: 1 launches
// RUN: %PYTHON %S/Inputs/dequant_gemv_data.py b8_f32_m2 %t/4-in.npz %t/4-out.npz
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/d %t/m.ptx --entry b8_f32_m2 --inputs %t/4-in.npz --expect %t/4-out.npz --rtol 1e-5 --atol 1e-5 | FileCheck %s --check-prefix=B8
// B8: out0: ok (40 elements
// B8: 1 launches
// RUN: %PYTHON %S/Inputs/dequant_gemv_data.py b4_bf16_ragged %t/5-in.npz %t/5-out.npz
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/d %t/m.ptx --entry b4_bf16_ragged --inputs %t/5-in.npz --expect %t/5-out.npz --rtol 1e-2 --atol 1e-2 | FileCheck %s --check-prefix=RAGGED
// RAGGED: out0: ok (17 elements
// RAGGED: 1 launches
// RUN: %PYTHON %S/Inputs/dequant_gemv_data.py b2_f16_frac_m8 %t/6-in.npz %t/6-out.npz
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/d %t/m.ptx --entry b2_f16_frac_m8 --inputs %t/6-in.npz --expect %t/6-out.npz --rtol 2e-3 --atol 2e-3 | FileCheck %s --check-prefix=M8
// M8: out0: ok (128 elements
// M8: 1 launches
// RUN: %PYTHON %S/Inputs/dequant_gemv_data.py b4_bf16_long %t/7-in.npz %t/7-out.npz
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/d %t/m.ptx --entry b4_bf16_long --inputs %t/7-in.npz --expect %t/7-out.npz --rtol 1e-2 --atol 1e-2 | FileCheck %s --check-prefix=LONG
// LONG: out0: ok (8 elements
// LONG: 1 launches; bar
// RUN: %PYTHON %S/Inputs/dequant_gemv_data.py b8_bf16_b128 %t/8-in.npz %t/8-out.npz
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/d %t/m.ptx --entry b8_bf16_b128 --inputs %t/8-in.npz --expect %t/8-out.npz --rtol 1e-2 --atol 1e-2 | FileCheck %s --check-prefix=B128
// B128: out0: ok (12 elements
// B128: 1 launches
