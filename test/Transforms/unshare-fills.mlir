// RUN: decoda-opt %s --decoda-unshare-fills --split-input-file | FileCheck %s
// Numbers before and after (the first case, compiled for the CPU both ways, against NumPy):
// RUN: rm -rf %t && mkdir -p %t
// RUN: %PYTHON -c "import sys; open('%t/in.mlir', 'w').write(open(sys.argv[1]).read().split('// ' + '-' * 5)[0])" %s
// RUN: decoda-opt %t/in.mlir --decoda-unshare-fills -o %t/after.mlir
// RUN: decoda-compile %t/in.mlir -o %t/before.so
// RUN: decoda-compile %t/after.mlir -o %t/after.so
// RUN: %PYTHON -c "import numpy as np; r = np.random.default_rng(0); x, w, y, v = [r.standard_normal(s).astype('f4') for s in ((4, 16), (16, 8), (4, 16), (16, 8))]; np.savez('%t/in.npz', x=x, w=w, y=y, v=v); np.save('%t/a.npy', x @ w); np.save('%t/b.npy', y @ v + 1)"
// RUN: decoda-run %t/before.so --inputs %t/in.npz --check a=%t/a.npy --check b=%t/b.npy --rtol 1e-5 --atol 1e-5 | FileCheck %s --check-prefix=NUM
// RUN: decoda-run %t/after.so --inputs %t/in.npz --check a=%t/a.npy --check b=%t/b.npy --rtol 1e-5 --atol 1e-5 | FileCheck %s --check-prefix=NUM
// NUM: check: 2 passed, 0 failed
// In the CUDA pipeline (after its CSE): the Llama-3.2-1B-shaped decode step (bf16, KV cache of
// 4096) had 9 kernel launches: RMSNorm, the q, k and v GEMVs (one launch,
// decoda-gpu-merge-launches), q's and k's RoPE with the V cache write (one launch; RoPE computes
// its table in its blocks and K goes straight into the cache: 11 before), attention
// and its combine, the o GEMV with the rounding and the residual add, add + RMSNorm, gate and
// up with the SwiGLU product in one GEMV kernel (decoda-gpu-gemv{gate-up}; 12 before), down
// with the residual add. With the projections' accumulators
// shared there were 4 more: a fill kernel, a copy of it for the o projection, and the o
// projection's rounding and the last residual add as kernels of their own (18 -> 14 when this
// pass came, before the q, k, v merge). Its two RMSNorms are now computed by the q/k/v and
// gate/up kernels (decoda-gpu-gemv{fold-norms}): 7.
// RUN: decoda-compile %decoda_src/bench/gpu/llama32_1b_step.mlir --target=cuda --emit=ptx -o %t/step.ptx --dump-ir-after-each=%t/step
// RUN: %PYTHON -c "import glob; t = open(glob.glob('%t/step/*-decoda-gpu-name-kernels.mlir')[0]).read(); print('launches', t.count('gpu.launch_func'))" | FileCheck %s --check-prefix=STEP
// STEP: launches 7

// Two projections accumulate into one zero fill (as CSE leaves them): each gets its own fill,
// made right before it; the shared one goes.
// CHECK-LABEL: func.func @two_writers
// CHECK: %[[E0:.+]] = tensor.empty() : tensor<4x8xf32>
// CHECK-NOT: linalg.fill
// CHECK: %[[E1:.+]] = tensor.empty() : tensor<4x8xf32>
// CHECK-NEXT: %[[F1:.+]] = linalg.fill ins(%{{.+}} : f32) outs(%[[E1]] : tensor<4x8xf32>)
// CHECK-NEXT: linalg.matmul ins(%{{.+}}, %{{.+}} : tensor<4x16xf32>, tensor<16x8xf32>) outs(%[[F1]] : tensor<4x8xf32>)
// CHECK-NEXT: %[[E2:.+]] = tensor.empty() : tensor<4x8xf32>
// CHECK-NEXT: %[[F2:.+]] = linalg.fill ins(%{{.+}} : f32) outs(%[[E2]] : tensor<4x8xf32>)
// CHECK-NEXT: linalg.matmul ins(%{{.+}}, %{{.+}} : tensor<4x16xf32>, tensor<16x8xf32>) outs(%[[F2]] : tensor<4x8xf32>)
// CHECK-NOT: linalg.fill
// The generic still writes into the first empty tensor.
// CHECK: outs(%[[E0]] : tensor<4x8xf32>)
func.func @two_writers(%x: tensor<4x16xf32> {decoda.name = "x"}, %w: tensor<16x8xf32> {decoda.name = "w"},
                       %y: tensor<4x16xf32> {decoda.name = "y"}, %v: tensor<16x8xf32> {decoda.name = "v"})
    -> (tensor<4x8xf32> {decoda.name = "a"}, tensor<4x8xf32> {decoda.name = "b"}) {
  %c0 = arith.constant 0.0 : f32
  %c1 = arith.constant 1.0 : f32
  %e = tensor.empty() : tensor<4x8xf32>
  %z = linalg.fill ins(%c0 : f32) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  %a = linalg.matmul ins(%x, %w : tensor<4x16xf32>, tensor<16x8xf32>) outs(%z : tensor<4x8xf32>) -> tensor<4x8xf32>
  %p = linalg.matmul ins(%y, %v : tensor<4x16xf32>, tensor<16x8xf32>) outs(%z : tensor<4x8xf32>) -> tensor<4x8xf32>
  %b = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%p : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.addf %in, %c1 : f32
    linalg.yield %s : f32
  } -> tensor<4x8xf32>
  return %a, %b : tensor<4x8xf32>, tensor<4x8xf32>
}

// -----

// Left alone: a fill with one use; a fill whose other use only reads it (the writer gets a
// fill of its own, the reader keeps the first); a fill of a tensor that is not empty.
// CHECK-LABEL: func.func @left_alone
// CHECK: %[[Z:.+]] = linalg.fill ins(%{{.+}} : f32) outs(%{{.+}} : tensor<4x8xf32>)
// CHECK-NEXT: linalg.matmul {{.*}} outs(%[[Z]] : tensor<4x8xf32>)
// CHECK: %[[R:.+]] = linalg.fill ins(%{{.+}} : f32) outs(%{{.+}} : tensor<4x8xf32>)
// CHECK: %[[OWN:.+]] = linalg.fill ins(%{{.+}} : f32) outs(%{{.+}} : tensor<4x8xf32>)
// CHECK-NEXT: linalg.matmul {{.*}} outs(%[[OWN]] : tensor<4x8xf32>)
// CHECK: linalg.generic {{.*}} ins(%[[R]] : tensor<4x8xf32>)
// CHECK: %[[T:.+]] = linalg.fill ins(%{{.+}} : f32) outs(%arg2 : tensor<4x8xf32>)
// CHECK-NEXT: linalg.matmul {{.*}} outs(%[[T]] : tensor<4x8xf32>)
// CHECK-NEXT: linalg.matmul {{.*}} outs(%[[T]] : tensor<4x8xf32>)
func.func @left_alone(%x: tensor<4x16xf32>, %w: tensor<16x8xf32>, %t: tensor<4x8xf32>)
    -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) {
  %c0 = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<4x8xf32>
  %z = linalg.fill ins(%c0 : f32) outs(%e0 : tensor<4x8xf32>) -> tensor<4x8xf32>
  %a = linalg.matmul ins(%x, %w : tensor<4x16xf32>, tensor<16x8xf32>) outs(%z : tensor<4x8xf32>) -> tensor<4x8xf32>
  %e1 = tensor.empty() : tensor<4x8xf32>
  %r = linalg.fill ins(%c0 : f32) outs(%e1 : tensor<4x8xf32>) -> tensor<4x8xf32>
  %b = linalg.matmul ins(%x, %w : tensor<4x16xf32>, tensor<16x8xf32>) outs(%r : tensor<4x8xf32>) -> tensor<4x8xf32>
  %e2 = tensor.empty() : tensor<4x8xf32>
  %c = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%r : tensor<4x8xf32>) outs(%e2 : tensor<4x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<4x8xf32>
  %f = linalg.fill ins(%c0 : f32) outs(%t : tensor<4x8xf32>) -> tensor<4x8xf32>
  %d = linalg.matmul ins(%x, %w : tensor<4x16xf32>, tensor<16x8xf32>) outs(%f : tensor<4x8xf32>) -> tensor<4x8xf32>
  %g = linalg.matmul ins(%x, %w : tensor<4x16xf32>, tensor<16x8xf32>) outs(%f : tensor<4x8xf32>) -> tensor<4x8xf32>
  return %a, %b, %c, %d, %g : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>
}

// -----

// Two transposes written into one tensor.empty (CSE merges equal empties): each gets its own,
// made right before it (decoda-concats-in-place then computes each in its slice of a present).
// CHECK-LABEL: func.func @shared_empty
// CHECK: %[[E0:.+]] = tensor.empty() : tensor<2x4x3xf32>
// CHECK-NEXT: linalg.transpose ins(%arg0 : tensor<2x3x4xf32>) outs(%[[E0]] : tensor<2x4x3xf32>)
// CHECK-NEXT: %[[E1:.+]] = tensor.empty() : tensor<2x4x3xf32>
// CHECK-NEXT: linalg.transpose ins(%arg1 : tensor<2x3x4xf32>) outs(%[[E1]] : tensor<2x4x3xf32>)
func.func @shared_empty(%x: tensor<2x3x4xf32>, %y: tensor<2x3x4xf32>) -> (tensor<2x4x3xf32>, tensor<2x4x3xf32>) {
  %e = tensor.empty() : tensor<2x4x3xf32>
  %a = linalg.transpose ins(%x : tensor<2x3x4xf32>) outs(%e : tensor<2x4x3xf32>) permutation = [0, 2, 1]
  %b = linalg.transpose ins(%y : tensor<2x3x4xf32>) outs(%e : tensor<2x4x3xf32>) permutation = [0, 2, 1]
  return %a, %b : tensor<2x4x3xf32>, tensor<2x4x3xf32>
}
