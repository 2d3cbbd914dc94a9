// Norms (RMSNorm, LayerNorm, their add forms) folded into the GEMV kernels that read them (decoda-gpu-gemv{fold-norms}, the
// default of decoda-lower-to-cuda; --gpu-fold-norms=false to keep a norm kernel) against NumPy
// (reference.py, Inputs/norm_fold_data.py, Inputs/block_data.py) on the PTX interpreter.
// RUN: rm -rf %t && mkdir -p %t
// RUN: decoda-compile %S/Inputs/norm_fold_cases.mlir --target=cuda --emit=ptx -o %t/c.ptx --dump-ir-after-each=%t/c
// One bf16 row of 72 read by two projections: one launch (the two GEMV kernels, each
// normalising the row itself, merged), no norm kernel.
// RUN: %PYTHON %S/Inputs/norm_fold_data.py plain_bf16 %t/1-in.npz %t/1-out.npz
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/c %t/c.ptx --entry plain_bf16 --inputs %t/1-in.npz --expect %t/1-out.npz --rtol 2e-2 --atol 2e-2 | FileCheck %s --check-prefix=PLAIN
// 12 + 6 blocks of 128 threads; shared: per kernel the row (144 bytes) and the 4 warps' sums.
// PLAIN: launch plain_bf16_kernel{{(_[0-9]+)?}}: grid [18, 1, 1] block [128, 1, 1] shared 320 bytes
// PLAIN: out0: ok (48 elements, max abs error 0)
// PLAIN: out1: ok (24 elements, max abs error 0)
// PLAIN: 1 launches
// add_rms_norm (scale 0.5, weight offset 1) of 4 f16 rows of 256 read by gate and up: their
// kernel normalises the rows and block 0 stores the sum, which down's residual reads: two
// launches (gate/up, down) instead of three.
// RUN: %PYTHON %S/Inputs/norm_fold_data.py add_f16 %t/2-in.npz %t/2-out.npz
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/c %t/c.ptx --entry add_f16 --inputs %t/2-in.npz --expect %t/2-out.npz --rtol 2e-2 --atol 2e-2 | FileCheck %s --check-prefix=ADD
// ADD: out0: ok (1024 elements, max abs error 0)
// ADD: 2 launches
// Two f32 rows of 1024 (two chunks of 4 a thread per row).
// RUN: %PYTHON %S/Inputs/norm_fold_data.py plain_f32 %t/3-in.npz %t/3-out.npz
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/c %t/c.ptx --entry plain_f32 --inputs %t/3-in.npz --expect %t/3-out.npz --rtol 1e-4 --atol 1e-4 | FileCheck %s --check-prefix=F32
// F32: out0: ok (80 elements
// F32: 1 launches
// Eight bf16 rows of 2048 (32 KiB of normalised rows, the tensor-core GEMV with K split over
// the 4 warps of a block: 2 KiB of their fragments): the two kernels are not merged, which
// would declare 68 KiB of static shared memory (decoda-gpu-merge-launches stops a run at 48 KiB).
// RUN: %PYTHON %S/Inputs/norm_fold_data.py rows8 %t/8-in.npz %t/8-out.npz
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/c %t/c.ptx --entry rows8 --inputs %t/8-in.npz --expect %t/8-out.npz --rtol 2e-2 --atol 2e-2 | FileCheck %s --check-prefix=ROWS8
// ROWS8-COUNT-2: block [128, 1, 1] shared 34944 bytes; bar {{[0-9]+}}, mma
// ROWS8: out0: ok (128 elements
// ROWS8: out1: ok (64 elements
// ROWS8: 2 launches
// bf16 rows with an f32 weight (read as f32), and LayerNorm with a bias (the mean's and the
// variance's block sums in two shared buffers): one launch each.
// RUN: %PYTHON %S/Inputs/norm_fold_data.py mixed_weight %t/9-in.npz %t/9-out.npz
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/c %t/c.ptx --entry mixed_weight --inputs %t/9-in.npz --expect %t/9-out.npz --rtol 2e-2 --atol 2e-2 | FileCheck %s --check-prefix=ONE
// RUN: %PYTHON %S/Inputs/norm_fold_data.py layer %t/5-in.npz %t/5-out.npz
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/c %t/c.ptx --entry layer --inputs %t/5-in.npz --expect %t/5-out.npz --rtol 2e-2 --atol 2e-2 | FileCheck %s --check-prefix=ONE
// ONE: out0: ok (32 elements, max abs error 0)
// ONE: 1 launches
// A parallel block's two LayerNorms of one input: each computed by the GEMV that reads it, the
// second across the attention's call and its run-time checks (a norm kernel more before
// 7 Dec 2026): the two GEMVs and the attention's split and combine kernels.
// RUN: %PYTHON %S/Inputs/norm_fold_data.py parallel %t/par-in.npz %t/par-out.npz
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/c %t/c.ptx --entry parallel --inputs %t/par-in.npz --expect %t/par-out.npz --rtol 2e-2 --atol 2e-2 | FileCheck %s --check-prefix=PAR
// PAR: launch parallel_kernel{{(_[0-9]+)?}}: grid [16, 1, 1] block [128, 1, 1] shared 160 bytes
// PAR: launch parallel_kernel{{(_[0-9]+)?}}: grid [8, 1, 1] block [128, 1, 1] shared 160 bytes
// PAR: out0: ok (64 elements, max abs error 0)
// PAR: out1: ok (32 elements, max abs error 0)
// PAR: 4 launches
// Not folded (a norm kernel and the GEMV): the rows also returned; 17 rows go to the tensor
// cores' tiles.
// RUN: %PYTHON %S/Inputs/norm_fold_data.py returned %t/4-in.npz %t/4-out.npz
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/c %t/c.ptx --entry returned --inputs %t/4-in.npz --expect %t/4-out.npz --rtol 2e-2 --atol 2e-2 | FileCheck %s --check-prefix=KEPT
// RUN: %PYTHON %S/Inputs/norm_fold_data.py rows17 %t/7-in.npz %t/7-out.npz
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/c %t/c.ptx --entry rows17 --inputs %t/7-in.npz --expect %t/7-out.npz --rtol 2e-2 --atol 2e-2 | FileCheck %s --check-prefix=KEPT
// KEPT: out0: ok
// KEPT: 2 launches
// T dynamic (the GEMV dispatch at run time): at T = 1 the norm is computed by the M = 1
// kernel (one launch; the add form's sum stored by it and read by down's residual: two);
// other T run the norm's kernel, kept in a branch of its own, and the dispatch's other
// kernels: the few-row tensor-core GEMV (T = 3, 5, 16) or the wgmma tiles (T = 17, 40).
// RUN: %PYTHON %S/Inputs/norm_fold_data.py dynamic %t/6-in.npz %t/6-out.npz
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/c %t/c.ptx --entry dynamic --inputs %t/6-in.npz --expect %t/6-out.npz --rtol 2e-2 --atol 2e-2 | FileCheck %s --check-prefix=DYN1
// DYN1: launch dynamic_kernel{{(_[0-9]+)?}}: grid [8, 1, 1] block [128, 1, 1] shared 144 bytes
// DYN1: out0: ok (32 elements, max abs error 0)
// DYN1: 1 launches
// RUN: %PYTHON %S/Inputs/norm_fold_data.py dynamic5 %t/6b-in.npz %t/6b-out.npz
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/c %t/c.ptx --entry dynamic --inputs %t/6b-in.npz --expect %t/6b-out.npz --rtol 2e-2 --atol 2e-2 | FileCheck %s --check-prefix=DYNMMA
// DYNMMA: shared 0 bytes; shfl
// DYNMMA: mma
// DYNMMA: out0: ok (160 elements, max abs error 0)
// DYNMMA: 2 launches
// RUN: %PYTHON %S/Inputs/norm_fold_data.py dynamic40 %t/6c-in.npz %t/6c-out.npz
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/c %t/c.ptx --entry dynamic --inputs %t/6c-in.npz --expect %t/6c-out.npz --rtol 2e-2 --atol 2e-2 | FileCheck %s --check-prefix=DYNBIG
// DYNBIG: wgmma
// DYNBIG: out0: ok (1280 elements, max abs error 0)
// DYNBIG: 2 launches
// RUN: %PYTHON %S/Inputs/norm_fold_data.py dynamic_add %t/10-in.npz %t/10-out.npz
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/c %t/c.ptx --entry dynamic_add --inputs %t/10-in.npz --expect %t/10-out.npz --rtol 2e-2 --atol 2e-2 | FileCheck %s --check-prefix=DYNADD1
// DYNADD1: out0: ok (256 elements, max abs error 0)
// DYNADD1: 2 launches
// RUN: %PYTHON %S/Inputs/norm_fold_data.py dynamic_add3 %t/10b-in.npz %t/10b-out.npz
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/c %t/c.ptx --entry dynamic_add --inputs %t/10b-in.npz --expect %t/10b-out.npz --rtol 2e-2 --atol 2e-2 | FileCheck %s --check-prefix=DYNADD
// RUN: %PYTHON %S/Inputs/norm_fold_data.py dynamic_add16 %t/10c-in.npz %t/10c-out.npz
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/c %t/c.ptx --entry dynamic_add --inputs %t/10c-in.npz --expect %t/10c-out.npz --rtol 2e-2 --atol 2e-2 | FileCheck %s --check-prefix=DYNADD
// RUN: %PYTHON %S/Inputs/norm_fold_data.py dynamic_add17 %t/10d-in.npz %t/10d-out.npz
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/c %t/c.ptx --entry dynamic_add --inputs %t/10d-in.npz --expect %t/10d-out.npz --rtol 2e-2 --atol 2e-2 | FileCheck %s --check-prefix=DYNADD
// DYNADD: out0: ok
// DYNADD: 3 launches
// 16 bf16 rows: folded into the tensor-core GEMV (its rows g and g + 8 both the block's
// normalised rows), one launch.
// RUN: %PYTHON %S/Inputs/norm_fold_data.py many_rows %t/16-in.npz %t/16-out.npz
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/c %t/c.ptx --entry many_rows --inputs %t/16-in.npz --expect %t/16-out.npz --rtol 2e-2 --atol 2e-2 | FileCheck %s --check-prefix=ROWS16
// ROWS16: launch many_rows_kernel{{(_[0-9]+)?}}: grid [{{[0-9]+}}, 1, 1] block [128, 1, 1] shared {{[0-9]+}} bytes; bar {{[0-9]+}}, mma
// ROWS16: out0: ok (512 elements, max abs error 0)
// ROWS16: 1 launches
//
// A decode step (Inputs/decode_step_bf16.mlir: the model of launch-graphs.mlir, T = 1): its
// RMSNorm is computed by the merged q/k/v kernel, its add + RMSNorm by the gate/up kernel: 7
// launches instead of 9, the same bits as with --gpu-fold-norms=false.
// RUN: decoda-compile %S/Inputs/decode_step_bf16.mlir --target=cuda --emit=ptx -o %t/s.ptx --dump-ir-after-each=%t/s
// RUN: decoda-compile %S/Inputs/decode_step_bf16.mlir --target=cuda --gpu-fold-norms=false --emit=ptx -o %t/u.ptx --dump-ir-after-each=%t/u
// RUN: %PYTHON %S/Inputs/block_data.py step-bf16 1 %t/s-in.npz %t/s-out.npz
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/s %t/s.ptx --inputs %t/s-in.npz --expect %t/s-out.npz --rtol 2e-2 --atol 2e-2 --save %t/s-got.npz | FileCheck %s --check-prefix=STEP
// STEP: launch step_kernel: grid [32, 1, 1] block [128, 1, 1] shared 432 bytes
// STEP: out0: ok (64 elements, max abs error 0)
// STEP: 7 launches
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/u %t/u.ptx --inputs %t/s-in.npz --expect %t/s-got.npz --rtol 0 --atol 0 --quiet | FileCheck %s --check-prefix=UNFOLDED
// UNFOLDED: out0: ok (64 elements, max abs error 0)
// UNFOLDED: 9 launches
// The barrier after the normalised rows removed (the q/k/v kernel's second): a warp reads
// rows another warp wrote, reported.
// RUN: %PYTHON -c "import re; t = open('%t/s.ptx').read(); i = t.index('.entry step_kernel('); m = list(re.finditer(r'bar.sync\s+0;', t[i:]))[1]; open('%t/nobar.ptx', 'w').write(t[:i + m.start()] + t[i + m.end():])"
// RUN: not %PYTHON %S/Inputs/gpusim_run.py %t/s %t/nobar.ptx --inputs %t/s-in.npz --expect %t/s-out.npz --rtol 2e-2 --atol 2e-2 --quiet 2>&1 | FileCheck %s --check-prefix=NOBAR
// NOBAR: error: kernel step_kernel: ld.shared.v4.b32: shared race: thread {{[0-9]+}} reads bytes at {{[0-9]+}} that thread {{[0-9]+}} wrote
// The flag is for CUDA.
// RUN: not decoda-compile %S/Inputs/decode_step_bf16.mlir --gpu-fold-norms=false -o %t/x.so 2>&1 | FileCheck %s --check-prefix=FLAG
// FLAG: error: --gpu-fold-norms needs --target=cuda
