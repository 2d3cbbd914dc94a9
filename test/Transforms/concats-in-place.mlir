// RUN: decoda-opt %s --decoda-concats-in-place --split-input-file | FileCheck %s
// Numbers before and after (the first case, compiled for the CPU both ways, against NumPy),
// and on the GPU (whose pipeline runs the pass) on the PTX interpreter: the transposed keys
// are computed in their slice of the present (no temporary, no copy of it); 2 launches, the
// past's copy and negf merged (decoda-gpu-merge-parallel-loops), the transpose writing into
// the same buffer as the copy.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %PYTHON -c "import sys; open('%t/in.mlir', 'w').write(open(sys.argv[1]).read().split('// ' + '-' * 5)[0])" %s
// RUN: decoda-opt %t/in.mlir --decoda-concats-in-place -o %t/after.mlir
// RUN: decoda-compile %t/in.mlir -o %t/before.so
// RUN: decoda-compile %t/after.mlir -o %t/after.so
// RUN: %PYTHON -c "import numpy as np; r = np.random.default_rng(0); p, k = r.standard_normal((2, 2, 5, 16)).astype('f4'), r.standard_normal((2, 3, 2, 16)).astype('f4'); c = np.concatenate([p, k.transpose(0, 2, 1, 3)], axis=2); np.savez('%t/named.npz', past=p, new=k); np.save('%t/present.npy', c); np.save('%t/neg.npy', -k); np.savez('%t/in.npz', arg0=p, arg1=k); np.savez('%t/out.npz', out0=c, out1=-k)"
// RUN: decoda-run %t/before.so --inputs %t/named.npz --check present=%t/present.npy --check neg=%t/neg.npy --rtol 0 --atol 0 | FileCheck %s --check-prefix=NUM
// RUN: decoda-run %t/after.so --inputs %t/named.npz --check present=%t/present.npy --check neg=%t/neg.npy --rtol 0 --atol 0 | FileCheck %s --check-prefix=NUM
// NUM: check: 2 passed, 0 failed
// RUN: decoda-compile %t/in.mlir --target=cuda --emit=ptx -o %t/p.ptx --dump-ir-after-each=%t/p
// RUN: %PYTHON %S/../GPU/Inputs/gpusim_run.py %t/p %t/p.ptx --inputs %t/in.npz --expect %t/out.npz --rtol 0 --atol 0 | FileCheck %s --check-prefix=GPU
// GPU: out0: ok
// GPU: out1: ok
// GPU: 2 launches

// Concat(past, Transpose(new)) as an exported graph builds a present: the result's empty and
// the copy of the past at the start (the past is an argument), the transpose moved down to the
// concatenation and written into its slice (offset: the past's length), inserted back there.
// CHECK-LABEL: func.func @present(
// CHECK-SAME: %[[PAST:[a-z0-9]+]]: tensor<2x2x?x16xf32> {{.*}}, %[[NEW:[a-z0-9]+]]: tensor<2x?x2x16xf32>
// CHECK:       %[[T:.*]] = tensor.dim %[[NEW]], %{{.*}}
// CHECK:       %[[P:.*]] = tensor.dim %[[PAST]], %{{.*}}
// CHECK:       %[[N:.*]] = arith.addi %[[P]], %[[T]] : index
// CHECK:       %[[E:.*]] = tensor.empty(%[[N]]) : tensor<2x2x?x16xf32>
// CHECK:       %[[C:.*]] = tensor.insert_slice %[[PAST]] into %[[E]][0, 0, 0, 0] [2, 2, %[[P]], 16] [1, 1, 1, 1]
// CHECK:       arith.negf
// CHECK:       %[[S:.*]] = tensor.extract_slice %[[C]][0, 0, %[[P]], 0] [2, 2, %[[T]], 16] [1, 1, 1, 1]
// CHECK-NEXT:  %[[K:.*]] = linalg.transpose ins(%[[NEW]] : tensor<2x?x2x16xf32>) outs(%[[S]] : tensor<2x2x?x16xf32>) permutation = [0, 2, 1, 3]
// CHECK-NEXT:  %[[R:.*]] = tensor.insert_slice %[[K]] into %[[C]][0, 0, %[[P]], 0] [2, 2, %[[T]], 16] [1, 1, 1, 1]
// CHECK-NOT:   tensor.concat
// CHECK:       return %[[R]], %{{.*}}
func.func @present(%past: tensor<2x2x?x16xf32> {decoda.name = "past"}, %new: tensor<2x?x2x16xf32> {decoda.name = "new"})
    -> (tensor<2x2x?x16xf32> {decoda.name = "present"}, tensor<2x?x2x16xf32> {decoda.name = "neg"}) {
  %c1 = arith.constant 1 : index
  %t = tensor.dim %new, %c1 : tensor<2x?x2x16xf32>
  %e = tensor.empty(%t) : tensor<2x2x?x16xf32>
  %k = linalg.transpose ins(%new : tensor<2x?x2x16xf32>) outs(%e : tensor<2x2x?x16xf32>) permutation = [0, 2, 1, 3]
  %neg = arith.negf %new : tensor<2x?x2x16xf32>
  %c = tensor.concat dim(2) %past, %k : (tensor<2x2x?x16xf32>, tensor<2x2x?x16xf32>) -> tensor<2x2x?x16xf32>
  return %c, %neg : tensor<2x2x?x16xf32>, tensor<2x?x2x16xf32>
}

// -----

// Two computed parts and a plain one in the middle: each computed part in its slice, in
// block order, the middle copied; a generic that does not read its init counts as computed.
// CHECK-LABEL: func.func @three_parts(
// CHECK:       %[[E:.*]] = tensor.empty() : tensor<4x8xf32>
// CHECK:       %[[C:.*]] = tensor.insert_slice %arg1 into %[[E]][1, 0] [2, 8] [1, 1]
// CHECK:       %[[S0:.*]] = tensor.extract_slice %[[C]][0, 0] [1, 8] [1, 1]
// CHECK-NEXT:  %[[A:.*]] = linalg.generic {{.*}} outs(%[[S0]] : tensor<1x8xf32>)
// CHECK:       %[[C1:.*]] = tensor.insert_slice %[[A]] into %[[C]][0, 0] [1, 8] [1, 1]
// CHECK:       %[[S3:.*]] = tensor.extract_slice %[[C1]][3, 0] [1, 8] [1, 1]
// CHECK-NEXT:  %[[B:.*]] = linalg.generic {{.*}} outs(%[[S3]] : tensor<1x8xf32>)
// CHECK:       %[[C3:.*]] = tensor.insert_slice %[[B]] into %[[C1]][3, 0] [1, 8] [1, 1]
// CHECK:       return %[[C3]]
#id = affine_map<(i, j) -> (i, j)>
func.func @three_parts(%x: tensor<1x8xf32>, %m: tensor<2x8xf32>, %y: tensor<1x8xf32>) -> tensor<4x8xf32> {
  %e0 = tensor.empty() : tensor<1x8xf32>
  %a = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<1x8xf32>) outs(%e0 : tensor<1x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %n = arith.negf %in : f32
    linalg.yield %n : f32
  } -> tensor<1x8xf32>
  %e1 = tensor.empty() : tensor<1x8xf32>
  %b = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%y : tensor<1x8xf32>) outs(%e1 : tensor<1x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %n = arith.mulf %in, %in : f32
    linalg.yield %n : f32
  } -> tensor<1x8xf32>
  %c = tensor.concat dim(0) %a, %m, %b : (tensor<1x8xf32>, tensor<2x8xf32>, tensor<1x8xf32>) -> tensor<4x8xf32>
  return %c : tensor<4x8xf32>
}

// -----

// Left alone: the computed part is also returned (it must exist on its own); the op reads its
// init (an accumulation, not a write of every element); the init is shared; the plain part is
// computed after the first computed one (not available before it); no computed part at all.
// CHECK-LABEL: func.func @left_alone(
// CHECK-COUNT-5: tensor.concat
// CHECK-NOT: tensor.insert_slice
#id = affine_map<(i, j) -> (i, j)>
func.func @left_alone(%x: tensor<1x8xf32>, %m: tensor<2x8xf32>, %acc: tensor<1x8xf32>)
    -> (tensor<3x8xf32>, tensor<1x8xf32>, tensor<3x8xf32>, tensor<3x8xf32>, tensor<3x8xf32>, tensor<3x8xf32>) {
  %e0 = tensor.empty() : tensor<1x8xf32>
  %a = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<1x8xf32>) outs(%e0 : tensor<1x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %n = arith.negf %in : f32
    linalg.yield %n : f32
  } -> tensor<1x8xf32>
  %c0 = tensor.concat dim(0) %a, %m : (tensor<1x8xf32>, tensor<2x8xf32>) -> tensor<3x8xf32>
  %e1 = tensor.empty() : tensor<1x8xf32>
  %s = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<1x8xf32>) outs(%e1 : tensor<1x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %n = arith.addf %in, %out : f32
    linalg.yield %n : f32
  } -> tensor<1x8xf32>
  %c1 = tensor.concat dim(0) %s, %m : (tensor<1x8xf32>, tensor<2x8xf32>) -> tensor<3x8xf32>
  %e2 = tensor.empty() : tensor<1x8xf32>
  %u = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<1x8xf32>) outs(%e2 : tensor<1x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %n = arith.negf %in : f32
    linalg.yield %n : f32
  } -> tensor<1x8xf32>
  %w = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%acc : tensor<1x8xf32>) outs(%e2 : tensor<1x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %n = arith.negf %in : f32
    linalg.yield %n : f32
  } -> tensor<1x8xf32>
  %c2 = tensor.concat dim(0) %u, %m : (tensor<1x8xf32>, tensor<2x8xf32>) -> tensor<3x8xf32>
  %e3 = tensor.empty() : tensor<1x8xf32>
  %v = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<1x8xf32>) outs(%e3 : tensor<1x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %n = arith.negf %in : f32
    linalg.yield %n : f32
  } -> tensor<1x8xf32>
  %late = arith.negf %m : tensor<2x8xf32>
  %c3 = tensor.concat dim(0) %v, %late : (tensor<1x8xf32>, tensor<2x8xf32>) -> tensor<3x8xf32>
  %c4 = tensor.concat dim(0) %x, %m : (tensor<1x8xf32>, tensor<2x8xf32>) -> tensor<3x8xf32>
  return %c0, %a, %c1, %c2, %c3, %c4 : tensor<3x8xf32>, tensor<1x8xf32>, tensor<3x8xf32>, tensor<3x8xf32>, tensor<3x8xf32>, tensor<3x8xf32>
}
