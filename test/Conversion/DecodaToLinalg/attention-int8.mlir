// RUN: decoda-opt %s --decoda-convert-to-linalg --split-input-file | FileCheck %s --check-prefix=INLINE
// RUN: decoda-opt %s --decoda-convert-to-linalg=int8-attention-calls=true --split-input-file | FileCheck %s --check-prefix=CALL

// INT8 attention (quantize(q_scale, k_scale, v_scale)): q, k, v quantised to i8
// (clamp(rint(x / scale), -127, 127)), i32 products, f32 softmax, u8 probabilities. Inline by
// default (the target-neutral form, as the GPU pipeline and optimize=false take it); with
// int8-attention-calls (the CPU pipeline) a call of a private function tagged
// decoda.int8_attention whose body is that form, for decoda-cpu-int8-attention. Run-time checks
// and the cache append stay at the call site. (The numbers: test/e2e/attention_int8.py,
// test/e2e/cached_attention_int8.py.)

// INLINE-LABEL: func.func @attention_int8(
// INLINE-NOT:     call
// INLINE-COUNT-3: arith.fptosi %{{.*}} : f32 to i8
// INLINE:         scf.for
// INLINE:           arith.muli %{{.*}}, %{{.*}} : i32
// INLINE:         scf.for
// INLINE:           arith.fptosi %{{.*}} : f32 to i32
// INLINE:           arith.muli %{{.*}}, %{{.*}} : i32
// INLINE:         return
// CALL-LABEL: func.func private @__decoda_int8_attention(
// CALL-SAME:    %{{.*}}: tensor<1x8x4x16xf32>, %{{.*}}: tensor<1x8x2x16xf32>, %{{.*}}: tensor<1x8x2x16xf32>, %{{.*}}: index, %{{.*}}: tensor<f32>, %{{.*}}: tensor<f32>, %{{.*}}: tensor<f32>, %[[M:.*]]: tensor<1x1x8x8xf32>, %{{.*}}: tensor<4xf32>) -> tensor<1x8x4x16xf32>
// CALL-SAME:    attributes {decoda.int8_attention = {causal = true, mask = true, num_heads = 4 : i64, num_kv_heads = 2 : i64, scale = 2.500000e-01 : f64, segment_ids = false, sinks = true}}
// CALL-NOT:     tensor.extract_slice %{{.*}}[0, 0, 0, %{{.*}}] [1, 1, 8, 64]
// CALL:         tensor.extract_slice %[[M]][0, 0, 0, %{{.*}}] [1, 1, 8, 8]
// CALL:         return
// CALL-LABEL: func.func @attention_int8(
// CALL-SAME:    %[[Q:[a-z0-9]+]]: tensor<1x8x4x16xf32>, %[[K:[a-z0-9]+]]: tensor<1x8x2x16xf32>, %[[V:[a-z0-9]+]]: tensor<1x8x2x16xf32>, %[[MASK:[a-z0-9]+]]: tensor<1x1x8x8xf32>, %[[S:[a-z0-9]+]]: tensor<4xf32>, %[[QS:[a-z0-9]+]]: tensor<f32>, %[[KS:[a-z0-9]+]]: tensor<f32>, %[[VS:[a-z0-9]+]]: tensor<f32>)
// CALL:         %[[C8:.*]] = arith.constant 8 : index
// CALL:         %[[O:.*]] = call @__decoda_int8_attention(%[[Q]], %[[K]], %[[V]], %[[C8]], %[[QS]], %[[KS]], %[[VS]], %[[MASK]], %[[S]])
// CALL:         return %[[O]]
func.func @attention_int8(%q: tensor<1x8x4x16xf32>, %k: tensor<1x8x2x16xf32>, %v: tensor<1x8x2x16xf32>, %m: tensor<1x1x8x8xf32>, %s: tensor<4xf32>, %qs: tensor<f32>, %ks: tensor<f32>, %vs: tensor<f32>) -> tensor<1x8x4x16xf32> {
  %o = decoda.attention %q, %k, %v mask(%m : tensor<1x1x8x8xf32>) sinks(%s : tensor<4xf32>) quantize(%qs, %ks, %vs : tensor<f32>, tensor<f32>, tensor<f32>) {num_heads = 4 : i64, num_kv_heads = 2 : i64, causal} : tensor<1x8x4x16xf32>, tensor<1x8x2x16xf32>, tensor<1x8x2x16xf32>
  return %o : tensor<1x8x4x16xf32>
}

// -----

// cached_attention: checks and append as in the float form, then the INT8 attention over the
// prefix [0, offset + T) of the updated caches (quantised when read; the caches stay f32).
// INLINE-LABEL: func.func @cached_int8(
// INLINE-SAME:    %[[KC:[a-z0-9]+]]: tensor<1x512x2x64xf32>, %[[VC:[a-z0-9]+]]: tensor<1x512x2x64xf32>, %[[OFF:[a-z0-9]+]]: index
// INLINE:         %[[LEN:.*]] = arith.addi %[[OFF]], %{{.*}} : index
// INLINE:         cf.assert %{{.*}}, "decoda.cached_attention: the new tokens [offset, offset + T) do not fit in the cache
// INLINE:         %[[KC2:.*]] = tensor.insert_slice %{{.*}} into %[[KC]][0, %[[OFF]], 0, 0]
// INLINE:         %[[VC2:.*]] = tensor.insert_slice %{{.*}} into %[[VC]][0, %[[OFF]], 0, 0]
// INLINE:         %[[KP:.*]] = tensor.extract_slice %[[KC2]][0, 0, 0, 0] [1, %[[LEN]], 2, 64]
// INLINE:         linalg.generic {{.*}} ins(%[[KP]], %{{.*}} : tensor<1x?x2x64xf32>, tensor<f32>) outs(%{{.*}} : tensor<1x?x2x64xi8>)
// INLINE:         return %{{.*}}, %[[KC2]], %[[VC2]]
// CALL-LABEL: func.func private @__decoda_int8_attention(
// CALL-SAME:    tensor<1x?x8x64xf32>, %{{.*}}: tensor<1x512x2x64xf32>, %{{.*}}: tensor<1x512x2x64xf32>, %{{.*}}: index, %{{.*}}: tensor<f32>, %{{.*}}: tensor<f32>, %{{.*}}: tensor<f32>) -> tensor<1x?x8x64xf32>
// CALL-LABEL: func.func @cached_int8(
// CALL-SAME:    %[[KC:[a-z0-9]+]]: tensor<1x512x2x64xf32>, %[[VC:[a-z0-9]+]]: tensor<1x512x2x64xf32>, %[[OFF:[a-z0-9]+]]: index
// CALL:         %[[LEN:.*]] = arith.addi %[[OFF]], %{{.*}} : index
// CALL:         %[[KC2:.*]] = tensor.insert_slice %{{.*}} into %[[KC]]
// CALL:         %[[VC2:.*]] = tensor.insert_slice %{{.*}} into %[[VC]]
// CALL:         %[[O:.*]] = call @__decoda_int8_attention(%{{.*}}, %[[KC2]], %[[VC2]], %[[LEN]],
// CALL:         return %[[O]], %[[KC2]], %[[VC2]]
func.func @cached_int8(%q: tensor<1x?x8x64xf32>, %k: tensor<1x?x2x64xf32>, %v: tensor<1x?x2x64xf32>, %kc: tensor<1x512x2x64xf32>, %vc: tensor<1x512x2x64xf32>, %off: index, %qs: tensor<f32>, %ks: tensor<f32>, %vs: tensor<f32>) -> (tensor<1x?x8x64xf32>, tensor<1x512x2x64xf32>, tensor<1x512x2x64xf32>) {
  %o, %kc2, %vc2 = decoda.cached_attention %q, %k, %v, %kc, %vc[%off] quantize(%qs, %ks, %vs : tensor<f32>, tensor<f32>, tensor<f32>) {num_heads = 8 : i64, num_kv_heads = 2 : i64, causal} : tensor<1x?x8x64xf32>, tensor<1x?x2x64xf32>, tensor<1x?x2x64xf32>, tensor<1x512x2x64xf32>, tensor<1x512x2x64xf32>
  return %o, %kc2, %vc2 : tensor<1x?x8x64xf32>, tensor<1x512x2x64xf32>, tensor<1x512x2x64xf32>
}

// -----

// Two INT8 attentions in one module get two functions.
// CALL-LABEL: func.func private @__decoda_int8_attention(
// CALL-LABEL: func.func private @__decoda_int8_attention_1(
// CALL-LABEL: func.func @two(
// CALL:         call @__decoda_int8_attention{{(_1)?}}(
// CALL:         call @__decoda_int8_attention{{(_1)?}}(
func.func @two(%q: tensor<1x8x2x16xf32>, %qs: tensor<f32>) -> (tensor<1x8x2x16xf32>, tensor<1x8x2x16xf32>) {
  %a = decoda.attention %q, %q, %q quantize(%qs, %qs, %qs : tensor<f32>, tensor<f32>, tensor<f32>) {num_heads = 2 : i64, num_kv_heads = 2 : i64, causal} : tensor<1x8x2x16xf32>, tensor<1x8x2x16xf32>, tensor<1x8x2x16xf32>
  %b = decoda.attention %q, %q, %q quantize(%qs, %qs, %qs : tensor<f32>, tensor<f32>, tensor<f32>) {num_heads = 2 : i64, num_kv_heads = 2 : i64} : tensor<1x8x2x16xf32>, tensor<1x8x2x16xf32>, tensor<1x8x2x16xf32>
  return %a, %b : tensor<1x8x2x16xf32>, tensor<1x8x2x16xf32>
}

// -----

// A key count that folds to a constant of the caller (keys cast from a static type) is a
// static size inside the call's function, not the caller's value (before: "using value defined
// outside the region").
// INLINE-LABEL: func.func @constant_key_count(
// CALL-LABEL: func.func private @__decoda_int8_attention(
// CALL-SAME:    %{{.*}}: tensor<?x?x4x16xf32>, %{{.*}}: tensor<?x?x2x16xf32>, %{{.*}}: tensor<?x?x2x16xf32>, %{{.*}}: index,
// CALL:         arith.constant 3 : index
// CALL:         return
// CALL-LABEL: func.func @constant_key_count(
// CALL:         call @__decoda_int8_attention(%{{.*}}, %{{.*}}, %{{.*}}, %c3{{.*}},
func.func @constant_key_count(%q: tensor<?x?x4x16xf32>, %ks: tensor<1x3x2x16xf32>, %qs: tensor<f32>, %kss: tensor<f32>, %vs: tensor<f32>) -> tensor<?x?x4x16xf32> {
  %k = tensor.cast %ks : tensor<1x3x2x16xf32> to tensor<?x?x2x16xf32>
  %o = decoda.attention %q, %k, %k quantize(%qs, %kss, %vs : tensor<f32>, tensor<f32>, tensor<f32>) {num_heads = 4 : i64, num_kv_heads = 2 : i64, causal} : tensor<?x?x4x16xf32>, tensor<?x?x2x16xf32>, tensor<?x?x2x16xf32>
  return %o : tensor<?x?x4x16xf32>
}
