// Numerics of the GEMV kernels reading block-quantised weights (decoda-gpu-gemv: a
// decoda.dequantize_blocks of constant codes read by a decoda.linear with at most 8 rows, 16
// on the tensor-core GEMV)
// without a GPU: the kernels' PTX on the PTX interpreter (Inputs/ptxsim.py), the host on
// Inputs/gpusim_run.py, against NumPy from the op's formula (Inputs/dequant_gemv_data.py:
// y = x ((code - zp) scale)^T in float64, rounded to the output type). Each case is one launch
// (the dequantisation's own kernel is gone).
// The SIMT kernel (every case of --gpu-gemv-mma=false, and the cases the tensor-core kernel
// does not take) sums the exact (code - zp) scale: 4-bit f16 with whole zero points (one FMA
// centres a code); fractional zero points (f32, 3 rows; f16 2-bit, 8 rows); 2-bit with the
// default zero point; 8-bit codes (f32, 2 rows; bf16 in blocks of 128); K = 40 (vectors of 8
// codes, a ragged last block); K = 2048 over 8 columns (the K split over a block's warps).
// The tensor-core kernel (mma.sync m16n8k16; 4-bit codes in blocks of a multiple of 32,
// bf16/f16, whole zero points) rounds each weight to its type as the op defines it (NumPy with
// --rounded): f16 M = 1; bf16 K = 2048 split over warps; bf16 with the default zero point, 5
// rows, K = 160 (a masked partial warp step) and N = 20 (a partial tile of 8 columns); f16
// K = 4096 over 4 warps; f16 with 12 static rows (above the SIMT kernel's 8: with
// --gpu-gemv-mma=false the dequantisation kernel and the tensor cores' contraction); bf16
// rows a run-time dim, called with 1, 12, 16 (the dispatch's M = 1 and M <= 16 kernels) and
// 20 rows (the dequantisation kernel, then wgmma); f16 with 3 columns, K = 32 and 2 rows. Both forms match their reference exactly after the output's
// rounding in every case here; the tolerances (f32 1e-5, f16 2e-3, bf16 1e-2) leave an ulp
// for a sum in another order.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %PYTHON %S/Inputs/dequant_gemv_data.py module %t/m.mlir
// RUN: decoda-compile %t/m.mlir --target=cuda --emit=ptx -o %t/m.ptx --dump-ir-after-each=%t/d
// RUN: decoda-compile %t/m.mlir --target=cuda --gpu-gemv-mma=false --emit=ptx -o %t/s.ptx --dump-ir-after-each=%t/s
// RUN: %PYTHON %S/Inputs/dequant_gemv_data.py b4_f16_m1 %t/1-in.npz %t/1-out.npz
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/s %t/s.ptx --entry b4_f16_m1 --inputs %t/1-in.npz --expect %t/1-out.npz --rtol 2e-3 --atol 2e-3 | FileCheck %s --check-prefix=B4F16
// B4F16: out0: ok (40 elements
// B4F16: 1 launches; shfl
// RUN: %PYTHON %S/Inputs/dequant_gemv_data.py b4_f16_m1 %t/1-in.npz %t/1-rounded.npz --rounded
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/d %t/m.ptx --entry b4_f16_m1 --inputs %t/1-in.npz --expect %t/1-rounded.npz --rtol 2e-3 --atol 2e-3 | FileCheck %s --check-prefix=MMA-B4F16
// MMA-B4F16: out0: ok (40 elements
// MMA-B4F16: 1 launches; bar {{[0-9]+}}, mma 24
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
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/s %t/s.ptx --entry b4_bf16_long --inputs %t/7-in.npz --expect %t/7-out.npz --rtol 1e-2 --atol 1e-2 | FileCheck %s --check-prefix=LONG
// LONG: out0: ok (8 elements
// LONG: 1 launches; bar {{[0-9]+}}, shfl
// The tensor-core kernel against the exact weights: it rounds each weight to bf16, and over
// K = 2048 that shows beyond an ulp of the output (the check that the two references differ;
// against its own one it is exact).
// RUN: not %PYTHON %S/Inputs/gpusim_run.py %t/d %t/m.ptx --entry b4_bf16_long --inputs %t/7-in.npz --expect %t/7-out.npz --rtol 4e-3 --atol 4e-3 | FileCheck %s --check-prefix=LONG-EXACT
// LONG-EXACT: out0: MISMATCH
// RUN: %PYTHON %S/Inputs/dequant_gemv_data.py b4_bf16_long %t/7-in.npz %t/7-rounded.npz --rounded
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/d %t/m.ptx --entry b4_bf16_long --inputs %t/7-in.npz --expect %t/7-rounded.npz --rtol 1e-2 --atol 1e-2 | FileCheck %s --check-prefix=MMA-LONG
// MMA-LONG: out0: ok (8 elements
// MMA-LONG: 1 launches; bar {{[0-9]+}}, mma 32
// RUN: %PYTHON %S/Inputs/dequant_gemv_data.py b8_bf16_b128 %t/8-in.npz %t/8-out.npz
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/d %t/m.ptx --entry b8_bf16_b128 --inputs %t/8-in.npz --expect %t/8-out.npz --rtol 1e-2 --atol 1e-2 | FileCheck %s --check-prefix=B128
// B128: out0: ok (12 elements
// B128: 1 launches
// RUN: %PYTHON %S/Inputs/dequant_gemv_data.py b4_bf16_default_m5 %t/9-in.npz %t/9-out.npz
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/s %t/s.ptx --entry b4_bf16_default_m5 --inputs %t/9-in.npz --expect %t/9-out.npz --rtol 1e-2 --atol 1e-2 | FileCheck %s --check-prefix=M5
// M5: out0: ok (100 elements
// M5: 1 launches; shfl
// RUN: %PYTHON %S/Inputs/dequant_gemv_data.py b4_bf16_default_m5 %t/9-in.npz %t/9-rounded.npz --rounded
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/d %t/m.ptx --entry b4_bf16_default_m5 --inputs %t/9-in.npz --expect %t/9-rounded.npz --rtol 1e-2 --atol 1e-2 | FileCheck %s --check-prefix=MMA-M5
// MMA-M5: out0: ok (100 elements
// MMA-M5: 1 launches; bar {{[0-9]+}}, mma 16
// RUN: %PYTHON %S/Inputs/dequant_gemv_data.py b4_f16_split %t/10-in.npz %t/10-out.npz
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/s %t/s.ptx --entry b4_f16_split --inputs %t/10-in.npz --expect %t/10-out.npz --rtol 2e-3 --atol 2e-3 | FileCheck %s --check-prefix=SPLIT
// SPLIT: out0: ok (32 elements
// SPLIT: 1 launches; bar {{[0-9]+}}, shfl
// RUN: %PYTHON %S/Inputs/dequant_gemv_data.py b4_f16_split %t/10-in.npz %t/10-rounded.npz --rounded
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/d %t/m.ptx --entry b4_f16_split --inputs %t/10-in.npz --expect %t/10-rounded.npz --rtol 2e-3 --atol 2e-3 | FileCheck %s --check-prefix=MMA-SPLIT
// MMA-SPLIT: out0: ok (32 elements
// MMA-SPLIT: 1 launches; bar {{[0-9]+}}, mma 128
// RUN: %PYTHON %S/Inputs/dequant_gemv_data.py b4_f16_m12 %t/11-in.npz %t/11-rounded.npz --rounded
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/d %t/m.ptx --entry b4_f16_m12 --inputs %t/11-in.npz --expect %t/11-rounded.npz --rtol 2e-3 --atol 2e-3 | FileCheck %s --check-prefix=MMA-M12
// MMA-M12: out0: ok (288 elements
// MMA-M12: 1 launches; bar {{[0-9]+}}, mma 16
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/s %t/s.ptx --entry b4_f16_m12 --inputs %t/11-in.npz --expect %t/11-rounded.npz --rtol 2e-3 --atol 2e-3 | FileCheck %s --check-prefix=M12
// M12: out0: ok (288 elements
// M12: 2 launches; {{.*}}wgmma
// RUN: %PYTHON %S/Inputs/dequant_gemv_data.py b4_bf16_dyn:1 %t/12-in.npz %t/12-rounded.npz --rounded
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/d %t/m.ptx --entry b4_bf16_dyn --inputs %t/12-in.npz --expect %t/12-rounded.npz --rtol 1e-2 --atol 1e-2 | FileCheck %s --check-prefix=DYN1
// DYN1: out0: ok (40 elements
// DYN1: 1 launches; bar {{[0-9]+}}, mma 24
// RUN: %PYTHON %S/Inputs/dequant_gemv_data.py b4_bf16_dyn:12 %t/13-in.npz %t/13-rounded.npz --rounded
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/d %t/m.ptx --entry b4_bf16_dyn --inputs %t/13-in.npz --expect %t/13-rounded.npz --rtol 1e-2 --atol 1e-2 | FileCheck %s --check-prefix=DYN12
// DYN12: out0: ok (480 elements
// DYN12: 1 launches; bar {{[0-9]+}}, mma 24
// RUN: %PYTHON %S/Inputs/dequant_gemv_data.py b4_bf16_dyn:16 %t/14-in.npz %t/14-rounded.npz --rounded
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/d %t/m.ptx --entry b4_bf16_dyn --inputs %t/14-in.npz --expect %t/14-rounded.npz --rtol 1e-2 --atol 1e-2 | FileCheck %s --check-prefix=DYN16
// DYN16: out0: ok (640 elements
// DYN16: 1 launches; bar {{[0-9]+}}, mma 24
// RUN: %PYTHON %S/Inputs/dequant_gemv_data.py b4_bf16_dyn:20 %t/15-in.npz %t/15-rounded.npz --rounded
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/d %t/m.ptx --entry b4_bf16_dyn --inputs %t/15-in.npz --expect %t/15-rounded.npz --rtol 1e-2 --atol 1e-2 | FileCheck %s --check-prefix=DYN20
// DYN20: out0: ok (800 elements
// DYN20: 2 launches; {{.*}}wgmma
// RUN: %PYTHON %S/Inputs/dequant_gemv_data.py b4_f16_tiny %t/16-in.npz %t/16-rounded.npz --rounded
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/d %t/m.ptx --entry b4_f16_tiny --inputs %t/16-in.npz --expect %t/16-rounded.npz --rtol 2e-3 --atol 2e-3 | FileCheck %s --check-prefix=TINY
// TINY: out0: ok (6 elements
// TINY: 1 launches; mma 8
// The flag picks a CUDA kernel: refused for the CPU, by name.
// RUN: not decoda-compile %t/m.mlir --gpu-gemv-mma=false -o %t/cpu.so 2>&1 | FileCheck %s --check-prefix=FLAGCPU
// FLAGCPU: --gpu-gemv-mma needs --target=cuda
// Before sm_80 (no cp.async, ldmatrix or mma.sync m16n8k16 for bf16) every case keeps the SIMT
// kernels: the GEMV for up to 8 rows, else the dequantisation kernel and the contraction as
// parallel loops (the tensor-core matmul pass is not run; LLVM could not select its
// intrinsics there).
// RUN: decoda-compile %t/m.mlir --target=cuda --gpu-arch=sm_75 --emit=ptx -o %t/75.ptx --dump-ir-after-each=%t/d75
// RUN: FileCheck %s --check-prefix=SM75 --input-file=%t/75.ptx
// SM75: .target sm_75
// SM75-NOT: mma.sync
// SM75-NOT: cp.async
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/d75 %t/75.ptx --entry b4_bf16_default_m5 --inputs %t/9-in.npz --expect %t/9-out.npz --rtol 1e-2 --atol 1e-2 | FileCheck %s --check-prefix=SM75-M5
// SM75-M5: out0: ok (100 elements
// SM75-M5: 1 launches; shfl
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/d75 %t/75.ptx --entry b4_f16_m12 --inputs %t/11-in.npz --expect %t/11-rounded.npz --rtol 2e-3 --atol 2e-3 | FileCheck %s --check-prefix=SM75-M12
// SM75-M12: out0: ok (288 elements
// SM75-M12: 3 launches
