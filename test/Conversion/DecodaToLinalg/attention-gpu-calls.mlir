// RUN: decoda-opt %s --decoda-convert-to-linalg=gpu-kernel-calls=true --split-input-file | FileCheck %s

// gpu-kernel-calls (the GPU pipeline): every non-INT8 attention / cached_attention becomes a
// call of a private function tagged decoda.gpu_attention (the configuration, default scale
// resolved) whose body is the target-neutral flash loop, for decoda-gpu-flash-attention after
// bufferization. Run-time checks and the cache append stay at the call site; INT8 attention is
// not affected. (The numbers: test/GPU/flash-attention-sim.mlir.)

// CHECK-LABEL: func.func private @__decoda_gpu_attention(
// CHECK-SAME:    %{{.*}}: tensor<1x?x4x16xf32>, %{{.*}}: tensor<1x?x2x16xf32>, %{{.*}}: tensor<1x?x2x16xf32>, %{{.*}}: index, %[[M:.*]]: tensor<1x1x?x?xf32>, %{{.*}}: tensor<4xf32>) -> tensor<1x?x4x16xf32>
// CHECK-SAME:    attributes {decoda.gpu_attention = {causal = true, mask = true, num_heads = 4 : i64, num_kv_heads = 2 : i64, op = "decoda.attention", scale = 2.500000e-01 : f64, segment_ids = false, sinks = true, softcap = 3.000000e+01 : f64, window = 8 : i64}}
// CHECK:         scf.for
// CHECK:         tensor.extract_slice %[[M]]
// CHECK:         return
// CHECK-LABEL: func.func @attention(
// CHECK-SAME:    %[[Q:[a-z0-9]+]]: tensor<1x?x4x16xf32>, %[[K:[a-z0-9]+]]: tensor<1x?x2x16xf32>, %[[V:[a-z0-9]+]]: tensor<1x?x2x16xf32>, %[[MASK:[a-z0-9]+]]: tensor<1x1x?x?xf32>, %[[S:[a-z0-9]+]]: tensor<4xf32>)
// CHECK:         cf.assert %{{.*}}, "decoda.attention: more queries than keys
// CHECK-NEXT:    %[[O:.*]] = call @__decoda_gpu_attention(%[[Q]], %[[K]], %[[V]], %{{.*}}, %[[MASK]], %[[S]])
// CHECK:         return %[[O]]
func.func @attention(%q: tensor<1x?x4x16xf32>, %k: tensor<1x?x2x16xf32>, %v: tensor<1x?x2x16xf32>, %m: tensor<1x1x?x?xf32>, %s: tensor<4xf32>) -> tensor<1x?x4x16xf32> {
  %o = decoda.attention %q, %k, %v mask(%m : tensor<1x1x?x?xf32>) sinks(%s : tensor<4xf32>) {num_heads = 4 : i64, num_kv_heads = 2 : i64, causal, window = 8 : i64, softcap = 30.0 : f64} : tensor<1x?x4x16xf32>, tensor<1x?x2x16xf32>, tensor<1x?x2x16xf32>
  return %o : tensor<1x?x4x16xf32>
}

// -----

// cached_attention: the caches are updated at the call site, the call reads offset + T keys.
// CHECK-LABEL: func.func private @__decoda_gpu_attention(
// CHECK-SAME:    tensor<1x1x8x64xbf16>, %{{.*}}: tensor<1x512x2x64xbf16>, %{{.*}}: tensor<1x512x2x64xbf16>, %{{.*}}: index) -> tensor<1x1x8x64xbf16>
// CHECK-SAME:    op = "decoda.cached_attention"
// CHECK-LABEL: func.func @cached(
// CHECK:         %[[END:.*]] = arith.addi %{{.*}}, %{{.*}} : index
// CHECK:         cf.assert
// CHECK:         %[[KC:.*]] = tensor.insert_slice
// CHECK:         %[[VC:.*]] = tensor.insert_slice
// CHECK:         %[[O:.*]] = call @__decoda_gpu_attention(%{{.*}}, %[[KC]], %[[VC]], %[[END]])
// CHECK:         return %[[O]], %[[KC]], %[[VC]]
func.func @cached(%q: tensor<1x1x8x64xbf16>, %k: tensor<1x1x2x64xbf16>, %v: tensor<1x1x2x64xbf16>, %kc: tensor<1x512x2x64xbf16>, %vc: tensor<1x512x2x64xbf16>, %off: index) -> (tensor<1x1x8x64xbf16>, tensor<1x512x2x64xbf16>, tensor<1x512x2x64xbf16>) {
  %o, %kc2, %vc2 = decoda.cached_attention %q, %k, %v, %kc, %vc[%off] {num_heads = 8 : i64, num_kv_heads = 2 : i64, causal} : tensor<1x1x8x64xbf16>, tensor<1x1x2x64xbf16>, tensor<1x1x2x64xbf16>, tensor<1x512x2x64xbf16>, tensor<1x512x2x64xbf16>
  return %o, %kc2, %vc2 : tensor<1x1x8x64xbf16>, tensor<1x512x2x64xbf16>, tensor<1x512x2x64xbf16>
}

// -----

// INT8 attention keeps its own lowering.
// CHECK-LABEL: func.func @int8(
// CHECK-NOT:     __decoda_gpu_attention
// CHECK:         arith.fptosi
func.func @int8(%q: tensor<1x8x4x16xf32>, %k: tensor<1x8x2x16xf32>, %v: tensor<1x8x2x16xf32>, %qs: tensor<f32>, %ks: tensor<f32>, %vs: tensor<f32>) -> tensor<1x8x4x16xf32> {
  %o = decoda.attention %q, %k, %v quantize(%qs, %ks, %vs : tensor<f32>, tensor<f32>, tensor<f32>) {num_heads = 4 : i64, num_kv_heads = 2 : i64} : tensor<1x8x4x16xf32>, tensor<1x8x2x16xf32>, tensor<1x8x2x16xf32>
  return %o : tensor<1x8x4x16xf32>
}

// -----

// A key count that folds to a constant of the caller (keys cast from a static type, as a
// static-dims ONNX import has them) is a static size inside the function, never the caller's
// value (before, the body used the caller's constant and failed to verify: "using value
// defined outside the region").
// CHECK-LABEL: func.func private @__decoda_gpu_attention(
// CHECK-SAME:    %{{.*}}: tensor<?x?x4x16xf32>, %{{.*}}: tensor<?x?x2x16xf32>, %{{.*}}: tensor<?x?x2x16xf32>, %{{.*}}: index) -> tensor<?x?x4x16xf32>
// CHECK:         %[[C3:.*]] = arith.constant 3 : index
// CHECK:         scf.for %{{.*}} = %c0{{.*}} to %[[C3]] step
// CHECK:         return
// CHECK-LABEL: func.func @constant_key_count(
// CHECK:         %[[O:.*]] = call @__decoda_gpu_attention(%{{.*}}, %{{.*}}, %{{.*}}, %c3{{.*}})
// CHECK:         return %[[O]]
func.func @constant_key_count(%q: tensor<?x?x4x16xf32>, %ks: tensor<1x3x2x16xf32>) -> tensor<?x?x4x16xf32> {
  %k = tensor.cast %ks : tensor<1x3x2x16xf32> to tensor<?x?x2x16xf32>
  %o = decoda.attention %q, %k, %k {num_heads = 4 : i64, num_kv_heads = 2 : i64, causal} : tensor<?x?x4x16xf32>, tensor<?x?x2x16xf32>, tensor<?x?x2x16xf32>
  return %o : tensor<?x?x4x16xf32>
}
