// RUN: decoda-opt %s --decoda-convert-to-linalg --split-input-file | FileCheck %s --check-prefixes=CHECK,T64,DEF
// RUN: decoda-opt %s --decoda-convert-to-linalg="attention-key-tile=16" --split-input-file | FileCheck %s --check-prefixes=CHECK,T16
// RUN: decoda-opt %s --decoda-convert-to-linalg="attention-decode-key-tile=256" --split-input-file | FileCheck %s --check-prefixes=CHECK,T64,DEC256

// Flash-attention lowering of decoda.attention, decoda.cached_attention and decoda.mla: one
// scf.for over key tiles carrying (running max, running denominator, f32 accumulator); masks
// from linalg.index; GQA by a floordiv in the K/V indexing maps. The numerical behaviour is
// covered end to end elsewhere; these tests pin the structure.

// A long static context: the loop steps over 4096 keys a tile at a time and no score tensor
// with the whole key axis (…x4096xf32, or [Tq, Tk] = 16x4096) is built anywhere in the function.
// CHECK-LABEL: func.func @long_context_gqa
// CHECK-NOT: x4096xf32>
// CHECK-NOT: 16x4096
// T64: scf.for %{{.*}} = %c0 to %c4096 step %c64 iter_args
// T16: scf.for %{{.*}} = %c0 to %c4096 step %c16 iter_args
// CHECK-NOT: x4096xf32>
// CHECK-NOT: 16x4096
// CHECK: return
func.func @long_context_gqa(%q: tensor<1x16x8x128xf32>, %k: tensor<1x4096x2x128xf32>,
                            %v: tensor<1x4096x2x96xf32>) -> tensor<1x16x8x96xf32> {
  %o = decoda.attention %q, %k, %v {num_heads = 8 : i64, num_kv_heads = 2 : i64, causal}
      : tensor<1x16x8x128xf32>, tensor<1x4096x2x128xf32>, tensor<1x4096x2x96xf32>
  return %o : tensor<1x16x8x96xf32>
}

// -----

// The loop in detail (GQA 8 query heads over 2 KV heads, causal, Tk = 256).
// CHECK-DAG: #[[$Q5:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d4)>
// CHECK-DAG: #[[$K5:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d3, d2 floordiv 4, d4)>
// CHECK-DAG: #[[$S5:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3)>
// CHECK-DAG: #[[$V5:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d4, d2 floordiv 4, d3)>
// CHECK-LABEL: func.func @flash_loop_gqa
// CHECK-SAME: %[[Q:[a-z0-9]+]]: tensor<1x16x8x128xf32>, %[[K:[a-z0-9]+]]: tensor<1x256x2x128xf32>, %[[V:[a-z0-9]+]]: tensor<1x256x2x96xf32>
// CHECK-DAG: %[[NEGINF:.*]] = arith.constant 0xFF800000 : f32
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG: %[[C256:.*]] = arith.constant 256 : index
// T64-DAG: %[[STEP:.*]] = arith.constant 64 : index
// T16-DAG: %[[STEP:.*]] = arith.constant 16 : index
// CHECK: %[[M0:.*]] = linalg.fill ins(%[[NEGINF]] : f32) outs(%{{.*}} : tensor<1x16x8xf32>)
// CHECK: %[[L0:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<1x16x8xf32>)
// CHECK: %[[A0:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<1x16x8x96xf32>)
// CHECK: %{{.*}}:3 = scf.for %[[J:.*]] = %[[C0]] to %[[C256]] step %[[STEP]]
// CHECK-SAME: iter_args(%[[M:.*]] = %[[M0]], %[[L:.*]] = %[[L0]], %[[ACC:.*]] = %[[A0]])
// T64: %[[KT:.*]] = tensor.extract_slice %[[K]][0, %[[J]], 0, 0] [1, 64, 2, 128] [1, 1, 1, 1] : tensor<1x256x2x128xf32> to tensor<1x64x2x128xf32>
// T16: %[[KT:.*]] = tensor.extract_slice %[[K]][0, %[[J]], 0, 0] [1, 16, 2, 128] [1, 1, 1, 1] : tensor<1x256x2x128xf32> to tensor<1x16x2x128xf32>
// Scores: a contraction over the head dim, query head h reading KV head h floordiv 4.
// CHECK: %[[S:.*]] = linalg.generic {indexing_maps = [#[[$Q5]], #[[$K5]], #[[$S5]]], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
// CHECK-SAME: ins(%[[Q]], %[[KT]]
// T64-SAME: outs(%{{.*}} : tensor<1x16x8x64xf32>)
// T16-SAME: outs(%{{.*}} : tensor<1x16x8x16xf32>)
// Scale and causal mask, in place.
// CHECK: %[[SM:.*]] = linalg.generic {{.*}} outs(%[[S]]
// CHECK: arith.mulf
// CHECK: linalg.index 1
// CHECK: linalg.index 3
// CHECK: %[[KEY:.*]] = arith.addi %[[J]],
// CHECK: %[[POS:.*]] = arith.addi
// CHECK: %[[VIS:.*]] = arith.cmpi sle, %[[KEY]], %[[POS]] : index
// CHECK: arith.select %[[VIS]], %{{.*}}, %[[NEGINF]] : f32
// Row max of the tile, then the running max, the correction and l·corr in one pass.
// CHECK: %[[TMAX:.*]] = linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "parallel", "reduction"]{{.*}}ins(%[[SM]]
// CHECK: arith.maximumf
// CHECK: %[[ROW:.*]]:3 = linalg.generic {{.*}} ins(%[[TMAX]] : tensor<1x16x8xf32>) outs(%[[M]], %[[L]], %{{.*}} : tensor<1x16x8xf32>, tensor<1x16x8xf32>, tensor<1x16x8xf32>)
// CHECK: %[[MNEW:.*]] = arith.maximumf
// CHECK: %[[ISINF:.*]] = arith.cmpf oeq, %[[MNEW]], %[[NEGINF]]
// CHECK: %[[SAFE:.*]] = arith.select %[[ISINF]], %{{.*}}, %[[MNEW]]
// CHECK: arith.subf %{{.*}}, %[[SAFE]]
// CHECK: math.exp
// p = exp(s - safe max), l' = l·corr + Σ p, acc' = acc·corr + Σ p·v.
// CHECK: %[[P:.*]] = linalg.generic {{.*}} ins(%[[ROW]]#0 {{.*}} outs(%[[SM]]
// CHECK: math.exp
// CHECK: %[[LNEW:.*]] = linalg.generic {{.*}} ins(%[[P]] {{.*}} outs(%[[ROW]]#1
// CHECK: arith.addf
// CHECK: %[[ACCS:.*]] = linalg.generic {{.*}} ins(%[[ROW]]#2 {{.*}} outs(%[[ACC]]
// T64: %[[VT:.*]] = tensor.extract_slice %[[V]][0, %[[J]], 0, 0] [1, 64, 2, 96]
// T16: %[[VT:.*]] = tensor.extract_slice %[[V]][0, %[[J]], 0, 0] [1, 16, 2, 96]
// CHECK: %[[ACCNEW:.*]] = linalg.generic {indexing_maps = [#[[$Q5]], #[[$V5]], #[[$S5]]], {{.*}} ins(%[[P]], %[[VT]] {{.*}} outs(%[[ACCS]]
// CHECK: scf.yield %[[ROW]]#0, %[[LNEW]], %[[ACCNEW]]
// 256 is a multiple of the tile: no partial tile after the loop; out = acc / l (0 if l = 0).
// CHECK-NOT: tensor.extract_slice
// CHECK: arith.divf
// CHECK: linalg.generic {{.*}} outs(%{{.*}} : tensor<1x16x8x96xf32>)
// CHECK: return
func.func @flash_loop_gqa(%q: tensor<1x16x8x128xf32>, %k: tensor<1x256x2x128xf32>,
                          %v: tensor<1x256x2x96xf32>) -> tensor<1x16x8x96xf32> {
  %o = decoda.attention %q, %k, %v {num_heads = 8 : i64, num_kv_heads = 2 : i64, causal}
      : tensor<1x16x8x128xf32>, tensor<1x256x2x128xf32>, tensor<1x256x2x96xf32>
  return %o : tensor<1x16x8x96xf32>
}

// -----

// MHA reads K/V head h; MQA reads head 0. A Tk that is not a multiple of the tile: full tiles in
// the loop, then one static partial tile (100 = 64 + 36 = 6·16 + 4).
// CHECK-DAG: affine_map<(d0, d1, d2, d3, d4) -> (d0, d3, d2, d4)>
// CHECK-LABEL: func.func @mha_partial_tile
// CHECK-SAME: %{{[a-z0-9]+}}: tensor<2x100x4x32xf32>, %[[K:[a-z0-9]+]]: tensor<2x100x4x32xf32>
// T64: scf.for %{{.*}} = %{{.*}} to %[[END:.*]] step %{{.*}}
// T64: tensor.extract_slice %[[K]][0, %{{.*}}, 0, 0] [2, 64, 4, 32]
// T64: scf.yield
// T64: tensor.extract_slice %[[K]][0, %{{.*}}, 0, 0] [2, 36, 4, 32] [1, 1, 1, 1] : tensor<2x100x4x32xf32> to tensor<2x36x4x32xf32>
// T16: tensor.extract_slice %[[K]][0, %{{.*}}, 0, 0] [2, 16, 4, 32]
// T16: scf.yield
// T16: tensor.extract_slice %[[K]][0, %{{.*}}, 0, 0] [2, 4, 4, 32] [1, 1, 1, 1] : tensor<2x100x4x32xf32> to tensor<2x4x4x32xf32>
// CHECK: return
func.func @mha_partial_tile(%q: tensor<2x100x4x32xf32>, %k: tensor<2x100x4x32xf32>,
                            %v: tensor<2x100x4x32xf32>) -> tensor<2x100x4x32xf32> {
  %o = decoda.attention %q, %k, %v {num_heads = 4 : i64, num_kv_heads = 4 : i64}
      : tensor<2x100x4x32xf32>, tensor<2x100x4x32xf32>, tensor<2x100x4x32xf32>
  return %o : tensor<2x100x4x32xf32>
}

// -----

// CHECK-DAG: affine_map<(d0, d1, d2, d3, d4) -> (d0, d3, 0, d4)>
// CHECK-DAG: affine_map<(d0, d1, d2, d3, d4) -> (d0, d4, 0, d3)>
// CHECK-LABEL: func.func @mqa
// CHECK: scf.for
// CHECK: return
func.func @mqa(%q: tensor<1x4x8x16xf32>, %k: tensor<1x40x1x16xf32>, %v: tensor<1x40x1x16xf32>)
    -> tensor<1x4x8x16xf32> {
  %o = decoda.attention %q, %k, %v {num_heads = 8 : i64, num_kv_heads = 1 : i64, causal}
      : tensor<1x4x8x16xf32>, tensor<1x40x1x16xf32>, tensor<1x40x1x16xf32>
  return %o : tensor<1x4x8x16xf32>
}

// -----

// Decode-like step (Tq = 1 < Tk) with a sliding window: query 0 sits at position Tk - Tq = 999;
// keys before 999 - 128 + 1 = 872 are hidden from every query, so the loop starts there.
// CHECK-LABEL: func.func @sliding_window
// CHECK-DAG: %[[NEGINF:.*]] = arith.constant 0xFF800000 : f32
// CHECK-DAG: %[[C872:.*]] = arith.constant 872 : index
// CHECK-DAG: %[[C999:.*]] = arith.constant 999 : index
// CHECK-DAG: %[[C128:.*]] = arith.constant 128 : index
// CHECK-DAG: %[[C1000:.*]] = arith.constant 1000 : index
// CHECK: scf.for %[[J:.*]] = %[[C872]] to %[[C1000]] step
// CHECK: linalg.generic
// CHECK: %[[I:.*]] = linalg.index 1 : index
// CHECK: %[[JJ:.*]] = linalg.index 3 : index
// CHECK: %[[KEY:.*]] = arith.addi %[[J]], %[[JJ]] : index
// CHECK: %[[POS:.*]] = arith.addi %[[C999]], %[[I]] : index
// CHECK: %[[CAUSAL:.*]] = arith.cmpi sle, %[[KEY]], %[[POS]] : index
// CHECK: %[[BACK:.*]] = arith.subi %[[POS]], %[[KEY]] : index
// CHECK: %[[INWIN:.*]] = arith.cmpi slt, %[[BACK]], %[[C128]] : index
// CHECK: %[[VIS:.*]] = arith.andi %[[CAUSAL]], %[[INWIN]] : i1
// CHECK: arith.select %[[VIS]], %{{.*}}, %[[NEGINF]] : f32
// CHECK: return
func.func @sliding_window(%q: tensor<1x1x4x16xf32>, %k: tensor<1x1000x2x16xf32>,
                          %v: tensor<1x1000x2x16xf32>) -> tensor<1x1x4x16xf32> {
  %o = decoda.attention %q, %k, %v
      {num_heads = 4 : i64, num_kv_heads = 2 : i64, causal, window = 128 : i64}
      : tensor<1x1x4x16xf32>, tensor<1x1000x2x16xf32>, tensor<1x1000x2x16xf32>
  return %o : tensor<1x1x4x16xf32>
}

// -----

// Chunked attention (Llama 4): ⌊j / c⌋ = ⌊p_i / c⌋. The block's first query is at 200 - 8 = 192,
// whose chunk starts at 192 (c = 48), so the loop starts there.
// CHECK-LABEL: func.func @chunked
// CHECK-DAG: %[[C48:.*]] = arith.constant 48 : index
// CHECK-DAG: %[[C192:.*]] = arith.constant 192 : index
// CHECK: scf.for %[[J:.*]] = %[[C192]] to
// CHECK: linalg.index 1 : index
// CHECK: %[[KEY:.*]] = arith.addi %[[J]], %{{.*}} : index
// CHECK: %[[POS:.*]] = arith.addi %[[C192]], %{{.*}} : index
// CHECK: %[[CAUSAL:.*]] = arith.cmpi sle, %[[KEY]], %[[POS]] : index
// CHECK: %[[CK:.*]] = arith.divsi %[[KEY]], %[[C48]] : index
// CHECK: %[[CP:.*]] = arith.divsi %[[POS]], %[[C48]] : index
// CHECK: %[[SAME:.*]] = arith.cmpi eq, %[[CK]], %[[CP]] : index
// CHECK: arith.andi %[[CAUSAL]], %[[SAME]] : i1
// CHECK: return
func.func @chunked(%q: tensor<1x8x4x16xf32>, %k: tensor<1x200x2x16xf32>,
                   %v: tensor<1x200x2x16xf32>) -> tensor<1x8x4x16xf32> {
  %o = decoda.attention %q, %k, %v
      {num_heads = 4 : i64, num_kv_heads = 2 : i64, causal, chunk_size = 48 : i64}
      : tensor<1x8x4x16xf32>, tensor<1x200x2x16xf32>, tensor<1x200x2x16xf32>
  return %o : tensor<1x8x4x16xf32>
}

// -----

// Packed sequences: the key's and the query's segment ids are read with tensor.extract inside
// the mask body (query i's id is the one at its position Tk - Tq + i).
// CHECK-LABEL: func.func @segment_ids
// CHECK-SAME: %[[SEG:[a-z0-9]+]]: tensor<2x64xi32>
// CHECK: scf.for %[[J:[a-z0-9]+]] =
// CHECK: linalg.generic
// CHECK: %[[KEY:.*]] = arith.addi %[[J]], %{{.*}} : index
// CHECK: %[[POS:.*]] = arith.addi %{{.*}}, %{{.*}} : index
// CHECK: arith.cmpi sle, %[[KEY]], %[[POS]] : index
// CHECK: %[[B:.*]] = linalg.index 0 : index
// CHECK: %[[SK:.*]] = tensor.extract %[[SEG]][%[[B]], %[[KEY]]] : tensor<2x64xi32>
// CHECK: %[[SQ:.*]] = tensor.extract %[[SEG]][%[[B]], %[[POS]]] : tensor<2x64xi32>
// CHECK: arith.cmpi eq, %[[SK]], %[[SQ]] : i32
// CHECK: return
func.func @segment_ids(%q: tensor<2x64x4x16xf32>, %k: tensor<2x64x2x16xf32>,
                       %v: tensor<2x64x2x16xf32>, %seg: tensor<2x64xi32>)
    -> tensor<2x64x4x16xf32> {
  %o = decoda.attention %q, %k, %v segment_ids(%seg : tensor<2x64xi32>)
      {num_heads = 4 : i64, num_kv_heads = 2 : i64, causal}
      : tensor<2x64x4x16xf32>, tensor<2x64x2x16xf32>, tensor<2x64x2x16xf32>
  return %o : tensor<2x64x4x16xf32>
}

// -----

// Logit softcap, applied to the scaled score before the masks: cap · tanh(s / cap).
// CHECK-LABEL: func.func @softcap
// CHECK-DAG: %[[SCALE:.*]] = arith.constant 2.500000e-01 : f32
// CHECK-DAG: %[[INVCAP:.*]] = arith.constant 2.000000e-02 : f32
// CHECK-DAG: %[[CAP:.*]] = arith.constant 5.000000e+01 : f32
// CHECK: scf.for
// CHECK: linalg.generic
// CHECK: ^bb0(%[[X:[a-z0-9_]+]]: f32):
// CHECK: %[[S:.*]] = arith.mulf %[[X]], %[[SCALE]] : f32
// CHECK: %[[T:.*]] = arith.mulf %[[S]], %[[INVCAP]] : f32
// CHECK: %[[TANH:.*]] = math.tanh %[[T]] : f32
// CHECK: arith.mulf %[[CAP]], %[[TANH]] : f32
// CHECK: return
func.func @softcap(%q: tensor<1x8x4x16xf32>, %k: tensor<1x8x4x16xf32>,
                   %v: tensor<1x8x4x16xf32>) -> tensor<1x8x4x16xf32> {
  %o = decoda.attention %q, %k, %v
      {num_heads = 4 : i64, num_kv_heads = 4 : i64, causal, softcap = 50.0 : f64}
      : tensor<1x8x4x16xf32>, tensor<1x8x4x16xf32>, tensor<1x8x4x16xf32>
  return %o : tensor<1x8x4x16xf32>
}

// -----

// Sinks join the denominator after the loop, with the max taken over the sink too:
// M = max(m, sink), scale = e^(m - M) / (l·e^(m - M) + e^(sink - M)), 0 when the denominator is.
// CHECK-DAG: #[[$HEAD:.*]] = affine_map<(d0, d1, d2) -> (d2)>
// CHECK-LABEL: func.func @sinks
// CHECK-SAME: %[[SINKS:[a-z0-9]+]]: tensor<8xf32>
// CHECK: %[[LOOP:.*]]:3 = scf.for
// CHECK: linalg.generic {indexing_maps = [#{{.*}}, #{{.*}}, #[[$HEAD]], #{{.*}}]
// CHECK-SAME: ins(%{{.*}}, %{{.*}}, %[[SINKS]] : tensor<1x16x8xf32>, tensor<1x16x8xf32>, tensor<8xf32>)
// CHECK: ^bb0(%[[L:[a-z0-9_]+]]: f32, %[[M:[a-z0-9_]+]]: f32, %[[SINK:[a-z0-9_]+]]: f32, %{{[a-z0-9_]+}}: f32):
// CHECK: %[[BIG:.*]] = arith.maximumf %[[M]], %[[SINK]] : f32
// CHECK: %[[SAFE:.*]] = arith.select %{{.*}}, %{{.*}}, %[[BIG]] : f32
// CHECK: %[[D:.*]] = arith.subf %[[M]], %[[SAFE]] : f32
// CHECK: %[[CORR:.*]] = math.exp %[[D]] : f32
// CHECK: %[[DS:.*]] = arith.subf %[[SINK]], %[[SAFE]] : f32
// CHECK: %[[ES:.*]] = math.exp %[[DS]] : f32
// CHECK: %[[LC:.*]] = arith.mulf %[[L]], %[[CORR]] : f32
// CHECK: %[[DEN:.*]] = arith.addf %[[LC]], %[[ES]] : f32
// CHECK: arith.cmpf oeq, %[[DEN]]
// CHECK: arith.divf %[[CORR]],
// CHECK: return
func.func @sinks(%q: tensor<1x16x8x64xf32>, %k: tensor<1x16x2x64xf32>, %v: tensor<1x16x2x64xf32>,
                 %s: tensor<8xf32>) -> tensor<1x16x8x64xf32> {
  %o = decoda.attention %q, %k, %v sinks(%s : tensor<8xf32>)
      {num_heads = 8 : i64, num_kv_heads = 2 : i64, causal, window = 128 : i64}
      : tensor<1x16x8x64xf32>, tensor<1x16x2x64xf32>, tensor<1x16x2x64xf32>
  return %o : tensor<1x16x8x64xf32>
}

// -----

// An additive mask [1, H, Tq, Tk] (f16 here, like the activations): sliced per key tile and
// broadcast over the batch.
// CHECK-DAG: #[[$MASK:.*]] = affine_map<(d0, d1, d2, d3) -> (0, d2, d1, d3)>
// CHECK-LABEL: func.func @additive_mask_f16
// CHECK-SAME: %[[MASK:[a-z0-9]+]]: tensor<1x4x8x40xf16>
// CHECK: scf.for %[[J:[a-z0-9]+]] =
// T16: %[[MT:.*]] = tensor.extract_slice %[[MASK]][0, 0, 0, %[[J]]] [1, 4, 8, 16] [1, 1, 1, 1] : tensor<1x4x8x40xf16> to tensor<1x4x8x16xf16>
// T16: linalg.generic {indexing_maps = [#[[$MASK]], #{{.*}}], {{.*}} ins(%[[MT]] : tensor<1x4x8x16xf16>)
// T64: %[[MT:.*]] = tensor.extract_slice %[[MASK]][0, 0, 0, %[[J]]] [1, 4, 8, 40] [1, 1, 1, 1] : tensor<1x4x8x40xf16> to tensor<1x4x8x40xf16>
// T64: linalg.generic {indexing_maps = [#[[$MASK]], #{{.*}}], {{.*}} ins(%[[MT]] : tensor<1x4x8x40xf16>)
// CHECK: ^bb0(%[[MV:[a-z0-9_]+]]: f16, %[[X:[a-z0-9_]+]]: f32):
// CHECK: %[[S:.*]] = arith.mulf %[[X]]
// CHECK: %[[MF:.*]] = arith.extf %[[MV]] : f16 to f32
// CHECK: arith.addf %[[S]], %[[MF]] : f32
// CHECK: return
func.func @additive_mask_f16(%q: tensor<2x8x4x16xf16>, %k: tensor<2x40x2x16xf16>,
                             %v: tensor<2x40x2x16xf16>, %m: tensor<1x4x8x40xf16>)
    -> tensor<2x8x4x16xf16> {
  %o = decoda.attention %q, %k, %v mask(%m : tensor<1x4x8x40xf16>)
      {num_heads = 4 : i64, num_kv_heads = 2 : i64}
      : tensor<2x8x4x16xf16>, tensor<2x40x2x16xf16>, tensor<2x40x2x16xf16>
  return %o : tensor<2x8x4x16xf16>
}

// -----

// bf16 storage: every body widens with extf, all state is f32, the result is rounded once.
// CHECK-LABEL: func.func @bf16
// CHECK: scf.for
// CHECK: ^bb0(%[[QV:[a-z0-9_]+]]: bf16, %[[KV:[a-z0-9_]+]]: bf16, %[[ACC:[a-z0-9_]+]]: f32):
// CHECK: %[[QF:.*]] = arith.extf %[[QV]] : bf16 to f32
// CHECK: %[[KF:.*]] = arith.extf %[[KV]] : bf16 to f32
// CHECK: %[[PROD:.*]] = arith.mulf %[[QF]], %[[KF]] : f32
// CHECK: arith.addf %[[ACC]], %[[PROD]] : f32
// CHECK: ^bb0(%[[PV:[a-z0-9_]+]]: f32, %[[VV:[a-z0-9_]+]]: bf16, %{{[a-z0-9_]+}}: f32):
// CHECK: arith.extf %[[VV]] : bf16 to f32
// CHECK: scf.yield {{.*}} : tensor<1x8x4xf32>, tensor<1x8x4xf32>, tensor<1x8x4x32xf32>
// CHECK: linalg.generic {{.*}} outs(%{{.*}} : tensor<1x8x4x32xbf16>)
// CHECK: %[[O:.*]] = arith.mulf
// CHECK: arith.truncf %[[O]] : f32 to bf16
// CHECK: return
func.func @bf16(%q: tensor<1x8x4x16xbf16>, %k: tensor<1x8x2x16xbf16>, %v: tensor<1x8x2x32xbf16>)
    -> tensor<1x8x4x32xbf16> {
  %o = decoda.attention %q, %k, %v {num_heads = 4 : i64, num_kv_heads = 2 : i64, causal}
      : tensor<1x8x4x16xbf16>, tensor<1x8x2x16xbf16>, tensor<1x8x2x32xbf16>
  return %o : tensor<1x8x4x32xbf16>
}

// -----

// Dynamic batch, Tq and Tk: run-time checks that the dynamic extents agree and that Tq <= Tk,
// a loop over the full tiles (⌊Tk / tile⌋·tile keys) and one partial tile of dynamic size
// Tk - end after it.
// CHECK-LABEL: func.func @dynamic
// CHECK-SAME: %[[Q:[a-z0-9]+]]: tensor<?x?x8x64xf32>, %[[K:[a-z0-9]+]]: tensor<?x?x2x64xf32>
// CHECK-DAG: %[[C1:.*]] = arith.constant 1 : index
// T64-DAG: %[[TILE:.*]] = arith.constant 64 : index
// T16-DAG: %[[TILE:.*]] = arith.constant 16 : index
// CHECK: cf.assert %{{.*}}, "decoda.attention: the query and key batch sizes differ"
// CHECK: cf.assert %{{.*}}, "decoda.attention: the query and value batch sizes differ"
// CHECK: cf.assert %{{.*}}, "decoda.attention: the key and value lengths differ"
// CHECK: %[[TQ:.*]] = tensor.dim %[[Q]], %[[C1]]
// CHECK: %[[TK:.*]] = tensor.dim %[[K]], %[[C1]]
// CHECK: %[[OK:.*]] = arith.cmpi sle, %[[TQ]], %[[TK]] : index
// CHECK: cf.assert %[[OK]], "decoda.attention: more queries than keys
// CHECK: %[[OFF:.*]] = arith.subi %[[TK]], %[[TQ]] : index
// CHECK: %[[N:.*]] = arith.divsi %[[TK]], %[[TILE]] : index
// CHECK: %[[END:.*]] = arith.muli %[[N]], %[[TILE]] : index
// CHECK: scf.for %[[J:.*]] = %{{.*}} to %[[END]] step %[[TILE]]
// T64: tensor.extract_slice %[[K]][0, %[[J]], 0, 0] [%{{.*}}, 64, 2, 64] [1, 1, 1, 1] : tensor<?x?x2x64xf32> to tensor<?x64x2x64xf32>
// T16: tensor.extract_slice %[[K]][0, %[[J]], 0, 0] [%{{.*}}, 16, 2, 64] [1, 1, 1, 1] : tensor<?x?x2x64xf32> to tensor<?x16x2x64xf32>
// CHECK: arith.addi %[[OFF]], %{{.*}} : index
// CHECK: scf.yield
// CHECK: %[[REST:.*]] = arith.subi %[[TK]], %[[END]] : index
// CHECK: tensor.extract_slice %[[K]][0, %[[END]], 0, 0] [%{{.*}}, %[[REST]], 2, 64] [1, 1, 1, 1] : tensor<?x?x2x64xf32> to tensor<?x?x2x64xf32>
// CHECK: return
func.func @dynamic(%q: tensor<?x?x8x64xf32>, %k: tensor<?x?x2x64xf32>, %v: tensor<?x?x2x64xf32>)
    -> tensor<?x?x8x64xf32> {
  %o = decoda.attention %q, %k, %v {num_heads = 8 : i64, num_kv_heads = 2 : i64, causal}
      : tensor<?x?x8x64xf32>, tensor<?x?x2x64xf32>, tensor<?x?x2x64xf32>
  return %o : tensor<?x?x8x64xf32>
}

// -----

// KV cache: check 0 <= offset and offset + T <= S first, append at [offset, offset + T) with
// tensor.insert_slice, then attend from positions offset + i over the updated cache up to
// offset + T (a window of 128 lets the loop start at offset + T - 128 when that is positive).
// CHECK-LABEL: func.func @cached_decode
// CHECK-SAME: %[[K:[a-z0-9]+]]: tensor<1x1x2x64xf16>, %[[V:[a-z0-9]+]]: tensor<1x1x2x64xf16>, %[[KC:[a-z0-9]+]]: tensor<1x512x2x64xf16>, %[[VC:[a-z0-9]+]]: tensor<1x512x2x64xf16>, %[[OFF:[a-z0-9]+]]: index
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG: %[[C1:.*]] = arith.constant 1 : index
// CHECK-DAG: %[[C512:.*]] = arith.constant 512 : index
// CHECK: %[[END:.*]] = arith.addi %[[OFF]], %[[C1]] : index
// CHECK: %[[NONNEG:.*]] = arith.cmpi sge, %[[OFF]], %[[C0]] : index
// CHECK: %[[FITS:.*]] = arith.cmpi sle, %[[END]], %[[C512]] : index
// CHECK: %[[OK:.*]] = arith.andi %[[NONNEG]], %[[FITS]] : i1
// CHECK: cf.assert %[[OK]], "decoda.cached_attention: the new tokens [offset, offset + T) do not fit in the cache
// CHECK: %[[KC2:.*]] = tensor.insert_slice %[[K]] into %[[KC]][0, %[[OFF]], 0, 0] [1, 1, 2, 64] [1, 1, 1, 1] : tensor<1x1x2x64xf16> into tensor<1x512x2x64xf16>
// CHECK: %[[VC2:.*]] = tensor.insert_slice %[[V]] into %[[VC]][0, %[[OFF]], 0, 0] [1, 1, 2, 64] [1, 1, 1, 1] : tensor<1x1x2x64xf16> into tensor<1x512x2x64xf16>
// CHECK: %[[START:.*]] = arith.maxsi %[[C0]], %{{.*}} : index
// CHECK: scf.for %[[J:.*]] = %[[START]] to
// CHECK: tensor.extract_slice %[[KC2]][0, %[[J]], 0, 0]
// CHECK: arith.addi %[[OFF]], %{{.*}} : index
// CHECK: tensor.extract_slice %[[VC2]][0, %[[J]], 0, 0]
// CHECK: scf.yield
// CHECK: %[[O:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<1x1x8x64xf16>)
// CHECK: return %[[O]], %[[KC2]], %[[VC2]]
func.func @cached_decode(%q: tensor<1x1x8x64xf16>, %k: tensor<1x1x2x64xf16>,
                         %v: tensor<1x1x2x64xf16>, %kc: tensor<1x512x2x64xf16>,
                         %vc: tensor<1x512x2x64xf16>, %off: index)
    -> (tensor<1x1x8x64xf16>, tensor<1x512x2x64xf16>, tensor<1x512x2x64xf16>) {
  %o, %kc2, %vc2 = decoda.cached_attention %q, %k, %v, %kc, %vc[%off]
      {num_heads = 8 : i64, num_kv_heads = 2 : i64, causal, window = 128 : i64}
      : tensor<1x1x8x64xf16>, tensor<1x1x2x64xf16>, tensor<1x1x2x64xf16>,
        tensor<1x512x2x64xf16>, tensor<1x512x2x64xf16>
  return %o, %kc2, %vc2 : tensor<1x1x8x64xf16>, tensor<1x512x2x64xf16>, tensor<1x512x2x64xf16>
}

// -----

// The key tile of a decode step: attention-decode-key-tile (0 by default: attention-key-tile)
// for static query lengths up to 4 (2 here); 8 queries keep attention-key-tile.
// CHECK-LABEL: func.func @cached_decode_tile
// DEF-DAG:     %[[S64:.*]] = arith.constant 64 : index
// DEC256-DAG:  %[[S256:.*]] = arith.constant 256 : index
// T16-DAG:     %[[S16:.*]] = arith.constant 16 : index
// DEF:         scf.for %{{.*}} = %{{.*}} to %{{.*}} step %[[S64]]
// DEC256:      scf.for %{{.*}} = %{{.*}} to %{{.*}} step %[[S256]]
// T16:         scf.for %{{.*}} = %{{.*}} to %{{.*}} step %[[S16]]
// CHECK:       return
// CHECK-LABEL: func.func @cached_eight_queries_tile
// T64:         scf.for %{{.*}} = %{{.*}} to %{{.*}} step %c64
// DEC256-NOT:  step %c256
// CHECK:       return
func.func @cached_decode_tile(%q: tensor<1x2x4x32xf32>, %k: tensor<1x2x4x32xf32>,
                              %v: tensor<1x2x4x32xf32>, %kc: tensor<1x1024x4x32xf32>,
                              %vc: tensor<1x1024x4x32xf32>, %off: index)
    -> (tensor<1x2x4x32xf32>, tensor<1x1024x4x32xf32>, tensor<1x1024x4x32xf32>) {
  %o, %kc2, %vc2 = decoda.cached_attention %q, %k, %v, %kc, %vc[%off]
      {num_heads = 4 : i64, num_kv_heads = 4 : i64, causal}
      : tensor<1x2x4x32xf32>, tensor<1x2x4x32xf32>, tensor<1x2x4x32xf32>,
        tensor<1x1024x4x32xf32>, tensor<1x1024x4x32xf32>
  return %o, %kc2, %vc2 : tensor<1x2x4x32xf32>, tensor<1x1024x4x32xf32>, tensor<1x1024x4x32xf32>
}
func.func @cached_eight_queries_tile(%q: tensor<1x8x4x32xf32>, %k: tensor<1x8x4x32xf32>,
                                     %v: tensor<1x8x4x32xf32>, %kc: tensor<1x1024x4x32xf32>,
                                     %vc: tensor<1x1024x4x32xf32>, %off: index)
    -> (tensor<1x8x4x32xf32>, tensor<1x1024x4x32xf32>, tensor<1x1024x4x32xf32>) {
  %o, %kc2, %vc2 = decoda.cached_attention %q, %k, %v, %kc, %vc[%off]
      {num_heads = 4 : i64, num_kv_heads = 4 : i64, causal}
      : tensor<1x8x4x32xf32>, tensor<1x8x4x32xf32>, tensor<1x8x4x32xf32>,
        tensor<1x1024x4x32xf32>, tensor<1x1024x4x32xf32>
  return %o, %kc2, %vc2 : tensor<1x8x4x32xf32>, tensor<1x1024x4x32xf32>, tensor<1x1024x4x32xf32>
}

// -----

// Prefill into a dynamic cache with sinks: the same loop, the trip count from offset + T.
// CHECK-LABEL: func.func @cached_prefill_dynamic
// CHECK-SAME: %[[OFF:[a-z0-9]+]]: index
// CHECK: cf.assert
// CHECK: tensor.insert_slice
// CHECK: tensor.insert_slice
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step
// CHECK: scf.yield
// CHECK: tensor.extract_slice
// CHECK: math.exp
// CHECK: return
func.func @cached_prefill_dynamic(%q: tensor<1x?x4x32xf32>, %k: tensor<1x?x4x32xf32>,
                                  %v: tensor<1x?x4x32xf32>, %kc: tensor<1x?x4x32xf32>,
                                  %vc: tensor<1x?x4x32xf32>, %s: tensor<4xf32>, %off: index)
    -> (tensor<1x?x4x32xf32>, tensor<1x?x4x32xf32>, tensor<1x?x4x32xf32>) {
  %o, %kc2, %vc2 = decoda.cached_attention %q, %k, %v, %kc, %vc[%off] sinks(%s : tensor<4xf32>)
      {num_heads = 4 : i64, num_kv_heads = 4 : i64, causal}
      : tensor<1x?x4x32xf32>, tensor<1x?x4x32xf32>, tensor<1x?x4x32xf32>,
        tensor<1x?x4x32xf32>, tensor<1x?x4x32xf32>
  return %o, %kc2, %vc2 : tensor<1x?x4x32xf32>, tensor<1x?x4x32xf32>, tensor<1x?x4x32xf32>
}

// -----

// MLA, absorbed on the fly: q_abs = q_nope·W_UK before the loop ([B, Tq, H, Dc]), scores
// q_abs·c + q_rope·k_rope per latent tile, the latent itself is the value ([B, Tq, H, Dc]
// accumulator), W_UV after the loop. No per-head key or value ([B, Tk, H, ·]) is built.
// CHECK-DAG: #[[$WUK:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d2, d4, d3)>
// CHECK-DAG: #[[$LAT:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d3, d4)>
// CHECK-DAG: #[[$LATV:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d4, d3)>
// CHECK-DAG: #[[$WUV:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d2, d3, d4)>
// CHECK-LABEL: func.func @mla(
// CHECK-SAME: %[[QN:[a-z0-9]+]]: tensor<1x16x4x32xf32>, %[[QR:[a-z0-9]+]]: tensor<1x16x4x16xf32>, %[[C:[a-z0-9]+]]: tensor<1x200x64xf32>, %[[KR:[a-z0-9]+]]: tensor<1x200x16xf32>, %[[WUK:[a-z0-9]+]]: tensor<4x32x64xf32>, %[[WUV:[a-z0-9]+]]: tensor<4x24x64xf32>
// CHECK-DAG: %[[SCALE:.*]] = arith.constant 0.144337565 : f32
// CHECK: %[[QABS:.*]] = linalg.generic {indexing_maps = [#{{.*}}, #[[$WUK]], #{{.*}}]{{.*}} ins(%[[QN]], %[[WUK]] {{.*}} outs(%{{.*}} : tensor<1x16x4x64xf32>)
// CHECK: scf.for %[[J:[a-z0-9]+]] =
// CHECK-SAME: -> (tensor<1x16x4xf32>, tensor<1x16x4xf32>, tensor<1x16x4x64xf32>)
// CHECK: %[[CT:.*]] = tensor.extract_slice %[[C]][0, %[[J]], 0]
// CHECK: %[[RT:.*]] = tensor.extract_slice %[[KR]][0, %[[J]], 0]
// CHECK: %[[S1:.*]] = linalg.generic {indexing_maps = [#{{.*}}, #[[$LAT]], #{{.*}}]{{.*}} ins(%[[QABS]], %[[CT]]
// CHECK: %[[S2:.*]] = linalg.generic {indexing_maps = [#{{.*}}, #[[$LAT]], #{{.*}}]{{.*}} ins(%[[QR]], %[[RT]] {{.*}} outs(%[[S1]]
// CHECK: arith.mulf %{{.*}}, %[[SCALE]] : f32
// CHECK: arith.cmpi sle
// CHECK: linalg.generic {indexing_maps = [#{{.*}}, #[[$LATV]], #{{.*}}]{{.*}} ins(%{{.*}}, %{{.*}} : tensor<1x16x4x{{[0-9]+}}xf32>, tensor<1x{{[0-9]+}}x64xf32>) outs(%{{.*}} : tensor<1x16x4x64xf32>)
// CHECK: scf.yield
// CHECK: %[[OUT:.*]] = linalg.generic {indexing_maps = [#{{.*}}, #[[$WUV]], #{{.*}}]{{.*}} ins(%{{.*}}, %[[WUV]] : tensor<1x16x4x64xf32>, tensor<4x24x64xf32>) outs(%{{.*}} : tensor<1x16x4x24xf32>)
// CHECK: linalg.generic {{.*}} ins(%[[OUT]], %{{.*}} : tensor<1x16x4x24xf32>, tensor<1x16x4xf32>)
// CHECK: return
func.func @mla(%qn: tensor<1x16x4x32xf32>, %qr: tensor<1x16x4x16xf32>, %c: tensor<1x200x64xf32>,
               %kr: tensor<1x200x16xf32>, %wuk: tensor<4x32x64xf32>, %wuv: tensor<4x24x64xf32>)
    -> tensor<1x16x4x24xf32> {
  %o = decoda.mla %qn, %qr, %c, %kr, %wuk, %wuv {num_heads = 4 : i64, causal}
      : tensor<1x16x4x32xf32>, tensor<1x16x4x16xf32>, tensor<1x200x64xf32>,
        tensor<1x200x16xf32>, tensor<4x32x64xf32>, tensor<4x24x64xf32>
  return %o : tensor<1x16x4x24xf32>
}

// -----

// A long latent sequence: nothing of the whole key length other than the operands themselves,
// neither per-head keys/values [1, 1024, 4, ·] nor scores [.., 1024].
// CHECK-LABEL: func.func @mla_long
// CHECK-NOT: x1024x4x
// CHECK-NOT: x1024xf32>
// CHECK: scf.for
// CHECK-NOT: x1024x4x
// CHECK-NOT: x1024xf32>
// CHECK: return
func.func @mla_long(%qn: tensor<1x16x4x32xf32>, %qr: tensor<1x16x4x16xf32>,
                    %c: tensor<1x1024x64xf32>, %kr: tensor<1x1024x16xf32>,
                    %wuk: tensor<4x32x64xf32>, %wuv: tensor<4x24x64xf32>)
    -> tensor<1x16x4x24xf32> {
  %o = decoda.mla %qn, %qr, %c, %kr, %wuk, %wuv {num_heads = 4 : i64, causal}
      : tensor<1x16x4x32xf32>, tensor<1x16x4x16xf32>, tensor<1x1024x64xf32>,
        tensor<1x1024x16xf32>, tensor<4x32x64xf32>, tensor<4x24x64xf32>
  return %o : tensor<1x16x4x24xf32>
}

// -----

// MLA in bf16 with a dynamic key length: extf inside the bodies, truncf at the end.
// CHECK-LABEL: func.func @mla_bf16_dynamic
// CHECK: ^bb0(%{{.*}}: bf16, %{{.*}}: bf16, %{{.*}}: f32):
// CHECK: arith.extf %{{.*}} : bf16 to f32
// CHECK: cf.assert
// CHECK: scf.for
// CHECK: scf.yield
// CHECK: tensor.extract_slice %{{.*}} : tensor<1x?x64xbf16> to tensor<1x?x64xbf16>
// CHECK: arith.truncf %{{.*}} : f32 to bf16
// CHECK: return
func.func @mla_bf16_dynamic(%qn: tensor<1x?x4x32xbf16>, %qr: tensor<1x?x4x16xbf16>,
                            %c: tensor<1x?x64xbf16>, %kr: tensor<1x?x16xbf16>,
                            %wuk: tensor<4x32x64xbf16>, %wuv: tensor<4x32x64xbf16>)
    -> tensor<1x?x4x32xbf16> {
  %o = decoda.mla %qn, %qr, %c, %kr, %wuk, %wuv {num_heads = 4 : i64, causal}
      : tensor<1x?x4x32xbf16>, tensor<1x?x4x16xbf16>, tensor<1x?x64xbf16>,
        tensor<1x?x16xbf16>, tensor<4x32x64xbf16>, tensor<4x32x64xbf16>
  return %o : tensor<1x?x4x32xbf16>
}
