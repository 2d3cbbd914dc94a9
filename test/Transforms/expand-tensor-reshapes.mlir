// decoda-expand-tensor-reshapes: tensor.reshape whose shape elements are known (from_elements,
// a constant) becomes collapse_shape + expand_shape (views, no shape buffer for the GPU's host
// code to write); on buffers, memref.expand_shape splitting one extent into several dynamic
// ones becomes memref.reinterpret_cast (MLIR 22's expand-strided-metadata crashes on it).
// RUN: decoda-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(decoda-expand-tensor-reshapes))' | FileCheck %s
// The rewritten buffers go through expand-strided-metadata (which crashes on the input).
// RUN: decoda-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(decoda-expand-tensor-reshapes),expand-strided-metadata)' | FileCheck %s --check-prefix=ESM

// Numbers: the PyTorch GPT-2 block (its Reshapes to computed [B·T, F] and [B, T, F] shapes)
// against ONNX Runtime: its one-token build (--static-dims, constant shapes) for the CPU with
// the pass inserted after the graph passes and without it; and the dynamic build for CUDA
// (decoda-lower-to-cuda runs the pass before bufferization and again on the host code; before
// the pass, decoda-gpu-device-buffers refused the shape buffers the host wrote, and the
// expansions into [B, T, F] crashed expand-strided-metadata) on the PTX interpreter, batch 2
// of 7 tokens.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %PYTHON %S/../GPU/Inputs/onnx_ort_io.py %S/../Frontend/ONNX/models/torch_gpt2_block_dynamic.onnx %t/in1.npz %t/out1.npz batch=1 sequence=1
// RUN: %PYTHON -c "import numpy as np; np.save('%t/x1.npy', np.load('%t/in1.npz')['arg0']); np.save('%t/ref1.npy', np.load('%t/out1.npz')['out0'])"
// RUN: decoda-compile %S/../Frontend/ONNX/models/torch_gpt2_block_dynamic.onnx --static-dims=batch=1,sequence=1 --test-insert-pass-after-graph-opt='func.func(decoda-expand-tensor-reshapes)' --print-ir-after=decoda-expand-tensor-reshapes -o %t/with.so 2>%t/with.mlir
// RUN: FileCheck %s --check-prefix=GRAPH < %t/with.mlir
// GRAPH: IR Dump After ExpandTensorReshapesPass
// GRAPH-NOT: tensor.reshape
// GRAPH: tensor.expand_shape {{.*}} output_shape [1, 64] : tensor<64xf32> into tensor<1x64xf32>
// GRAPH: tensor.expand_shape {{.*}} output_shape [1, 1, 192] : tensor<192xf32> into tensor<1x1x192xf32>
// GRAPH-NOT: tensor.reshape
// RUN: decoda-compile %S/../Frontend/ONNX/models/torch_gpt2_block_dynamic.onnx --static-dims=batch=1,sequence=1 -o %t/without.so
// RUN: decoda-run %t/with.so --input hidden_states=%t/x1.npy --check output=%t/ref1.npy --rtol 1e-4 --atol 1e-5 | FileCheck %s --check-prefix=NUM
// RUN: decoda-run %t/without.so --input hidden_states=%t/x1.npy --check output=%t/ref1.npy --rtol 1e-4 --atol 1e-5 | FileCheck %s --check-prefix=NUM
// NUM: check output: PASS
// RUN: %PYTHON %S/../GPU/Inputs/onnx_ort_io.py %S/../Frontend/ONNX/models/torch_gpt2_block_dynamic.onnx %t/in.npz %t/out.npz batch=2 sequence=7
// RUN: decoda-compile %S/../Frontend/ONNX/models/torch_gpt2_block_dynamic.onnx --target=cuda --emit=ptx -o %t/g.ptx --dump-ir-after-each=%t/g
// RUN: %PYTHON %S/../GPU/Inputs/gpusim_run.py %t/g %t/g.ptx --inputs %t/in.npz --expect %t/out.npz --rtol 1e-4 --atol 1e-5 | FileCheck %s --check-prefix=GPU
// GPU: out0: ok (896 elements

// [B, T, 64] -> [B·T, 64] -> [B, T, 192] as the importer writes them (shapes from
// tensor.from_elements of index values, one an i64 cast to index).
// CHECK-LABEL: func.func @computed(
// CHECK-SAME: %[[X:.*]]: tensor<?x?x64xf32>, %[[B:.*]]: index, %[[T:.*]]: index, %[[N:.*]]: i64
// CHECK-NOT: tensor.reshape
// CHECK: %[[NI:.*]] = arith.index_cast %[[N]] : i64 to index
// CHECK: %[[F:.*]] = tensor.collapse_shape %[[X]] {{\[}}[0, 1, 2]] : tensor<?x?x64xf32> into tensor<?xf32>
// CHECK: %[[R:.*]] = tensor.expand_shape %[[F]] {{\[}}[0, 1]] output_shape [%[[NI]], 64] : tensor<?xf32> into tensor<?x64xf32>
// The second reshape's collapse of the first's expansion folds: the rows of x expanded at once.
// CHECK: %[[F2:.*]] = tensor.collapse_shape %[[X]] {{\[}}[0, 1, 2]] : tensor<?x?x64xf32> into tensor<?xf32>
// CHECK: %[[R2:.*]] = tensor.expand_shape %[[F2]] {{\[}}[0, 1, 2]] output_shape [%[[B]], %[[T]], 64] : tensor<?xf32> into tensor<?x?x64xf32>
// CHECK: return %[[R]], %[[R2]]
func.func @computed(%x: tensor<?x?x64xf32>, %b: index, %t: index, %n: i64) -> (tensor<?x64xf32>, tensor<?x?x64xf32>) {
  %c64 = arith.constant 64 : i64
  %s = tensor.from_elements %n, %c64 : tensor<2xi64>
  %r = tensor.reshape %x(%s) : (tensor<?x?x64xf32>, tensor<2xi64>) -> tensor<?x64xf32>
  %c64i = arith.constant 64 : index
  %s2 = tensor.from_elements %b, %t, %c64i : tensor<3xindex>
  %r2 = tensor.reshape %r(%s2) : (tensor<?x64xf32>, tensor<3xindex>) -> tensor<?x?x64xf32>
  return %r, %r2 : tensor<?x64xf32>, tensor<?x?x64xf32>
}

// -----

// A constant shape (a --static-dims build) refines the type: the dynamic flat source is cast
// to its static size first, the static result cast back to the written dynamic type; to 1-D, a
// collapse alone.
// CHECK-LABEL: func.func @constant(
// CHECK: %[[F:.*]] = tensor.collapse_shape %arg0 {{\[}}[0, 1, 2]] : tensor<?x?x64xf32> into tensor<?xf32>
// CHECK: %[[S:.*]] = tensor.cast %[[F]] : tensor<?xf32> to tensor<64xf32>
// CHECK: %[[E:.*]] = tensor.expand_shape %[[S]] {{\[}}[0, 1]] output_shape [1, 64] : tensor<64xf32> into tensor<1x64xf32>
// CHECK: %[[C:.*]] = tensor.cast %[[E]] : tensor<1x64xf32> to tensor<?x64xf32>
// CHECK: %[[FLAT:.*]] = tensor.collapse_shape %arg0 {{\[}}[0, 1, 2]] : tensor<?x?x64xf32> into tensor<?xf32>
// CHECK: %[[FS:.*]] = tensor.cast %[[FLAT]] : tensor<?xf32> to tensor<64xf32>
// CHECK: %[[FD:.*]] = tensor.cast %[[FS]] : tensor<64xf32> to tensor<?xf32>
// CHECK: return %[[C]], %[[FD]]
func.func @constant(%x: tensor<?x?x64xf32>) -> (tensor<?x64xf32>, tensor<?xf32>) {
  %s = arith.constant dense<[1, 64]> : tensor<2xindex>
  %r = tensor.reshape %x(%s) : (tensor<?x?x64xf32>, tensor<2xindex>) -> tensor<?x64xf32>
  %n = arith.constant 64 : index
  %s1 = tensor.from_elements %n : tensor<1xindex>
  %f = tensor.reshape %x(%s1) : (tensor<?x?x64xf32>, tensor<1xindex>) -> tensor<?xf32>
  return %r, %f : tensor<?x64xf32>, tensor<?xf32>
}

// -----

// A static source to a result with dynamic extents (a one-token clone reading computed shapes):
// the flat extent is made dynamic first (an expansion of a static extent into dynamic ones
// does not verify).
// CHECK-LABEL: func.func @static_source(
// CHECK: %[[F:.*]] = tensor.collapse_shape %arg0 {{\[}}[0, 1, 2]] : tensor<1x1x64xf32> into tensor<64xf32>
// CHECK: %[[D:.*]] = tensor.cast %[[F]] : tensor<64xf32> to tensor<?xf32>
// CHECK: tensor.expand_shape %[[D]] {{\[}}[0, 1, 2]] output_shape [%arg1, %arg2, 64] : tensor<?xf32> into tensor<?x?x64xf32>
func.func @static_source(%x: tensor<1x1x64xf32>, %b: index, %t: index) -> tensor<?x?x64xf32> {
  %c64 = arith.constant 64 : index
  %s = tensor.from_elements %b, %t, %c64 : tensor<3xindex>
  %r = tensor.reshape %x(%s) : (tensor<1x1x64xf32>, tensor<3xindex>) -> tensor<?x?x64xf32>
  return %r : tensor<?x?x64xf32>
}

// -----

// Left alone: a shape that is an argument (its elements unknown), and a constant extent that
// contradicts the written static one.
// CHECK-LABEL: func.func @unknown(
// CHECK: tensor.reshape %arg0(%arg1)
// CHECK: tensor.reshape %arg0(%{{.*}}) : (tensor<?x?x64xf32>, tensor<2xindex>) -> tensor<?x32xf32>
func.func @unknown(%x: tensor<?x?x64xf32>, %s: tensor<2xindex>) -> (tensor<?x64xf32>, tensor<?x32xf32>) {
  %r = tensor.reshape %x(%s) : (tensor<?x?x64xf32>, tensor<2xindex>) -> tensor<?x64xf32>
  %c = arith.constant dense<[2, 64]> : tensor<2xindex>
  %r2 = tensor.reshape %x(%c) : (tensor<?x?x64xf32>, tensor<2xindex>) -> tensor<?x32xf32>
  return %r, %r2 : tensor<?x64xf32>, tensor<?x32xf32>
}

// -----

// Buffers: [B·T, 192] split into [B, T, 192] (two dynamic extents in one group) becomes a
// reinterpret_cast (strides T·192, 192, 1); from a strided source its offset and row stride
// come from the source's metadata; a split with one dynamic extent per group stays.
// CHECK-LABEL: func.func @buffers(
// CHECK: %[[TS:.*]] = arith.muli %arg2, %c192 : index
// CHECK: memref.reinterpret_cast %arg0 to offset: [0], sizes: [%arg1, %arg2, 192], strides: [%[[TS]], 192, 1] : memref<?x192xf32> to memref<?x?x192xf32>
// CHECK: %[[BASE:.*]], %[[OFF:.*]], %[[SZ:.*]]:2, %[[ST:.*]]:2 = memref.extract_strided_metadata %arg3
// CHECK: %[[S0:.*]] = arith.muli %[[ST]]#0, %arg2 : index
// CHECK: memref.reinterpret_cast %arg3 to offset: [%[[OFF]]], sizes: [%arg1, %arg2, 64], strides: [%[[S0]], %[[ST]]#0, 1]
// CHECK: memref.expand_shape %arg0 {{\[}}[0], [1, 2]] output_shape [%arg1, 12, 16]
// ESM-LABEL: func.func @buffers(
// ESM-NOT: memref.expand_shape
// ESM: memref.reinterpret_cast %arg0 to offset: [0], sizes: [%arg1, %arg2, 192], strides: [%{{.*}}, 192, 1]
// ESM: memref.reinterpret_cast %{{.*}} to offset: [0], sizes: [%{{.*}}, 12, 16], strides: [192, 16, 1]
func.func @buffers(%m: memref<?x192xf32>, %b: index, %t: index, %s: memref<?x64xf32, strided<[?, 1], offset: ?>>) -> (memref<?x?x192xf32>, memref<?x?x64xf32, strided<[?, ?, 1], offset: ?>>, memref<?x12x16xf32>) {
  %e = memref.expand_shape %m [[0, 1], [2]] output_shape [%b, %t, 192] : memref<?x192xf32> into memref<?x?x192xf32>
  %e2 = memref.expand_shape %s [[0, 1], [2]] output_shape [%b, %t, 64] : memref<?x64xf32, strided<[?, 1], offset: ?>> into memref<?x?x64xf32, strided<[?, ?, 1], offset: ?>>
  %e3 = memref.expand_shape %m [[0], [1, 2]] output_shape [%b, 12, 16] : memref<?x192xf32> into memref<?x12x16xf32>
  return %e, %e2, %e3 : memref<?x?x192xf32>, memref<?x?x64xf32, strided<[?, ?, 1], offset: ?>>, memref<?x12x16xf32>
}
