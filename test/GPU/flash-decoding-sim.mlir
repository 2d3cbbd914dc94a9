// Numerics of flash decoding (decoda-gpu-flash-attention with the keys split over blocks, then
// a combining kernel) on the PTX interpreter against reference.py (Inputs/decode_attention_data.py,
// materialised softmax). The SIMT split form: splits = max(1, min(ceil(528 / (B Hkv)),
// ceil(keys / 64), 64)): f32 GQA over 700 keys in 11 splits; f16 with a 33-key window over 1000
// keys, softcap and sinks, in 16 splits of which 14 see no key; bf16 cached attention at batch 2
// with two new tokens (519 keys: 9 splits, the caches updated); a dynamic query count run at
// T = 3 (12 rows: the split kernels, 1 split) and at T = 40 (the one-pass kernel, no combine);
// bf16 at head dim 128 over 3000 keys in 47 splits and f16 with a 100-key window and sinks over
// 2100 keys in 33 splits, 29 of them empty (the combine steps over 8 splits at a time: these
// end in steps of 7 and of 1 split); bf16 at head dim 36 (element-by-element staging, not
// 16-byte chunks) over 300 keys in 5 splits.
// The tensor-core kernel's split form (bf16/f16 with 17 to 64 rows of a (batch, K/V head);
// its own count, max(1, min(ceil(264 / (B Hkv)), ceil(keys / 256), 64))): bf16 with 64 rows over 700 keys (3 splits); f16 with 20 rows, a 40-key window over 1000 keys,
// softcap and sinks (4 splits, 3 of them empty); bf16 cached attention with a dynamic token
// count at batch 2 run at T = 6 (24 rows: the tensor-core split form, 3 splits), T = 2 (8 rows:
// the SIMT split form, 9 splits) and T = 20 (80 rows: the one-pass kernel). The combining kernel has a thread per
// (row, value column): ceil(rows * Dv / 128) blocks per (K/V head, batch). Tolerances of the
// tensor-core cases as in flash-attention-sim.mlir (P rounded to the storage type before P·V,
// max|v| <= 1): bf16 atol 4.3e-3 rtol 7.9e-3, f16 atol 5.4e-4 rtol 9.8e-4; the partial
// accumulators are f32, so the split adds no rounding of its own. Compiled with
// --gpu-attention-wgmma=false: the mma.sync kernels (the wgmma split form: flash-attention-wgmma-sim.mlir).
// RUN: rm -rf %t && mkdir -p %t
// RUN: decoda-compile %S/Inputs/decode_attention_cases.mlir --target=cuda --gpu-attention-wgmma=false --emit=ptx -o %t/d.ptx --dump-ir-after-each=%t/d
// RUN: %PYTHON %S/Inputs/decode_attention_data.py decode_gqa %t/1-in.npz %t/1-out.npz
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/d %t/d.ptx --entry decode_gqa --inputs %t/1-in.npz --expect %t/1-out.npz --rtol 1e-5 --atol 1e-5 | FileCheck %s --check-prefix=GQA
// GQA: launch decode_gqa_kernel{{(_[0-9]+)?}}: grid [11, 2, 1] block [128, 1, 1]
// GQA: launch decode_gqa_kernel{{(_[0-9]+)?}}: grid [2, 2, 1] block [128, 1, 1]
// GQA: out0: ok (512 elements
// GQA: 2 launches
// RUN: %PYTHON %S/Inputs/decode_attention_data.py decode_window_sinks_f16 %t/2-in.npz %t/2-out.npz
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/d %t/d.ptx --entry decode_window_sinks_f16 --inputs %t/2-in.npz --expect %t/2-out.npz --rtol 1e-3 --atol 1e-3 | FileCheck %s --check-prefix=WIN
// WIN: launch decode_window_sinks_f16_kernel{{(_[0-9]+)?}}: grid [16, 1, 1] block [128, 1, 1]
// WIN: launch decode_window_sinks_f16_kernel{{(_[0-9]+)?}}: grid [1, 1, 1] block [128, 1, 1]
// WIN: out0: ok (64 elements
// RUN: %PYTHON %S/Inputs/decode_attention_data.py cached_decode_bf16 %t/3-in.npz %t/3-out.npz
// The caches are donated (written into arguments 3 and 4, compared after the call).
// RUN: %PYTHON -c "import numpy as np; d = dict(np.load('%t/3-out.npz')); np.savez('%t/3-donated.npz', out0=d['out0'], arg3=d['out1'], arg4=d['out2'])"
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/d %t/d.ptx --entry cached_decode_bf16 --inputs %t/3-in.npz --expect %t/3-donated.npz --rtol 1e-2 --atol 1e-2 | FileCheck %s --check-prefix=CACHED
// CACHED: grid [9, 1, 2] block [128, 1, 1]
// CACHED: out0: ok (512 elements, max abs error 0)
// CACHED: arg3: ok (40960 elements, max abs error 0)
// CACHED: arg4: ok (40960 elements, max abs error 0)
// RUN: %PYTHON %S/Inputs/decode_attention_data.py dynamic_t3 %t/4-in.npz %t/4-out.npz
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/d %t/d.ptx --entry dynamic_t --inputs %t/4-in.npz --expect %t/4-out.npz --rtol 1e-5 --atol 1e-5 | FileCheck %s --check-prefix=T3
// T3: grid [1, 1, 1] block [128, 1, 1]
// T3: grid [3, 1, 1] block [128, 1, 1] shared 0 bytes
// T3: out0: ok (384 elements
// T3: 2 launches
// RUN: %PYTHON %S/Inputs/decode_attention_data.py dynamic_t40 %t/5-in.npz %t/5-out.npz
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/d %t/d.ptx --entry dynamic_t --inputs %t/5-in.npz --expect %t/5-out.npz --rtol 1e-5 --atol 1e-5 | FileCheck %s --check-prefix=T40
// T40: grid [10, 1, 1] block [128, 1, 1]
// T40: out0: ok (5120 elements
// T40: 1 launches
// Many splits: the combine's last step of 8 only partly filled (clamped loads discarded),
// empty splits in it and before it. Combine grids: ceil(4 rows * Dv / 128) blocks.
// RUN: %PYTHON %S/Inputs/decode_attention_data.py decode_many_d128_bf16 %t/11-in.npz %t/11-out.npz
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/d %t/d.ptx --entry decode_many_d128_bf16 --inputs %t/11-in.npz --expect %t/11-out.npz --rtol 1e-2 --atol 1e-2 | FileCheck %s --check-prefix=MANY
// MANY: launch decode_many_d128_bf16_kernel{{(_[0-9]+)?}}: grid [47, 1, 1] block [128, 1, 1] shared 41216 bytes
// MANY: launch decode_many_d128_bf16_kernel{{(_[0-9]+)?}}: grid [4, 1, 1] block [128, 1, 1] shared 0 bytes
// MANY: out0: ok (512 elements
// MANY: 2 launches
// RUN: %PYTHON %S/Inputs/decode_attention_data.py decode_window_many_f16 %t/12-in.npz %t/12-out.npz
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/d %t/d.ptx --entry decode_window_many_f16 --inputs %t/12-in.npz --expect %t/12-out.npz --rtol 1e-3 --atol 1e-3 | FileCheck %s --check-prefix=WINMANY
// WINMANY: launch decode_window_many_f16_kernel{{(_[0-9]+)?}}: grid [33, 1, 1] block [128, 1, 1]
// WINMANY: launch decode_window_many_f16_kernel{{(_[0-9]+)?}}: grid [2, 1, 1] block [128, 1, 1] shared 0 bytes
// WINMANY: out0: ok (256 elements
// WINMANY: 2 launches
// RUN: %PYTHON %S/Inputs/decode_attention_data.py decode_ragged_bf16 %t/13-in.npz %t/13-out.npz
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/d %t/d.ptx --entry decode_ragged_bf16 --inputs %t/13-in.npz --expect %t/13-out.npz --rtol 1e-2 --atol 1e-2 | FileCheck %s --check-prefix=RAGGED
// RAGGED: launch decode_ragged_bf16_kernel{{(_[0-9]+)?}}: grid [5, 1, 1] block [128, 1, 1]
// RAGGED: launch decode_ragged_bf16_kernel{{(_[0-9]+)?}}: grid [2, 1, 1] block [128, 1, 1] shared 0 bytes
// RAGGED: out0: ok (144 elements
// RAGGED: 2 launches
// The wide staging's 16-byte loads are in the split kernels with whole 16-byte chunks, not in
// the ragged one (head dim 36 bf16: 72-byte rows).
// RUN: %PYTHON -c "import re; t = open('%t/d.ptx').read(); p = re.split(r'(?m)^// gpu.binary @(\S+)\n', t); k = dict(zip(p[1::2], p[2::2])); [print(e, 'v4', k[e + '_kernel'].count('ld.global.v4.b32')) for e in ('decode_gqa', 'decode_many_d128_bf16', 'decode_window_many_f16', 'decode_ragged_bf16')]" | FileCheck %s --check-prefix=WIDE
// WIDE: decode_gqa v4 16
// WIDE-NEXT: decode_many_d128_bf16 v4 16
// WIDE-NEXT: decode_window_many_f16 v4 8
// WIDE-NEXT: decode_ragged_bf16 v4 0
// RUN: %PYTHON %S/Inputs/decode_attention_data.py spec_bf16 %t/6-in.npz %t/6-out.npz
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/d %t/d.ptx --entry spec_bf16 --inputs %t/6-in.npz --expect %t/6-out.npz --rtol 7.9e-3 --atol 4.3e-3 | FileCheck %s --check-prefix=SPEC
// SPEC: launch spec_bf16_kernel{{(_[0-9]+)?}}: grid [3, 1, 1] block [128, 1, 1] shared 36864 bytes; {{.*}}mma 
// SPEC: launch spec_bf16_kernel{{(_[0-9]+)?}}: grid [32, 1, 1] block [128, 1, 1] shared 0 bytes
// SPEC: out0: ok (4096 elements
// SPEC: 2 launches
// RUN: %PYTHON %S/Inputs/decode_attention_data.py spec_window_sinks_f16 %t/7-in.npz %t/7-out.npz
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/d %t/d.ptx --entry spec_window_sinks_f16 --inputs %t/7-in.npz --expect %t/7-out.npz --rtol 9.8e-4 --atol 5.4e-4 | FileCheck %s --check-prefix=SPECWIN
// SPECWIN: launch spec_window_sinks_f16_kernel{{(_[0-9]+)?}}: grid [4, 1, 1] block [128, 1, 1] shared {{[0-9]+}} bytes; {{.*}}mma 
// SPECWIN: launch spec_window_sinks_f16_kernel{{(_[0-9]+)?}}: grid [3, 1, 1] block [128, 1, 1] shared 0 bytes
// SPECWIN: out0: ok (320 elements
// SPECWIN: 2 launches
// The donated caches are compared after the call (arguments 3 and 4).
// RUN: %PYTHON %S/Inputs/decode_attention_data.py spec_cached_t6 %t/8-in.npz %t/8-out.npz
// RUN: %PYTHON -c "import numpy as np; d = dict(np.load('%t/8-out.npz')); np.savez('%t/8-donated.npz', out0=d['out0'], arg3=d['out1'], arg4=d['out2'])"
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/d %t/d.ptx --entry spec_cached_dyn --inputs %t/8-in.npz --expect %t/8-donated.npz --rtol 7.9e-3 --atol 4.3e-3 | FileCheck %s --check-prefix=SPEC6
// SPEC6: launch spec_cached_dyn_kernel{{(_[0-9]+)?}}: grid [3, 1, 2] block [128, 1, 1] shared {{[0-9]+}} bytes; {{.*}}mma 
// SPEC6: launch spec_cached_dyn_kernel{{(_[0-9]+)?}}: grid [6, 1, 2] block [128, 1, 1] shared 0 bytes
// SPEC6: out0: ok (1536 elements
// SPEC6: arg3: ok (40960 elements, max abs error 0)
// SPEC6: arg4: ok (40960 elements, max abs error 0)
// RUN: %PYTHON %S/Inputs/decode_attention_data.py spec_cached_t2 %t/9-in.npz %t/9-out.npz
// RUN: %PYTHON -c "import numpy as np; d = dict(np.load('%t/9-out.npz')); np.savez('%t/9-donated.npz', out0=d['out0'], arg3=d['out1'], arg4=d['out2'])"
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/d %t/d.ptx --entry spec_cached_dyn --inputs %t/9-in.npz --expect %t/9-donated.npz --rtol 1e-2 --atol 1e-2 | FileCheck %s --check-prefix=SPEC2
// SPEC2-NOT: mma
// SPEC2: launch spec_cached_dyn_kernel{{(_[0-9]+)?}}: grid [9, 1, 2] block [128, 1, 1]
// SPEC2-NOT: mma
// SPEC2: launch spec_cached_dyn_kernel{{(_[0-9]+)?}}: grid [2, 1, 2] block [128, 1, 1] shared 0 bytes
// SPEC2: out0: ok (512 elements
// RUN: %PYTHON %S/Inputs/decode_attention_data.py spec_cached_t20 %t/10-in.npz %t/10-out.npz
// RUN: %PYTHON -c "import numpy as np; d = dict(np.load('%t/10-out.npz')); np.savez('%t/10-donated.npz', out0=d['out0'], arg3=d['out1'], arg4=d['out2'])"
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/d %t/d.ptx --entry spec_cached_dyn --inputs %t/10-in.npz --expect %t/10-donated.npz --rtol 7.9e-3 --atol 4.3e-3 | FileCheck %s --check-prefix=SPEC20
// SPEC20: launch spec_cached_dyn_kernel{{(_[0-9]+)?}}: grid [2, 1, 2] block [128, 1, 1] shared {{[0-9]+}} bytes; {{.*}}mma 
// SPEC20-NOT: launch spec_cached_dyn_kernel
// SPEC20: out0: ok (5120 elements
