// decoda-gpu-flash-attention: a K or V operand that is only a transposed copy of a [B, H, S, D]
// cache (memref.alloc + linalg.transpose permutation [0, 2, 1, 3], read by the function's one
// call, maybe freed after it) is forwarded: the call takes memref.transpose of the cache, the
// function's argument takes the view's strided type, and the copy, its buffer and its free go.
// Not forwarded: a write to the cache between the copy and the call (a store or a linalg op),
// another reader of the copy, another permutation, TMA K/V loads (row-major tensor maps).
// Numbers: the SIMT, mma.sync and wgmma kernels reading such views against ONNX Runtime in
// test/GPU/onnx-gqa-sim.mlir. Likewise Q, K or V that is only a `memref.copy` of a strided view
// whose rows start at multiples of 16 bytes (the thirds of a fused projection): the call takes
// the view (K and V not with TMA loads).
// RUN: decoda-opt %s --split-input-file --decoda-gpu-flash-attention | FileCheck %s
// RUN: decoda-opt %s --split-input-file --decoda-gpu-flash-attention="wgmma=true wgmma-tma=true" | FileCheck %s --check-prefix=TMA

// CHECK-LABEL: func.func private @att(
// CHECK-SAME:    %{{.+}}: memref<1x1x4x64xf16>, %[[K:.+]]: memref<1x8x2x64xf16, strided<[1024, 64, 512, 1]>>, %[[V:.+]]: memref<1x8x2x64xf16, strided<[1024, 64, 512, 1]>>, %{{.+}}: index)
// CHECK:         gpu.launch
// CHECK-LABEL: func.func @forward(
// CHECK-SAME:    %[[Q:.+]]: memref<1x1x4x64xf16>, %[[KC:.+]]: memref<1x2x8x64xf16>, %[[VC:.+]]: memref<1x2x8x64xf16>)
// CHECK-NOT:     linalg.transpose
// CHECK-NOT:     memref.alloc
// CHECK:         %[[KT:.+]] = memref.transpose %[[KC]] (d0, d1, d2, d3) -> (d0, d2, d1, d3)
// CHECK:         %[[VT:.+]] = memref.transpose %[[VC]] (d0, d1, d2, d3) -> (d0, d2, d1, d3)
// CHECK:         call @att(%[[Q]], %[[KT]], %[[VT]], %{{.+}})
// CHECK-NOT:     memref.dealloc
// TMA-LABEL: func.func @forward(
// TMA:         linalg.transpose
// TMA-NOT:     memref.transpose
func.func private @att(%q: memref<1x1x4x64xf16>, %k: memref<1x8x2x64xf16>, %v: memref<1x8x2x64xf16>, %n: index) -> memref<1x1x4x64xf16>
    attributes {decoda.gpu_attention = {op = "decoda.attention", causal = true, mask = false, num_heads = 4 : i64, num_kv_heads = 2 : i64, scale = 0.125 : f64, segment_ids = false, sinks = false}} {
  %o = memref.alloc() : memref<1x1x4x64xf16>
  return %o : memref<1x1x4x64xf16>
}
func.func @forward(%q: memref<1x1x4x64xf16>, %kc: memref<1x2x8x64xf16>, %vc: memref<1x2x8x64xf16>) -> memref<1x1x4x64xf16> {
  %c8 = arith.constant 8 : index
  %kt = memref.alloc() : memref<1x8x2x64xf16>
  linalg.transpose ins(%kc : memref<1x2x8x64xf16>) outs(%kt : memref<1x8x2x64xf16>) permutation = [0, 2, 1, 3]
  %vt = memref.alloc() : memref<1x8x2x64xf16>
  linalg.transpose ins(%vc : memref<1x2x8x64xf16>) outs(%vt : memref<1x8x2x64xf16>) permutation = [0, 2, 1, 3]
  %o = call @att(%q, %kt, %vt, %c8) : (memref<1x1x4x64xf16>, memref<1x8x2x64xf16>, memref<1x8x2x64xf16>, index) -> memref<1x1x4x64xf16>
  memref.dealloc %kt : memref<1x8x2x64xf16>
  memref.dealloc %vt : memref<1x8x2x64xf16>
  return %o : memref<1x1x4x64xf16>
}

// -----

// The cache written between the copy and the call (K: a store through a view of it), a copy
// read by something else (V): both stay copies.
// CHECK-LABEL: func.func private @att2(
// CHECK-SAME:    %{{.+}}: memref<1x1x4x64xf16>, %{{.+}}: memref<1x8x2x64xf16>, %{{.+}}: memref<1x8x2x64xf16>, %{{.+}}: index)
// CHECK-LABEL: func.func @kept(
// CHECK:         linalg.transpose
// CHECK:         memref.store
// CHECK:         linalg.transpose
// CHECK-NOT:     memref.transpose
// CHECK:         call @att2
func.func private @att2(%q: memref<1x1x4x64xf16>, %k: memref<1x8x2x64xf16>, %v: memref<1x8x2x64xf16>, %n: index) -> memref<1x1x4x64xf16>
    attributes {decoda.gpu_attention = {op = "decoda.attention", causal = true, mask = false, num_heads = 4 : i64, num_kv_heads = 2 : i64, scale = 0.125 : f64, segment_ids = false, sinks = false}} {
  %o = memref.alloc() : memref<1x1x4x64xf16>
  return %o : memref<1x1x4x64xf16>
}
func.func @kept(%q: memref<1x1x4x64xf16>, %kc: memref<1x2x8x64xf16>, %vc: memref<1x2x8x64xf16>, %x: f16) -> (memref<1x1x4x64xf16>, f16) {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %kt = memref.alloc() : memref<1x8x2x64xf16>
  linalg.transpose ins(%kc : memref<1x2x8x64xf16>) outs(%kt : memref<1x8x2x64xf16>) permutation = [0, 2, 1, 3]
  %view = memref.subview %kc[0, 0, 0, 0] [1, 1, 8, 64] [1, 1, 1, 1] : memref<1x2x8x64xf16> to memref<1x1x8x64xf16, strided<[1024, 512, 64, 1]>>
  memref.store %x, %view[%c0, %c0, %c0, %c0] : memref<1x1x8x64xf16, strided<[1024, 512, 64, 1]>>
  %vt = memref.alloc() : memref<1x8x2x64xf16>
  linalg.transpose ins(%vc : memref<1x2x8x64xf16>) outs(%vt : memref<1x8x2x64xf16>) permutation = [0, 2, 1, 3]
  %o = call @att2(%q, %kt, %vt, %c8) : (memref<1x1x4x64xf16>, memref<1x8x2x64xf16>, memref<1x8x2x64xf16>, index) -> memref<1x1x4x64xf16>
  %r = memref.load %vt[%c0, %c0, %c0, %c0] : memref<1x8x2x64xf16>
  return %o, %r : memref<1x1x4x64xf16>, f16
}

// -----

// A linalg op writing the cache between the copy and the call (linalg ops declare their own
// effects and are also recursive: their writes count): the copy stays.
// CHECK-LABEL: func.func @kept_linalg_write(
// CHECK:         linalg.transpose
// CHECK:         linalg.fill
// CHECK-NOT:     memref.transpose
// CHECK:         call @att3
func.func private @att3(%q: memref<1x1x4x64xf16>, %k: memref<1x8x2x64xf16>, %v: memref<1x8x2x64xf16>, %n: index) -> memref<1x1x4x64xf16>
    attributes {decoda.gpu_attention = {op = "decoda.attention", causal = true, mask = false, num_heads = 4 : i64, num_kv_heads = 2 : i64, scale = 0.125 : f64, segment_ids = false, sinks = false}} {
  %o = memref.alloc() : memref<1x1x4x64xf16>
  return %o : memref<1x1x4x64xf16>
}
func.func @kept_linalg_write(%q: memref<1x1x4x64xf16>, %kc: memref<1x2x8x64xf16>, %vc: memref<1x8x2x64xf16>, %x: f16) -> memref<1x1x4x64xf16> {
  %c8 = arith.constant 8 : index
  %kt = memref.alloc() : memref<1x8x2x64xf16>
  linalg.transpose ins(%kc : memref<1x2x8x64xf16>) outs(%kt : memref<1x8x2x64xf16>) permutation = [0, 2, 1, 3]
  linalg.fill ins(%x : f16) outs(%kc : memref<1x2x8x64xf16>)
  %o = call @att3(%q, %kt, %vc, %c8) : (memref<1x1x4x64xf16>, memref<1x8x2x64xf16>, memref<1x8x2x64xf16>, index) -> memref<1x1x4x64xf16>
  return %o : memref<1x1x4x64xf16>
}

// -----

// Q, K and V copied from strided views of one fused projection output (GPT-2's c_attn, here in
// the order k, q, v): every row of each view starts at a multiple of 16 bytes, so the call
// takes the views and the copies go (numbers: the wgmma kernel reading such views,
// test/GPU/flash-attention-wgmma-sim.mlir `wg_fused_qkv_bf16`). With TMA K/V loads only Q is
// forwarded.
// CHECK-LABEL: func.func private @att4(
// CHECK-SAME:    %{{.+}}: memref<1x8x2x64xf16, strided<[3072, 384, 64, 1], offset: 128>>, %{{.+}}: memref<1x8x2x64xf16, strided<[3072, 384, 64, 1]>>, %{{.+}}: memref<1x8x2x64xf16, strided<[3072, 384, 64, 1], offset: 256>>, %{{.+}}: index)
// CHECK-LABEL: func.func @fused_qkv(
// CHECK-NOT:     memref.copy
// CHECK-NOT:     memref.alloc
// CHECK:         call @att4(%{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}) : (memref<1x8x2x64xf16, strided<[3072, 384, 64, 1], offset: 128>>, memref<1x8x2x64xf16, strided<[3072, 384, 64, 1]>>, memref<1x8x2x64xf16, strided<[3072, 384, 64, 1], offset: 256>>, index)
// CHECK-NOT:     memref.dealloc
// TMA-LABEL: func.func @fused_qkv(
// TMA-COUNT-2:   memref.copy
// TMA:           call @att4(%{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}) : (memref<1x8x2x64xf16, strided<[3072, 384, 64, 1], offset: 128>>, memref<1x8x2x64xf16>, memref<1x8x2x64xf16>, index)
func.func private @att4(%q: memref<1x8x2x64xf16>, %k: memref<1x8x2x64xf16>, %v: memref<1x8x2x64xf16>, %n: index) -> memref<1x8x2x64xf16>
    attributes {decoda.gpu_attention = {op = "decoda.attention", causal = true, mask = false, num_heads = 2 : i64, num_kv_heads = 2 : i64, scale = 0.125 : f64, segment_ids = false, sinks = false}} {
  %o = memref.alloc() : memref<1x8x2x64xf16>
  return %o : memref<1x8x2x64xf16>
}
func.func @fused_qkv(%qkv: memref<1x8x384xf16>) -> memref<1x8x2x64xf16> {
  %c8 = arith.constant 8 : index
  %ks = memref.subview %qkv[0, 0, 0] [1, 8, 128] [1, 1, 1] : memref<1x8x384xf16> to memref<1x8x128xf16, strided<[3072, 384, 1]>>
  %qs = memref.subview %qkv[0, 0, 128] [1, 8, 128] [1, 1, 1] : memref<1x8x384xf16> to memref<1x8x128xf16, strided<[3072, 384, 1], offset: 128>>
  %vs = memref.subview %qkv[0, 0, 256] [1, 8, 128] [1, 1, 1] : memref<1x8x384xf16> to memref<1x8x128xf16, strided<[3072, 384, 1], offset: 256>>
  %kv = memref.expand_shape %ks [[0], [1], [2, 3]] output_shape [1, 8, 2, 64] : memref<1x8x128xf16, strided<[3072, 384, 1]>> into memref<1x8x2x64xf16, strided<[3072, 384, 64, 1]>>
  %qv = memref.expand_shape %qs [[0], [1], [2, 3]] output_shape [1, 8, 2, 64] : memref<1x8x128xf16, strided<[3072, 384, 1], offset: 128>> into memref<1x8x2x64xf16, strided<[3072, 384, 64, 1], offset: 128>>
  %vv = memref.expand_shape %vs [[0], [1], [2, 3]] output_shape [1, 8, 2, 64] : memref<1x8x128xf16, strided<[3072, 384, 1], offset: 256>> into memref<1x8x2x64xf16, strided<[3072, 384, 64, 1], offset: 256>>
  %q = memref.alloc() : memref<1x8x2x64xf16>
  memref.copy %qv, %q : memref<1x8x2x64xf16, strided<[3072, 384, 64, 1], offset: 128>> to memref<1x8x2x64xf16>
  %k = memref.alloc() : memref<1x8x2x64xf16>
  memref.copy %kv, %k : memref<1x8x2x64xf16, strided<[3072, 384, 64, 1]>> to memref<1x8x2x64xf16>
  %v = memref.alloc() : memref<1x8x2x64xf16>
  memref.copy %vv, %v : memref<1x8x2x64xf16, strided<[3072, 384, 64, 1], offset: 256>> to memref<1x8x2x64xf16>
  %o = call @att4(%q, %k, %v, %c8) : (memref<1x8x2x64xf16>, memref<1x8x2x64xf16>, memref<1x8x2x64xf16>, index) -> memref<1x8x2x64xf16>
  memref.dealloc %q : memref<1x8x2x64xf16>
  memref.dealloc %k : memref<1x8x2x64xf16>
  memref.dealloc %v : memref<1x8x2x64xf16>
  return %o : memref<1x8x2x64xf16>
}

// -----

// Copies kept: Q's view starts 4 elements (8 bytes) into a row, so its rows are not 16-byte
// aligned; K's view has dynamic strides over a root whose row length is not static; V's root
// is written between the copy and the call.
// CHECK-LABEL: func.func private @att5(
// CHECK-SAME:    %{{.+}}: memref<1x8x2x64xf16>, %{{.+}}: memref<1x8x2x64xf16>, %{{.+}}: memref<1x8x2x64xf16>, %{{.+}}: index)
// CHECK-LABEL: func.func @kept_views(
// CHECK-COUNT-3: memref.copy
// CHECK:         call @att5
func.func private @att5(%q: memref<1x8x2x64xf16>, %k: memref<1x8x2x64xf16>, %v: memref<1x8x2x64xf16>, %n: index) -> memref<1x8x2x64xf16>
    attributes {decoda.gpu_attention = {op = "decoda.attention", causal = true, mask = false, num_heads = 2 : i64, num_kv_heads = 2 : i64, scale = 0.125 : f64, segment_ids = false, sinks = false}} {
  %o = memref.alloc() : memref<1x8x2x64xf16>
  return %o : memref<1x8x2x64xf16>
}
func.func @kept_views(%qkv: memref<1x8x388xf16>, %kk: memref<1x8x?xf16>, %vv0: memref<1x8x384xf16>, %x: f16) -> memref<1x8x2x64xf16> {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %qs = memref.subview %qkv[0, 0, 4] [1, 8, 128] [1, 1, 1] : memref<1x8x388xf16> to memref<1x8x128xf16, strided<[3104, 388, 1], offset: 4>>
  %qv = memref.expand_shape %qs [[0], [1], [2, 3]] output_shape [1, 8, 2, 64] : memref<1x8x128xf16, strided<[3104, 388, 1], offset: 4>> into memref<1x8x2x64xf16, strided<[3104, 388, 64, 1], offset: 4>>
  %ks = memref.subview %kk[0, 0, 0] [1, 8, 128] [1, 1, 1] : memref<1x8x?xf16> to memref<1x8x128xf16, strided<[?, ?, 1]>>
  %kv = memref.expand_shape %ks [[0], [1], [2, 3]] output_shape [1, 8, 2, 64] : memref<1x8x128xf16, strided<[?, ?, 1]>> into memref<1x8x2x64xf16, strided<[?, ?, 64, 1]>>
  %vs = memref.subview %vv0[0, 0, 256] [1, 8, 128] [1, 1, 1] : memref<1x8x384xf16> to memref<1x8x128xf16, strided<[3072, 384, 1], offset: 256>>
  %vv = memref.expand_shape %vs [[0], [1], [2, 3]] output_shape [1, 8, 2, 64] : memref<1x8x128xf16, strided<[3072, 384, 1], offset: 256>> into memref<1x8x2x64xf16, strided<[3072, 384, 64, 1], offset: 256>>
  %q = memref.alloc() : memref<1x8x2x64xf16>
  memref.copy %qv, %q : memref<1x8x2x64xf16, strided<[3104, 388, 64, 1], offset: 4>> to memref<1x8x2x64xf16>
  %k = memref.alloc() : memref<1x8x2x64xf16>
  memref.copy %kv, %k : memref<1x8x2x64xf16, strided<[?, ?, 64, 1]>> to memref<1x8x2x64xf16>
  %v = memref.alloc() : memref<1x8x2x64xf16>
  memref.copy %vv, %v : memref<1x8x2x64xf16, strided<[3072, 384, 64, 1], offset: 256>> to memref<1x8x2x64xf16>
  memref.store %x, %vv0[%c0, %c0, %c0] : memref<1x8x384xf16>
  %o = call @att5(%q, %k, %v, %c8) : (memref<1x8x2x64xf16>, memref<1x8x2x64xf16>, memref<1x8x2x64xf16>, index) -> memref<1x8x2x64xf16>
  return %o : memref<1x8x2x64xf16>
}
