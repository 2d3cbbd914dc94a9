// Numerics of decoda.rope on the CUDA path, run on the PTX interpreter against R.rope of
// reference.py (Inputs/rope_data.py, written from the op definition): bf16 half_split with
// positions up to 70000 (large angles: the f32 cos/sin must reduce them correctly); f16 with a
// dynamic T and no positions operand; f32 interleaved partial RoPE (rotary_dim 64 of 96) with
// per-batch i32 positions; bf16 YaRN (attention factor 0.1·ln 4 + 1); the Llama-3 decode shape
// (q and k of one token sharing a position); f16 over an odd half (D = 10); bf16 partial
// half_split (rotary_dim 64 of 100: 36 features pass through).
//
// The reference follows the op definition: inv_freq in f64, rounded to f32; the angle
// f32(p)·inv_freq in f32; cos, sin and the rotation in f32. Against it the kernels are exact
// today for bf16/f16 and within 3e-7 for f32, so the f32 tolerance stays 1e-5. (Against f64
// angles the f32 case would need ~1e-3: at p = 32767 the f32 angle alone is off by up to ~1e-3
// rad, 7e-4 in the output -- the op's f32 angles, not a compiler error; bf16/f16 would differ
// by at most 1 ulp, a double rounding.)
//
// Each rope is one kernel (decoda-gpu-rope): 256 threads, the block's cos/sin table in shared
// memory (P tokens x r/2 x 2 f32: P = 256 / work items of a token), one barrier, then the
// pairs as 16-byte vectors; q's and k's of one position in one launch (merged). The results are
// bit-identical to the generic lowering's (same f32 operations), checked here against the
// reference; rope_cache_bf16 ropes k straight into a donated cache before a cached attention.
// rope_unaligned_bf16 reads a view at odd element offsets: its chunks go element by
// element (the scalar branch), still exact.
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: decoda-compile %S/Inputs/rope_cases.mlir --target=cuda --emit=ptx -o %t/r.ptx --dump-ir-after-each=%t/r
//
// RUN: %PYTHON %S/Inputs/rope_data.py rope_q_bf16 %t/1-in.npz %t/1-out.npz
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/r %t/r.ptx --entry rope_q_bf16 --inputs %t/1-in.npz --expect %t/1-out.npz --rtol 1e-2 --atol 1e-2 | FileCheck %s --check-prefix=Q
// Q: launch rope_q_bf16_kernel: grid [1, 1, 1] block [256, 1, 1] shared 4096 bytes; bar 1
// Q: out0: ok (1280 elements, max abs error 0)
// Q: 1 launches
//
// RUN: %PYTHON %S/Inputs/rope_data.py rope_dyn_f16 %t/2-in.npz %t/2-out.npz
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/r %t/r.ptx --entry rope_dyn_f16 --inputs %t/2-in.npz --expect %t/2-out.npz --rtol 1e-3 --atol 1e-3 | FileCheck %s --check-prefix=DYN
// DYN: launch rope_dyn_f16_kernel: grid [2, 1, 1] block [256, 1, 1] shared 5120 bytes
// DYN: out0: ok (6912 elements, max abs error 0)
// DYN: 1 launches
// T = 0: one block a row that does nothing (no host branch around the launch).
// RUN: %PYTHON -c "import numpy as np; z = np.zeros((2, 0, 3, 128), np.float16); np.savez('%t/t0-in.npz', arg0=z); np.savez('%t/t0-out.npz', out0=z)"
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/r %t/r.ptx --entry rope_dyn_f16 --inputs %t/t0-in.npz --expect %t/t0-out.npz | FileCheck %s --check-prefix=EMPTY
// EMPTY: launch rope_dyn_f16_kernel: grid [2, 1, 1]
// EMPTY: out0: ok (0 elements
//
// RUN: %PYTHON %S/Inputs/rope_data.py rope_inter_partial_f32 %t/3-in.npz %t/3-out.npz
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/r %t/r.ptx --entry rope_inter_partial_f32 --inputs %t/3-in.npz --expect %t/3-out.npz --rtol 1e-5 --atol 1e-5 | FileCheck %s --check-prefix=INTER
// INTER: launch rope_inter_partial_f32_kernel: grid [2, 1, 1] block [256, 1, 1] shared 1280 bytes
// INTER: out0: ok (1152 elements
// INTER: 1 launches
//
// RUN: %PYTHON %S/Inputs/rope_data.py rope_yarn_bf16 %t/4-in.npz %t/4-out.npz
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/r %t/r.ptx --entry rope_yarn_bf16 --inputs %t/4-in.npz --expect %t/4-out.npz --rtol 1e-2 --atol 1e-2 | FileCheck %s --check-prefix=YARN
// YARN: launch rope_yarn_bf16_kernel: grid [1, 1, 1] block [256, 1, 1]
// YARN: out0: ok (384 elements, max abs error 0)
// YARN: 1 launches
//
// RUN: %PYTHON %S/Inputs/rope_data.py rope_qk_bf16 %t/5-in.npz %t/5-out.npz
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/r %t/r.ptx --entry rope_qk_bf16 --inputs %t/5-in.npz --expect %t/5-out.npz --rtol 1e-2 --atol 1e-2 | FileCheck %s --check-prefix=QK
// QK: launch rope_qk_bf16_kernel: grid [2, 1, 1] block [256, 1, 1] shared 2560 bytes
// QK: out0: ok (2048 elements, max abs error 0)
// QK: out1: ok (512 elements, max abs error 0)
// QK: 1 launches
//
// RUN: %PYTHON %S/Inputs/rope_data.py rope_odd_f16 %t/6-in.npz %t/6-out.npz
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/r %t/r.ptx --entry rope_odd_f16 --inputs %t/6-in.npz --expect %t/6-out.npz --rtol 1e-3 --atol 1e-3 | FileCheck %s --check-prefix=ODD
// ODD: launch rope_odd_f16_kernel: grid [1, 1, 1] block [256, 1, 1]
// ODD: out0: ok (60 elements, max abs error 0)
// ODD: 1 launches
//
// RUN: %PYTHON %S/Inputs/rope_data.py rope_pass_bf16 %t/7-in.npz %t/7-out.npz
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/r %t/r.ptx --entry rope_pass_bf16 --inputs %t/7-in.npz --expect %t/7-out.npz --rtol 1e-2 --atol 1e-2 | FileCheck %s --check-prefix=PASS
// PASS: launch rope_pass_bf16_kernel: grid [1, 1, 1] block [256, 1, 1]
// PASS: out0: ok (1200 elements, max abs error 0)
// PASS: 1 launches
//
// RUN: %PYTHON %S/Inputs/rope_data.py rope_unaligned_bf16 %t/8-in.npz %t/8-out.npz
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/r %t/r.ptx --entry rope_unaligned_bf16 --inputs %t/8-in.npz --expect %t/8-out.npz --rtol 1e-2 --atol 1e-2 | FileCheck %s --check-prefix=UNAL
// UNAL: launch rope_unaligned_bf16_kernel: grid [1, 1, 1] block [256, 1, 1]
// UNAL: out0: ok (1280 elements, max abs error 0)
// UNAL: 1 launches
//
// RoPE into a donated cache (k's rotation writes row `offset` of the cache view directly), then
// the attention over it: the caches compared after the call, exact.
// RUN: %PYTHON %S/Inputs/rope_data.py rope_cache_bf16 %t/9-in.npz %t/9-out.npz
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/r %t/r.ptx --entry rope_cache_bf16 --inputs %t/9-in.npz --expect %t/9-out.npz --rtol 1e-2 --atol 1e-2 | FileCheck %s --check-prefix=CACHE
// CACHE: launch rope_cache_bf16_kernel: grid [2, 1, 1] block [256, 1, 1]
// CACHE: out0: ok (256 elements, max abs error 0)
// CACHE: arg3: ok (2048 elements, max abs error 0)
// CACHE: arg4: ok (2048 elements, max abs error 0)
// CACHE: 4 launches
//
// The check can fail: against the reference of the opposite rotation (positions -p, same
// inputs) case 1 is reported as a mismatch.
// RUN: %PYTHON %S/Inputs/rope_data.py rope_q_bf16 %t/1-in.npz %t/1-neg.npz --negate-positions
// RUN: not %PYTHON %S/Inputs/gpusim_run.py %t/r %t/r.ptx --entry rope_q_bf16 --inputs %t/1-in.npz --expect %t/1-neg.npz --rtol 1e-2 --atol 1e-2 2>&1 | FileCheck %s --check-prefix=NEG
// NEG-NOT: out0: ok
// NEG: out0: MISMATCH at
