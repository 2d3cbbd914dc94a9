// The host side of a TMA kernel on the fake driver (Inputs/fake_cuda.c): the K projection of
// tensorcore-wgmma-ptx.mlir (bf16 2048 -> 512, T dynamic) compiled for sm_90a, run 4 times
// (--bench 3 and the printed run) with both inputs in device memory (--device-inputs): each of
// A's and B's tensor maps is encoded and uploaded (128 bytes) once and found in the thread's
// cache on the other 3 calls; the kernel's 132128 bytes of dynamic shared memory are allowed
// once (cuFuncSetAttribute 8, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES), which the fake
// driver requires of every launch over 48 KiB, as a GPU does. The maps: A with T = 300 rows in
// boxes of 128 rows, B with 512 rows.
// RUN: rm -rf %t && mkdir -p %t
// RUN: decoda-compile %s --target=cuda --gpu-arch=sm_90a -o %t/m.so
// RUN: cc -shared -fPIC %S/Inputs/fake_cuda.c -o %t/fake_cuda.so
// RUN: %PYTHON -c "import numpy as np; np.save('%t/x.npy', np.full((1, 300, 2048), 0x3f80, np.uint16)); np.save('%t/x0.npy', np.zeros((1, 0, 2048), np.uint16)); np.save('%t/w.npy', np.full((512, 2048), 0x3f80, np.uint16))"
// RUN: env FAKE_CUDA_LOG=%t/log DECODA_CUDA_DRIVER=%t/fake_cuda.so decoda-run %t/m.so --input arg0=%t/x.npy --input arg1=%t/w.npy --device-inputs --bench 3 --warmup 0 > /dev/null
// RUN: %PYTHON -c "import collections; c = collections.Counter(l.strip() for l in open('%t/log')); print(*[k + ': ' + str(c[k]) for k in ('tensor map rows 300', 'tensor map rows 512', 'tensor map box rows 128', 'copy 128', 'func attribute 8', 'launch shared=132128')], sep='; ')" | FileCheck %s
// CHECK: tensor map rows 300: 1; tensor map rows 512: 1; tensor map box rows 128: 2; copy 128: 2; func attribute 8: 1; launch shared=132128: 4
// T = 0: A has no map (an empty matrix; the kernel's grid is empty and nothing is launched),
// B's is encoded.
// RUN: env FAKE_CUDA_LOG=%t/log0 DECODA_CUDA_DRIVER=%t/fake_cuda.so decoda-run %t/m.so --input arg0=%t/x0.npy --input arg1=%t/w.npy --device-inputs > /dev/null
// RUN: %PYTHON -c "import collections; c = collections.Counter(l.strip() for l in open('%t/log0')); print(*[k + ': ' + str(c[k]) for k in ('tensor map rows 512', 'launch shared=132128')], sep='; '); print('maps', sum(v for k, v in c.items() if k.startswith('tensor map rows')))" | FileCheck %s --check-prefix=EMPTY
// EMPTY: tensor map rows 512: 1; launch shared=132128: 0
// EMPTY: maps 1
// A driver without cuTensorMapEncodeTiled (before CUDA 12): the call fails with the reason and
// the way out, and decoda-run exits non-zero.
// RUN: cc -shared -fPIC -DFAKE_CUDA_NO_TMA %S/Inputs/fake_cuda.c -o %t/fake_cuda_old.so
// RUN: env DECODA_CUDA_DRIVER=%t/fake_cuda_old.so not decoda-run %t/m.so --input arg0=%t/x.npy --input arg1=%t/w.npy 2>&1 | FileCheck %s --check-prefix=OLD
// OLD: CUDA: encoding a TMA tensor map failed: the CUDA driver has no cuTensorMapEncodeTiled (TMA needs a CUDA 12 or newer driver; compile with --gpu-tma=false for cp.async kernels)
// 3-D maps (decoda_cuda_tensor_map_3d, the driver table's tensor_map_encode_3d): the wgmma
// attention with TMA-loaded K/V tiles (--gpu-attention-tma, Inputs/tma3_attention.mlir: B = 2,
// T = 150, 2 K/V heads of 128) run 3 times with its inputs in device memory: K's and V's maps
// (2 planes of 150 rows, boxes of 64 rows) are encoded and uploaded once each and found in the
// thread's cache on the other 2 calls. T = 0: no keys, no maps, no launch.
// RUN: decoda-compile %S/Inputs/tma3_attention.mlir --target=cuda --gpu-arch=sm_90a --gpu-attention-tma -o %t/a3.so
// RUN: %PYTHON -c "import numpy as np; [np.save('%t/' + n + str(t) + '.npy', np.full((2, t, h, 128), 0x3f80, np.uint16)) for n, h in (('q', 4), ('k', 2), ('v', 2)) for t in (150, 0)]"
// RUN: env FAKE_CUDA_LOG=%t/log3 DECODA_CUDA_DRIVER=%t/fake_cuda.so decoda-run %t/a3.so --input arg0=%t/q150.npy --input arg1=%t/k150.npy --input arg2=%t/v150.npy --device-inputs --bench 2 --warmup 0 > /dev/null
// RUN: %PYTHON -c "import collections; c = collections.Counter(l.strip() for l in open('%t/log3')); print(*[k + ': ' + str(c[k]) for k in ('tensor map planes 2', 'tensor map rows 150', 'tensor map box rows 64', 'copy 128')], sep='; '); print('launches', sum(v for k, v in c.items() if k.startswith('launch shared=')))" | FileCheck %s --check-prefix=MAP3
// MAP3: tensor map planes 2: 2; tensor map rows 150: 2; tensor map box rows 64: 2; copy 128: 2
// MAP3: launches 3
// RUN: touch %t/log30 && env FAKE_CUDA_LOG=%t/log30 DECODA_CUDA_DRIVER=%t/fake_cuda.so decoda-run %t/a3.so --input arg0=%t/q0.npy --input arg1=%t/k0.npy --input arg2=%t/v0.npy --device-inputs > /dev/null
// RUN: %PYTHON -c "import collections; c = collections.Counter(l.strip() for l in open('%t/log30')); print('maps', sum(v for k, v in c.items() if k.startswith('tensor map rows')), 'launches', sum(v for k, v in c.items() if k.startswith('launch shared=')))" | FileCheck %s --check-prefix=EMPTY3
// EMPTY3: maps 0 launches 0
// On a driver without cuTensorMapEncodeTiled the way out is the attention's flag, not --gpu-tma.
// RUN: env DECODA_CUDA_DRIVER=%t/fake_cuda_old.so not decoda-run %t/a3.so --input arg0=%t/q150.npy --input arg1=%t/k150.npy --input arg2=%t/v150.npy 2>&1 | FileCheck %s --check-prefix=OLD3
// OLD3: CUDA: encoding a TMA tensor map failed: the CUDA driver has no cuTensorMapEncodeTiled (TMA needs a CUDA 12 or newer driver; compile without --gpu-attention-tma for the cp.async attention kernel)
// --gpu-tma=false: the cp.async kernel (static shared memory, no maps) runs on that driver.
// RUN: decoda-compile %s --target=cuda --gpu-arch=sm_90a --gpu-tma=false -o %t/m2.so
// RUN: env FAKE_CUDA_LOG=%t/log2 DECODA_CUDA_DRIVER=%t/fake_cuda_old.so decoda-run %t/m2.so --input arg0=%t/x.npy --input arg1=%t/w.npy > /dev/null
// RUN: %PYTHON -c "import collections; c = collections.Counter(l.strip() for l in open('%t/log2')); print('maps', sum(v for k, v in c.items() if k.startswith('tensor map')), 'attributes', c['func attribute 8'], 'launches', sum(v for k, v in c.items() if k.startswith('launch shared=')), 'dynamic', sum(v for k, v in c.items() if k.startswith('launch shared=') and k != 'launch shared=0'))" | FileCheck %s --check-prefix=CPASYNC
// CPASYNC: maps 0 attributes 0 launches 1 dynamic 0
// The flags are refused where they would do nothing: without --target=cuda, TMA on another
// architecture, warp specialisation or gate-up kernels without TMA.
// RUN: not decoda-compile %s --gpu-tma=false -o %t/cpu.so 2>&1 | FileCheck %s --check-prefix=FLAG
// FLAG: --gpu-tma needs --target=cuda
// RUN: not decoda-compile %s --target=cuda --gpu-arch=sm_80 --gpu-tma -o %t/80.so 2>&1 | FileCheck %s --check-prefix=FLAG80
// FLAG80: --gpu-tma needs --gpu-arch=sm_90a (TMA-fed wgmma kernels; --gpu-arch=sm_80 has none)
// RUN: not decoda-compile %s --target=cuda --gpu-tma=false --gpu-warp-specialize -o %t/ws.so 2>&1 | FileCheck %s --check-prefix=FLAGWS
// RUN: not decoda-compile %s --target=cuda --gpu-arch=sm_90 --gpu-warp-specialize -o %t/ws.so 2>&1 | FileCheck %s --check-prefix=FLAGWS
// FLAGWS: --gpu-warp-specialize needs --gpu-arch=sm_90a and --gpu-tma (it specialises the TMA wgmma kernel)
// RUN: not decoda-compile %s --gpu-warp-specialize -o %t/cpu.so 2>&1 | FileCheck %s --check-prefix=FLAGCPU
// FLAGCPU: --gpu-warp-specialize needs --target=cuda
// RUN: not decoda-compile %s --target=cuda --gpu-tma=false --gpu-gate-up -o %t/gu.so 2>&1 | FileCheck %s --check-prefix=FLAGGU
// RUN: not decoda-compile %s --gpu-gate-up=false -o %t/gu.so 2>&1 | FileCheck %s --check-prefix=FLAGGU
// FLAGGU: decoda-compile: error: --gpu-gate-up needs --target=cuda --gpu-arch=sm_90a and --gpu-tma (it is a form of the TMA wgmma kernel; elsewhere, on or off, it would change nothing)
func.func @k_proj(%x: tensor<1x?x2048xbf16>, %w: tensor<512x2048xbf16>) -> tensor<1x?x512xbf16> {
  %y = decoda.linear %x, %w : tensor<1x?x2048xbf16>, tensor<512x2048xbf16>
  return %y : tensor<1x?x512xbf16>
}
