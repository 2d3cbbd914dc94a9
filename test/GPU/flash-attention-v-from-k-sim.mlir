// Numerics of the SIMT attention kernel reading P·V from its K tile when V is the first Dv
// columns of K (flash-attention-v-from-k.mlir), on the PTX interpreter against reference.py
// (Inputs/attention_data.py), sm_90a: absorbed MLA with V the slice of K (bf16, D = 576, Dv =
// 512, 16 heads over one K/V head; 110720 bytes of tiles instead of 176384) as a decode step
// at batch 2 (the split form) and a three-token chunk (3 row blocks); f32 with ragged head
// dims (D = 70, Dv = 40: element-by-element staging, static tiles, padded value columns);
// V another slice of K (columns 64 .. 575: staged as its own tile); and decoda.mla itself
// compiled with absorb-mla (W_UK into the query, MQA over [c ; k_rope] with V its first 512
// columns, W_UV after; f32 and bf16) against reference.mla, the decompressed form: K read from
// the latent and RoPE key buffers themselves (flash-attention-split-key.mlir). Every block's shared
// memory starts as 0xff bytes (--shared-fill: NaN). Tolerances as in
// flash-attention-dynamic-shared-sim.mlir: f32 1e-5, bf16 rtol 7.9e-3 and atol 1e-3.
// RUN: rm -rf %t && mkdir -p %t
// RUN: decoda-compile %S/Inputs/attention_vfromk_cases.mlir --target=cuda --gpu-arch=sm_90a --graph-opt-options='absorb-mla=true' --emit=ptx -o %t/a.ptx --dump-ir-after-each=%t/a
//
// RUN: %PYTHON %S/Inputs/attention_data.py vk_mla_decode_bf16 %t/1-in.npz %t/1-out.npz
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/a %t/a.ptx --entry vk_mla_bf16 --inputs %t/1-in.npz --expect %t/1-out.npz --rtol 7.9e-3 --atol 1e-3 --shared-fill 0xff | FileCheck %s --check-prefix=DEC
// DEC: launch vk_mla_bf16_kernel{{(_[0-9]+)?}}: grid [4, 1, 2] block [128, 1, 1] shared 0 + 110720 dynamic bytes
// DEC: launch vk_mla_bf16_kernel{{(_[0-9]+)?}}: grid [64, 1, 2] block [128, 1, 1] shared 0 bytes
// DEC: out0: ok (16384 elements
// DEC: 2 launches
//
// RUN: %PYTHON %S/Inputs/attention_data.py vk_mla_chunk_bf16 %t/2-in.npz %t/2-out.npz
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/a %t/a.ptx --entry vk_mla_bf16 --inputs %t/2-in.npz --expect %t/2-out.npz --rtol 7.9e-3 --atol 1e-3 --shared-fill 0xff | FileCheck %s --check-prefix=CHUNK
// CHUNK: launch vk_mla_bf16_kernel{{(_[0-9]+)?}}: grid [6, 1, 1] block [128, 1, 1] shared 0 + 110720 dynamic bytes
// CHUNK: out0: ok (24576 elements
// CHUNK: 2 launches
//
// RUN: %PYTHON %S/Inputs/attention_data.py vk_ragged_f32 %t/3-in.npz %t/3-out.npz
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/a %t/a.ptx --entry vk_ragged_f32 --inputs %t/3-in.npz --expect %t/3-out.npz --rtol 1e-5 --atol 1e-5 --shared-fill 0xff | FileCheck %s --check-prefix=RAG
// RAG: launch vk_ragged_f32_kernel{{(_[0-9]+)?}}: grid [5, 2, 1] block [128, 1, 1] shared 13568 bytes
// RAG: out0: ok (5920 elements
// RAG: 1 launches
//
// RUN: %PYTHON %S/Inputs/attention_data.py vk_offset_bf16 %t/4-in.npz %t/4-out.npz
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/a %t/a.ptx --entry vk_offset_bf16 --inputs %t/4-in.npz --expect %t/4-out.npz --rtol 7.9e-3 --atol 1e-3 --shared-fill 0xff | FileCheck %s --check-prefix=OFF
// OFF: launch vk_offset_bf16_kernel{{(_[0-9]+)?}}: grid [3, 1, 1] block [128, 1, 1] shared 0 + 176384 dynamic bytes
// OFF: out0: ok (8192 elements
//
// RUN: %PYTHON %S/Inputs/attention_data.py vk_mla_f32 %t/5-in.npz %t/5-out.npz
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/a %t/a.ptx --entry vk_mla_f32 --inputs %t/5-in.npz --expect %t/5-out.npz --rtol 1e-5 --atol 1e-5 --shared-fill 0xff | FileCheck %s --check-prefix=MLA
// MLA: launch vk_mla_f32_kernel{{(_[0-9]+)?}}: grid [3, 1, 2] block [128, 1, 1] shared 0 + 110720 dynamic bytes
// MLA: out0: ok (2048 elements
//
// RUN: %PYTHON %S/Inputs/attention_data.py vk_mla_bf16_full %t/6-in.npz %t/6-out.npz
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/a %t/a.ptx --entry vk_mla_bf16_full --inputs %t/6-in.npz --expect %t/6-out.npz --rtol 7.9e-3 --atol 1e-3 --shared-fill 0xff | FileCheck %s --check-prefix=MLABF
// MLABF: launch vk_mla_bf16_full_kernel{{(_[0-9]+)?}}: grid [5, 1, 2] block [128, 1, 1] shared 0 + 110720 dynamic bytes
// MLABF: out0: ok (2048 elements
//
// In both decoda.mla programs the attention reads K from the latent and the RoPE key buffers
// (flash-attention-split-key.mlir): the call's fifth operand is the RoPE key, no copy into
// [c ; k_rope] is left before it.
// RUN: cat %t/a/*-decoda-gpu-flash-attention.mlir | FileCheck %s --check-prefix=SPLIT
// SPLIT-COUNT-2: call @__decoda_gpu_attention{{(_[0-9]+)?}}({{.*}}, index, memref<2x?x1x64x{{f32|bf16}}>) -> memref<2x1x16x512x{{f32|bf16}}>
//
// Mutations: another input set's reference must not match (the comparisons can fail).
// RUN: not %PYTHON %S/Inputs/gpusim_run.py %t/a %t/a.ptx --entry vk_ragged_f32 --inputs %t/3-in.npz --expect %t/1-out.npz --rtol 1e-5 --atol 1e-5 2>&1 | FileCheck %s --check-prefix=MUT
// MUT: out0
//
// ptxas (sm_90a): the kernels with dynamic tiles, and those of DeepSeek-V3's 128-head step
// (bench/gpu/mla128_latent_decode.mlir: the split form over 8 row blocks), neither spill nor
// use a stack frame (the uncarried chunks' indices computed in their staging loop: about 160
// registers a thread for the MLA kernels, 255 with spills before).
// RUN: decoda-compile %decoda_src/bench/gpu/mla128_latent_decode.mlir --target=cuda --gpu-arch=sm_90a --emit=ptx -o %t/v3.ptx
// RUN: %PYTHON -c "import re; [open('%t/k-' + f + n + '.ptx', 'w').write(b) for f in ('a', 'v3') for p in [re.split(r'(?m)^// gpu.binary @(\S+)\n', open('%t/' + f + '.ptx').read())] for n, b in zip(p[1::2], p[2::2]) if '__dynamic_shmem__' in b]; print('dynamic', len([1 for f in ('a', 'v3') for b in re.split(r'(?m)^// gpu.binary @\S+\n', open('%t/' + f + '.ptx').read()) if '__dynamic_shmem__' in b]))" | FileCheck %s --check-prefix=NDYN
// NDYN: dynamic 7
// RUN: for f in %t/k-*.ptx; do %ptxas -arch=sm_90a -v $f -o %t/k.cubin 2>&1; done | FileCheck %s --check-prefix=PTXAS
// PTXAS-COUNT-7: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// PTXAS-NOT: spill
