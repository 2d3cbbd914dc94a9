// Whole decoder blocks compiled with --target=cuda run end to end on the PTX interpreter
// (Inputs/ptxsim.py; the host function, with its key-tile loop, subviews and constants, on
// Inputs/gpusim_run.py) and match the NumPy reference of python/decoda/reference.py
// (Inputs/block_data.py): RMSNorm and the fused residual + RMSNorm (one row kernel each), RoPE
// (one kernel for q and k: the cos/sin table computed per block in shared memory),
// causal GQA attention (one flash-attention kernel: f32 SIMT, at T = 70 three 32-key tiles,
// the last partial, at T = 7 the split-key form of flash decoding; bf16 the tensor-core
// kernel, one 64-row block and 64-key tiles 64 + 6),
// SwiGLU, residuals (the elementwise work after each projection in its kernel's stores). bf16 takes the tensor-core projections (the wgmma kernel: the default
// gpu-arch is sm_90a) and attention (wgmma, head dim 16 padded); against a reference whose attention rounds P
// to bf16 before P·V as that kernel does (Inputs/block_data.py) its result is exact after the
// bf16 rounding (against the unrounded reference.py attention it is off by up to 0.125 in 63
// of 4480 elements). A broken kernel (the RMSNorm's rsqrt made a sqrt) is caught.
// RUN: rm -rf %t && mkdir -p %t
// RUN: decoda-compile %S/Inputs/llama_small_f32.mlir --target=cuda --emit=ptx -o %t/f.ptx --dump-ir-after-each=%t/f
// RUN: %PYTHON %S/Inputs/block_data.py llama-f32 7 %t/f7-in.npz %t/f7-out.npz
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/f %t/f.ptx --inputs %t/f7-in.npz --expect %t/f7-out.npz --rtol 1e-4 --atol 1e-4 | FileCheck %s --check-prefix=F7
// F7: out0: ok (448 elements
// At T = 7 the 14 rows of a K/V head fit one block: flash decoding's split kernel and its
// combine (one launch more); at T = 70 the one-pass attention kernel. At T = 7 the projections
// are the 8-row GEMV kernels (decoda-gpu-gemv's dispatch for 2 <= T <= 8; before, SIMT loop
// kernels for the zero fills, contractions and residual adds: 23 launches) with their
// epilogues fused: 15; and q's and k's RoPE one kernel (decoda-gpu-merge-parallel-loops) 14;
// the gate and up projections' zero accumulators no longer one shared tensor after CSE
// (decoda-unshare-fills), so the SwiGLU product joins the up kernel's stores: 13; RoPE one
// kernel with its cos/sin table computed in its blocks (decoda-gpu-rope): 12; gate and up in
// one GEMV kernel of both weights behind the dynamic-T dispatch (decoda-gpu-gemv): 11.
// F7: 11 launches
// RUN: %PYTHON %S/Inputs/block_data.py llama-f32 70 %t/f70-in.npz %t/f70-out.npz
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/f %t/f.ptx --inputs %t/f70-in.npz --expect %t/f70-out.npz --rtol 1e-4 --atol 1e-4 --quiet | FileCheck %s --check-prefix=F70
// F70: out0: ok (4480 elements
// 22 before q's and k's RoPE became one kernel, 21 before its table joined it, 20 before the
// gate and up projections of a dynamic T shared one dispatch (decoda-gpu-gemv; its large-T
// branch holds both contractions and the GLU together: one launch fewer).
// F70: 19 launches
// RUN: decoda-compile %S/Inputs/llama_small_bf16.mlir --target=cuda --emit=ptx -o %t/b.ptx --dump-ir-after-each=%t/b
// RUN: %PYTHON %S/Inputs/block_data.py llama-bf16 70 %t/b70-in.npz %t/b70-out.npz
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/b %t/b.ptx --inputs %t/b70-in.npz --expect %t/b70-out.npz --rtol 2e-2 --atol 2e-2 --quiet | FileCheck %s --check-prefix=B70
// B70: out0: ok (4480 elements
// The projections and the attention on wgmma (the attention's head dim 16 held as a padded
// 64-column block since 7 Dec 2026; mma.sync before): no mma.sync or ldmatrix left. 13 launches: before the projections' epilogues were fused 24 (the q, k, v roundings
// after the split into heads, o's and down's residual adds, SwiGLU's product in the up kernel,
// down's rounding, and the fill and copy of gate's and up's shared zero init, now folded), 14
// before q's and k's RoPE shared one cos/sin table (resolve-ranked-shaped-type-result-dims
// and CSE in the pipeline), 13 before q's and k's RoPE became one kernel
// (decoda-gpu-merge-parallel-loops), 12 before gate and up became one kernel of two weights
// (decoda-gpu-tensorcore-matmul{gate-up}; the unfused build below keeps them apart), 11 before
// RoPE's table joined its kernel (decoda-gpu-rope).
// B70: 10 launches; bar {{[0-9]+}}, cp {{[0-9]+}}, mbarrier {{[0-9]+}}, shfl {{[0-9]+}}, wgmma {{[1-9][0-9]*}}{{$}}
// The same block for sm_75 (no cp.async, ldmatrix or bf16 mma.sync m16n8k16: LLVM could not
// select them, the build failed): the SIMT attention kernel (its probabilities not rounded:
// NumPy's llama_simt) and the projections as parallel loops; no tensor-core instruction.
// RUN: decoda-compile %S/Inputs/llama_small_bf16.mlir --target=cuda --gpu-arch=sm_75 --emit=ptx -o %t/b75.ptx --dump-ir-after-each=%t/b75
// RUN: %PYTHON %S/Inputs/block_data.py llama_simt-bf16 70 %t/b75-in.npz %t/b75-out.npz
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/b75 %t/b75.ptx --inputs %t/b75-in.npz --expect %t/b75-out.npz --rtol 2e-2 --atol 2e-2 --quiet | FileCheck %s --check-prefix=B75
// B75: out0: ok (4480 elements
// B75-NOT: mma
// B75: launches; bar {{[0-9]+}}, shfl {{[0-9]+}}{{$}}
// Bit for bit the result of the same block with fuse-epilogue=false (decoda-opt, the same
// pipelines): 16 launches (the zero-init fold stays; 19 before independent neighbouring loops,
// q's and k's RoPE and the unfused k and v roundings, were merged; 17 before launches with 2-D
// and 3-D grids merged too).
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/b %t/b.ptx --inputs %t/b70-in.npz --expect %t/b70-out.npz --rtol 2e-2 --atol 2e-2 --quiet --save %t/b70-fused.npz
// RUN: decoda-opt %S/Inputs/llama_small_bf16.mlir --decoda-graph-opt --decoda-lower-to-cuda="format=isa fuse-epilogue=false" --mlir-print-ir-before=decoda-lower-runtime-checks 2>%t/u-host.mlir >%t/u-out.mlir
// RUN: %PYTHON %S/Inputs/opt_ptx.py %t/u-host.mlir %t/u-out.mlir %t/u %t/u.ptx
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/u %t/u.ptx --inputs %t/b70-in.npz --expect %t/b70-fused.npz --rtol 0 --atol 0 --quiet | FileCheck %s --check-prefix=UNFUSED
// UNFUSED: out0: ok (4480 elements, max abs error 0)
// UNFUSED-NEXT: 16 launches
// RUN: sed 's/rsqrt.approx.f32/sqrt.rn.f32/' %t/f.ptx > %t/bad.ptx
// RUN: not %PYTHON %S/Inputs/gpusim_run.py %t/f %t/bad.ptx --inputs %t/f7-in.npz --expect %t/f7-out.npz --rtol 1e-4 --atol 1e-4 --quiet | FileCheck %s --check-prefix=BAD
// BAD: out0: MISMATCH at
