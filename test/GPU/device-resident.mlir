// Device-resident inputs of a CUDA model (docs/ABI.md, "Device-resident tensors"): decoda-run
// --device-inputs uploads every input once and passes device buffers, so the KV caches that the
// decode step donates (decoda-compile --donate-caches) are read and written in place on the
// device; a call copies only the query's output back and the cache offset the host code reads.
// Without --device-inputs the donated caches are copied in and back every call. Runs on the fake
// driver of Inputs/fake_cuda.c (launches run nothing: only the driver calls are checked; the
// numerics of the same host code are gemv-sim.mlir's on the PTX interpreter).
// RUN: rm -rf %t && mkdir -p %t
// RUN: decoda-compile %s --target=cuda -o %t/m.so
// RUN: cc -shared -fPIC %S/Inputs/fake_cuda.c -o %t/fake_cuda.so
// RUN: env DECODA_CUDA_DRIVER=%t/fake_cuda.so decoda-run %t/m.so --list | FileCheck %s --check-prefix=LIST
// LIST: entry step
// LIST: donate k_cache -> k_cache_out
// LIST: donate v_cache -> v_cache_out
// RUN: %PYTHON -c "import numpy as np; r = np.random.default_rng(0); np.savez('%t/in.npz', q=r.standard_normal((1, 1, 2, 8)).astype('f4'), k=r.standard_normal((1, 1, 1, 8)).astype('f4'), v=r.standard_normal((1, 1, 1, 8)).astype('f4'), k_cache=r.standard_normal((1, 16, 1, 8)).astype('f4'), v_cache=r.standard_normal((1, 16, 1, 8)).astype('f4'), offset=np.array(5, np.int64))"
// Four calls (one run, three timed) on device-resident inputs:
// RUN: env FAKE_CUDA_LOG=%t/dev.log DECODA_CUDA_DRIVER=%t/fake_cuda.so decoda-run %t/m.so --entry step --inputs %t/in.npz --donate --device-inputs --bench 3 --warmup 0 | FileCheck %s --check-prefix=OUT
// OUT: bench step: 0 warm-up, 3 timed runs
// OUT: output o: f32 [1, 1, 2, 8]
// OUT: output k_cache_out: f32 [1, 16, 1, 8]
// RUN: %PYTHON %S/Inputs/count_fake_cuda.py %t/dev.log | FileCheck %s --check-prefix=DEV
// DEV: calls 4
// The caches (512 bytes each): uploaded once and read back once for printing, never per call.
// DEV: copies of 512 bytes: 4
// q uploaded once, o copied back by each call.
// DEV: copies of 64 bytes: 5
// DEV: copies of 32 bytes: 2
// The offset: uploaded once, copied back by each call for the host code that reads it.
// DEV: copies of 8 bytes: 5
// The two cache buffers are the ones decoda-run allocated: no call allocates a cache.
// DEV: allocations of 512 bytes: 2
// DEV: unfreed allocations: 0
// Only the caches on the device (--device-inputs=NAMES): the offset the host code reads stays in
// host memory and is only copied to the device by each call, never back.
// RUN: env FAKE_CUDA_LOG=%t/some.log DECODA_CUDA_DRIVER=%t/fake_cuda.so decoda-run %t/m.so --entry step --inputs %t/in.npz --donate --device-inputs=k_cache,v_cache --bench 3 --warmup 0 > /dev/null
// RUN: %PYTHON %S/Inputs/count_fake_cuda.py %t/some.log | FileCheck %s --check-prefix=SOME
// SOME: calls 4
// SOME: copies of 512 bytes: 4
// SOME: copies of 8 bytes: 4
// SOME: allocations of 512 bytes: 2
// RUN: %rc env DECODA_CUDA_DRIVER=%t/fake_cuda.so decoda-run %t/m.so --entry step --inputs %t/in.npz --device-inputs=k_cache,nope 2>&1 | FileCheck %s --check-prefix=BADNAME
// BADNAME: decoda-run: error: --device-inputs: entry 'step' has no input 'nope' (inputs: q, k, v, k_cache, v_cache, offset)
// BADNAME: exit code 2
// The same on host buffers: the donated caches go in and come back every call.
// RUN: env FAKE_CUDA_LOG=%t/host.log DECODA_CUDA_DRIVER=%t/fake_cuda.so decoda-run %t/m.so --entry step --inputs %t/in.npz --donate --bench 3 --warmup 0 > /dev/null
// RUN: %PYTHON %S/Inputs/count_fake_cuda.py %t/host.log | FileCheck %s --check-prefix=HOST
// HOST: calls 4
// HOST: copies of 512 bytes: 16
// HOST: allocations of 512 bytes: 8
// HOST: unfreed allocations: 0
//
// An entry whose only output is donated copies nothing back: decoda_cuda_finish waits for its
// kernel before the call returns (the launch is followed by a synchronisation of its stream).
// Its kernel waits for the grids before it (decoda-gpu-dependent-launch), so the runtime
// launches it as a programmatic dependent (`launch dependent`).
// RUN: %PYTHON -c "import numpy as np; d = dict(np.load('%t/in.npz')); np.savez('%t/a.npz', k=d['k'], k_cache=d['k_cache'], offset=d['offset'])"
// RUN: env FAKE_CUDA_LOG=%t/append.log DECODA_CUDA_DRIVER=%t/fake_cuda.so decoda-run %t/m.so --entry append --inputs %t/a.npz --donate --device-inputs --bench 1 --warmup 0 > /dev/null
// RUN: FileCheck %s --check-prefix=APPEND < %t/append.log
// APPEND: copy-to host stream [[S:[1-9]]]
// APPEND-NEXT: sync stream [[S]]
// APPEND: launch stream [[S]]
// APPEND-NEXT: sync stream [[S]]
// APPEND-NEXT: copy 8
// APPEND-NEXT: copy-to host stream [[S]]
// APPEND-NEXT: sync stream [[S]]
// APPEND-NEXT: launch dependent
// APPEND-NEXT: launch blocks
// APPEND-NEXT: launch shared=
// APPEND-NEXT: launch stream [[S]]
// APPEND-NEXT: sync stream [[S]]
//
// The Python binding: DeviceArray inputs, donated ones returned as themselves.
// RUN: env DECODA_CUDA_DRIVER=%t/fake_cuda.so %PYTHON %S/Inputs/device_resident.py %t/m.so | FileCheck %s --check-prefix=PY
// PY: PASS test_device_arrays
// PY: PASS test_donated_device_arrays
// PY: PASS test_not_donated_device_array
// PY: PASS test_errors
//
// A CPU model has no device memory: a usage error naming the input.
// RUN: decoda-compile %s -o %t/cpu.so
// RUN: %rc decoda-run %t/cpu.so --entry step --inputs %t/in.npz --device-inputs 2>&1 | FileCheck %s --check-prefix=CPU
// CPU: decoda-run: error: --device-inputs: input 'q': decoda_device_alloc: model '{{.*}}cpu.so' is a CPU model; device memory is for CUDA models
// CPU: exit code 2
func.func @step(%q: tensor<1x1x2x8xf32> {decoda.name = "q"},
                %k: tensor<1x1x1x8xf32> {decoda.name = "k"},
                %v: tensor<1x1x1x8xf32> {decoda.name = "v"},
                %kc: tensor<1x16x1x8xf32> {decoda.name = "k_cache"},
                %vc: tensor<1x16x1x8xf32> {decoda.name = "v_cache"},
                %offset: tensor<i64> {decoda.name = "offset"})
    -> (tensor<1x1x2x8xf32> {decoda.name = "o"}, tensor<1x16x1x8xf32> {decoda.name = "k_cache_out"},
        tensor<1x16x1x8xf32> {decoda.name = "v_cache_out"}) {
  %off64 = tensor.extract %offset[] : tensor<i64>
  %off = arith.index_cast %off64 : i64 to index
  %o, %kc2, %vc2 = decoda.cached_attention %q, %k, %v, %kc, %vc[%off]
      {num_heads = 2 : i64, num_kv_heads = 1 : i64, causal}
      : tensor<1x1x2x8xf32>, tensor<1x1x1x8xf32>, tensor<1x1x1x8xf32>,
        tensor<1x16x1x8xf32>, tensor<1x16x1x8xf32>
  return %o, %kc2, %vc2 : tensor<1x1x2x8xf32>, tensor<1x16x1x8xf32>, tensor<1x16x1x8xf32>
}
func.func @append(%k: tensor<1x1x1x8xf32> {decoda.name = "k"},
                  %kc: tensor<1x16x1x8xf32> {decoda.name = "k_cache", decoda.donate = 0 : i64},
                  %offset: tensor<i64> {decoda.name = "offset"})
    -> (tensor<1x16x1x8xf32> {decoda.name = "k_cache_out"}) {
  %off64 = tensor.extract %offset[] : tensor<i64>
  %off = arith.index_cast %off64 : i64 to index
  %kc2 = tensor.insert_slice %k into %kc[0, %off, 0, 0] [1, 1, 1, 8] [1, 1, 1, 1]
      : tensor<1x1x1x8xf32> into tensor<1x16x1x8xf32>
  return %kc2 : tensor<1x16x1x8xf32>
}
