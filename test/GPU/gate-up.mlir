// decoda-gpu-tensorcore-matmul{gate-up} (on with wgmma-tma, the sm_90a default): a GLU's gate
// and up projections -- two contractions of one activation whose first result is read only
// by the second one's fused epilogue -- become one wgmma kernel of two weights. B's stage
// holds tile-n = 128 rows of the up weight, then 128 of the gate weight (a TMA box of each
// on the stage's one mbarrier, expect_tx 128 * 128 + 256 * 128 = 49152 bytes), each k16 slice
// is one m64n256k16 wgmma, and the epilogue reads the gate from the registers: the f32 gate
// temporary is neither written nor read. Shared memory 4 * (128 + 256) * 128 + 1024 + 32 =
// 197664 bytes. Numerics (bit for bit the two-kernel build): epilogue-sim.mlir (mlp).
// RUN: decoda-opt %s --split-input-file --decoda-gpu-tensorcore-matmul="wgmma=true wgmma-tma=true" --canonicalize --cse | FileCheck %s
// RUN: decoda-opt %s --split-input-file --decoda-gpu-tensorcore-matmul="wgmma=true wgmma-tma=true gate-up=false" --canonicalize | FileCheck %s --check-prefix=OFF
// RUN: decoda-opt %s --split-input-file --decoda-gpu-tensorcore-matmul="wgmma=true" --canonicalize | FileCheck %s --check-prefix=NOTMA
// RUN: decoda-opt %s --split-input-file --decoda-gpu-tensorcore-matmul="wgmma=true wgmma-tma=true tile-n=256 tile-k=64" --canonicalize | FileCheck %s --check-prefix=N256
// RUN: decoda-opt %s --split-input-file --decoda-gpu-gemv --decoda-gpu-tensorcore-matmul="wgmma=true wgmma-tma=true" --canonicalize --cse | FileCheck %s --check-prefix=DISPATCH
// decoda-gpu-gemv{gate-up} does the same for static few rows (a decode step): one GEMV kernel
// whose warps read both weight rows of their column (8 + 8 weight vectors and 8 activation
// vectors a step), the storing lane applying the GLU to both sums.
// RUN: decoda-opt %s --split-input-file --decoda-gpu-gemv --canonicalize --cse | FileCheck %s --check-prefix=GEMV
// RUN: decoda-opt %s --split-input-file --decoda-gpu-gemv=gate-up=false --canonicalize --cse | FileCheck %s --check-prefix=GEMVOFF

#a = affine_map<(b, m, n, k) -> (b, m, k)>
#w = affine_map<(b, m, n, k) -> (n, k)>
#c = affine_map<(b, m, n, k) -> (b, m, n)>
#e = affine_map<(b, m, n) -> (b, m, n)>

// CHECK-LABEL: func.func @swiglu(
// CHECK-SAME: %[[X:.*]]: memref<1x?x64xbf16>, %[[WG:.*]]: memref<96x64xbf16>, %[[WU:.*]]: memref<96x64xbf16>)
// CHECK-NOT: memref<1x?x96xf32>
// CHECK: %[[PU:.*]] = memref.extract_aligned_pointer_as_index %[[WU]]
// CHECK: %[[PU64:.*]] = arith.index_cast %[[PU]] : index to i64
// CHECK: %[[MAPU:.*]] = llvm.call @decoda_cuda_tensor_map(%[[PU64]],
// CHECK: %[[PG:.*]] = memref.extract_aligned_pointer_as_index %[[WG]]
// CHECK: %[[PG64:.*]] = arith.index_cast %[[PG]] : index to i64
// CHECK: %[[MAPG:.*]] = llvm.call @decoda_cuda_tensor_map(%[[PG64]],
// CHECK: gpu.launch {{.*}} dynamic_shared_memory_size %c197664_i32 {
// CHECK: nvvm.mbarrier.arrive.expect_tx %[[BAR:.*]], %c49152_i32
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %{{.*}}, %[[BAR]]
// CHECK: %[[DU:.*]] = llvm.inttoptr %[[MAPU]] : i64 to !llvm.ptr
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %[[DU]], %[[BAR]]
// CHECK: %[[DG:.*]] = llvm.inttoptr %[[MAPG]] : i64 to !llvm.ptr
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %[[DG]], %[[BAR]]
// CHECK-COUNT-4: nvvm.wgmma.mma_async {{.*}} <m = 64, n = 256, k = 16>
// CHECK: math.exp
// CHECK: arith.truncf %{{.*}} : f32 to bf16
// CHECK: gpu.terminator
// CHECK-NOT: gpu.launch
// CHECK: return
// OFF-LABEL: func.func @swiglu(
// OFF-COUNT-2: gpu.launch {{.*}} dynamic_shared_memory_size %c132128_i32
// OFF-NOT: gpu.launch
// OFF-NOT: n = 256
// Without TMA (the cp.async kernel) the two projections keep a kernel each.
// NOTMA-LABEL: func.func @swiglu(
// NOTMA-COUNT-2: gpu.launch
// NOTMA-NOT: gpu.launch
// NOTMA-NOT: n = 256
// NOTMA: return
// With tile-n=256 the pair still becomes one kernel, of 128 rows of each weight (both are
// the 256 columns of one m64n256k16; other projections take 256 of one weight).
// N256-LABEL: func.func @swiglu(
// N256: gpu.launch {{.*}} dynamic_shared_memory_size %c197664_i32
// N256: nvvm.mbarrier.arrive.expect_tx %{{.*}}, %c49152_i32
// N256: nvvm.wgmma.mma_async {{.*}} <m = 64, n = 256, k = 16>
// N256: math.exp
// N256-NOT: gpu.launch
// N256: return
// A dynamic row count: decoda-gpu-gemv puts the pair under one dispatch (M = 1, M <= 8: its
// GEMV kernel of both weights, one launch each; else both contractions and the epilogue, left
// for the tensor cores, which pair them in their own kernel).
// DISPATCH-LABEL: func.func @swiglu(
// DISPATCH: %[[ONE:.*]] = arith.cmpi eq, %{{.*}}, %c1 : index
// DISPATCH: scf.if %[[ONE]] {
// DISPATCH: gpu.launch {{.*}} threads({{.*}}) in ({{.*}} = %c128,
// DISPATCH-NOT: gpu.launch
// DISPATCH: } else {
// DISPATCH: scf.if
// DISPATCH: gpu.launch {{.*}} threads({{.*}}) in ({{.*}} = %c128,
// DISPATCH-NOT: gpu.launch
// DISPATCH: } else {
// DISPATCH: gpu.launch {{.*}} dynamic_shared_memory_size %c197664_i32 {
// DISPATCH-COUNT-4: <m = 64, n = 256, k = 16>
// DISPATCH-NOT: gpu.launch
// DISPATCH: return
func.func @swiglu(%x: memref<1x?x64xbf16>, %wg: memref<96x64xbf16>, %wu: memref<96x64xbf16>) -> memref<1x?x96xbf16> {
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %t = memref.dim %x, %c1 : memref<1x?x64xbf16>
  %g = memref.alloc(%t) : memref<1x?x96xf32>
  linalg.fill ins(%zero : f32) outs(%g : memref<1x?x96xf32>)
  linalg.generic {indexing_maps = [#a, #w, #c], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%x, %wg : memref<1x?x64xbf16>, memref<96x64xbf16>) outs(%g : memref<1x?x96xf32>) {
  ^bb0(%in: bf16, %wv: bf16, %out: f32):
    %0 = arith.extf %in : bf16 to f32
    %1 = arith.extf %wv : bf16 to f32
    %2 = arith.mulf %0, %1 : f32
    %3 = arith.addf %out, %2 : f32
    linalg.yield %3 : f32
  }
  %u = memref.alloc(%t) : memref<1x?x96xf32>
  linalg.fill ins(%zero : f32) outs(%u : memref<1x?x96xf32>)
  linalg.generic {indexing_maps = [#a, #w, #c], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%x, %wu : memref<1x?x64xbf16>, memref<96x64xbf16>) outs(%u : memref<1x?x96xf32>) {
  ^bb0(%in: bf16, %wv: bf16, %out: f32):
    %0 = arith.extf %in : bf16 to f32
    %1 = arith.extf %wv : bf16 to f32
    %2 = arith.mulf %0, %1 : f32
    %3 = arith.addf %out, %2 : f32
    linalg.yield %3 : f32
  }
  %h = memref.alloc(%t) : memref<1x?x96xbf16>
  linalg.generic {indexing_maps = [#e, #e, #e], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%g, %u : memref<1x?x96xf32>, memref<1x?x96xf32>) outs(%h : memref<1x?x96xbf16>) {
  ^bb0(%gv: f32, %uv: f32, %o: bf16):
    %n = arith.negf %gv : f32
    %ex = math.exp %n : f32
    %d = arith.addf %ex, %one : f32
    %s = arith.divf %gv, %d : f32
    %p = arith.mulf %s, %uv : f32
    %r = arith.truncf %p : f32 to bf16
    linalg.yield %r : bf16
  }
  return %h : memref<1x?x96xbf16>
}

// -----

// Refused: the gate's f32 result is also returned (another reader), and two projections of
// different activations: each keeps its own kernel.
// OFF-LABEL: func.func @gate_returned(
// NOTMA-LABEL: func.func @gate_returned(
// N256-LABEL: func.func @gate_returned(
// CHECK-LABEL: func.func @gate_returned(
// CHECK-COUNT-2: gpu.launch {{.*}} dynamic_shared_memory_size %c132128_i32
// CHECK-NOT: n = 256
// CHECK-LABEL: func.func @two_inputs(
// CHECK-COUNT-2: gpu.launch {{.*}} dynamic_shared_memory_size %c132128_i32
// CHECK-NOT: n = 256
func.func @gate_returned(%x: memref<4x64xbf16>, %wg: memref<96x64xbf16>, %wu: memref<96x64xbf16>) -> (memref<4x96xbf16>, memref<4x96xf32>) {
  %zero = arith.constant 0.0 : f32
  %g = memref.alloc() : memref<4x96xf32>
  linalg.fill ins(%zero : f32) outs(%g : memref<4x96xf32>)
  linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %wg : memref<4x64xbf16>, memref<96x64xbf16>) outs(%g : memref<4x96xf32>) {
  ^bb0(%in: bf16, %wv: bf16, %out: f32):
    %0 = arith.extf %in : bf16 to f32
    %1 = arith.extf %wv : bf16 to f32
    %2 = arith.mulf %0, %1 : f32
    %3 = arith.addf %out, %2 : f32
    linalg.yield %3 : f32
  }
  %u = memref.alloc() : memref<4x96xf32>
  linalg.fill ins(%zero : f32) outs(%u : memref<4x96xf32>)
  linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %wu : memref<4x64xbf16>, memref<96x64xbf16>) outs(%u : memref<4x96xf32>) {
  ^bb0(%in: bf16, %wv: bf16, %out: f32):
    %0 = arith.extf %in : bf16 to f32
    %1 = arith.extf %wv : bf16 to f32
    %2 = arith.mulf %0, %1 : f32
    %3 = arith.addf %out, %2 : f32
    linalg.yield %3 : f32
  }
  %h = memref.alloc() : memref<4x96xbf16>
  linalg.generic {indexing_maps = [affine_map<(m, n) -> (m, n)>, affine_map<(m, n) -> (m, n)>, affine_map<(m, n) -> (m, n)>], iterator_types = ["parallel", "parallel"]}
      ins(%g, %u : memref<4x96xf32>, memref<4x96xf32>) outs(%h : memref<4x96xbf16>) {
  ^bb0(%gv: f32, %uv: f32, %o: bf16):
    %p = arith.mulf %gv, %uv : f32
    %r = arith.truncf %p : f32 to bf16
    linalg.yield %r : bf16
  }
  return %h, %g : memref<4x96xbf16>, memref<4x96xf32>
}
func.func @two_inputs(%x: memref<4x64xbf16>, %y: memref<4x64xbf16>, %wg: memref<96x64xbf16>, %wu: memref<96x64xbf16>) -> memref<4x96xbf16> {
  %zero = arith.constant 0.0 : f32
  %g = memref.alloc() : memref<4x96xf32>
  linalg.fill ins(%zero : f32) outs(%g : memref<4x96xf32>)
  linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %wg : memref<4x64xbf16>, memref<96x64xbf16>) outs(%g : memref<4x96xf32>) {
  ^bb0(%in: bf16, %wv: bf16, %out: f32):
    %0 = arith.extf %in : bf16 to f32
    %1 = arith.extf %wv : bf16 to f32
    %2 = arith.mulf %0, %1 : f32
    %3 = arith.addf %out, %2 : f32
    linalg.yield %3 : f32
  }
  %u = memref.alloc() : memref<4x96xf32>
  linalg.fill ins(%zero : f32) outs(%u : memref<4x96xf32>)
  linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%y, %wu : memref<4x64xbf16>, memref<96x64xbf16>) outs(%u : memref<4x96xf32>) {
  ^bb0(%in: bf16, %wv: bf16, %out: f32):
    %0 = arith.extf %in : bf16 to f32
    %1 = arith.extf %wv : bf16 to f32
    %2 = arith.mulf %0, %1 : f32
    %3 = arith.addf %out, %2 : f32
    linalg.yield %3 : f32
  }
  %h = memref.alloc() : memref<4x96xbf16>
  linalg.generic {indexing_maps = [affine_map<(m, n) -> (m, n)>, affine_map<(m, n) -> (m, n)>, affine_map<(m, n) -> (m, n)>], iterator_types = ["parallel", "parallel"]}
      ins(%g, %u : memref<4x96xf32>, memref<4x96xf32>) outs(%h : memref<4x96xbf16>) {
  ^bb0(%gv: f32, %uv: f32, %o: bf16):
    %p = arith.mulf %gv, %uv : f32
    %r = arith.truncf %p : f32 to bf16
    linalg.yield %r : bf16
  }
  return %h : memref<4x96xbf16>
}

// -----

#a = affine_map<(b, m, n, k) -> (b, m, k)>
#w = affine_map<(b, m, n, k) -> (n, k)>
#c = affine_map<(b, m, n, k) -> (b, m, n)>
#e = affine_map<(b, m, n) -> (b, m, n)>

// Without decoda-gpu-gemv the tensor-core pass takes the pair at one row too.
// CHECK-LABEL: func.func @swiglu_decode(
// CHECK: <m = 64, n = 256, k = 16>
// GEMV-LABEL: func.func @swiglu_decode(
// GEMV-SAME: %[[X:.*]]: memref<1x1x64xbf16>, %[[WG:.*]]: memref<96x64xbf16>, %[[WU:.*]]: memref<96x64xbf16>)
// GEMV-NOT: memref<1x1x96xf32>
// GEMV: gpu.launch blocks({{.*}}) in ({{.*}} = %c24,
// GEMV: vector.load %[[WU]]
// GEMV: vector.load %[[WG]]
// GEMV: math.exp
// GEMV: gpu.terminator
// GEMV-NOT: gpu.launch
// GEMV: return
// GEMVOFF-LABEL: func.func @swiglu_decode(
// GEMVOFF-COUNT-2: gpu.launch blocks({{.*}}) in ({{.*}} = %c24,
func.func @swiglu_decode(%x: memref<1x1x64xbf16>, %wg: memref<96x64xbf16>, %wu: memref<96x64xbf16>) -> memref<1x1x96xbf16> {
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %g = memref.alloc() : memref<1x1x96xf32>
  linalg.fill ins(%zero : f32) outs(%g : memref<1x1x96xf32>)
  linalg.generic {indexing_maps = [#a, #w, #c], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%x, %wg : memref<1x1x64xbf16>, memref<96x64xbf16>) outs(%g : memref<1x1x96xf32>) {
  ^bb0(%in: bf16, %wv: bf16, %out: f32):
    %0 = arith.extf %in : bf16 to f32
    %1 = arith.extf %wv : bf16 to f32
    %2 = arith.mulf %0, %1 : f32
    %3 = arith.addf %out, %2 : f32
    linalg.yield %3 : f32
  }
  %u = memref.alloc() : memref<1x1x96xf32>
  linalg.fill ins(%zero : f32) outs(%u : memref<1x1x96xf32>)
  linalg.generic {indexing_maps = [#a, #w, #c], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%x, %wu : memref<1x1x64xbf16>, memref<96x64xbf16>) outs(%u : memref<1x1x96xf32>) {
  ^bb0(%in: bf16, %wv: bf16, %out: f32):
    %0 = arith.extf %in : bf16 to f32
    %1 = arith.extf %wv : bf16 to f32
    %2 = arith.mulf %0, %1 : f32
    %3 = arith.addf %out, %2 : f32
    linalg.yield %3 : f32
  }
  %h = memref.alloc() : memref<1x1x96xbf16>
  linalg.generic {indexing_maps = [#e, #e, #e], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%g, %u : memref<1x1x96xf32>, memref<1x1x96xf32>) outs(%h : memref<1x1x96xbf16>) {
  ^bb0(%gv: f32, %uv: f32, %o: bf16):
    %n = arith.negf %gv : f32
    %ex = math.exp %n : f32
    %d = arith.addf %ex, %one : f32
    %s = arith.divf %gv, %d : f32
    %p = arith.mulf %s, %uv : f32
    %r = arith.truncf %p : f32 to bf16
    linalg.yield %r : bf16
  }
  return %h : memref<1x1x96xbf16>
}
