// Numerics of the fused epilogues on the PTX interpreter (Inputs/ptxsim.py, the host code on
// Inputs/gpusim_run.py), Inputs/epilogue_cases.mlir against NumPy written from the formulas
// (Inputs/epilogue_data.py: the f32 accumulator, then the elementwise work in f32 with the bf16
// roundings modelled exactly), and bit for bit against the same program compiled with
// fuse-epilogue=false (the f32 result through memory and a separate kernel), whose outputs
// the fused run saves: a residual add after a bf16 projection (wgmma at T = 37, N ragged; the
// GEMV kernel at T = 1; mma.sync on sm_80), a SwiGLU MLP (gate and up from one shared zero
// init, silu(gate) * up fused into the up kernel, the down projection's rounding; T = 21 and
// T = 1), a static decode step over two lead dims (two rows: the tensor-core GEMV, the residual
// add in its storing lanes), a dispatch whose T > 1 branch stays on SIMT
// loops (K = 200), and INT8 with a dynamic T (dp4a at T = 1, integer wgmma at T = 10). Launch
// counts fused / unfused are checked too.
// RUN: rm -rf %t && mkdir -p %t
// RUN: decoda-opt %S/Inputs/epilogue_cases.mlir --decoda-lower-to-cuda="format=isa" --mlir-print-ir-before=decoda-lower-runtime-checks 2>%t/f-host.mlir >%t/f-out.mlir
// RUN: %PYTHON %S/Inputs/opt_ptx.py %t/f-host.mlir %t/f-out.mlir %t/f %t/f.ptx
// RUN: decoda-opt %S/Inputs/epilogue_cases.mlir --decoda-lower-to-cuda="format=isa fuse-epilogue=false" --mlir-print-ir-before=decoda-lower-runtime-checks 2>%t/u-host.mlir >%t/u-out.mlir
// RUN: %PYTHON %S/Inputs/opt_ptx.py %t/u-host.mlir %t/u-out.mlir %t/u %t/u.ptx
//
// RUN: %PYTHON %S/Inputs/epilogue_data.py res 37 %t/r37-in.npz %t/r37-out.npz
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/f %t/f.ptx --entry res --inputs %t/r37-in.npz --expect %t/r37-out.npz --rtol 1e-2 --atol 1e-2 --save %t/r37-f.npz | FileCheck %s --check-prefix=R37
// R37: launch res_kernel{{(_[0-9]+)?}}: grid [2, 1, 1] block [256, 1, 1] shared 0 + 132128 dynamic bytes; {{.*}}wgmma
// R37-NEXT: out0: ok (5032 elements
// R37-NEXT: 1 launches
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/u %t/u.ptx --entry res --inputs %t/r37-in.npz --expect %t/r37-f.npz --rtol 0 --atol 0 --quiet | FileCheck %s --check-prefix=BITS2
// BITS2: out0: ok ({{[0-9]+}} elements, max abs error 0)
// BITS2-NEXT: 2 launches
// RUN: %PYTHON %S/Inputs/epilogue_data.py res 1 %t/r1-in.npz %t/r1-out.npz
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/f %t/f.ptx --entry res --inputs %t/r1-in.npz --expect %t/r1-out.npz --rtol 1e-2 --atol 1e-2 --save %t/r1-f.npz | FileCheck %s --check-prefix=R1
// R1: launch res_kernel{{(_[0-9]+)?}}: grid [34, 1, 1] block [128, 1, 1] shared 0 bytes; shfl 170
// R1-NEXT: out0: ok (136 elements
// R1-NEXT: 1 launches
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/u %t/u.ptx --entry res --inputs %t/r1-in.npz --expect %t/r1-f.npz --rtol 0 --atol 0 --quiet | FileCheck %s --check-prefix=BITS2
//
// mma.sync (sm_80), fused and not:
// RUN: decoda-opt %S/Inputs/epilogue_cases.mlir --decoda-lower-to-cuda="format=isa gpu-arch=sm_80" --mlir-print-ir-before=decoda-lower-runtime-checks 2>%t/f80-host.mlir >%t/f80-out.mlir
// RUN: %PYTHON %S/Inputs/opt_ptx.py %t/f80-host.mlir %t/f80-out.mlir %t/f80 %t/f80.ptx
// RUN: decoda-opt %S/Inputs/epilogue_cases.mlir --decoda-lower-to-cuda="format=isa gpu-arch=sm_80 fuse-epilogue=false" --mlir-print-ir-before=decoda-lower-runtime-checks 2>%t/u80-host.mlir >%t/u80-out.mlir
// RUN: %PYTHON %S/Inputs/opt_ptx.py %t/u80-host.mlir %t/u80-out.mlir %t/u80 %t/u80.ptx
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/f80 %t/f80.ptx --entry res --inputs %t/r37-in.npz --expect %t/r37-out.npz --rtol 1e-2 --atol 1e-2 --save %t/r37-f80.npz | FileCheck %s --check-prefix=R80
// R80: launch res_kernel{{(_[0-9]+)?}}: grid [2, 1, 1] block [256, 1, 1] shared 40960 bytes; {{.*}}mma
// R80-NEXT: out0: ok (5032 elements
// R80-NEXT: 1 launches
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/u80 %t/u80.ptx --entry res --inputs %t/r37-in.npz --expect %t/r37-f80.npz --rtol 0 --atol 0 --quiet | FileCheck %s --check-prefix=BITS2
//
// SwiGLU: gate and up in one kernel of two weights (decoda-gpu-tensorcore-matmul{gate-up}:
// one m64n256k16 wgmma per k slice, silu(gate) * up and the rounding from the registers), down
// with its rounding: two launches against five unfused (gate, up, the GLU kernel, down, its
// rounding), bit for bit. Before the gate-up kernel: three (the gate's f32 result stored and
// read back by the up kernel's epilogue); before the copy of the shared zero init became a
// second fill, folded too, two more: the fill and the copy. At T = 1 the GEMV kernels: gate
// and up in one kernel of both weights (decoda-gpu-gemv pairs them behind its dynamic-M
// dispatch too; three launches before), down: two launches, bit for bit the unfused build.
// RUN: %PYTHON %S/Inputs/epilogue_data.py mlp 21 %t/m21-in.npz %t/m21-out.npz
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/f %t/f.ptx --entry mlp --inputs %t/m21-in.npz --expect %t/m21-out.npz --rtol 1e-2 --atol 1e-2 --save %t/m21-f.npz | FileCheck %s --check-prefix=M
// M: launch mlp_kernel{{(_[0-9]+)?}}: grid [1, 1, 1] block [256, 1, 1] shared 0 + 197664 dynamic bytes
// M: out0: ok (1344 elements
// M-NEXT: 2 launches
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/u %t/u.ptx --entry mlp --inputs %t/m21-in.npz --expect %t/m21-f.npz --rtol 0 --atol 0 --quiet | FileCheck %s --check-prefix=BITS5
// BITS5: out0: ok ({{[0-9]+}} elements, max abs error 0)
// BITS5-NEXT: 5 launches
// The decode-shaped SwiGLU (static T = 1): gate and up in one GEMV kernel whose warps read both
// weight rows of a column (K split over two warps: 100 blocks of two columns), the GLU in the
// storing lane, then down: 2 launches, bit for bit the unfused build's 4 (gate and up, the
// GLU, down, its rounding; the unfused gate and up GEMVs are independent: one launch).
// RUN: %PYTHON %S/Inputs/epilogue_data.py mlpd 1 %t/md-in.npz %t/md-out.npz
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/f %t/f.ptx --entry mlp_decode --inputs %t/md-in.npz --expect %t/md-out.npz --rtol 1e-2 --atol 1e-2 --save %t/md-f.npz | FileCheck %s --check-prefix=MD
// MD: launch mlp_decode_kernel{{(_[0-9]+)?}}: grid [100, 1, 1] block [128, 1, 1] shared 32 bytes
// MD: out0: ok (512 elements, max abs error 0)
// MD-NEXT: 2 launches
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/u %t/u.ptx --entry mlp_decode --inputs %t/md-in.npz --expect %t/md-f.npz --rtol 0 --atol 0 --quiet | FileCheck %s --check-prefix=BITS4
// BITS4: out0: ok (512 elements, max abs error 0)
// BITS4-NEXT: 4 launches
// With --gpu-gate-up=false gate and up are a kernel each (the f32 gate through memory): three
// launches, the same bits.
// RUN: decoda-compile %S/Inputs/epilogue_cases.mlir --target=cuda --gpu-arch=sm_90a --gpu-gate-up=false --emit=ptx -o %t/ngu.ptx --dump-ir-after-each=%t/ngu
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/ngu %t/ngu.ptx --entry mlp --inputs %t/m21-in.npz --expect %t/m21-f.npz --rtol 0 --atol 0 --quiet | FileCheck %s --check-prefix=NGU
// NGU: out0: ok (1344 elements, max abs error 0)
// NGU-NEXT: 3 launches
// With --gpu-matmul-tile-n=256 (m64n256k16, 256 columns a block) the same bits: res's 136
// columns in one block instead of two; mlp's gate and up kernel keeps 128 columns of each
// weight (one m64n256k16 for both), its down projection takes 256.
// RUN: decoda-compile %S/Inputs/epilogue_cases.mlir --target=cuda --gpu-arch=sm_90a --gpu-matmul-tile-n=256 --emit=ptx -o %t/n256.ptx --dump-ir-after-each=%t/n256
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/n256 %t/n256.ptx --entry res --inputs %t/r37-in.npz --expect %t/r37-f.npz --rtol 0 --atol 0 | FileCheck %s --check-prefix=N256R
// N256R: launch res_kernel{{(_[0-9]+)?}}: grid [1, 1, 1] block [256, 1, 1] shared 0 + 197664 dynamic bytes
// N256R: out0: ok (5032 elements, max abs error 0)
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/n256 %t/n256.ptx --entry mlp --inputs %t/m21-in.npz --expect %t/m21-f.npz --rtol 0 --atol 0 | FileCheck %s --check-prefix=N256M
// N256M-COUNT-2: grid [1, 1, 1] block [256, 1, 1] shared 0 + 197664 dynamic bytes
// N256M: out0: ok (1344 elements, max abs error 0)
// N256M-NEXT: 2 launches
// RUN: grep -c "wgmma.mma_async.sync.aligned.m64n256k16" %t/n256.ptx | FileCheck %s --check-prefix=N256W
// N256W: {{[1-9][0-9]*}}
// RUN: not grep "m64n128k16" %t/n256.ptx
// The warp-specialised TMA kernel (--gpu-warp-specialize: the epilogue's operands are loaded
// by the MMA warpgroups, before their K loop) gives the same bits on both:
// RUN: decoda-compile %S/Inputs/epilogue_cases.mlir --target=cuda --gpu-arch=sm_90a --gpu-warp-specialize --emit=ptx -o %t/ws.ptx --dump-ir-after-each=%t/ws
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/ws %t/ws.ptx --entry res --inputs %t/r37-in.npz --expect %t/r37-f.npz --rtol 0 --atol 0 | FileCheck %s --check-prefix=WS1
// WS1: launch res_kernel{{(_[0-9]+)?}}: grid [2, 1, 1] block [384, 1, 1]
// WS1: out0: ok (5032 elements, max abs error 0)
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/ws %t/ws.ptx --entry mlp --inputs %t/m21-in.npz --expect %t/m21-f.npz --rtol 0 --atol 0 | FileCheck %s --check-prefix=WS3
// WS3-COUNT-2: block [384, 1, 1]
// WS3: out0: ok (1344 elements, max abs error 0)
// RUN: %PYTHON %S/Inputs/epilogue_data.py mlp 1 %t/m1-in.npz %t/m1-out.npz
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/f %t/f.ptx --entry mlp --inputs %t/m1-in.npz --expect %t/m1-out.npz --rtol 1e-2 --atol 1e-2 --save %t/m1-f.npz --quiet | FileCheck %s --check-prefix=M1
// M1: out0: ok (64 elements
// M1-NEXT: 2 launches; shfl
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/u %t/u.ptx --entry mlp --inputs %t/m1-in.npz --expect %t/m1-f.npz --rtol 0 --atol 0 --quiet | FileCheck %s --check-prefix=BITS5
// T = 6: the dispatch's tensor-core GEMV of 16 rows, gate and up in one kernel of two weights
// (two accumulators a lane, 4 KiB of split partials), the SwiGLU product in its stores; down
// the same kernel of one weight: 2 launches, the unfused build's bits (5 launches).
// RUN: %PYTHON %S/Inputs/epilogue_data.py mlp 6 %t/m6-in.npz %t/m6-out.npz
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/f %t/f.ptx --entry mlp --inputs %t/m6-in.npz --expect %t/m6-out.npz --rtol 1e-2 --atol 1e-2 --save %t/m6-f.npz | FileCheck %s --check-prefix=M6
// M6: launch mlp_kernel{{(_[0-9]+)?}}: grid [6, 1, 1] block [128, 1, 1] shared 4096 bytes; bar 6, mma 24
// M6-NEXT: launch mlp_kernel{{(_[0-9]+)?}}: grid [4, 1, 1] block [128, 1, 1] shared 2048 bytes; bar 4, mma 16
// M6-NEXT: out0: ok (384 elements, max abs error 0)
// M6-NEXT: 2 launches
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/u %t/u.ptx --entry mlp --inputs %t/m6-in.npz --expect %t/m6-f.npz --rtol 0 --atol 0 --quiet | FileCheck %s --check-prefix=BITS6
// BITS6: out0: ok (384 elements, max abs error 0)
// BITS6-NEXT: 5 launches
//
// RUN: %PYTHON %S/Inputs/epilogue_data.py dec 1 %t/d-in.npz %t/d-out.npz
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/f %t/f.ptx --entry dec --inputs %t/d-in.npz --expect %t/d-out.npz --rtol 1e-2 --atol 1e-2 --save %t/d-f.npz | FileCheck %s --check-prefix=DEC
// DEC: launch dec_kernel{{(_[0-9]+)?}}: grid [5, 1, 1] block [128, 1, 1] shared 2048 bytes; bar 5, mma 20
// DEC-NEXT: out0: ok (74 elements
// DEC-NEXT: 1 launches
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/u %t/u.ptx --entry dec --inputs %t/d-in.npz --expect %t/d-f.npz --rtol 0 --atol 0 --quiet | FileCheck %s --check-prefix=BITS2
//
// K = 200 (not a multiple of the cp.async stages' 32): at T = 1 the GEMV branch, fused (one
// launch; T = 2 .. 16 take the 16-row tensor-core GEMV, gemv-sim.mlir); at T = 17 on sm_90a the TMA
// wgmma kernel takes it (it zero-fills past K) with the
// residual add fused: one launch, two unfused (the contraction, the add); on sm_80 the T > 1
// branch is left to SIMT loops: three kernels (the zero fill, the contraction, the residual
// add), fused or not. The same bits either way.
// RUN: %PYTHON %S/Inputs/epilogue_data.py odd 1 %t/o1-in.npz %t/o1-out.npz
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/f %t/f.ptx --entry odd --inputs %t/o1-in.npz --expect %t/o1-out.npz --rtol 1e-2 --atol 1e-2 --save %t/o1-f.npz --quiet | FileCheck %s --check-prefix=ODD1
// ODD1: out0: ok (40 elements
// ODD1-NEXT: 1 launches
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/u %t/u.ptx --entry odd --inputs %t/o1-in.npz --expect %t/o1-f.npz --rtol 0 --atol 0 --quiet | FileCheck %s --check-prefix=BITS2
// RUN: %PYTHON %S/Inputs/epilogue_data.py odd 17 %t/o3-in.npz %t/o3-out.npz
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/f %t/f.ptx --entry odd --inputs %t/o3-in.npz --expect %t/o3-out.npz --rtol 1e-2 --atol 1e-2 --save %t/o3-f.npz --quiet | FileCheck %s --check-prefix=ODD3
// ODD3: out0: ok (680 elements
// ODD3-NEXT: 1 launches; {{.*}}wgmma
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/u %t/u.ptx --entry odd --inputs %t/o3-in.npz --expect %t/o3-f.npz --rtol 0 --atol 0 --quiet | FileCheck %s --check-prefix=BITS3
// BITS3: out0: ok ({{[0-9]+}} elements, max abs error 0)
// BITS3-NEXT: 2 launches; {{.*}}wgmma
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/f80 %t/f80.ptx --entry odd --inputs %t/o3-in.npz --expect %t/o3-f.npz --rtol 0 --atol 0 --quiet | FileCheck %s --check-prefix=SIMT3
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/u80 %t/u80.ptx --entry odd --inputs %t/o3-in.npz --expect %t/o3-f.npz --rtol 0 --atol 0 --quiet | FileCheck %s --check-prefix=SIMT3
// SIMT3: out0: ok ({{[0-9]+}} elements, max abs error 0)
// SIMT3-NEXT: 3 launches
//
// INT8, exact against NumPy:
// RUN: %PYTHON %S/Inputs/epilogue_data.py q8 1 %t/q1-in.npz %t/q1-out.npz
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/f %t/f.ptx --entry q8 --inputs %t/q1-in.npz --expect %t/q1-out.npz --rtol 0 --atol 0 --save %t/q1-f.npz | FileCheck %s --check-prefix=Q1
// Q1: launch q8_kernel{{(_[0-9]+)?}}: grid [10, 1, 1] block [128, 1, 1] shared 0 bytes; shfl 50
// Q1-NEXT: out0: ok (40 elements, max abs error 0)
// Q1-NEXT: 1 launches
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/u %t/u.ptx --entry q8 --inputs %t/q1-in.npz --expect %t/q1-f.npz --rtol 0 --atol 0 --quiet | FileCheck %s --check-prefix=BITS2
// RUN: %PYTHON %S/Inputs/epilogue_data.py q8 10 %t/q10-in.npz %t/q10-out.npz
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/f %t/f.ptx --entry q8 --inputs %t/q10-in.npz --expect %t/q10-out.npz --rtol 0 --atol 0 --save %t/q10-f.npz | FileCheck %s --check-prefix=Q10
// Q10: launch q8_kernel{{(_[0-9]+)?}}: grid [1, 1, 1] block [256, 1, 1] shared 0 + 132128 dynamic bytes; {{.*}}wgmma
// Q10-NEXT: out0: ok (400 elements, max abs error 0)
// Q10-NEXT: 1 launches
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/u %t/u.ptx --entry q8 --inputs %t/q10-in.npz --expect %t/q10-f.npz --rtol 0 --atol 0 --quiet | FileCheck %s --check-prefix=BITS2
//
// A broken fused store is caught: the two columns of each rounded pair of the wgmma kernel
// swapped (the operands of cvt.rn.bf16x2.f32), against the unfused bits.
// RUN: %PYTHON -c "import re; t = open('%t/f.ptx').read(); open('%t/bad.ptx', 'w').write(re.sub(r'(cvt\.rn\.bf16x2\.f32\s+%%r\d+, )(%%r\d+), (%%r\d+);', r'\1\3, \2;', t))"
// RUN: not %PYTHON %S/Inputs/gpusim_run.py %t/f %t/bad.ptx --entry res --inputs %t/r37-in.npz --expect %t/r37-f.npz --rtol 0 --atol 0 --quiet | FileCheck %s --check-prefix=BAD
// BAD: out0: MISMATCH at
