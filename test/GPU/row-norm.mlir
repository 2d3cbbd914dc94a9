// decoda-gpu-row-norm: the body of a decoda.gpu_norm function (made by
// decoda-convert-to-linalg{gpu-kernel-calls}, here written after bufferization) becomes one
// gpu.launch with a block per row of [R, D] views: 16-byte vector loads of the row chunks and
// the weight, all before the first store; the residual sum stored first (add forms), warp
// shuffles and one partial per warp in shared memory for each row sum, rsqrt, the scaling and
// the rounding in the same kernel. Unsupported configurations keep their body, with a remark
// naming the op.
// RUN: decoda-opt %s --split-input-file --decoda-gpu-row-norm --verify-diagnostics | FileCheck %s

// CHECK-LABEL: func.func private @__decoda_gpu_norm(
// CHECK-SAME: %[[R:.*]]: memref<1x?x2048xbf16>, %[[A:.*]]: memref<1x?x2048xbf16>, %[[W:.*]]: memref<2048xbf16>) -> (memref<1x?x2048xbf16>, memref<1x?x2048xbf16>)
// CHECK-NOT: decoda.gpu_norm
// CHECK: %[[SUM:.*]] = memref.alloc(%{{.*}}) : memref<1x?x2048xbf16>
// CHECK: %[[OUT:.*]] = memref.alloc(%{{.*}}) : memref<1x?x2048xbf16>
// CHECK: %[[R2:.*]] = memref.collapse_shape %[[R]] {{\[\[}}0, 1], [2]]
// CHECK: gpu.launch blocks(%{{.*}}, %{{.*}}, %{{.*}}) in (%{{.*}} = %{{.*}}, %{{.*}} = %c1{{.*}}, %{{.*}} = %c1{{.*}}) threads(%{{.*}}, %{{.*}}, %{{.*}}) in (%{{.*}} = %c256{{.*}}, %{{.*}} = %c1{{.*}}, %{{.*}} = %c1{{.*}}) workgroup(%[[RED:.*]] : memref<2x8xf32, #gpu.address_space<workgroup>>)
// CHECK: %[[COL:.*]] = arith.muli %{{.*}}, %c8
// CHECK: vector.load %[[R2]][%{{.*}}, %[[COL]]] {alignment = 16 : i64} : memref<?x2048xbf16>, vector<8xbf16>
// CHECK-NOT: vector.store
// CHECK: vector.load %{{.*}}[%{{.*}}, %[[COL]]] {alignment = 16 : i64} : memref<?x2048xbf16>, vector<8xbf16>
// CHECK-NOT: vector.store
// CHECK: vector.load %[[W]][%[[COL]]] {alignment = 16 : i64} : memref<2048xbf16>, vector<8xbf16>
// CHECK: vector.store %{{.*}}, %{{.*}}[%{{.*}}, %[[COL]]] {alignment = 16 : i64} : memref<?x2048xbf16>, vector<8xbf16>
// CHECK-NOT: vector.store
// CHECK-COUNT-5: gpu.shuffle  xor
// CHECK: memref.store %{{.*}}, %[[RED]]
// CHECK: gpu.barrier
// CHECK: math.rsqrt
// CHECK: arith.truncf %{{.*}} : vector<8xf32> to vector<8xbf16>
// CHECK: vector.store %{{.*}}, %{{.*}}[%{{.*}}, %[[COL]]] {alignment = 16 : i64} : memref<?x2048xbf16>, vector<8xbf16>
// CHECK-NOT: vector.store
// CHECK: gpu.terminator
// CHECK: return %[[SUM]], %[[OUT]]
func.func private @__decoda_gpu_norm(%r: memref<1x?x2048xbf16>, %a: memref<1x?x2048xbf16>, %w: memref<2048xbf16>) -> (memref<1x?x2048xbf16>, memref<1x?x2048xbf16>)
    attributes {decoda.gpu_norm = {op = "decoda.add_rms_norm", add = true, bias = false, centered = false, eps = 1.0e-06 : f64, scale = 5.0e-01 : f64, weight_offset = 1.0 : f64}} {
  %c1 = arith.constant 1 : index
  %t = memref.dim %r, %c1 : memref<1x?x2048xbf16>
  %s = memref.alloc(%t) : memref<1x?x2048xbf16>
  %o = memref.alloc(%t) : memref<1x?x2048xbf16>
  return %s, %o : memref<1x?x2048xbf16>, memref<1x?x2048xbf16>
}

// -----

// LayerNorm over 64 features: one warp, 16 chunks of 4 f32 (lanes 16..31 load nothing), no
// shared memory traffic (the 2x1 partials are unused), two row sums (mean, centred variance),
// the bias loaded with the weight before the sums.
// CHECK-LABEL: func.func private @layer(
// CHECK: gpu.launch
// CHECK-SAME: %c32
// CHECK: %[[IN:.*]] = arith.cmpi ult, %{{.*}}, %c16
// CHECK: scf.if %[[IN]] -> (vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>)
// CHECK: vector.load %arg0
// CHECK: vector.load %arg1
// CHECK: vector.load %arg2
// CHECK-NOT: gpu.barrier
// CHECK: arith.divf
// CHECK: math.rsqrt
// CHECK: scf.if %[[IN]] {
// CHECK-NEXT: vector.store %{{.*}} : memref<4x64xf32>, vector<4xf32>
// CHECK: gpu.terminator
func.func private @layer(%x: memref<4x64xf32>, %w: memref<64xf32>, %b: memref<64xf32>) -> memref<4x64xf32>
    attributes {decoda.gpu_norm = {op = "decoda.layer_norm", add = false, bias = true, centered = true, eps = 1.0e-05 : f64, scale = 1.0 : f64, weight_offset = 0.0 : f64}} {
  %o = memref.alloc() : memref<4x64xf32>
  return %o : memref<4x64xf32>
}

// -----

// D = 300 bf16 rows with an f32 weight: chunks of 4 (300 is not a multiple of 8), 8-byte row
// accesses and 16-byte weight ones; 64 threads, two chunks each, the second only below 75.
// CHECK-LABEL: func.func private @ragged(
// CHECK: gpu.launch
// CHECK-SAME: %c64
// CHECK: vector.load %{{.*}} {alignment = 8 : i64} : memref<5x300xbf16>, vector<4xbf16>
// CHECK: vector.load %arg1[%{{.*}}] {alignment = 16 : i64} : memref<300xf32>, vector<4xf32>
// CHECK: %[[IN:.*]] = arith.cmpi ult, %{{.*}}, %c75
// CHECK: scf.if %[[IN]] -> (vector<4xf32>, vector<4xf32>, vector<4xf32>)
// CHECK-COUNT-2: vector.store %{{.*}} {alignment = 8 : i64} : memref<5x300xbf16>, vector<4xbf16>
func.func private @ragged(%x: memref<5x300xbf16>, %w: memref<300xf32>) -> memref<5x300xbf16>
    attributes {decoda.gpu_norm = {op = "decoda.rms_norm", add = false, bias = false, centered = false, eps = 1.0e-05 : f64, scale = 1.0 : f64, weight_offset = 0.0 : f64}} {
  %o = memref.alloc() : memref<5x300xbf16>
  return %o : memref<5x300xbf16>
}

// -----

// A dynamic feature dimension, too many features, and an unbufferized function keep their body.
// CHECK-LABEL: func.func private @dynamic(
// CHECK-NOT: gpu.launch
// CHECK-LABEL: func.func private @wide(
// CHECK-NOT: gpu.launch
// CHECK-LABEL: func.func private @tensors(
// CHECK-NOT: gpu.launch
// expected-remark @+1 {{decoda-gpu-row-norm: decoda.rms_norm keeps the target-neutral lowering: the feature (last) dimension is dynamic}}
func.func private @dynamic(%x: memref<4x?xf32>, %w: memref<?xf32>) -> memref<4x?xf32>
    attributes {decoda.gpu_norm = {op = "decoda.rms_norm", add = false, bias = false, centered = false, eps = 1.0e-05 : f64, scale = 1.0 : f64, weight_offset = 0.0 : f64}} {
  return %x : memref<4x?xf32>
}
// expected-remark @+1 {{decoda-gpu-row-norm: decoda.rms_norm keeps the target-neutral lowering: D = 32768 is over 16384 features}}
func.func private @wide(%x: memref<2x32768xf32>, %w: memref<32768xf32>) -> memref<2x32768xf32>
    attributes {decoda.gpu_norm = {op = "decoda.rms_norm", add = false, bias = false, centered = false, eps = 1.0e-05 : f64, scale = 1.0 : f64, weight_offset = 0.0 : f64}} {
  return %x : memref<2x32768xf32>
}
// expected-remark @+1 {{an operand that is not an identity-layout buffer (not yet bufferized?)}}
func.func private @tensors(%x: tensor<2x8xf32>, %w: tensor<8xf32>) -> tensor<2x8xf32>
    attributes {decoda.gpu_norm = {op = "decoda.rms_norm", add = false, bias = false, centered = false, eps = 1.0e-05 : f64, scale = 1.0 : f64, weight_offset = 0.0 : f64}} {
  return %x : tensor<2x8xf32>
}
