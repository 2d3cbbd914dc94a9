// REQUIRES: cuda-toolkit
// Numerics of the per-head GEMV kernels (decoda-gpu-gemv on decoda.linear with a [H, N, K]
// weight; IR: gemv-heads.mlir) and of the column kernel of weights stored [K, N] that are
// arguments (IR: gemv-columns.mlir) on the PTX interpreter (Inputs/ptxsim.py via
// Inputs/gpusim_run.py) against NumPy (Inputs/gemv_heads_data.py: float64 from the rounded
// inputs, rounded to the storage type). Per head: bf16 M = 1 at 16 heads, K = 64 shorter than a
// warp's stride (absorbed MLA's W_UK at 64 → 48); bf16 M = 2 with K = 520 and N = 36 (SIMT: N
// is no multiple of 8; a split K, its partials through shared memory) and a bias per head (the
// fused epilogue); a constant in_out f32 weight transposed at compile time, K = 30 (8-byte
// vectors), N = 7; 4 to 16 bf16/f16 rows on the tensor-core GEMV and on the SIMT kernel; a
// run-time batch through the dispatch; absorbed MLA's query. bf16/f16 within one unit in the
// last place of the rounding, f32 within 1e-5; the bias case within one unit of the sums
// before the bias (rounded to bf16 first, |sum| up to 16.03: 0.125), whose rounding the f32
// and float64 sums may take to neighbouring values.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %PYTHON %S/Inputs/gemv_heads_data.py module %t/m.mlir
// RUN: decoda-compile %t/m.mlir --target=cuda --gpu-arch=sm_90a --emit=ptx -o %t/m.ptx --dump-ir-after-each=%t/d
// RUN: %PYTHON %S/Inputs/gemv_heads_data.py h_bf16_m1 %t/1-in.npz %t/1-out.npz
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/d %t/m.ptx --entry h_bf16_m1 --inputs %t/1-in.npz --expect %t/1-out.npz --rtol 8e-3 --atol 1e-3 | FileCheck %s --check-prefix=M1
// M1: launch h_bf16_m1_kernel: grid [192, 1, 1] block [128, 1, 1] shared 0 bytes; shfl 960
// M1: out0: ok (768 elements
// M1: 1 launches
// RUN: %PYTHON %S/Inputs/gemv_heads_data.py h_bf16_m2_bias %t/2-in.npz %t/2-out.npz
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/d %t/m.ptx --entry h_bf16_m2_bias --inputs %t/2-in.npz --expect %t/2-out.npz --rtol 8e-3 --atol 0.125 | FileCheck %s --check-prefix=BIAS
// BIAS: launch h_bf16_m2_bias_kernel: grid [72, 1, 1] block [128, 1, 1] shared 32 bytes; bar 72, shfl 720
// BIAS: out0: ok (288 elements
// BIAS: 1 launches
// RUN: %PYTHON %S/Inputs/gemv_heads_data.py h_f32_m3_const %t/3-in.npz %t/3-out.npz
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/d %t/m.ptx --entry h_f32_m3_const --inputs %t/3-in.npz --expect %t/3-out.npz --rtol 1e-5 --atol 1e-5 | FileCheck %s --check-prefix=CONST
// CONST: launch h_f32_m3_const_kernel: grid [11, 1, 1] block [128, 1, 1] shared 0 bytes; shfl 165
// CONST: out0: ok (126 elements
// CONST: 1 launches
// Eight f16 rows on the tensor-core GEMV (2 to 16 rows, N a multiple of 8: a warp's 8 weight
// rows in one head; mma.sync m16n8k16), and on the SIMT kernel (--gpu-gemv-mma=false, the s
// build); bf16 four rows with K = 136 (a partial last warp step of 32 k) on both; f16 sixteen
// rows over two lead dims (both row groups of the fragments).
// RUN: decoda-compile %t/m.mlir --target=cuda --gpu-arch=sm_90a --gpu-gemv-mma=false --emit=ptx -o %t/s.ptx --dump-ir-after-each=%t/s
// RUN: %PYTHON %S/Inputs/gemv_heads_data.py h_f16_m8 %t/4-in.npz %t/4-out.npz
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/d %t/m.ptx --entry h_f16_m8 --inputs %t/4-in.npz --expect %t/4-out.npz --rtol 1e-3 --atol 1e-3 | FileCheck %s --check-prefix=M8
// M8: launch h_f16_m8_kernel: grid [3, 1, 1] block [128, 1, 1] shared 2048 bytes; bar 3, mma 6
// M8: out0: ok (384 elements
// M8: 1 launches
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/s %t/s.ptx --entry h_f16_m8 --inputs %t/4-in.npz --expect %t/4-out.npz --rtol 1e-3 --atol 1e-3 | FileCheck %s --check-prefix=M8S
// M8S: launch h_f16_m8_kernel: grid [12, 1, 1] block [128, 1, 1] shared 0 bytes; shfl 480
// M8S: out0: ok (384 elements
// RUN: %PYTHON %S/Inputs/gemv_heads_data.py h_bf16_m4_mma %t/m4-in.npz %t/m4-out.npz
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/d %t/m.ptx --entry h_bf16_m4_mma --inputs %t/m4-in.npz --expect %t/m4-out.npz --rtol 8e-3 --atol 1e-3 | FileCheck %s --check-prefix=M4
// M4: launch h_bf16_m4_mma_kernel: grid [64, 1, 1] block [128, 1, 1] shared 2048 bytes; bar 64, mma 256
// M4: out0: ok (2048 elements
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/s %t/s.ptx --entry h_bf16_m4_mma --inputs %t/m4-in.npz --expect %t/m4-out.npz --rtol 8e-3 --atol 1e-3 | FileCheck %s --check-prefix=M4S
// M4S: launch h_bf16_m4_mma_kernel: grid [128, 1, 1] block [128, 1, 1] shared 0 bytes; shfl 2560
// M4S: out0: ok (2048 elements
// RUN: %PYTHON %S/Inputs/gemv_heads_data.py h_f16_m16 %t/m16-in.npz %t/m16-out.npz
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/d %t/m.ptx --entry h_f16_m16 --inputs %t/m16-in.npz --expect %t/m16-out.npz --rtol 1e-3 --atol 1e-3 | FileCheck %s --check-prefix=M16
// M16: launch h_f16_m16_kernel: grid [8, 1, 1] block [128, 1, 1] shared 2048 bytes; bar 8, mma 16
// M16: out0: ok (2048 elements
// A run-time batch: 1 (the one-row kernel), 3, 8, 11 and 16 (the tensor-core GEMV's 16 rows,
// storing M), 17 (the contraction's loops, no GEMV); without tensor cores 3 and 8 on the SIMT
// kernel's 8 rows, 9 the loops.
// RUN: %PYTHON %S/Inputs/gemv_heads_data.py h_bf16_dyn:1 %t/5-in.npz %t/5-out.npz
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/d %t/m.ptx --entry h_bf16_dyn --inputs %t/5-in.npz --expect %t/5-out.npz --rtol 8e-3 --atol 1e-3 | FileCheck %s --check-prefix=DYN1
// DYN1: launch h_bf16_dyn_kernel: grid [128, 1, 1] block [128, 1, 1] shared 0 bytes; shfl 640
// DYN1: out0: ok (512 elements
// DYN1: 1 launches
// RUN: %PYTHON %S/Inputs/gemv_heads_data.py h_bf16_dyn:3 %t/6-in.npz %t/6-out.npz
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/d %t/m.ptx --entry h_bf16_dyn --inputs %t/6-in.npz --expect %t/6-out.npz --rtol 8e-3 --atol 1e-3 | FileCheck %s --check-prefix=DYN3
// DYN3: launch h_bf16_dyn_kernel_0: grid [64, 1, 1] block [128, 1, 1] shared 2048 bytes; bar 64, mma 128
// DYN3: out0: ok (1536 elements
// DYN3: 1 launches
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/s %t/s.ptx --entry h_bf16_dyn --inputs %t/6-in.npz --expect %t/6-out.npz --rtol 8e-3 --atol 1e-3 | FileCheck %s --check-prefix=DYN3S
// DYN3S: launch h_bf16_dyn_kernel_{{[0-9]+}}: grid [128, 1, 1] block [128, 1, 1] shared 0 bytes; shfl 5120
// DYN3S: out0: ok (1536 elements
// RUN: %PYTHON %S/Inputs/gemv_heads_data.py h_bf16_dyn:8 %t/7-in.npz %t/7-out.npz
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/d %t/m.ptx --entry h_bf16_dyn --inputs %t/7-in.npz --expect %t/7-out.npz --rtol 8e-3 --atol 1e-3 | FileCheck %s --check-prefix=DYN8
// DYN8: launch h_bf16_dyn_kernel_0: grid [64, 1, 1]
// DYN8: out0: ok (4096 elements
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/s %t/s.ptx --entry h_bf16_dyn --inputs %t/7-in.npz --expect %t/7-out.npz --rtol 8e-3 --atol 1e-3 | FileCheck %s --check-prefix=DYN8S
// DYN8S: shfl 5120
// DYN8S: out0: ok (4096 elements
// RUN: %PYTHON %S/Inputs/gemv_heads_data.py h_bf16_dyn:11 %t/8-in.npz %t/8-out.npz
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/d %t/m.ptx --entry h_bf16_dyn --inputs %t/8-in.npz --expect %t/8-out.npz --rtol 8e-3 --atol 1e-3 | FileCheck %s --check-prefix=DYN11
// DYN11: launch h_bf16_dyn_kernel_0: grid [64, 1, 1]
// DYN11: out0: ok (5632 elements
// RUN: %PYTHON %S/Inputs/gemv_heads_data.py h_bf16_dyn:16 %t/16-in.npz %t/16-out.npz
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/d %t/m.ptx --entry h_bf16_dyn --inputs %t/16-in.npz --expect %t/16-out.npz --rtol 8e-3 --atol 1e-3 | FileCheck %s --check-prefix=DYN16
// DYN16: launch h_bf16_dyn_kernel_0: grid [64, 1, 1]
// DYN16: out0: ok (8192 elements
// RUN: %PYTHON %S/Inputs/gemv_heads_data.py h_bf16_dyn:17 %t/17-in.npz %t/17-out.npz
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/d %t/m.ptx --entry h_bf16_dyn --inputs %t/17-in.npz --expect %t/17-out.npz --rtol 8e-3 --atol 1e-3 | FileCheck %s --check-prefix=DYN17
// DYN17-NOT: shfl
// DYN17-NOT: mma
// DYN17: out0: ok (8704 elements
// RUN: %PYTHON %S/Inputs/gemv_heads_data.py h_bf16_dyn:9 %t/9r-in.npz %t/9r-out.npz
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/s %t/s.ptx --entry h_bf16_dyn --inputs %t/9r-in.npz --expect %t/9r-out.npz --rtol 8e-3 --atol 1e-3 | FileCheck %s --check-prefix=DYN9S
// DYN9S-NOT: shfl
// DYN9S: out0: ok (4608 elements
// Absorbed MLA's query: q_nope · W_UK (a constant in_out weight) rounded by the GEMV kernel
// straight into its slice of [q_lat ; q_rope] (the epilogue's strided output): two launches,
// the kernel and q_rope's copy, no f32 temporary or rounding kernel; batch 2, so the
// tensor-core GEMV (the SIMT kernel in the s build).
// RUN: %PYTHON %S/Inputs/gemv_heads_data.py h_bf16_concat %t/9-in.npz %t/9-out.npz
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/d %t/m.ptx --entry h_bf16_concat --inputs %t/9-in.npz --expect %t/9-out.npz --rtol 8e-3 --atol 1e-3 | FileCheck %s --check-prefix=CONCAT
// CONCAT: launch h_bf16_concat_kernel{{.*}}: grid [128, 1, 1] block [128, 1, 1] shared 2048 bytes; bar 128, mma 256
// CONCAT: out0: ok (5120 elements
// CONCAT: 2 launches
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/s %t/s.ptx --entry h_bf16_concat --inputs %t/9-in.npz --expect %t/9-out.npz --rtol 8e-3 --atol 1e-3 | FileCheck %s --check-prefix=CONCATS
// CONCATS: launch h_bf16_concat_kernel{{.*}}: grid [512, 1, 1] block [128, 1, 1] shared 0 bytes; shfl 5120
// CONCATS: out0: ok (5120 elements
// CONCATS: 2 launches
// One head (B [1, N, K], [1, K, N]): no head arithmetic, B still collapsed to rank 2 (before
// this case the kernels indexed such a B with two indices, an invalid load): bf16 two rows on
// both GEMVs, f32 one row, the column kernel.
// RUN: %PYTHON %S/Inputs/gemv_heads_data.py h_bf16_h1 %t/h1-in.npz %t/h1-out.npz
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/d %t/m.ptx --entry h_bf16_h1 --inputs %t/h1-in.npz --expect %t/h1-out.npz --rtol 8e-3 --atol 1e-3 | FileCheck %s --check-prefix=H1
// H1: launch h_bf16_h1_kernel: grid [3, 1, 1] block [128, 1, 1] shared 2048 bytes; bar 3, mma 6
// H1: out0: ok (80 elements
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/s %t/s.ptx --entry h_bf16_h1 --inputs %t/h1-in.npz --expect %t/h1-out.npz --rtol 8e-3 --atol 1e-3 | FileCheck %s --check-prefix=H1S
// H1S: launch h_bf16_h1_kernel: grid [10, 1, 1] block [128, 1, 1] shared 0 bytes; shfl 100
// H1S: out0: ok (80 elements
// RUN: %PYTHON %S/Inputs/gemv_heads_data.py h_f32_h1 %t/h1f-in.npz %t/h1f-out.npz
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/d %t/m.ptx --entry h_f32_h1 --inputs %t/h1f-in.npz --expect %t/h1f-out.npz --rtol 1e-5 --atol 1e-5 | FileCheck %s --check-prefix=H1F
// H1F: launch h_f32_h1_kernel: grid [6, 1, 1] block [128, 1, 1] shared 0 bytes; shfl 30
// H1F: out0: ok (24 elements
// RUN: %PYTHON %S/Inputs/gemv_heads_data.py c_bf16_h1 %t/h1c-in.npz %t/h1c-out.npz
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/d %t/m.ptx --entry c_bf16_h1 --inputs %t/h1c-in.npz --expect %t/h1c-out.npz --rtol 8e-3 --atol 1e-3 | FileCheck %s --check-prefix=H1C
// H1C: launch c_bf16_h1_kernel: grid [1, 1, 1] block [128, 1, 1] shared 4096 bytes; bar 1
// H1C: out0: ok (64 elements
//
// Weights stored [K, N] (in_out arguments): the column kernel. Absorbed MLA's W_UK as
// decoda.mla states it ([16, 64, 512]: 8 tiles of 64 columns a head); bf16 batch 2 with K =
// 520 and N = 36 (vectors of 4) and a bias; f32 [30, 7] (scalar columns); a run-time batch of
// a [256, 1000] weight at 1, 5, 8 (the 8-row kernel) and 9 (the loops); f16 eight rows per
// head into [y ; r].
// RUN: %PYTHON %S/Inputs/gemv_heads_data.py c_bf16_m1 %t/c1-in.npz %t/c1-out.npz
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/d %t/m.ptx --entry c_bf16_m1 --inputs %t/c1-in.npz --expect %t/c1-out.npz --rtol 8e-3 --atol 1e-3 | FileCheck %s --check-prefix=C1
// C1: launch c_bf16_m1_kernel: grid [8, 16, 1] block [128, 1, 1] shared 4096 bytes; bar 128
// C1: out0: ok (8192 elements
// C1: 1 launches
// RUN: %PYTHON %S/Inputs/gemv_heads_data.py c_bf16_m2_bias %t/c2-in.npz %t/c2-out.npz
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/d %t/m.ptx --entry c_bf16_m2_bias --inputs %t/c2-in.npz --expect %t/c2-out.npz --rtol 8e-3 --atol 0.125 | FileCheck %s --check-prefix=C2
// C2: launch c_bf16_m2_bias_kernel: grid [2, 4, 1] block [128, 1, 1] shared 4096 bytes; bar 8
// C2: out0: ok (288 elements
// C2: 1 launches
// RUN: %PYTHON %S/Inputs/gemv_heads_data.py c_f32_m3 %t/c3-in.npz %t/c3-out.npz
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/d %t/m.ptx --entry c_f32_m3 --inputs %t/c3-in.npz --expect %t/c3-out.npz --rtol 1e-5 --atol 1e-5 | FileCheck %s --check-prefix=C3
// C3: launch c_f32_m3_kernel: grid [1, 1, 1] block [128, 1, 1] shared 1536 bytes; bar 1
// C3: out0: ok (21 elements
// RUN: %PYTHON %S/Inputs/gemv_heads_data.py c_bf16_dyn:1 %t/c4-in.npz %t/c4-out.npz
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/d %t/m.ptx --entry c_bf16_dyn --inputs %t/c4-in.npz --expect %t/c4-out.npz --rtol 8e-3 --atol 1e-3 | FileCheck %s --check-prefix=C4
// C4: launch c_bf16_dyn_kernel: grid [16, 1, 1] block [128, 1, 1] shared 4096 bytes; bar 16
// C4: out0: ok (1000 elements
// RUN: %PYTHON %S/Inputs/gemv_heads_data.py c_bf16_dyn:5 %t/c5-in.npz %t/c5-out.npz
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/d %t/m.ptx --entry c_bf16_dyn --inputs %t/c5-in.npz --expect %t/c5-out.npz --rtol 8e-3 --atol 1e-3 | FileCheck %s --check-prefix=C5
// C5: launch c_bf16_dyn_kernel_{{[0-9]+}}: grid [16, 1, 1] block [128, 1, 1] shared 32768 bytes; bar 16
// C5: out0: ok (5000 elements
// RUN: %PYTHON %S/Inputs/gemv_heads_data.py c_bf16_dyn:8 %t/c6-in.npz %t/c6-out.npz
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/d %t/m.ptx --entry c_bf16_dyn --inputs %t/c6-in.npz --expect %t/c6-out.npz --rtol 8e-3 --atol 1e-3 | FileCheck %s --check-prefix=C6
// C6: shared 32768 bytes; bar 16
// C6: out0: ok (8000 elements
// RUN: %PYTHON %S/Inputs/gemv_heads_data.py c_bf16_dyn:9 %t/c7-in.npz %t/c7-out.npz
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/d %t/m.ptx --entry c_bf16_dyn --inputs %t/c7-in.npz --expect %t/c7-out.npz --rtol 8e-3 --atol 1e-3 | FileCheck %s --check-prefix=C7
// C7-NOT: bar
// C7: out0: ok (9000 elements
// RUN: %PYTHON %S/Inputs/gemv_heads_data.py c_f16_m8_concat %t/c8-in.npz %t/c8-out.npz
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/d %t/m.ptx --entry c_f16_m8_concat --inputs %t/c8-in.npz --expect %t/c8-out.npz --rtol 1e-3 --atol 1e-3 | FileCheck %s --check-prefix=C8
// C8: grid [1, 4, 1] block [128, 1, 1] shared 32768 bytes; bar 4
// C8: out0: ok (2560 elements
// C8: 2 launches
//
// Mutation: one element of a reference changed (the per-head kernel's h_bf16_m1 and the
// column kernel's c_bf16_m1, element (0, 0, 3, 17) halved or doubled: its lowest exponent bit
// flipped), so the comparisons can fail on a value, not only on a shape.
// RUN: %PYTHON -c "import numpy as np; [np.savez('%t/' + n + '-bad.npz', out0=np.where(np.arange(a.size).reshape(a.shape) == np.ravel_multi_index((0, 0, 3, 17), a.shape), a ^ 0x0080, a).astype(a.dtype)) for n in ('1', 'c1') for a in [np.load('%t/' + n + '-out.npz')['out0']]]"
// RUN: not %PYTHON %S/Inputs/gpusim_run.py %t/d %t/m.ptx --entry h_bf16_m1 --inputs %t/1-in.npz --expect %t/1-bad.npz --rtol 8e-3 --atol 1e-3 2>&1 | FileCheck %s --check-prefix=MUT
// RUN: not %PYTHON %S/Inputs/gpusim_run.py %t/d %t/m.ptx --entry c_bf16_m1 --inputs %t/c1-in.npz --expect %t/c1-bad.npz --rtol 8e-3 --atol 1e-3 2>&1 | FileCheck %s --check-prefix=MUT
// MUT: out0: MISMATCH at (0, 0, 3, 17)
//
// ptxas (sm_90a): no kernel of either build spills or uses a stack frame (the column kernel at
// 8 rows: 128 registers a thread at bf16, 77 at f16).
// RUN: %PYTHON -c "import re; ks = [(f + n, b) for f in ('m', 's') for p in [re.split(r'(?m)^// gpu.binary @(\S+)\n', open('%t/' + f + '.ptx').read())] for n, b in zip(p[1::2], p[2::2])]; [open('%t/k-' + n + '.ptx', 'w').write(b) for n, b in ks]; print('kernels', len(ks))" | FileCheck %s --check-prefix=NK
// NK: kernels 54
// RUN: for f in %t/k-*.ptx; do %ptxas -arch=sm_90a -v $f -o %t/k.cubin 2>&1; done | FileCheck %s --check-prefix=PTXAS
// PTXAS-COUNT-54: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// PTXAS-NOT: spill
