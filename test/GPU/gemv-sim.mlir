// Numerics of the GEMV kernels (decoda-gpu-gemv) without a GPU: the kernels' PTX runs on the
// PTX interpreter (Inputs/ptxsim.py: 16-byte loads must be aligned, every lane must reach the
// shuffles, no access outside a buffer), the host launches on Inputs/gpusim_run.py, the outputs
// are compared with NumPy (Inputs/matmul_data.py, float64 from the rounded inputs). Cases of
// Inputs/gemv_cases.mlir: bf16 M = 1 with N and K ragged (K shorter than one warp stride),
// bf16 M = 4 over two lead dims (an unrolled step and a remainder), f32 M = 1 with K not a
// multiple of 4 (8-byte loads), f32 M = 4 accumulated onto an input C, f16 M = 8 with odd K
// (scalar loads); the narrow ones with enough K (bf16 M = 4, both f32) split K over the 4
// warps of a block, their partials meeting in shared memory after a barrier. bf16/f16 with
// 2 to 16 rows and 16-byte rows take the tensor-core GEMV (mma.sync m16n8k16, 8 weight rows a
// warp: bf16 M = 4 with K = 1096, a partial last warp step, and N = 70, a partial last tile;
// f16 M = 16, both row groups of the fragments; the dynamic rows below); the same cases on
// the SIMT kernel with --gpu-gemv-mma=false (SIMT prefixes). bf16/f16 results are exact after
// the rounding, f32 within 1e-5. Then whole
// small Llama blocks (Inputs/llama_small_*.mlir) compiled as decode steps (static T = 1,
// --static-dims): every projection is a GEMV kernel; bf16 exact after rounding, f32 within
// 1e-5 of python/decoda/reference.py. Last, a real decode entry: a bf16 attention step with a KV
// cache (Inputs/cached_step_bf16.mlir, T dynamic) gets step_decode (T = 1) from decoda-compile;
// its q and fused k/v projections are GEMV kernels (the prefill entry `step` keeps the tensor cores),
// and the result and both updated caches match reference.py exactly after bf16 rounding.
// RUN: rm -rf %t && mkdir -p %t
// RUN: decoda-compile %S/Inputs/gemv_cases.mlir --target=cuda --emit=ptx -o %t/g.ptx --dump-ir-after-each=%t/g
// RUN: decoda-compile %S/Inputs/gemv_cases.mlir --target=cuda --gpu-gemv-mma=false --emit=ptx -o %t/s.ptx --dump-ir-after-each=%t/s
// RUN: %PYTHON %S/Inputs/matmul_data.py bf16_m1 %t/1-in.npz %t/1-out.npz
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/g %t/g.ptx --entry bf16_m1 --inputs %t/1-in.npz --expect %t/1-out.npz --rtol 1e-2 --atol 1e-2 | FileCheck %s --check-prefix=BF16M1
// BF16M1: launch bf16_m1_kernel: grid [10, 1, 1] block [128, 1, 1] shared 0 bytes; shfl 50
// BF16M1: out0: ok (37 elements, max abs error 0)
// RUN: %PYTHON %S/Inputs/matmul_data.py bf16_m4 %t/2-in.npz %t/2-out.npz
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/g %t/g.ptx --entry bf16_m4 --inputs %t/2-in.npz --expect %t/2-out.npz --rtol 1e-2 --atol 1e-2 | FileCheck %s --check-prefix=BF16M4
// BF16M4: launch bf16_m4_kernel: grid [9, 1, 1] block [128, 1, 1] shared 2048 bytes; bar 9, mma 162
// BF16M4-NOT: shfl
// BF16M4: out0: ok (280 elements, max abs error 0)
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/s %t/s.ptx --entry bf16_m4 --inputs %t/2-in.npz --expect %t/2-out.npz --rtol 1e-2 --atol 1e-2 | FileCheck %s --check-prefix=SIMTM4
// SIMTM4: launch bf16_m4_kernel: grid [70, 1, 1] block [128, 1, 1] shared 64 bytes; bar 70, shfl 1400
// SIMTM4: out0: ok (280 elements, max abs error 0)
// RUN: %PYTHON %S/Inputs/matmul_data.py f32_m1 %t/3-in.npz %t/3-out.npz
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/g %t/g.ptx --entry f32_m1 --inputs %t/3-in.npz --expect %t/3-out.npz --rtol 1e-5 --atol 1e-5 | FileCheck %s --check-prefix=F32M1
// F32M1: launch f32_m1_kernel: grid [41, 1, 1] block [128, 1, 1] shared 16 bytes; bar 41, shfl 205
// F32M1: out0: ok (41 elements
// F32M1: 1 launches
// RUN: %PYTHON %S/Inputs/matmul_data.py f32_m4_acc %t/4-in.npz %t/4-out.npz
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/g %t/g.ptx --entry f32_m4_acc --inputs %t/4-in.npz --expect %t/4-out.npz --rtol 1e-5 --atol 1e-5 | FileCheck %s --check-prefix=F32ACC
// F32ACC: launch f32_m4_acc_kernel{{(_[0-9]+)?}}: grid [17, 1, 1] block [128, 1, 1] shared 64 bytes; bar 17, shfl 340
// F32ACC: out0: ok (132 elements
// RUN: %PYTHON %S/Inputs/matmul_data.py f16_m8 %t/5-in.npz %t/5-out.npz
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/g %t/g.ptx --entry f16_m8 --inputs %t/5-in.npz --expect %t/5-out.npz --rtol 1e-3 --atol 1e-3 | FileCheck %s --check-prefix=F16M8
// F16M8: launch f16_m8_kernel: grid [3, 1, 1] block [128, 1, 1] shared 0 bytes; shfl 120
// F16M8: out0: ok (72 elements, max abs error 0)
// RUN: %PYTHON %S/Inputs/matmul_data.py f16_m16 %t/16-in.npz %t/16-out.npz
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/g %t/g.ptx --entry f16_m16 --inputs %t/16-in.npz --expect %t/16-out.npz --rtol 1e-3 --atol 1e-3 | FileCheck %s --check-prefix=F16M16
// F16M16: launch f16_m16_kernel: grid [3, 1, 1] block [128, 1, 1] shared 2048 bytes; bar 3, mma 54
// F16M16: out0: ok (320 elements, max abs error 0)
// F16M16: 1 launches
// A dynamic row count (the run-time dispatch of decoda-gpu-gemv): at T = 1 the one-row GEMV
// kernel, at T = 5, 8, 9 and 16 the 16-row tensor-core GEMV (at T = 5 rows 5 .. 15 read row 4
// and are not stored: a stray store would land past the 200-element output), at T = 17 the
// tensor-core tiles (wgmma); with --gpu-gemv-mma=false the 8-row SIMT GEMV at T = 5 and 8
// and the tiles from T = 9; all exact after bf16 rounding, and each one launch: the rounding
// is fused into every kernel (before: a second, elementwise kernel).
// RUN: %PYTHON %S/Inputs/matmul_data.py dyn_bf16_t1 %t/6-in.npz %t/6-out.npz
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/g %t/g.ptx --entry dyn_bf16 --inputs %t/6-in.npz --expect %t/6-out.npz --rtol 1e-2 --atol 1e-2 | FileCheck %s --check-prefix=DYN1
// DYN1: launch dyn_bf16_kernel{{(_[0-9]+)?}}: grid [10, 1, 1] block [128, 1, 1] shared 0 bytes; shfl 50
// DYN1-NOT: mma
// DYN1: out0: ok (40 elements, max abs error 0)
// DYN1: 1 launches
// RUN: %PYTHON %S/Inputs/matmul_data.py dyn_bf16_t5 %t/7-in.npz %t/7-out.npz
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/g %t/g.ptx --entry dyn_bf16 --inputs %t/7-in.npz --expect %t/7-out.npz --rtol 1e-2 --atol 1e-2 | FileCheck %s --check-prefix=DYN5
// DYN5: launch dyn_bf16_kernel{{(_[0-9]+)?}}: grid [5, 1, 1] block [128, 1, 1] shared 2048 bytes; bar 5, mma 20
// DYN5: out0: ok (200 elements, max abs error 0)
// DYN5: 1 launches
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/s %t/s.ptx --entry dyn_bf16 --inputs %t/7-in.npz --expect %t/7-out.npz --rtol 1e-2 --atol 1e-2 | FileCheck %s --check-prefix=SIMT5
// SIMT5: launch dyn_bf16_kernel{{(_[0-9]+)?}}: grid [10, 1, 1] block [128, 1, 1] shared 0 bytes; shfl 400
// SIMT5-NOT: mma
// SIMT5: out0: ok (200 elements, max abs error 0)
// SIMT5: 1 launches
// RUN: %PYTHON %S/Inputs/matmul_data.py dyn_bf16_t8 %t/7b-in.npz %t/7b-out.npz
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/g %t/g.ptx --entry dyn_bf16 --inputs %t/7b-in.npz --expect %t/7b-out.npz --rtol 1e-2 --atol 1e-2 | FileCheck %s --check-prefix=DYN8
// DYN8: launch dyn_bf16_kernel{{(_[0-9]+)?}}: grid [5, 1, 1] block [128, 1, 1] shared 2048 bytes; bar 5, mma 20
// DYN8: out0: ok (320 elements, max abs error 0)
// DYN8: 1 launches
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/s %t/s.ptx --entry dyn_bf16 --inputs %t/7b-in.npz --expect %t/7b-out.npz --rtol 1e-2 --atol 1e-2 | FileCheck %s --check-prefix=SIMT8
// SIMT8: launch dyn_bf16_kernel{{(_[0-9]+)?}}: grid [10, 1, 1] block [128, 1, 1] shared 0 bytes; shfl 400
// SIMT8: out0: ok (320 elements, max abs error 0)
// SIMT8: 1 launches
// RUN: %PYTHON %S/Inputs/matmul_data.py dyn_bf16_t9 %t/7c-in.npz %t/7c-out.npz
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/g %t/g.ptx --entry dyn_bf16 --inputs %t/7c-in.npz --expect %t/7c-out.npz --rtol 1e-2 --atol 1e-2 | FileCheck %s --check-prefix=DYN9
// DYN9: launch dyn_bf16_kernel{{(_[0-9]+)?}}: grid [5, 1, 1] block [128, 1, 1] shared 2048 bytes; bar 5, mma 20
// DYN9: out0: ok (360 elements, max abs error 0)
// DYN9: 1 launches
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/s %t/s.ptx --entry dyn_bf16 --inputs %t/7c-in.npz --expect %t/7c-out.npz --rtol 1e-2 --atol 1e-2 | FileCheck %s --check-prefix=SIMT9
// SIMT9: launch dyn_bf16_kernel{{(_[0-9]+)?}}: grid [1, 1, 1] block [256, 1, 1] shared 0 + 132128 dynamic bytes; {{.*}} wgmma {{[0-9]+}}
// SIMT9: out0: ok (360 elements, max abs error 0)
// RUN: %PYTHON %S/Inputs/matmul_data.py dyn_bf16_t16 %t/7d-in.npz %t/7d-out.npz
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/g %t/g.ptx --entry dyn_bf16 --inputs %t/7d-in.npz --expect %t/7d-out.npz --rtol 1e-2 --atol 1e-2 | FileCheck %s --check-prefix=DYN16
// DYN16: launch dyn_bf16_kernel{{(_[0-9]+)?}}: grid [5, 1, 1] block [128, 1, 1] shared 2048 bytes; bar 5, mma 20
// DYN16: out0: ok (640 elements, max abs error 0)
// DYN16: 1 launches
// RUN: %PYTHON %S/Inputs/matmul_data.py dyn_bf16_t17 %t/7e-in.npz %t/7e-out.npz
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/g %t/g.ptx --entry dyn_bf16 --inputs %t/7e-in.npz --expect %t/7e-out.npz --rtol 1e-2 --atol 1e-2 | FileCheck %s --check-prefix=DYN17
// DYN17: launch dyn_bf16_kernel{{(_[0-9]+)?}}: grid [1, 1, 1] block [256, 1, 1] shared 0 + 132128 dynamic bytes; {{.*}} wgmma {{[0-9]+}}
// DYN17-NOT: shfl
// DYN17: out0: ok (680 elements, max abs error 0)
// DYN17: 1 launches
// INT8 GEMV (Inputs/gemv_int8_cases.mlir, data from Inputs/qlinear_data.py: int64 NumPy
// accumulators, the qlinear epilogue in float32): M = 1 with 16-byte vectors and the K split,
// M = 4 with 8-byte vectors, scales, a bf16 bias and bf16 output, M = 2 with odd K (byte
// loads); rows and columns of -128 and +127 included. All exact.
// RUN: decoda-compile %S/Inputs/gemv_int8_cases.mlir --target=cuda --emit=ptx -o %t/q.ptx --dump-ir-after-each=%t/q
// RUN: %PYTHON %S/Inputs/qlinear_data.py i8_m1 %t/q1-in.npz %t/q1-out.npz
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/q %t/q.ptx --entry i8_m1 --inputs %t/q1-in.npz --expect %t/q1-out.npz --rtol 0 --atol 0 | FileCheck %s --check-prefix=Q1
// Q1: launch i8_m1_kernel: grid [10, 1, 1] block [128, 1, 1] shared 0 bytes; shfl 50
// Q1: out0: ok (37 elements, max abs error 0)
// RUN: %PYTHON %S/Inputs/qlinear_data.py i8_m4 %t/q4-in.npz %t/q4-out.npz
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/q %t/q.ptx --entry i8_m4 --inputs %t/q4-in.npz --expect %t/q4-out.npz --rtol 0 --atol 0 | FileCheck %s --check-prefix=Q4
// Q4: launch i8_m4_kernel: grid [70, 1, 1] block [128, 1, 1] shared 64 bytes; bar 70, shfl 1400
// Q4: out0: ok (280 elements, max abs error 0)
// RUN: %PYTHON %S/Inputs/qlinear_data.py i8_odd %t/q2-in.npz %t/q2-out.npz
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/q %t/q.ptx --entry i8_odd --inputs %t/q2-in.npz --expect %t/q2-out.npz --rtol 0 --atol 0 | FileCheck %s --check-prefix=QODD
// QODD: launch i8_odd_kernel: grid [3, 1, 1] block [128, 1, 1] shared 0 bytes; shfl 30
// QODD: out0: ok (18 elements, max abs error 0)
// A dynamic token count (i8_dyn, per-token scales, bf16 bias and output): T = 1 the one-row
// kernel, T = 3 and T = 8 the 8-row kernel (N = 70 is narrow: K split over the 4 warps of a
// block, a column a block; at T = 3 rows 3 .. 7 read row 2, all -128, and are not stored),
// T = 12 the contraction's path (SIMT here: K = 1096 is not a multiple of 32); all exact.
// RUN: %PYTHON %S/Inputs/qlinear_data.py i8_dyn_t1 %t/qd1-in.npz %t/qd1-out.npz
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/q %t/q.ptx --entry i8_dyn --inputs %t/qd1-in.npz --expect %t/qd1-out.npz --rtol 0 --atol 0 | FileCheck %s --check-prefix=QD1
// QD1: launch i8_dyn_kernel{{(_[0-9]+)?}}: grid [70, 1, 1] block [128, 1, 1] shared 16 bytes; bar 70, shfl 350
// QD1: out0: ok (70 elements, max abs error 0)
// QD1: 1 launches
// RUN: %PYTHON %S/Inputs/qlinear_data.py i8_dyn_t3 %t/qd3-in.npz %t/qd3-out.npz
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/q %t/q.ptx --entry i8_dyn --inputs %t/qd3-in.npz --expect %t/qd3-out.npz --rtol 0 --atol 0 | FileCheck %s --check-prefix=QD3
// QD3: launch i8_dyn_kernel{{(_[0-9]+)?}}: grid [70, 1, 1] block [128, 1, 1] shared 128 bytes; bar 70, shfl 2800
// QD3: out0: ok (210 elements, max abs error 0)
// QD3: 1 launches
// RUN: %PYTHON %S/Inputs/qlinear_data.py i8_dyn_t8 %t/qd8-in.npz %t/qd8-out.npz
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/q %t/q.ptx --entry i8_dyn --inputs %t/qd8-in.npz --expect %t/qd8-out.npz --rtol 0 --atol 0 | FileCheck %s --check-prefix=QD8
// QD8: launch i8_dyn_kernel{{(_[0-9]+)?}}: grid [70, 1, 1] block [128, 1, 1] shared 128 bytes; bar 70, shfl 2800
// QD8: out0: ok (560 elements, max abs error 0)
// RUN: %PYTHON %S/Inputs/qlinear_data.py i8_dyn_t12 %t/qd12-in.npz %t/qd12-out.npz
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/q %t/q.ptx --entry i8_dyn --inputs %t/qd12-in.npz --expect %t/qd12-out.npz --rtol 0 --atol 0 | FileCheck %s --check-prefix=QD12
// QD12-NOT: shfl
// QD12: out0: ok (840 elements, max abs error 0)
// A float projection with a constant weight compiled with --quantize=int8 as a T = 1 decode
// step (--static-dims): the activation's absmax, scale and quantisation kernels (their parallel
// dims all 1: mapped to a one-block kernel, not folded into host code) and the dp4a GEMV with
// the dequantising epilogue fused (before: a sixth launch for it); NumPy quantises x per token and uses the compiler's folded i8 weight
// and scales (read from the IR after decoda-quantize-stage). Exact.
// RUN: %PYTHON %S/Inputs/qlinear_data.py block-mlir %t/q8.mlir
// RUN: decoda-compile %t/q8.mlir --static-dims=0:1=1 --quantize=int8 --no-smooth --quant-attention=false --target=cuda --emit=ptx -o %t/q8.ptx --dump-ir-after-each=%t/q8
// RUN: %PYTHON %S/Inputs/qlinear_data.py block %t/q8/*-decoda-quantize-stage.mlir %t/q8-in.npz %t/q8-out.npz 1
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/q8 %t/q8.ptx --inputs %t/q8-in.npz --expect %t/q8-out.npz --rtol 0 --atol 0 | FileCheck %s --check-prefix=Q8DEC
// Q8DEC: launch proj_kernel{{(_[0-9]+)?}}: grid [18, 1, 1] block [128, 1, 1] shared 0 bytes; shfl 90
// Q8DEC: out0: ok (72 elements, max abs error 0)
// Q8DEC: 5 launches; shfl 90
// dp4a with the weight read as unsigned bytes (.s32.u32) is caught.
// RUN: sed 's/dp4a.s32.s32/dp4a.s32.u32/' %t/q.ptx > %t/q-unsigned.ptx
// RUN: not %PYTHON %S/Inputs/gpusim_run.py %t/q %t/q-unsigned.ptx --entry i8_m1 --inputs %t/q1-in.npz --expect %t/q1-out.npz --rtol 0 --atol 0 --quiet | FileCheck %s --check-prefix=UNSIGNED
// UNSIGNED: out0: MISMATCH at
// A butterfly with one step wrong (offset 16 made 0: the lane adds its own partial) is caught.
// RUN: %PYTHON -c "t = open('%t/g.ptx').read(); i = t.index('.entry bf16_m1_kernel('); j = t.index(', 16, 31, -1;', i); open('%t/bad.ptx', 'w').write(t[:j] + ', 0, 31, -1;' + t[j + 13:])"
// RUN: not %PYTHON %S/Inputs/gpusim_run.py %t/g %t/bad.ptx --entry bf16_m1 --inputs %t/1-in.npz --expect %t/1-out.npz --rtol 1e-2 --atol 1e-2 --quiet | FileCheck %s --check-prefix=BAD
// BAD: out0: MISMATCH at
// Without the barrier between the warps' partials and their sum, the race check fires.
// RUN: %PYTHON -c "import re; t = open('%t/g.ptx').read(); i = t.index('.entry bf16_m4_kernel('); m = re.compile(r'bar.sync\s+0;').search(t, i); open('%t/nobar.ptx', 'w').write(t[:m.start()] + t[m.end():])"
// RUN: not %PYTHON %S/Inputs/gpusim_run.py %t/g %t/nobar.ptx --entry bf16_m4 --inputs %t/2-in.npz --expect %t/2-out.npz --rtol 1e-2 --atol 1e-2 --quiet 2>&1 | FileCheck %s --check-prefix=NOBAR
// NOBAR: error: kernel bf16_m4_kernel: {{.*}}shared race: thread 0 reads bytes at {{[0-9]+}} that thread {{[0-9]+}} wrote
// RUN: decoda-compile %S/Inputs/llama_small_bf16.mlir --static-dims=0:1=1 --target=cuda --emit=ptx -o %t/b.ptx --dump-ir-after-each=%t/b
// RUN: %PYTHON %S/Inputs/block_data.py llama-bf16 1 %t/b1-in.npz %t/b1-out.npz
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/b %t/b.ptx --inputs %t/b1-in.npz --expect %t/b1-out.npz --rtol 2e-2 --atol 2e-2 | FileCheck %s --check-prefix=B1
// The seven projections: q (64), k, v (32), o (64), gate, up (96), down (64) columns, a warp
// each, q, k and v in one launch of 16 + 8 + 8 blocks (decoda-gpu-merge-launches), gate and up
// in one kernel whose warps read both weight rows of a column (decoda-gpu-gemv{gate-up}: two
// butterflies a warp, shfl 240); no mma kernel is left. (Kernel names are the outliner's,
// numbered across the module.)
// The shapes are static from the start (decoda-refine-shapes after --static-dims), so both
// RMSNorms are computed by the GEMV kernels that read them (decoda-gpu-gemv{fold-norms}): the
// q/k/v kernel normalises the row into shared memory (432 bytes with the warps' sums), the
// gate/up kernel the residual sum (144 bytes).
// B1-NOT: mma
// B1: launch blk_kernel{{(_[0-9]+)?}}: grid [32, 1, 1] block [128, 1, 1] shared 432 bytes; bar 64, shfl 320
// B1: launch blk_kernel{{(_[0-9]+)?}}: grid [16, 1, 1] block [128, 1, 1] shared 0 bytes; shfl 80
// B1: launch blk_kernel{{(_[0-9]+)?}}: grid [24, 1, 1] block [128, 1, 1] shared 144 bytes; bar 48, shfl 360
// B1: launch blk_kernel{{(_[0-9]+)?}}: grid [16, 1, 1] block [128, 1, 1] shared 0 bytes; shfl 80
// B1: out0: ok (64 elements, max abs error 0)
// 24 launches before flash decoding; the attention is now its split kernel and the combine (25);
// with the projections' epilogues fused (the q/k/v roundings after the split into heads, o's
// and down's residual adds, SwiGLU's product into the up kernel, down's rounding; the shared
// zero init of gate and up folded) 15; with one RoPE cos/sin table for q and k 14; with q's
// and k's RoPE in one kernel (decoda-gpu-merge-parallel-loops) 13; with q's, k's and v's
// GEMVs in one launch (decoda-gpu-merge-launches) 11; with gate and up in one kernel 10; with
// RoPE one kernel computing its table (decoda-gpu-rope) 9; with the norms folded into the GEMV
// kernels (static shapes from the start) 7.
// B1: 7 launches
// RUN: decoda-compile %S/Inputs/llama_small_f32.mlir --static-dims=0:1=1 --target=cuda --emit=ptx -o %t/f.ptx --dump-ir-after-each=%t/f
// RUN: %PYTHON %S/Inputs/block_data.py llama-f32 1 %t/f1-in.npz %t/f1-out.npz
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/f %t/f.ptx --inputs %t/f1-in.npz --expect %t/f1-out.npz --rtol 1e-5 --atol 1e-5 --quiet | FileCheck %s --check-prefix=F1
// F1: out0: ok (64 elements
// 20 before flash decoding, plus the combine of the split attention (21); with the residual
// adds of o and down fused into their GEMV kernels, SwiGLU's product into the up kernel and the
// shared zero init of gate and up folded (its fill and copy kernels gone) 16; with one RoPE
// cos/sin table for q and k 15; with q's and k's RoPE in one kernel 14; with the gate and up
// projections' zero accumulators unshared (decoda-unshare-fills) the SwiGLU product is in the up
// kernel's stores again: 13; with q's, k's and v's GEMVs in one launch
// (decoda-gpu-merge-launches) 11; with gate and up in one kernel 10; with RoPE one kernel 9;
// with the norms folded into the GEMV kernels (static shapes from the start) 7.
// F1: 7 launches
// RUN: decoda-compile %S/Inputs/cached_step_bf16.mlir --target=cuda --emit=ptx -o %t/c.ptx --dump-ir-after-each=%t/c
// Per entry, the tensor-core kernels (wgmma on the default sm_90a for the projections,
// mma.sync for attention) and those with a GEMV's ld.global.v4 + butterfly (not the SIMT
// attention's split kernel, which stages K/V by ld.global.v4 too and broadcasts P by
// shfl.sync.idx, which no GEMV has, nor the row norms, whose 16-byte loads and row sums look
// alike but which take an rsqrt -- as does a GEMV kernel computing a folded norm, told apart
// by the L2 prefetch of its weights, which no row norm has): the prefill entry
// has both (its two projections, and its attention's tensor-core split form and one-pass
// kernel, for more rows than the SIMT split takes; and per projection the GEMV kernels of
// the T = 1 and T <= 16 dispatch, the latter on tensor cores too; since 7 Dec 2026 the T = 1
// GEMVs of q and k/v are one kernel, as the dispatches' `scf.if (M == 1)` combine after a CSE),
// the decode entry no tensor cores and its q and k/v GEMVs in one kernel
// (decoda-gpu-merge-launches) that computes the RMSNorm too (its shapes static from the start:
// decoda-refine-shapes).
// RUN: %PYTHON -c "import re; t = open('%t/c.ptx').read(); p = re.split(r'(?m)^// gpu.binary @(\S+)\n', t); k = list(zip(p[1::2], p[2::2])); [print(e, 'tensor-core kernels', sum(('mma.sync' in b or 'wgmma.mma_async' in b) for n, b in k if n.startswith(e + '_kernel')), 'gemv kernels', sum('ld.global.v4' in b and 'shfl.sync.bfly' in b and 'shfl.sync.idx' not in b and ('rsqrt' not in b or 'cp.async.bulk.prefetch' in b) for n, b in k if n.startswith(e + '_kernel'))) for e in ('step', 'step_decode')]" | FileCheck %s --check-prefix=CACHEDPTX
// CACHEDPTX: step tensor-core kernels 6 gemv kernels 1
// CACHEDPTX: step_decode tensor-core kernels 0 gemv kernels 1
// The caches are donated (decoda-compile --donate-caches, on for CUDA too): the entry returns
// only the block's output and writes the updated caches into its arguments 4 and 5 -- copied
// back into the caller's host buffers here, written in place when they are device-resident
// (--device-inputs 4,5), with every input in device memory too (--device-inputs all: the offset
// the host reads comes through a host copy).
// RUN: %PYTHON %S/Inputs/block_data.py cached-bf16 1 %t/c1-in.npz %t/c1-out.npz
// RUN: %PYTHON -c "import numpy as np; d = dict(np.load('%t/c1-out.npz')); np.savez('%t/c1-donated.npz', out0=d['out0'], arg4=d['out1'], arg5=d['out2'])"
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/c %t/c.ptx --entry step_decode --inputs %t/c1-in.npz --expect %t/c1-donated.npz --rtol 2e-2 --atol 2e-2 | FileCheck %s --check-prefix=CACHED
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/c %t/c.ptx --entry step_decode --inputs %t/c1-in.npz --expect %t/c1-donated.npz --rtol 2e-2 --atol 2e-2 --device-inputs 4,5 | FileCheck %s --check-prefix=CACHED
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/c %t/c.ptx --entry step_decode --inputs %t/c1-in.npz --expect %t/c1-donated.npz --rtol 2e-2 --atol 2e-2 --device-inputs all | FileCheck %s --check-prefix=CACHED
// CACHED: launch step_decode_kernel{{(_[0-9]+)?}}: grid [32, 1, 1] block [128, 1, 1] shared 288 bytes; bar 64, shfl 320
// CACHED: out0: ok (64 elements, max abs error 0)
// CACHED: arg4: ok (1024 elements, max abs error 0)
// CACHED: arg5: ok (1024 elements, max abs error 0)
// CACHED-NOT: out1
