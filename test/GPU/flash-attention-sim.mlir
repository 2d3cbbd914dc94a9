// Numerics of the flash-attention kernels (decoda-gpu-flash-attention) on the PTX interpreter
// against reference.py's materialised softmax (Inputs/attention_data.py), one launch per call
// (two when the rows of a K/V head fit one block, as in cached_bf16: flash decoding's split
// kernel and combine, SIMT, flash-decoding-sim.mlir; a dynamic query count compiles both
// forms and picks one at run time, hence the {{(_[0-9]+)?}} in the kernel names).
// SIMT kernel (f32, or head dims the tensor-core kernel does not take): causal GQA with
// ragged key tiles and rows; bf16 MQA with a sliding window, batch 2 and a partly used value
// column (D = 40); f16 with Tq < Tk, chunks, softcap, sinks and Dv != D (D = 24); an additive
// mask with segment ids. The interpreter's race check catches a missing barrier before the
// key tile is overwritten.
// Tensor-core kernel (bf16/f16, mma.sync; compiled with --gpu-attention-wgmma=false, the sm_90a
// wgmma form being flash-attention-wgmma-sim.mlir's): bf16 cached attention at offset 29 (with the
// updated caches, D = 32); head dim 128 (T = 9); bf16 causal GQA with D = 64, T = 70 (rows
// and 64-key tiles ragged); f16 not causal, Tq = 20 < Tk = 45, D = 32 != Dv = 64, chunks,
// softcap, sinks (one 64-key tile); bf16 MQA with head dim 128, a window of 20 and batch 2 (T = 50, 32-key
// tiles, tiles outside the window skipped); f16 causal D = 16 with a mask and segment ids;
// bf16 not causal with Tq = 9 over 200 keys (four tiles: both stages refilled). Without the
// barrier that ends a tile, the interpreter reports the race of the next prefetch.
//
// Tolerances of the tensor-core cases: P is rounded to the storage type (unit roundoff
// u = 2^-8 for bf16, 2^-11 for f16) before P·V while the denominator sums the f32 values, so
// the unrounded output differs from the reference by at most u · max|v| (a weighted mean of
// per-key errors |p̃ - p| |v_j| <= u p |v_j|); both outputs are rounded once more (at most u
// relative each). Hence atol = 1.1 · u · max|v| (10% for the f32 sums and ex2.approx) and
// rtol = 2u: bf16 atol 4.3e-3 rtol 7.9e-3, f16 atol 5.4e-4 rtol 9.8e-4 for the cases whose
// values are uniform in [-1, 1] (attention_data.py prints max|v|); cached_bf16 (max|v| 3.56)
// and d128_bf16 (3.44): atol 1.55e-2.
// RUN: rm -rf %t && mkdir -p %t
// RUN: decoda-compile %S/Inputs/attention_cases.mlir --target=cuda --gpu-attention-wgmma=false --emit=ptx -o %t/a.ptx --dump-ir-after-each=%t/a
// RUN: %PYTHON %S/Inputs/attention_data.py gqa_causal %t/1-in.npz %t/1-out.npz
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/a %t/a.ptx --entry gqa_causal --inputs %t/1-in.npz --expect %t/1-out.npz --rtol 1e-5 --atol 1e-5 | FileCheck %s --check-prefix=GQA
// GQA: launch gqa_causal_kernel{{(_[0-9]+)?}}: grid [6, 2, 1] block [128, 1, 1] shared 10496 bytes; bar 32, shfl 2608
// GQA: out0: ok (5760 elements
// GQA: 1 launches
// RUN: %PYTHON %S/Inputs/attention_data.py mqa_window_bf16 %t/2-in.npz %t/2-out.npz
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/a %t/a.ptx --entry mqa_window_bf16 --inputs %t/2-in.npz --expect %t/2-out.npz --rtol 1e-2 --atol 1e-2 | FileCheck %s --check-prefix=MQA
// MQA: launch mqa_window_bf16_kernel{{(_[0-9]+)?}}: grid [7, 1, 2] block [128, 1, 1]
// MQA: out0: ok (8880 elements
// RUN: %PYTHON %S/Inputs/attention_data.py chunk_sinks_f16 %t/3-in.npz %t/3-out.npz
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/a %t/a.ptx --entry chunk_sinks_f16 --inputs %t/3-in.npz --expect %t/3-out.npz --rtol 1e-3 --atol 1e-3 | FileCheck %s --check-prefix=CHUNK
// CHUNK: out0: ok (160 elements
// RUN: %PYTHON %S/Inputs/attention_data.py mask_segments %t/4-in.npz %t/4-out.npz
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/a %t/a.ptx --entry mask_segments --inputs %t/4-in.npz --expect %t/4-out.npz --rtol 1e-5 --atol 1e-5 | FileCheck %s --check-prefix=MASK
// MASK: out0: ok (640 elements
// RUN: %PYTHON %S/Inputs/attention_data.py cached_bf16 %t/5-in.npz %t/5-out.npz
// The caches are donated (written into arguments 3 and 4, compared after the call).
// RUN: %PYTHON -c "import numpy as np; d = dict(np.load('%t/5-out.npz')); np.savez('%t/5-donated.npz', out0=d['out0'], arg3=d['out1'], arg4=d['out2'])"
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/a %t/a.ptx --entry cached_bf16 --inputs %t/5-in.npz --expect %t/5-donated.npz --rtol 7.9e-3 --atol 1.55e-2 | FileCheck %s --check-prefix=CACHED
// CACHED: out0: ok (384 elements
// CACHED: arg3: ok (4096 elements
// CACHED: arg4: ok (4096 elements
// RUN: %PYTHON %S/Inputs/attention_data.py d128_bf16 %t/6-in.npz %t/6-out.npz
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/a %t/a.ptx --entry d128_bf16 --inputs %t/6-in.npz --expect %t/6-out.npz --rtol 7.9e-3 --atol 1.55e-2 | FileCheck %s --check-prefix=D128
// D128: shared 34816 bytes
// D128: out0: ok (4608 elements
// RUN: %PYTHON %S/Inputs/attention_data.py tc_gqa_bf16 %t/7-in.npz %t/7-out.npz
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/a %t/a.ptx --entry tc_gqa_bf16 --inputs %t/7-in.npz --expect %t/7-out.npz --rtol 7.9e-3 --atol 4.3e-3 | FileCheck %s --check-prefix=TCGQA
// TCGQA: launch tc_gqa_bf16_kernel{{(_[0-9]+)?}}: grid [3, 2, 1] block [128, 1, 1] shared 36864 bytes
// TCGQA: out0: ok (17920 elements
// RUN: %PYTHON %S/Inputs/attention_data.py tc_chunk_sinks_f16 %t/8-in.npz %t/8-out.npz
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/a %t/a.ptx --entry tc_chunk_sinks_f16 --inputs %t/8-in.npz --expect %t/8-out.npz --rtol 9.8e-4 --atol 5.4e-4 | FileCheck %s --check-prefix=TCCHUNK
// TCCHUNK: launch tc_chunk_sinks_f16_kernel{{(_[0-9]+)?}}: grid [1, 2, 1] block [128, 1, 1] shared 28672 bytes
// TCCHUNK: out0: ok (2560 elements
// RUN: %PYTHON %S/Inputs/attention_data.py tc_window_d128_bf16 %t/9-in.npz %t/9-out.npz
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/a %t/a.ptx --entry tc_window_d128_bf16 --inputs %t/9-in.npz --expect %t/9-out.npz --rtol 7.9e-3 --atol 4.3e-3 | FileCheck %s --check-prefix=TCWIN
// TCWIN: launch tc_window_d128_bf16_kernel{{(_[0-9]+)?}}: grid [3, 1, 2] block [128, 1, 1] shared 34816 bytes
// TCWIN: out0: ok (38400 elements
// RUN: %PYTHON %S/Inputs/attention_data.py tc_mask_segments_f16 %t/10-in.npz %t/10-out.npz
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/a %t/a.ptx --entry tc_mask_segments_f16 --inputs %t/10-in.npz --expect %t/10-out.npz --rtol 9.8e-4 --atol 5.4e-4 | FileCheck %s --check-prefix=TCMASK
// TCMASK: launch tc_mask_segments_f16_kernel{{(_[0-9]+)?}}: grid [1, 2, 1] block [128, 1, 1] shared 12288 bytes
// TCMASK: out0: ok (1056 elements
// RUN: %PYTHON %S/Inputs/attention_data.py tc_long_bf16 %t/11-in.npz %t/11-out.npz
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/a %t/a.ptx --entry tc_long_bf16 --inputs %t/11-in.npz --expect %t/11-out.npz --rtol 7.9e-3 --atol 4.3e-3 | FileCheck %s --check-prefix=TCLONG
// TCLONG: launch tc_long_bf16_kernel{{(_[0-9]+)?}}: grid [1, 1, 1] block [128, 1, 1] shared 36864 bytes
// TCLONG: out0: ok (1152 elements
// Without the barrier that ends a tile, the prefetch of tile 2 refills the stage tile 0 was
// read from while other threads may still read it (a race the interpreter reports).
// RUN: awk '/gpu.binary @tc_long_bf16_kernel$/{on=1} on && /bar.sync/ {n++; if (n == 4) next} {print}' %t/a.ptx > %t/nobar-tc.ptx
// RUN: not %PYTHON %S/Inputs/gpusim_run.py %t/a %t/nobar-tc.ptx --entry tc_long_bf16 --inputs %t/11-in.npz --expect %t/11-out.npz 2>&1 | FileCheck %s --check-prefix=NOBAR
// The first barrier of every gqa_causal kernel module removed (the one-pass kernel runs at T = 45):
// RUN: awk '/gpu.binary @/{on=0; done=0} /gpu.binary @gqa_causal_kernel/{on=1} on && /bar.sync/ && !done {done=1; next} {print}' %t/a.ptx > %t/nobar.ptx
// RUN: not %PYTHON %S/Inputs/gpusim_run.py %t/a %t/nobar.ptx --entry gqa_causal --inputs %t/1-in.npz --expect %t/1-out.npz 2>&1 | FileCheck %s --check-prefix=NOBAR
// NOBAR: shared race
