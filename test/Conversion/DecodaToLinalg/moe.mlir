// RUN: decoda-opt %s --decoda-convert-to-linalg --split-input-file | FileCheck %s
// RUN: decoda-opt %s --decoda-convert-to-linalg --split-input-file | FileCheck %s --check-prefix=NODECODA
// RUN: decoda-opt %s --decoda-convert-to-linalg --split-input-file | FileCheck %s --check-prefix=NODENSE

// Lowering of moe: router contraction and scores in f32; top-k as an scf.for of k masked-argmax
// reductions over the experts; then an scf.for over the k slots that, per token, runs the gated
// MLP of the expert chosen in that slot, reading its weights by index (tensor.extract inside the
// contraction generics). Only K experts per token are computed; no [..., E, ...] expert output
// is ever built.

// NODECODA-NOT: {{^[^"]*decoda\.}}

// No tensor with both the token dims and the expert dim followed by a feature dim (the dense
// reformulation's [..., E, F] / [..., E, D] expert outputs) appears anywhere.
// NODENSE-NOT: {{(2x16|\?)x8x[0-9]}}

// Softmax routing, top-2 of 8, SwiGLU experts, f32.
// CHECK-DAG: #[[$RX:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>
// CHECK-DAG: #[[$RW:.*]] = affine_map<(d0, d1, d2, d3) -> (d2, d3)>
// CHECK-DAG: #[[$RO:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
// CHECK-DAG: #[[$E3:.*]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-DAG: #[[$T3:.*]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-DAG: #[[$TOK4:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1)>
// CHECK-LABEL: func.func @moe(
// CHECK-SAME:    %[[X:[a-z0-9]+]]: tensor<2x16x64xf32>, %[[R:[a-z0-9]+]]: tensor<8x64xf32>, %[[EG:[a-z0-9]+]]: tensor<8x32x64xf32>, %[[EU:[a-z0-9]+]]: tensor<8x32x64xf32>, %[[ED:[a-z0-9]+]]: tensor<8x64x32xf32>)
// CHECK-DAG:     %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG:     %[[C1:.*]] = arith.constant 1 : index
// CHECK-DAG:     %[[C2:.*]] = arith.constant 2 : index
// CHECK-DAG:     %[[C7:.*]] = arith.constant 7 : index
// CHECK-DAG:     %[[E8:.*]] = arith.constant 8 : i64
// CHECK-DAG:     %[[NINF:.*]] = arith.constant 0xFF800000 : f32
// Router logits and softmax (max, exp, sum, divide).
// CHECK:         %[[Z:.*]] = linalg.generic {indexing_maps = [#[[$RX]], #[[$RW]], #[[$RO]]], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
// CHECK-SAME:      ins(%[[X]], %[[R]] : tensor<2x16x64xf32>, tensor<8x64xf32>) outs(%{{.*}} : tensor<2x16x8xf32>)
// CHECK:         %[[MAX:.*]] = linalg.generic {indexing_maps = [#[[$E3]], #[[$T3]]], iterator_types = ["parallel", "parallel", "reduction"]} ins(%[[Z]] : tensor<2x16x8xf32>)
// CHECK:           arith.maximumf
// CHECK:         %[[EXP:.*]] = linalg.generic {{.*}} ins(%[[Z]], %[[MAX]] : tensor<2x16x8xf32>, tensor<2x16xf32>)
// CHECK:           math.exp
// CHECK:         %[[SUM:.*]] = linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "reduction"]} ins(%[[EXP]] : tensor<2x16x8xf32>)
// CHECK:         %[[S:.*]] = linalg.generic {{.*}} ins(%[[SUM]] : tensor<2x16xf32>) outs(%[[EXP]] : tensor<2x16x8xf32>)
// CHECK:           arith.divf
// Top-k: k rounds of a masked argmax (ties to the lower index, order independent).
// CHECK:         %[[MASK0:.*]] = linalg.fill ins(%false : i1) outs(%{{.*}} : tensor<2x16x8xi1>)
// CHECK:         %[[TOPK:.*]]:3 = scf.for %[[SLOT:[a-z0-9_]+]] = %[[C0]] to %[[C2]] step %[[C1]] iter_args(%[[MASK:[a-z0-9_]+]] = %[[MASK0]], %[[IDX:[a-z0-9_]+]] = %{{.*}}, %[[GATES:[a-z0-9_]+]] = %{{.*}}) -> (tensor<2x16x8xi1>, tensor<2x16x2xi64>, tensor<2x16x2xf32>)
// CHECK:           %[[BS:.*]] = linalg.fill ins(%[[NINF]] : f32) outs(%{{.*}} : tensor<2x16xf32>)
// CHECK:           %[[BI:.*]] = linalg.fill ins(%[[E8]] : i64) outs(%{{.*}} : tensor<2x16xi64>)
// CHECK:           %[[AM:.*]]:3 = linalg.generic {indexing_maps = [#[[$E3]], #[[$E3]], #[[$T3]], #[[$T3]], #[[$T3]]], iterator_types = ["parallel", "parallel", "reduction"]}
// CHECK-SAME:        ins(%[[S]], %[[MASK]] : tensor<2x16x8xf32>, tensor<2x16x8xi1>) outs(%[[BS]], %[[BI]], %{{.*}} : tensor<2x16xf32>, tensor<2x16xi64>, tensor<2x16xf32>)
// CHECK-NEXT:      ^bb0(%[[SV:[a-z0-9_]+]]: f32, %[[TAKEN:[a-z0-9_]+]]: i1, %[[CS:[a-z0-9_]+]]: f32, %[[CI:[a-z0-9_]+]]: i64, %[[CG:[a-z0-9_]+]]: f32):
// CHECK:             %[[EI:.*]] = arith.index_cast %{{.*}} : index to i64
// CHECK:             %[[NONE:.*]] = arith.cmpi eq, %[[CI]], %[[E8]] : i64
// CHECK:             %[[GT:.*]] = arith.cmpf ogt, %[[SV]], %[[CS]] : f32
// CHECK:             %[[EQ:.*]] = arith.cmpf oeq, %[[SV]], %[[CS]] : f32
// CHECK:             %[[LOW:.*]] = arith.cmpi slt, %[[EI]], %[[CI]] : i64
// CHECK:             %[[FREE:.*]] = arith.xori %[[TAKEN]], %true : i1
// CHECK:             %[[BETTER:.*]] = arith.andi %{{.*}}, %[[FREE]] : i1
// CHECK:             %[[N1:.*]] = arith.select %[[BETTER]], %[[SV]], %[[CS]] : f32
// CHECK:             %[[N2:.*]] = arith.select %[[BETTER]], %[[EI]], %[[CI]] : i64
// CHECK:             %[[N3:.*]] = arith.select %[[BETTER]], %[[SV]], %[[CG]] : f32
// CHECK:             linalg.yield %[[N1]], %[[N2]], %[[N3]] : f32, i64, f32
// CHECK:           %[[NM:.*]] = linalg.generic {{.*}} ins(%[[AM]]#1 : tensor<2x16xi64>) outs(%[[MASK]] : tensor<2x16x8xi1>)
// CHECK:             arith.ori
// The winner and its unbiased score go to slot k, in place (a select on the slot index).
// CHECK:           %[[NI:.*]] = linalg.generic {indexing_maps = [#[[$T3]], #[[$E3]]], iterator_types = ["parallel", "parallel", "parallel"]} ins(%[[AM]]#1 : tensor<2x16xi64>) outs(%[[IDX]] : tensor<2x16x2xi64>)
// CHECK-NEXT:      ^bb0(%[[W:[a-z0-9_]+]]: i64, %[[OLD:[a-z0-9_]+]]: i64):
// CHECK-NEXT:        %[[K:.*]] = linalg.index 2 : index
// CHECK-NEXT:        %[[HIT:.*]] = arith.cmpi eq, %[[K]], %[[SLOT]] : index
// CHECK-NEXT:        %[[SELI:.*]] = arith.select %[[HIT]], %[[W]], %[[OLD]] : i64
// CHECK-NEXT:        linalg.yield %[[SELI]] : i64
// CHECK:           %[[NG:.*]] = linalg.generic {{.*}} ins(%[[AM]]#2 : tensor<2x16xf32>) outs(%[[GATES]] : tensor<2x16x2xf32>)
// CHECK:           scf.yield %[[NM]], %[[NI]], %[[NG]]
// The chosen experts, slot by slot: expert weights read by index, clamped into [0, E).
// CHECK:         %[[Y:.*]] = scf.for %[[SL:.*]] = %[[C0]] to %[[C2]] step %[[C1]] iter_args(%[[ACC:.*]] = %{{.*}}) -> (tensor<2x16x64xf32>)
// CHECK:           %[[EIDS:.*]] = tensor.extract_slice %[[TOPK]]#1[0, 0, %[[SL]]] [2, 16, 1] [1, 1, 1] : tensor<2x16x2xi64> to tensor<2x16xi64>
// CHECK:           %[[G:.*]] = tensor.extract_slice %[[TOPK]]#2[0, 0, %[[SL]]] [2, 16, 1] [1, 1, 1] : tensor<2x16x2xf32> to tensor<2x16xf32>
// CHECK:           %[[GU:.*]]:2 = linalg.generic {indexing_maps = [#[[$RX]], #[[$TOK4]], #[[$RO]], #[[$RO]]], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
// CHECK-SAME:        ins(%[[X]], %[[EIDS]] : tensor<2x16x64xf32>, tensor<2x16xi64>) outs(%{{.*}}, %{{.*}} : tensor<2x16x32xf32>, tensor<2x16x32xf32>)
// CHECK-NEXT:      ^bb0(%{{[a-z0-9_]+}}: f32, %[[ID:[a-z0-9_]+]]: i64, %{{[a-z0-9_]+}}: f32, %{{[a-z0-9_]+}}: f32):
// CHECK:             %[[EIX:.*]] = arith.index_cast %[[ID]] : i64 to index
// CHECK:             %[[EC:.*]] = arith.minui %[[EIX]], %[[C7]] : index
// CHECK:             %[[F:.*]] = linalg.index 2 : index
// CHECK:             %[[D:.*]] = linalg.index 3 : index
// CHECK:             tensor.extract %[[EG]][%[[EC]], %[[F]], %[[D]]] : tensor<8x32x64xf32>
// CHECK:             tensor.extract %[[EU]][%[[EC]], %{{.*}}, %{{.*}}] : tensor<8x32x64xf32>
// CHECK:           %[[H:.*]] = linalg.generic {{.*}} ins(%[[GU]]#0, %[[GU]]#1 : tensor<2x16x32xf32>, tensor<2x16x32xf32>) outs(%{{.*}} : tensor<2x16x32xf32>)
// CHECK:             math.exp
// CHECK:           %[[DN:.*]] = linalg.generic {{.*}} ins(%[[H]], %[[EIDS]] : tensor<2x16x32xf32>, tensor<2x16xi64>) outs(%{{.*}} : tensor<2x16x64xf32>)
// CHECK:             tensor.extract %[[ED]][%{{.*}}, %{{.*}}, %{{.*}}] : tensor<8x64x32xf32>
// CHECK:           %[[NACC:.*]] = linalg.generic {{.*}} ins(%[[DN]], %[[G]] : tensor<2x16x64xf32>, tensor<2x16xf32>) outs(%[[ACC]] : tensor<2x16x64xf32>)
// CHECK:             arith.mulf
// CHECK:             arith.addf
// CHECK:           scf.yield %[[NACC]] : tensor<2x16x64xf32>
// CHECK:         %[[OUT:.*]] = linalg.generic {{.*}} ins(%[[Y]] : tensor<2x16x64xf32>) outs(%{{.*}} : tensor<2x16x64xf32>)
// CHECK:         return %[[OUT]]
func.func @moe(%x: tensor<2x16x64xf32>, %r: tensor<8x64xf32>, %eg: tensor<8x32x64xf32>, %eu: tensor<8x32x64xf32>, %ed: tensor<8x64x32xf32>) -> tensor<2x16x64xf32> {
  %y = decoda.moe %x router(%r) experts(%eg, %eu, %ed) {top_k = 2 : i64, scoring = #decoda.scoring<softmax>, kind = #decoda.glu<swiglu>} : tensor<2x16x64xf32>, tensor<8x64xf32>, tensor<8x32x64xf32>, tensor<8x32x64xf32>, tensor<8x64x32xf32>
  return %y : tensor<2x16x64xf32>
}

// -----

// Everything: sigmoid scores, a selection bias that only chooses (added in the argmax, the
// unbiased score kept as the gate), normalised gates times routed_scale, in_out expert weights
// (read at [e, d, f] / [e, f, d]), a shared expert, bf16 storage and a dynamic token count.
// CHECK-LABEL: func.func @moe_all(
// CHECK-SAME:    %[[X:[a-z0-9]+]]: tensor<?x64xbf16>, %[[R:[a-z0-9]+]]: tensor<8x64xbf16>, %[[EG:[a-z0-9]+]]: tensor<8x64x32xbf16>, %[[EU:[a-z0-9]+]]: tensor<8x64x32xbf16>, %[[ED:[a-z0-9]+]]: tensor<8x32x64xbf16>, %[[SB:[a-z0-9]+]]: tensor<8xf32>, %[[SG:[a-z0-9]+]]: tensor<64x48xbf16>, %[[SU:[a-z0-9]+]]: tensor<64x48xbf16>, %[[SD:[a-z0-9]+]]: tensor<48x64xbf16>)
// CHECK-DAG:     %[[RS:.*]] = arith.constant 2.500000e+00 : f32
// CHECK:         %[[Z:.*]] = linalg.generic {{.*}} ins(%[[X]], %[[R]] : tensor<?x64xbf16>, tensor<8x64xbf16>) outs(%{{.*}} : tensor<?x8xf32>)
// CHECK:         %[[S:.*]] = linalg.generic {{.*}} ins(%[[Z]] : tensor<?x8xf32>)
// CHECK:           math.exp
// CHECK:         %[[TOPK:.*]]:3 = scf.for
// CHECK:           linalg.generic {{.*}} ins(%[[S]], %{{.*}}, %[[SB]] : tensor<?x8xf32>, tensor<?x8xi1>, tensor<8xf32>)
// CHECK-NEXT:      ^bb0(%[[SV:[a-z0-9_]+]]: f32, %{{[a-z0-9_]+}}: i1, %[[BV:[a-z0-9_]+]]: f32, %[[CS:[a-z0-9_]+]]: f32, %[[CI:[a-z0-9_]+]]: i64, %[[CG:[a-z0-9_]+]]: f32):
// CHECK-NEXT:        %[[SEL:.*]] = arith.addf %[[SV]], %[[BV]] : f32
// CHECK:             arith.cmpf ogt, %[[SEL]], %[[CS]] : f32
// CHECK:             arith.select %{{.*}}, %[[SEL]], %[[CS]] : f32
// CHECK:             arith.select %{{.*}}, %[[SV]], %[[CG]] : f32
// CHECK:         %[[GSUM:.*]] = linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]} ins(%[[TOPK]]#2 : tensor<?x2xf32>)
// CHECK:         %[[GATES:.*]] = linalg.generic {{.*}} ins(%[[GSUM]] : tensor<?xf32>) outs(%[[TOPK]]#2 : tensor<?x2xf32>)
// CHECK-NEXT:      ^bb0(%[[T:[a-z0-9_]+]]: f32, %[[GV:[a-z0-9_]+]]: f32):
// CHECK-NEXT:        %[[NORM:.*]] = arith.divf %[[GV]], %[[T]] : f32
// CHECK-NEXT:        %[[SCALED:.*]] = arith.mulf %[[NORM]], %[[RS]] : f32
// CHECK-NEXT:        linalg.yield %[[SCALED]] : f32
// CHECK:         %[[Y:.*]] = scf.for
// CHECK:           tensor.extract_slice %[[GATES]]
// CHECK:           linalg.generic
// CHECK:             %[[F:.*]] = linalg.index 1 : index
// CHECK:             %[[D:.*]] = linalg.index 2 : index
// CHECK:             tensor.extract %[[EG]][%{{.*}}, %[[D]], %[[F]]] : tensor<8x64x32xbf16>
// CHECK:           linalg.generic
// CHECK:             arith.truncf %{{.*}} : f32 to bf16
// CHECK:           linalg.generic
// CHECK:             tensor.extract %[[ED]][%{{.*}}, %{{.*}}, %{{.*}}] : tensor<8x32x64xbf16>
// Each expert's output is rounded to bf16 before it is weighted and accumulated in f32.
// CHECK:           linalg.generic
// CHECK:             %[[RND:.*]] = arith.truncf %{{.*}} : f32 to bf16
// CHECK:             %[[BACK:.*]] = arith.extf %[[RND]] : bf16 to f32
// CHECK:             arith.mulf %{{.*}}, %[[BACK]] : f32
// Shared expert: dense gate/up/down projections.
// CHECK:         %[[SGA:.*]] = linalg.generic {{.*}} ins(%[[X]], %[[SG]] : tensor<?x64xbf16>, tensor<64x48xbf16>)
// CHECK:         %[[SUA:.*]] = linalg.generic {{.*}} ins(%[[X]], %[[SU]] : tensor<?x64xbf16>, tensor<64x48xbf16>)
// CHECK:         %[[SH:.*]] = linalg.generic {{.*}} ins(%[[SGA]], %[[SUA]] : tensor<?x48xf32>, tensor<?x48xf32>) outs(%{{.*}} : tensor<?x48xbf16>)
// CHECK:         %[[SDA:.*]] = linalg.generic {{.*}} ins(%[[SH]], %[[SD]] : tensor<?x48xbf16>, tensor<48x64xbf16>)
// CHECK:         %[[SO:.*]] = linalg.generic {{.*}} ins(%[[SDA]] : tensor<?x64xf32>) outs(%{{.*}} : tensor<?x64xbf16>)
// CHECK:         %[[OUT:.*]] = linalg.generic {{.*}} ins(%[[Y]], %[[SO]] : tensor<?x64xf32>, tensor<?x64xbf16>) outs(%{{.*}} : tensor<?x64xbf16>)
// CHECK:           arith.extf
// CHECK:           arith.addf
// CHECK:           arith.truncf %{{.*}} : f32 to bf16
// CHECK:         return %[[OUT]]
func.func @moe_all(%x: tensor<?x64xbf16>, %r: tensor<8x64xbf16>, %eg: tensor<8x64x32xbf16>, %eu: tensor<8x64x32xbf16>, %ed: tensor<8x32x64xbf16>, %bias: tensor<8xf32>, %sg: tensor<64x48xbf16>, %su: tensor<64x48xbf16>, %sd: tensor<48x64xbf16>) -> tensor<?x64xbf16> {
  %y = decoda.moe %x router(%r) experts(%eg, %eu, %ed) selection_bias(%bias : tensor<8xf32>) shared(%sg, %su, %sd : tensor<64x48xbf16>, tensor<64x48xbf16>, tensor<48x64xbf16>) {top_k = 2 : i64, scoring = #decoda.scoring<sigmoid>, normalize, routed_scale = 2.5 : f64, kind = #decoda.glu<situ, beta1 = 4.0, beta2 = 25.0>, weight_layout = #decoda.weight_layout<in_out>} : tensor<?x64xbf16>, tensor<8x64xbf16>, tensor<8x64x32xbf16>, tensor<8x64x32xbf16>, tensor<8x32x64xbf16>
  return %y : tensor<?x64xbf16>
}

// -----

// A single token (rank-1 input, f16): the token space is rank 0, the top-k tensors are [K].
// CHECK-LABEL: func.func @moe_single_token(
// CHECK:         scf.for {{.*}} -> (tensor<4xi1>, tensor<2xi64>, tensor<2xf32>)
// CHECK:           linalg.generic {{.*}}iterator_types = ["reduction"]{{.*}} outs(%{{.*}}, %{{.*}}, %{{.*}} : tensor<f32>, tensor<i64>, tensor<f32>)
// CHECK:           linalg.generic {{.*}} ins(%{{.*}} : tensor<i64>) outs(%{{.*}} : tensor<2xi64>)
// CHECK:         scf.for {{.*}} -> (tensor<64xf32>)
// CHECK:           tensor.extract_slice %{{.*}}[%{{.*}}] [1] [1] : tensor<2xi64> to tensor<i64>
// CHECK:         arith.truncf %{{.*}} : f32 to f16
func.func @moe_single_token(%x: tensor<64xf16>, %r: tensor<4x64xf16>, %eg: tensor<4x32x64xf16>, %eu: tensor<4x32x64xf16>, %ed: tensor<4x64x32xf16>, %b: tensor<4xf16>) -> tensor<64xf16> {
  %y = decoda.moe %x router(%r) experts(%eg, %eu, %ed) selection_bias(%b : tensor<4xf16>) {top_k = 2 : i64, scoring = #decoda.scoring<sigmoid>, kind = #decoda.glu<geglu>} : tensor<64xf16>, tensor<4x64xf16>, tensor<4x32x64xf16>, tensor<4x32x64xf16>, tensor<4x64x32xf16>
  return %y : tensor<64xf16>
}
