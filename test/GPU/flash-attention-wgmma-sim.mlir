// Numerics of the sm_90a wgmma form of the tensor-core attention kernel (decoda-gpu-flash-attention
// {wgmma}, the default of decoda-lower-to-cuda for sm_90a; head dims 64 and 128) on the PTX
// interpreter against reference.py (Inputs/attention_data.py), with the tolerances of
// flash-attention-sim.mlir (P rounded to the storage type before P·V; V uniform in [-1, 1]):
// bf16 atol 4.3e-3 rtol 7.9e-3, f16 atol 5.4e-4 rtol 9.8e-4. Cases (Inputs/attention_wgmma_cases.mlir):
// f16 not causal with Tq < Tk over three 64-key tiles, D = 64 != Dv = 128 (V's two 64-column
// blocks), chunks, softcap, sinks; f16 causal with an additive mask and segment ids, two row
// blocks and a ragged key tile; bf16 causal GQA at head dim 128, batch 2, a last row block of 16
// rows; the split form (8 draft tokens x 8 query heads over 700 keys at head dim 128: 3 splits
// and the combining kernel). The mma.sync kernel gives the same maximum errors on these cases
// (checked by hand with --gpu-attention-wgmma=false); flash-attention-sim.mlir and
// flash-decoding-sim.mlir keep testing it.
// Broken on purpose, each caught: V read K-major (imm-trans-b 0: wrong numbers), V's descriptor
// with LBO 0 (the second 64 value columns read from the first block: wrong numbers), no
// fence.proxy.async between the cp.async writes and the wgmma reads (reported). Not caught: the
// barrier that ends a tile removed. The interpreter runs a wgmma as one warpgroup-wide op, so
// once any warp has waited for it its shared reads are over; on the hardware each warp's part
// of it may still be reading when another warp's prefetch refills the stage.
// RUN: rm -rf %t && mkdir -p %t
// RUN: decoda-compile %S/Inputs/attention_wgmma_cases.mlir --target=cuda --gpu-arch=sm_90a --emit=ptx -o %t/a.ptx --dump-ir-after-each=%t/a
// RUN: %PYTHON %S/Inputs/attention_data.py wg_chunk_sinks_f16 %t/1-in.npz %t/1-out.npz
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/a %t/a.ptx --entry wg_chunk_sinks_f16 --inputs %t/1-in.npz --expect %t/1-out.npz --rtol 9.8e-4 --atol 5.4e-4 | FileCheck %s --check-prefix=CHUNK
// CHUNK: launch wg_chunk_sinks_f16_kernel{{(_[0-9]+)?}}: grid [1, 2, 1] block [128, 1, 1] shared 0 + 58368 dynamic bytes; bar 4, cp 40, shfl 16, wgmma 28
// CHUNK: out0: ok (5120 elements
// CHUNK: 1 launches
// RUN: %PYTHON %S/Inputs/attention_data.py wg_mask_segments_f16 %t/2-in.npz %t/2-out.npz
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/a %t/a.ptx --entry wg_mask_segments_f16 --inputs %t/2-in.npz --expect %t/2-out.npz --rtol 9.8e-4 --atol 5.4e-4 | FileCheck %s --check-prefix=MASK
// MASK: launch wg_mask_segments_f16_kernel: grid [2, 2, 1] block [128, 1, 1] shared 0 + 41984 dynamic bytes; bar 12, cp 84, shfl 44, wgmma 84
// MASK: out0: ok (8960 elements
// RUN: %PYTHON %S/Inputs/attention_data.py wg_gqa_d128_bf16 %t/3-in.npz %t/3-out.npz
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/a %t/a.ptx --entry wg_gqa_d128_bf16 --inputs %t/3-in.npz --expect %t/3-out.npz --rtol 7.9e-3 --atol 4.3e-3 | FileCheck %s --check-prefix=GQA
// GQA: launch wg_gqa_d128_bf16_kernel{{(_[0-9]+)?}}: grid [2, 2, 2] block [128, 1, 1] shared 0 + 82944 dynamic bytes; {{.*}}wgmma 144
// GQA: out0: ok (40960 elements
// RUN: %PYTHON %S/Inputs/attention_data.py wg_spec_d128_bf16 %t/4-in.npz %t/4-out.npz
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/a %t/a.ptx --entry wg_spec_d128_bf16 --inputs %t/4-in.npz --expect %t/4-out.npz --rtol 7.9e-3 --atol 4.3e-3 | FileCheck %s --check-prefix=SPEC
// SPEC: launch wg_spec_d128_bf16_kernel: grid [3, 1, 1] block [128, 1, 1] shared 0 + 82944 dynamic bytes; {{.*}}wgmma 198
// SPEC: launch wg_spec_d128_bf16_kernel_{{[0-9]+}}: grid [64, 1, 1] block [128, 1, 1]
// SPEC: out0: ok (8192 elements
// SPEC: 2 launches
//
// RUN: sed 's/\(wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 .*, p, 1, 1, \)1;/\10;/' %t/a.ptx > %t/notrans.ptx
// RUN: not %PYTHON %S/Inputs/gpusim_run.py %t/a %t/notrans.ptx --entry wg_gqa_d128_bf16 --inputs %t/3-in.npz --expect %t/3-out.npz --rtol 7.9e-3 --atol 4.3e-3 2>&1 | FileCheck %s --check-prefix=WRONG
// LBO 8192 >> 4 = 512 at bit 16 (64-key tiles of 128-byte rows), SBO 1024 >> 4 at bit 32, mode 1 at bit 62:
// RUN: sed 's/4611686293338849280;/4611686293305294848;/' %t/a.ptx > %t/lbo.ptx
// RUN: not %PYTHON %S/Inputs/gpusim_run.py %t/a %t/lbo.ptx --entry wg_gqa_d128_bf16 --inputs %t/3-in.npz --expect %t/3-out.npz --rtol 7.9e-3 --atol 4.3e-3 2>&1 | FileCheck %s --check-prefix=WRONG
// WRONG: out0: MISMATCH
// RUN: grep -c 'fence.proxy.async.shared::cta' %t/a.ptx | FileCheck %s --check-prefix=FENCES
// FENCES: {{^[1-9]}}
// RUN: grep -v 'fence.proxy.async.shared::cta' %t/a.ptx > %t/nofence.ptx
// RUN: not %PYTHON %S/Inputs/gpusim_run.py %t/a %t/nofence.ptx --entry wg_mask_segments_f16 --inputs %t/2-in.npz --expect %t/2-out.npz 2>&1 | FileCheck %s --check-prefix=NOFENCE
// NOFENCE: without a fence.proxy.async
