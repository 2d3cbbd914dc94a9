// Numerics of flash decoding (decoda-gpu-flash-attention with the keys split over blocks, then
// a combining kernel) on the PTX interpreter against reference.py (Inputs/decode_attention_data.py,
// materialised softmax): f32 GQA over 700 keys in 3 splits; f16 with a 33-key window over 1000
// keys, softcap and sinks, in 4 splits of which 2 see no key; bf16 cached attention at batch 2
// with two new tokens (3 splits, the caches updated); a dynamic query count run at T = 3 (12
// rows: the split kernels, 1 split) and at T = 40 (the one-pass kernel, no combine).
// The tensor-core kernel's split form (bf16/f16 with 17 to 64 rows of a (batch, K/V head)):
// bf16 with 64 rows over 700 keys (3 splits); f16 with 20 rows, a 40-key window over 1000 keys,
// softcap and sinks (4 splits, 3 of them empty); bf16 cached attention with a dynamic token
// count at batch 2 run at T = 6 (24 rows: the tensor-core split form), T = 2 (8 rows: the SIMT
// split form) and T = 20 (80 rows: the one-pass kernel). The combining kernel has a thread per
// (row, value column): ceil(rows * Dv / 128) blocks per (K/V head, batch). Tolerances of the
// tensor-core cases as in flash-attention-sim.mlir (P rounded to the storage type before P·V,
// max|v| <= 1): bf16 atol 4.3e-3 rtol 7.9e-3, f16 atol 5.4e-4 rtol 9.8e-4; the partial
// accumulators are f32, so the split adds no rounding of its own. Compiled with
// --gpu-attention-wgmma=false: the mma.sync kernels (the wgmma split form: flash-attention-wgmma-sim.mlir).
// RUN: rm -rf %t && mkdir -p %t
// RUN: decoda-compile %S/Inputs/decode_attention_cases.mlir --target=cuda --gpu-attention-wgmma=false --emit=ptx -o %t/d.ptx --dump-ir-after-each=%t/d
// RUN: %PYTHON %S/Inputs/decode_attention_data.py decode_gqa %t/1-in.npz %t/1-out.npz
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/d %t/d.ptx --entry decode_gqa --inputs %t/1-in.npz --expect %t/1-out.npz --rtol 1e-5 --atol 1e-5 | FileCheck %s --check-prefix=GQA
// GQA: launch decode_gqa_kernel{{(_[0-9]+)?}}: grid [3, 2, 1] block [128, 1, 1]
// GQA: launch decode_gqa_kernel{{(_[0-9]+)?}}: grid [2, 2, 1] block [128, 1, 1]
// GQA: out0: ok (512 elements
// GQA: 2 launches
// RUN: %PYTHON %S/Inputs/decode_attention_data.py decode_window_sinks_f16 %t/2-in.npz %t/2-out.npz
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/d %t/d.ptx --entry decode_window_sinks_f16 --inputs %t/2-in.npz --expect %t/2-out.npz --rtol 1e-3 --atol 1e-3 | FileCheck %s --check-prefix=WIN
// WIN: launch decode_window_sinks_f16_kernel{{(_[0-9]+)?}}: grid [4, 1, 1] block [128, 1, 1]
// WIN: launch decode_window_sinks_f16_kernel{{(_[0-9]+)?}}: grid [1, 1, 1] block [128, 1, 1]
// WIN: out0: ok (64 elements
// RUN: %PYTHON %S/Inputs/decode_attention_data.py cached_decode_bf16 %t/3-in.npz %t/3-out.npz
// The caches are donated (written into arguments 3 and 4, compared after the call).
// RUN: %PYTHON -c "import numpy as np; d = dict(np.load('%t/3-out.npz')); np.savez('%t/3-donated.npz', out0=d['out0'], arg3=d['out1'], arg4=d['out2'])"
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/d %t/d.ptx --entry cached_decode_bf16 --inputs %t/3-in.npz --expect %t/3-donated.npz --rtol 1e-2 --atol 1e-2 | FileCheck %s --check-prefix=CACHED
// CACHED: grid [3, 1, 2] block [128, 1, 1]
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
// SPEC2: launch spec_cached_dyn_kernel{{(_[0-9]+)?}}: grid [3, 1, 2] block [128, 1, 1]
// SPEC2-NOT: mma
// SPEC2: launch spec_cached_dyn_kernel{{(_[0-9]+)?}}: grid [2, 1, 2] block [128, 1, 1] shared 0 bytes
// SPEC2: out0: ok (512 elements
// RUN: %PYTHON %S/Inputs/decode_attention_data.py spec_cached_t20 %t/10-in.npz %t/10-out.npz
// RUN: %PYTHON -c "import numpy as np; d = dict(np.load('%t/10-out.npz')); np.savez('%t/10-donated.npz', out0=d['out0'], arg3=d['out1'], arg4=d['out2'])"
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/d %t/d.ptx --entry spec_cached_dyn --inputs %t/10-in.npz --expect %t/10-donated.npz --rtol 7.9e-3 --atol 4.3e-3 | FileCheck %s --check-prefix=SPEC20
// SPEC20: launch spec_cached_dyn_kernel{{(_[0-9]+)?}}: grid [2, 1, 2] block [128, 1, 1] shared {{[0-9]+}} bytes; {{.*}}mma 
// SPEC20-NOT: launch spec_cached_dyn_kernel
// SPEC20: out0: ok (5120 elements
