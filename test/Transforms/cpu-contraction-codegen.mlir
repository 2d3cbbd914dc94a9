// RUN: decoda-opt %s --decoda-cpu-contraction-codegen --split-input-file | FileCheck %s
// RUN: decoda-opt %s --decoda-cpu-contraction-codegen="m-tile=4 k-tile=64 gemv-max-rows=0" --split-input-file | FileCheck %s --check-prefix=OPT

// Projection contractions on buffers (the form buildProjection bufferizes to) become a
// parallel loop over 32-wide n panels with a packed panel buffer, 6 x 32 register tiles of
// vector<16xf32> FMAs and a 1 x 32 tile for leftover rows (or, for a static row count of at
// most 4, dot products along k); anything else is left alone.

#x = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>
#w = affine_map<(d0, d1, d2, d3) -> (d2, d3)>
#o = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
// CHECK-LABEL: func.func @linear_out_in(
// CHECK-SAME:    %[[X:.*]]: memref<1x?x40xf32>, %[[W:.*]]: memref<50x40xf32>, %[[Y:.*]]: memref<1x?x50xf32>)
// CHECK-NOT:     linalg.generic
// CHECK:         %[[NP:.*]] = arith.ceildivui %{{.*}}, %{{.*}} : index
// CHECK:         scf.parallel (%[[B:.*]], %[[P:.*]]) = (%{{.*}}, %{{.*}}) to (%{{.*}}, %[[NP]])
// CHECK:           %[[M0:.*]] = vector.create_mask %{{.*}} : vector<16xi1>
// CHECK:           %[[M1:.*]] = vector.create_mask %{{.*}} : vector<16xi1>
// CHECK:           %[[BP:.*]] = memref.alloca() {alignment = 64 : i64} : memref<1024x32xf32>
// CHECK:           scf.for %[[K0:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
//                    pack (W contiguous along k): per 16 k, two groups of 16 masked row loads
//                    (rows past N and k past the block read as 0), a 16 x 16 transpose by 4
//                    rounds of interleaving shuffles, 16 stores into the panel
// CHECK:             scf.for %[[KK:.*]] = %{{.*}} to %{{.*}} step %c16
// CHECK-COUNT-16:      vector.maskedload %[[W]][%{{.*}}, %{{.*}}], %{{.*}}, %{{.*}} : memref<50x40xf32>
// CHECK-COUNT-64:      vector.shuffle
// CHECK-COUNT-16:      vector.store %{{.*}}, %[[BP]][%{{.*}}, %c0{{.*}}] : memref<1024x32xf32>, vector<16xf32>
// CHECK-COUNT-16:      vector.maskedload %[[W]]
// CHECK-COUNT-64:      vector.shuffle
// CHECK-COUNT-16:      vector.store %{{.*}}, %[[BP]][%{{.*}}, %c16{{.*}}] : memref<1024x32xf32>, vector<16xf32>
//                    6-row tiles: 12 accumulators loaded with the panel masks
// CHECK:             scf.for %[[MT:.*]] = %{{.*}} to %{{.*}} step %c6
// CHECK-COUNT-12:      vector.maskedload %[[Y]]
// CHECK:               %{{.*}}:12 = scf.for {{.*}} iter_args({{.*}}) -> (vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>)
// CHECK:                 vector.load %[[BP]]{{.*}} : memref<1024x32xf32>, vector<16xf32>
// CHECK:                 vector.load %[[BP]]{{.*}} : memref<1024x32xf32>, vector<16xf32>
// CHECK:                 memref.load %[[X]]
// CHECK:                 vector.broadcast %{{.*}} : f32 to vector<16xf32>
// CHECK-COUNT-2:         vector.fma
// CHECK:               scf.yield
// CHECK-COUNT-12:    vector.maskedstore %[[Y]]
//                    leftover rows: 2-row tiles, then one single row
// CHECK:             scf.for %{{.*}} = %{{.*}} to %{{.*}} step %c2
// CHECK-COUNT-4:       vector.maskedload %[[Y]]
// CHECK:               scf.for {{.*}} -> (vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>)
// CHECK-COUNT-4:     vector.maskedstore %[[Y]]
// CHECK:             scf.for %{{.*}} = %{{.*}} to %{{.*}} step %c1
// CHECK-COUNT-2:       vector.maskedload %[[Y]]
// CHECK:               scf.for {{.*}} -> (vector<16xf32>, vector<16xf32>)
// CHECK-COUNT-2:     vector.maskedstore %[[Y]]
// CHECK:         } {decoda.parallel_all_dims}
// OPT-LABEL: func.func @linear_out_in(
// OPT:         memref.alloca() {alignment = 64 : i64} : memref<64x32xf32>
// OPT:         scf.for %{{.*}} = %{{.*}} to %{{.*}} step %c4
// OPT-COUNT-8:   vector.maskedload
func.func @linear_out_in(%x: memref<1x?x40xf32>, %w: memref<50x40xf32>, %y: memref<1x?x50xf32>) {
  linalg.generic {indexing_maps = [#x, #w, #o], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%x, %w : memref<1x?x40xf32>, memref<50x40xf32>) outs(%y : memref<1x?x50xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %c, %m : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// in_out weight [K, N] in bf16 (widened in the body): the pack walks W along n innermost and
// widens each element once; A is widened at its broadcast.
#x = affine_map<(d0, d1, d2) -> (d0, d2)>
#w = affine_map<(d0, d1, d2) -> (d2, d1)>
#o = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-LABEL: func.func @linear_in_out_bf16(
// CHECK-SAME:    %[[X:.*]]: memref<?x64xbf16>, %[[W:.*]]: memref<64x96xbf16>
// CHECK:         scf.parallel (%{{.*}}) =
// CHECK:           scf.for %[[KK:.*]] = %{{.*}} to %{{.*}} step
// CHECK:             scf.for %[[J:.*]] = %{{.*}} to %{{.*}} step
// CHECK:               memref.load %[[W]]
// CHECK-NEXT:          arith.extf %{{.*}} : bf16 to f32
// CHECK:           memref.load %[[X]]
// CHECK-NEXT:      arith.extf %{{.*}} : bf16 to f32
// CHECK:         } {decoda.parallel_all_dims}
func.func @linear_in_out_bf16(%x: memref<?x64xbf16>, %w: memref<64x96xbf16>, %y: memref<?x96xf32>) {
  linalg.generic {indexing_maps = [#x, #w, #o], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : memref<?x64xbf16>, memref<64x96xbf16>) outs(%y : memref<?x96xf32>) {
  ^bb0(%a: bf16, %b: bf16, %c: f32):
    %ae = arith.extf %a : bf16 to f32
    %be = arith.extf %b : bf16 to f32
    %m = arith.mulf %ae, %be : f32
    %s = arith.addf %c, %m : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// Attention scores with GQA: K is indexed by (b, key, h floordiv 4, d); rows are the query
// positions, the batch and the head are parallel dims next to the key panels.
#q = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d4)>
#k = affine_map<(d0, d1, d2, d3, d4) -> (d0, d3, d2 floordiv 4, d4)>
#s = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3)>
// CHECK-LABEL: func.func @attention_scores(
// CHECK:         scf.parallel (%[[B:.*]], %[[H:.*]], %[[P:.*]]) = (%{{.*}}, %{{.*}}, %{{.*}}) to (%c2, %c8, %{{.*}})
// CHECK:           affine.apply #{{.*}}(%[[B]], %{{.*}}, %[[H]], %{{.*}}, %{{.*}})
// CHECK:           scf.for %{{.*}} = %{{.*}} to %{{.*}} step %c6
// CHECK:         } {decoda.parallel_all_dims}
func.func @attention_scores(%q: memref<2x37x8x16xf32>, %k: memref<2x20x2x16xf32, strided<[640, 32, 16, 1], offset: ?>>, %s: memref<2x37x8x20xf32>) {
  linalg.generic {indexing_maps = [#q, #k, #s], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%q, %k : memref<2x37x8x16xf32>, memref<2x20x2x16xf32, strided<[640, 32, 16, 1], offset: ?>>) outs(%s : memref<2x37x8x20xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %c, %m : f32
    linalg.yield %r : f32
  }
  return
}

// -----

// Multi-query attention (one KV head): after folding `h floordiv 4` to 0, K depends on neither
// the query position nor the head; the longer of the two (the query positions) is the row dim.
#q = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d4)>
#k = affine_map<(d0, d1, d2, d3, d4) -> (d0, d3, 0, d4)>
#s = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3)>
// CHECK-LABEL: func.func @mqa_scores(
// CHECK:         scf.parallel (%{{.*}}, %{{.*}}, %{{.*}}) = (%{{.*}}, %{{.*}}, %{{.*}}) to (%c2, %c4, %{{.*}})
// CHECK:           %[[REM:.*]] = arith.remui %c150, %c6
func.func @mqa_scores(%q: memref<2x150x4x16xf32>, %k: memref<2x64x1x16xf32>, %s: memref<2x150x4x64xf32>) {
  linalg.generic {indexing_maps = [#q, #k, #s], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%q, %k : memref<2x150x4x16xf32>, memref<2x64x1x16xf32>) outs(%s : memref<2x150x4x64xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %c, %m : f32
    linalg.yield %r : f32
  }
  return
}

// -----

// Per-head weight [H, N, K] on [T, H, K]: the head indexes the weight, so the rows are T.
#x = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>
#w = affine_map<(d0, d1, d2, d3) -> (d1, d2, d3)>
#o = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
// CHECK-LABEL: func.func @per_head(
// CHECK:         scf.parallel (%[[H:.*]], %{{.*}}) = (%{{.*}}, %{{.*}}) to (%c4, %{{.*}})
// CHECK:           vector.maskedload %{{.*}}[%[[H]], %{{.*}}, %{{.*}}], %{{.*}}, %{{.*}} : memref<4x24x32xf32>
func.func @per_head(%x: memref<9x4x32xf32>, %w: memref<4x24x32xf32>, %y: memref<9x4x24xf32>) {
  linalg.generic {indexing_maps = [#x, #w, #o], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%x, %w : memref<9x4x32xf32>, memref<4x24x32xf32>) outs(%y : memref<9x4x24xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %c, %m : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// Negative: an elementwise generic and a row reduction (a norm's sum of squares) stay.
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
// CHECK-LABEL: func.func @not_contractions(
// CHECK:         linalg.generic {{.*}}iterator_types = ["parallel", "parallel"]
// CHECK:         linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]
// CHECK-NOT:     scf.parallel
func.func @not_contractions(%x: memref<4x64xf32>, %y: memref<4x64xf32>, %r: memref<4xf32>) {
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<4x64xf32>) outs(%y : memref<4x64xf32>) {
  ^bb0(%a: f32, %c: f32):
    %m = arith.mulf %a, %a : f32
    linalg.yield %m : f32
  }
  linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<4x64xf32>) outs(%r : memref<4xf32>) {
  ^bb0(%a: f32, %c: f32):
    %m = arith.mulf %a, %a : f32
    %s = arith.addf %c, %m : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// Negative: a contraction whose output is strided along n (no vector stores), one with
// fastmath flags the vector code would drop, and one that is a max-plus, not a sum of products.
#x = affine_map<(d0, d1, d2) -> (d0, d2)>
#w = affine_map<(d0, d1, d2) -> (d1, d2)>
#o = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-LABEL: func.func @not_supported(
// CHECK-COUNT-3: linalg.generic
// CHECK-NOT:     scf.parallel
func.func @not_supported(%x: memref<8x16xf32>, %w: memref<32x16xf32>,
                         %ys: memref<8x32xf32, strided<[64, 2]>>, %y: memref<8x32xf32>) {
  linalg.generic {indexing_maps = [#x, #w, #o], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : memref<8x16xf32>, memref<32x16xf32>) outs(%ys : memref<8x32xf32, strided<[64, 2]>>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %c, %m : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [#x, #w, #o], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : memref<8x16xf32>, memref<32x16xf32>) outs(%y : memref<8x32xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b fastmath<fast> : f32
    %s = arith.addf %c, %m fastmath<fast> : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [#x, #w, #o], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : memref<8x16xf32>, memref<32x16xf32>) outs(%y : memref<8x32xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.addf %a, %b : f32
    %s = arith.maximumf %c, %m : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// Negative: tensors (before bufferization) are not touched.
#x = affine_map<(d0, d1, d2) -> (d0, d2)>
#w = affine_map<(d0, d1, d2) -> (d1, d2)>
#o = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-LABEL: func.func @tensors(
// CHECK:         linalg.generic
func.func @tensors(%x: tensor<8x16xf32>, %w: tensor<32x16xf32>, %y: tensor<8x32xf32>) -> tensor<8x32xf32> {
  %r = linalg.generic {indexing_maps = [#x, #w, #o], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : tensor<8x16xf32>, tensor<32x16xf32>) outs(%y : tensor<8x32xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %c, %m : f32
    linalg.yield %s : f32
  } -> tensor<8x32xf32>
  return %r : tensor<8x32xf32>
}

// -----

// One static row (decode): dot products along k, no packing. Blocks of 16 columns in parallel;
// per column a vector<16xf32> of partial sums over full 16-wide k steps, a masked k tail (40 =
// 2 x 16 + 8), a reduction and an add to C.
#x = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>
#w = affine_map<(d0, d1, d2, d3) -> (d2, d3)>
#o = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
// CHECK-LABEL: func.func @decode_gemv(
// CHECK-SAME:    %[[X:.*]]: memref<1x1x40xf32>, %[[W:.*]]: memref<50x40xf32>, %[[Y:.*]]: memref<1x1x50xf32>)
// CHECK-NOT:     memref.alloca
// CHECK:         scf.parallel
// CHECK:           scf.for %[[N:.*]] =
// CHECK:             %[[ACC:.*]] = scf.for %[[K:.*]] = {{.*}} iter_args(%{{.*}} = %{{.*}}) -> (vector<16xf32>)
// CHECK:               vector.load %[[W]][%[[N]], %[[K]]] : memref<50x40xf32>, vector<16xf32>
// CHECK:               vector.load %[[X]][%{{.*}}, %{{.*}}, %[[K]]] : memref<1x1x40xf32>, vector<16xf32>
// CHECK:               vector.fma
// CHECK:             vector.maskedload %[[W]]
// CHECK:             vector.maskedload %[[X]]
// CHECK:             %[[S:.*]] = vector.reduction <add>, %{{.*}} : vector<16xf32> into f32
// CHECK:             %[[OLD:.*]] = memref.load %[[Y]]
// CHECK:             %[[NEW:.*]] = arith.addf %[[OLD]], %[[S]] : f32
// CHECK:             memref.store %[[NEW]], %[[Y]]
// CHECK:         } {decoda.parallel_all_dims}
// OPT-LABEL: func.func @decode_gemv(
// OPT-NOT:     vector.reduction
// OPT:         memref.alloca() {alignment = 64 : i64} : memref<64x32xf32>
func.func @decode_gemv(%x: memref<1x1x40xf32>, %w: memref<50x40xf32>, %y: memref<1x1x50xf32>) {
  linalg.generic {indexing_maps = [#x, #w, #o], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%x, %w : memref<1x1x40xf32>, memref<50x40xf32>) outs(%y : memref<1x1x50xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %c, %m : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// A constant weight (an arith.constant after bufferization) is packed at compile time into
// @<name>_packed32 [ceil(N/32), K, 32] (N = 35: two panels, the second zero padded); the
// panels are subviews of it, with no alloca and no run-time pack.
memref.global "private" constant @w35 : memref<35x3xf32> = dense<1.0>
#x = affine_map<(d0, d1, d2) -> (d0, d2)>
#w = affine_map<(d0, d1, d2) -> (d1, d2)>
#o = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-DAG:   memref.global "private" constant @w35_packed32 : memref<2x3x32xf32> = dense<"0x{{(0000803F)+(00000000)+0000803F0000803F0000803F(00000000)+0000803F0000803F0000803F(00000000)+}}">
// CHECK-LABEL: func.func @constant_weight(
// CHECK-NOT:     memref.alloca
// CHECK:         %[[P:.*]] = memref.get_global @w35_packed32 : memref<2x3x32xf32>
// CHECK:         scf.parallel (%[[PANEL:.*]]) =
// CHECK:           scf.for %[[K0:.*]] =
// CHECK:             %[[V:.*]] = memref.subview %[[P]][%[[PANEL]], %[[K0]], 0] [1, %{{.*}}, 32] [1, 1, 1] : memref<2x3x32xf32> to memref<?x32xf32, strided<[32, 1], offset: ?>>
// CHECK:             vector.load %[[V]]
func.func @constant_weight(%x: memref<?x3xf32>, %y: memref<?x35xf32>) {
  %w = memref.get_global @w35 : memref<35x3xf32>
  linalg.generic {indexing_maps = [#x, #w, #o], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : memref<?x3xf32>, memref<35x3xf32>) outs(%y : memref<?x35xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %c, %m : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// A dense_resource weight (the ONNX importer's form for large initializers) is packed at compile
// time too, into a dense_resource global: packed[0][k][j] = W[j][k] for W = [[1, 2, 3], [4, 5, 6]].
memref.global "private" constant @w_res : memref<2x3xf32> = dense_resource<w_blob>
#x = affine_map<(d0, d1, d2) -> (d0, d2)>
#w = affine_map<(d0, d1, d2) -> (d1, d2)>
#o = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-DAG:   memref.global "private" constant @w_res_packed32 : memref<1x3x32xf32> = dense_resource<[[RES:w_res_packed32[_0-9]*]]>
// CHECK-LABEL: func.func @resource_weight(
// CHECK-NOT:     memref.alloca
// CHECK:         memref.get_global @w_res_packed32 : memref<1x3x32xf32>
// CHECK:         [[RES]]: "0x040000000000803F00008040000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000400000A040000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000040400000C040000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
func.func @resource_weight(%x: memref<?x3xf32>, %y: memref<?x2xf32>) {
  %w = memref.get_global @w_res : memref<2x3xf32>
  linalg.generic {indexing_maps = [#x, #w, #o], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : memref<?x3xf32>, memref<2x3xf32>) outs(%y : memref<?x2xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %c, %m : f32
    linalg.yield %s : f32
  }
  return
}

{-#
  dialect_resources: {
    builtin: {
      w_blob: "0x040000000000803F0000004000004040000080400000A0400000C040"
    }
  }
#-}
