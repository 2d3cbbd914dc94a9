// RUN: decoda-opt %s --decoda-convert-to-linalg --split-input-file | FileCheck %s
// RUN: decoda-opt %s --decoda-convert-to-linalg --split-input-file | FileCheck %s --check-prefix=NODECODA

// Lowering of residual mixing: residual_add as one elementwise generic (sum in f32, rounded once);
// hyper_connection as σ/Sinkhorn coefficient generics, the read reduction, the inlined body and the
// mixing reduction with its write-back epilogue.

// No decoda op survives the pass (hyper_connection bodies included).
// NODECODA-NOT: {{^[^"]*decoda\.}}

// CHECK-DAG: #[[$ID3:.*]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-LABEL: func.func @residual_add(
// CHECK-SAME:    %[[X:[a-z0-9]+]]: tensor<2x16x64xf32>, %[[B:[a-z0-9]+]]: tensor<2x16x64xf32>)
// CHECK:         %[[E:.*]] = tensor.empty() : tensor<2x16x64xf32>
// CHECK:         %[[Y:.*]] = linalg.generic {indexing_maps = [#[[$ID3]], #[[$ID3]], #[[$ID3]]], iterator_types = ["parallel", "parallel", "parallel"]}
// CHECK-SAME:      ins(%[[X]], %[[B]] : tensor<2x16x64xf32>, tensor<2x16x64xf32>) outs(%[[E]] : tensor<2x16x64xf32>)
// CHECK-NEXT:    ^bb0(%[[R:[a-z0-9_]+]]: f32, %[[BR:[a-z0-9_]+]]: f32, %{{[a-z0-9_]+}}: f32):
// CHECK-NEXT:      %[[S:.*]] = arith.addf %[[R]], %[[BR]] : f32
// CHECK-NEXT:      linalg.yield %[[S]] : f32
// CHECK:         return %[[Y]]
func.func @residual_add(%x: tensor<2x16x64xf32>, %b: tensor<2x16x64xf32>) -> tensor<2x16x64xf32> {
  %y = decoda.residual_add %x, %b : tensor<2x16x64xf32>
  return %y : tensor<2x16x64xf32>
}

// -----

// bf16, scaled branch, dynamic dims: extf both, scale and add in f32, one truncf.
// CHECK-LABEL: func.func @residual_add_scale_bf16(
// CHECK-SAME:    %[[X:[a-z0-9]+]]: tensor<?x?x64xbf16>, %[[B:[a-z0-9]+]]: tensor<?x?x64xbf16>)
// CHECK-DAG:     %[[HALF:.*]] = arith.constant 5.000000e-01 : f32
// CHECK-DAG:     %[[D0:.*]] = tensor.dim %[[X]], %c0
// CHECK-DAG:     %[[D1:.*]] = tensor.dim %[[X]], %c1
// CHECK:         %[[E:.*]] = tensor.empty(%[[D0]], %[[D1]]) : tensor<?x?x64xbf16>
// CHECK:         linalg.generic {{.*}} ins(%[[X]], %[[B]] : tensor<?x?x64xbf16>, tensor<?x?x64xbf16>) outs(%[[E]] : tensor<?x?x64xbf16>)
// CHECK-NEXT:    ^bb0(%[[R:[a-z0-9_]+]]: bf16, %[[BR:[a-z0-9_]+]]: bf16, %{{[a-z0-9_]+}}: bf16):
// CHECK-NEXT:      %[[RF:.*]] = arith.extf %[[R]] : bf16 to f32
// CHECK-NEXT:      %[[BF:.*]] = arith.extf %[[BR]] : bf16 to f32
// CHECK-NEXT:      %[[SB:.*]] = arith.mulf %[[BF]], %[[HALF]] : f32
// CHECK-NEXT:      %[[S:.*]] = arith.addf %[[RF]], %[[SB]] : f32
// CHECK-NEXT:      %[[T:.*]] = arith.truncf %[[S]] : f32 to bf16
// CHECK-NEXT:      linalg.yield %[[T]] : bf16
func.func @residual_add_scale_bf16(%x: tensor<?x?x64xbf16>, %b: tensor<?x?x64xbf16>) -> tensor<?x?x64xbf16> {
  %y = decoda.residual_add %x, %b {scale = 5.000000e-01 : f64} : tensor<?x?x64xbf16>
  return %y : tensor<?x?x64xbf16>
}

// -----

// Static logits: A = σ(Ã) and C = 2σ(C̃) on [n]; h = Σ_i A_i X_i (reduction over the stream
// dim, A read through (d0, d1, d2, d3) -> (d3)); the body (a softcap) lowered in place on h;
// B = Sinkhorn(exp(B̃ - rowmax)) as an scf.for of 20 row-then-column normalisations, each written
// in place into the loop-carried matrix; X' = Σ_j B_ij X_j, then + C_i y.
// CHECK-DAG: #[[$READX:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3, d2)>
// CHECK-DAG: #[[$READA:.*]] = affine_map<(d0, d1, d2, d3) -> (d3)>
// CHECK-DAG: #[[$LAYER:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
// CHECK-DAG: #[[$M2:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[$ROW:.*]] = affine_map<(d0, d1) -> (d0)>
// CHECK-DAG: #[[$COL:.*]] = affine_map<(d0, d1) -> (d1)>
// CHECK-DAG: #[[$MIXX:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d4, d3)>
// CHECK-DAG: #[[$MIXB:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d2, d4)>
// CHECK-DAG: #[[$MIXO:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3)>
// CHECK-DAG: #[[$ID4:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
// CHECK-DAG: #[[$WRC:.*]] = affine_map<(d0, d1, d2, d3) -> (d2)>
// CHECK-DAG: #[[$WRY:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>
// CHECK-LABEL: func.func @hyper_connection_static(
// CHECK-SAME:    %[[X:[a-z0-9]+]]: tensor<2x16x4x64xf32>, %[[A:[a-z0-9]+]]: tensor<4xf32>, %[[B:[a-z0-9]+]]: tensor<4x4xf32>, %[[C:[a-z0-9]+]]: tensor<4xf32>)
// CHECK-DAG:     %[[C20:.*]] = arith.constant 20 : index
// CHECK-DAG:     %[[TWO:.*]] = arith.constant 2.000000e+00 : f32
// CHECK:         %[[SA:.*]] = linalg.generic {{.*}} ins(%[[A]] : tensor<4xf32>)
// CHECK:           math.exp
// CHECK:         %[[H:.*]] = linalg.generic {indexing_maps = [#[[$READX]], #[[$READA]], #[[$LAYER]]], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
// CHECK-SAME:      ins(%[[X]], %[[SA]] : tensor<2x16x4x64xf32>, tensor<4xf32>) outs(%{{.*}} : tensor<2x16x64xf32>)
// CHECK:         %[[F:.*]] = linalg.generic {{.*}} ins(%[[H]] : tensor<2x16x64xf32>)
// CHECK:           math.tanh
// CHECK:         %[[SC:.*]] = linalg.generic {{.*}} ins(%[[C]] : tensor<4xf32>)
// CHECK:           arith.mulf %{{.*}}, %[[TWO]] : f32
// CHECK:         %[[MAX:.*]] = linalg.generic {indexing_maps = [#[[$M2]], #[[$ROW]]], iterator_types = ["parallel", "reduction"]} ins(%[[B]] : tensor<4x4xf32>)
// CHECK:           arith.maximumf
// CHECK:         %[[EXP:.*]] = linalg.generic {{.*}} ins(%[[B]], %[[MAX]] : tensor<4x4xf32>, tensor<4xf32>)
// CHECK:           arith.subf
// CHECK:           math.exp
// CHECK:         %[[SK:.*]] = scf.for %{{.*}} = %c0 to %[[C20]] step %c1 iter_args(%[[M:.*]] = %[[EXP]]) -> (tensor<4x4xf32>) {
// CHECK:           %[[RS:.*]] = linalg.generic {indexing_maps = [#[[$M2]], #[[$ROW]]], iterator_types = ["parallel", "reduction"]} ins(%[[M]] : tensor<4x4xf32>)
// CHECK:           %[[M1:.*]] = linalg.generic {indexing_maps = [#[[$ROW]], #[[$M2]]], iterator_types = ["parallel", "parallel"]} ins(%[[RS]] : tensor<4xf32>) outs(%[[M]] : tensor<4x4xf32>)
// CHECK:             arith.divf
// CHECK:           %[[CS:.*]] = linalg.generic {indexing_maps = [#[[$M2]], #[[$COL]]], iterator_types = ["reduction", "parallel"]} ins(%[[M1]] : tensor<4x4xf32>)
// CHECK:           %[[M2V:.*]] = linalg.generic {indexing_maps = [#[[$COL]], #[[$M2]]], iterator_types = ["parallel", "parallel"]} ins(%[[CS]] : tensor<4xf32>) outs(%[[M1]] : tensor<4x4xf32>)
// CHECK:           scf.yield %[[M2V]] : tensor<4x4xf32>
// CHECK:         %[[MIX:.*]] = linalg.generic {indexing_maps = [#[[$MIXX]], #[[$MIXB]], #[[$MIXO]]], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
// CHECK-SAME:      ins(%[[X]], %[[SK]] : tensor<2x16x4x64xf32>, tensor<4x4xf32>)
// CHECK:         %[[OUT:.*]] = linalg.generic {indexing_maps = [#[[$ID4]], #[[$WRC]], #[[$WRY]], #[[$ID4]]], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
// CHECK-SAME:      ins(%[[MIX]], %[[SC]], %[[F]] : tensor<2x16x4x64xf32>, tensor<4xf32>, tensor<2x16x64xf32>)
// CHECK:         return %[[OUT]] : tensor<2x16x4x64xf32>
func.func @hyper_connection_static(%x: tensor<2x16x4x64xf32>, %a: tensor<4xf32>, %b: tensor<4x4xf32>, %c: tensor<4xf32>) -> tensor<2x16x4x64xf32> {
  %y = decoda.hyper_connection %x, %a, %b, %c {sinkhorn_iters = 20 : i64} : tensor<2x16x4x64xf32>, tensor<4xf32>, tensor<4x4xf32>, tensor<4xf32> {
  ^bb0(%h: tensor<2x16x64xf32>):
    %f = decoda.softcap %h {cap = 3.0e+01 : f64} : tensor<2x16x64xf32>
    decoda.yield %f : tensor<2x16x64xf32>
  }
  return %y : tensor<2x16x4x64xf32>
}

// -----

// Per-token logits (the leading dims of the streams in every map), bf16 streams with a dynamic
// batch, bf16 read logits, an f32 write-logit tensor with a static batch; identity body, so the
// layer output is the rounded h itself. h is rounded to bf16 before the body; the result is
// rounded once at the end.
// CHECK-DAG: #[[$PTA:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>
// CHECK-DAG: #[[$PTB:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d4)>
// CHECK-DAG: #[[$PTC:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
// CHECK-LABEL: func.func @hyper_connection_per_token(
// CHECK-SAME:    %[[X:[a-z0-9]+]]: tensor<?x16x4x64xbf16>, %[[A:[a-z0-9]+]]: tensor<?x16x4xbf16>, %[[B:[a-z0-9]+]]: tensor<?x16x4x4xf32>, %[[C:[a-z0-9]+]]: tensor<2x16x4xf32>)
// CHECK-DAG:     %[[C3:.*]] = arith.constant 3 : index
// CHECK:         %[[SA:.*]] = linalg.generic {{.*}} ins(%[[A]] : tensor<?x16x4xbf16>) outs(%{{.*}} : tensor<?x16x4xf32>)
// CHECK:           arith.extf %{{.*}} : bf16 to f32
// CHECK:         %[[HF:.*]] = linalg.generic {indexing_maps = [#{{.*}}, #[[$PTA]], #[[$PTC]]], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
// CHECK-SAME:      ins(%[[X]], %[[SA]] : tensor<?x16x4x64xbf16>, tensor<?x16x4xf32>) outs(%{{.*}} : tensor<?x16x64xf32>)
// CHECK:         %[[H:.*]] = linalg.generic {{.*}} ins(%[[HF]] : tensor<?x16x64xf32>) outs(%{{.*}} : tensor<?x16x64xbf16>)
// CHECK:           arith.truncf %{{.*}} : f32 to bf16
// CHECK:         %[[SC:.*]] = linalg.generic {{.*}} ins(%[[C]] : tensor<2x16x4xf32>)
// CHECK:         scf.for %{{.*}} = %c0 to %[[C3]] step %c1 iter_args(%{{.*}}) -> (tensor<?x16x4x4xf32>)
// CHECK:         %[[MIX:.*]] = linalg.generic {indexing_maps = [#{{.*}}, #[[$PTB]], #{{.*}}], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
// CHECK:         %[[OUT:.*]] = linalg.generic {indexing_maps = [#{{.*}}, #[[$PTC]], #[[$PTA]], #{{.*}}], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
// CHECK-SAME:      ins(%[[MIX]], %[[SC]], %[[H]] : tensor<?x16x4x64xf32>, tensor<2x16x4xf32>, tensor<?x16x64xbf16>) outs(%{{.*}} : tensor<?x16x4x64xbf16>)
// CHECK:           arith.extf %{{.*}} : bf16 to f32
// CHECK:           arith.truncf %{{.*}} : f32 to bf16
// CHECK:         return %[[OUT]]
func.func @hyper_connection_per_token(%x: tensor<?x16x4x64xbf16>, %a: tensor<?x16x4xbf16>, %b: tensor<?x16x4x4xf32>, %c: tensor<2x16x4xf32>) -> tensor<?x16x4x64xbf16> {
  %y = decoda.hyper_connection %x, %a, %b, %c {sinkhorn_iters = 3 : i64} : tensor<?x16x4x64xbf16>, tensor<?x16x4xbf16>, tensor<?x16x4x4xf32>, tensor<2x16x4xf32> {
  ^bb0(%h: tensor<?x16x64xbf16>):
    decoda.yield %h : tensor<?x16x64xbf16>
  }
  return %y : tensor<?x16x4x64xbf16>
}

// -----

// Rank-2 streams [n, d]: the layer is rank 1 and a body with several decoda ops (and a value
// from outside the region) is inlined and lowered.
// CHECK-LABEL: func.func @hyper_connection_rank2_body(
// CHECK-SAME:    %[[X:[a-z0-9]+]]: tensor<2x64xf16>, {{.*}}, %[[W:[a-z0-9]+]]: tensor<64xf16>)
// CHECK:         %[[H:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]{{.*}} ins(%[[X]], %{{.*}} : tensor<2x64xf16>, tensor<2xf32>) outs(%{{.*}} : tensor<64xf32>)
// CHECK:         %[[HR:.*]] = linalg.generic {{.*}} ins(%[[H]] : tensor<64xf32>) outs(%{{.*}} : tensor<64xf16>)
// CHECK:         linalg.generic {{.*}} ins(%[[HR]] : tensor<64xf16>) outs(%{{.*}} : tensor<f32>)
// CHECK:         %[[N:.*]] = linalg.generic {{.*}} ins(%[[HR]], %{{.*}}, %[[W]] : tensor<64xf16>, tensor<f32>, tensor<64xf16>)
// CHECK:         %[[F:.*]] = linalg.generic {{.*}} ins(%[[HR]], %[[N]] : tensor<64xf16>, tensor<64xf16>)
// CHECK:         scf.for
// CHECK:         linalg.generic {{.*}} ins(%{{.*}}, %{{.*}}, %[[F]] : tensor<2x64xf32>, tensor<2xf32>, tensor<64xf16>) outs(%{{.*}} : tensor<2x64xf16>)
func.func @hyper_connection_rank2_body(%x: tensor<2x64xf16>, %a: tensor<2xf16>, %b: tensor<2x2xf16>, %c: tensor<2xf16>, %w: tensor<64xf16>) -> tensor<2x64xf16> {
  %y = decoda.hyper_connection %x, %a, %b, %c {sinkhorn_iters = 1 : i64} : tensor<2x64xf16>, tensor<2xf16>, tensor<2x2xf16>, tensor<2xf16> {
  ^bb0(%h: tensor<64xf16>):
    %n = decoda.rms_norm %h, %w {eps = 1.0e-05 : f64} : tensor<64xf16>, tensor<64xf16>
    %r = decoda.residual_add %h, %n : tensor<64xf16>
    decoda.yield %r : tensor<64xf16>
  }
  return %y : tensor<2x64xf16>
}
