// RUN: decoda-opt %s --decoda-convert-to-linalg --split-input-file | FileCheck %s
// RUN: decoda-opt %s --decoda-convert-to-linalg --split-input-file | FileCheck %s --check-prefix=NODECODA

// Lowering of linear, embedding, mlp and gated_mlp: f32 contraction generics (a reduction over
// the input features) with elementwise epilogues (bias, activation, rounding).

// NODECODA-NOT: {{^[^"]*decoda\.}}

// out_in weight [N, K], f32, no bias: the contraction reads W at (n, k).
// CHECK-DAG: #[[$X:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>
// CHECK-DAG: #[[$WOI:.*]] = affine_map<(d0, d1, d2, d3) -> (d2, d3)>
// CHECK-DAG: #[[$O:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
// CHECK-LABEL: func.func @linear(
// CHECK-SAME:    %[[X:[a-z0-9]+]]: tensor<2x16x64xf32>, %[[W:[a-z0-9]+]]: tensor<128x64xf32>) -> tensor<2x16x128xf32>
// CHECK:         %[[ACC:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<2x16x128xf32>)
// CHECK:         %[[S:.*]] = linalg.generic {indexing_maps = [#[[$X]], #[[$WOI]], #[[$O]]], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
// CHECK-SAME:      ins(%[[X]], %[[W]] : tensor<2x16x64xf32>, tensor<128x64xf32>) outs(%[[ACC]] : tensor<2x16x128xf32>)
// CHECK:           arith.mulf
// CHECK:           arith.addf
// CHECK:         %[[Y:.*]] = linalg.generic {{.*}} ins(%[[S]] : tensor<2x16x128xf32>)
// CHECK:         return %[[Y]] : tensor<2x16x128xf32>
func.func @linear(%x: tensor<2x16x64xf32>, %w: tensor<128x64xf32>) -> tensor<2x16x128xf32> {
  %y = decoda.linear %x, %w : tensor<2x16x64xf32>, tensor<128x64xf32>
  return %y : tensor<2x16x128xf32>
}

// -----

// in_out weight [K, N] with a bias, bf16, dynamic leading dims: W read at (k, n); extf of x and
// W, f32 accumulation, bias added in f32, one truncf.
// CHECK-DAG: #[[$WIO:.*]] = affine_map<(d0, d1, d2, d3) -> (d3, d2)>
// CHECK-DAG: #[[$BIAS:.*]] = affine_map<(d0, d1, d2) -> (d2)>
// CHECK-LABEL: func.func @linear_in_out_bias_bf16(
// CHECK-SAME:    %[[X:[a-z0-9]+]]: tensor<?x?x64xbf16>, %[[W:[a-z0-9]+]]: tensor<64x32xbf16>, %[[B:[a-z0-9]+]]: tensor<32xbf16>) -> tensor<?x?x32xbf16>
// CHECK:         %[[S:.*]] = linalg.generic {indexing_maps = [#{{.*}}, #[[$WIO]], #{{.*}}], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
// CHECK-SAME:      ins(%[[X]], %[[W]] : tensor<?x?x64xbf16>, tensor<64x32xbf16>) outs(%{{.*}} : tensor<?x?x32xf32>)
// CHECK:           arith.extf %{{.*}} : bf16 to f32
// CHECK:           arith.extf %{{.*}} : bf16 to f32
// CHECK:         %[[Y:.*]] = linalg.generic {indexing_maps = [#{{.*}}, #[[$BIAS]], #{{.*}}], iterator_types = ["parallel", "parallel", "parallel"]}
// CHECK-SAME:      ins(%[[S]], %[[B]] : tensor<?x?x32xf32>, tensor<32xbf16>) outs(%{{.*}} : tensor<?x?x32xbf16>)
// CHECK:           arith.extf %{{.*}} : bf16 to f32
// CHECK:           arith.addf
// CHECK:           arith.truncf %{{.*}} : f32 to bf16
// CHECK:         return %[[Y]]
func.func @linear_in_out_bias_bf16(%x: tensor<?x?x64xbf16>, %w: tensor<64x32xbf16>, %b: tensor<32xbf16>) -> tensor<?x?x32xbf16> {
  %y = decoda.linear %x, %w, %b {weight_layout = #decoda.weight_layout<in_out>} : tensor<?x?x64xbf16>, tensor<64x32xbf16>, tensor<32xbf16>
  return %y : tensor<?x?x32xbf16>
}

// -----

// Per-head weight [H, N, K] (out_in) on [B, T, H, K] with bias [H, N]: the head is an iteration
// dim shared by the input, the weight and the bias.
// CHECK-DAG: #[[$PHX:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d4)>
// CHECK-DAG: #[[$PHW:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d2, d3, d4)>
// CHECK-DAG: #[[$PHB:.*]] = affine_map<(d0, d1, d2, d3) -> (d2, d3)>
// CHECK-LABEL: func.func @linear_per_head(
// CHECK-SAME:    %[[X:[a-z0-9]+]]: tensor<2x16x4x32xf32>, %[[W:[a-z0-9]+]]: tensor<4x64x32xf32>, %[[B:[a-z0-9]+]]: tensor<4x64xf32>)
// CHECK:         %[[S:.*]] = linalg.generic {indexing_maps = [#[[$PHX]], #[[$PHW]], #{{.*}}], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
// CHECK-SAME:      ins(%[[X]], %[[W]] : tensor<2x16x4x32xf32>, tensor<4x64x32xf32>) outs(%{{.*}} : tensor<2x16x4x64xf32>)
// CHECK:         linalg.generic {indexing_maps = [#{{.*}}, #[[$PHB]], #{{.*}}]{{.*}} ins(%[[S]], %[[B]] : tensor<2x16x4x64xf32>, tensor<4x64xf32>)
func.func @linear_per_head(%x: tensor<2x16x4x32xf32>, %w: tensor<4x64x32xf32>, %b: tensor<4x64xf32>) -> tensor<2x16x4x64xf32> {
  %y = decoda.linear %x, %w, %b : tensor<2x16x4x32xf32>, tensor<4x64x32xf32>, tensor<4x64xf32>
  return %y : tensor<2x16x4x64xf32>
}

// -----

// Per-head weight in in_out layout [H, K, N], f16, dynamic tokens.
// CHECK-DAG: #[[$PHWIO:.*]] = affine_map<(d0, d1, d2, d3) -> (d1, d3, d2)>
// CHECK-LABEL: func.func @linear_per_head_in_out(
// CHECK:         linalg.generic {indexing_maps = [#{{.*}}, #[[$PHWIO]], #{{.*}}], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
// CHECK-SAME:      outs(%{{.*}} : tensor<?x4x64xf32>)
// CHECK:         arith.truncf %{{.*}} : f32 to f16
func.func @linear_per_head_in_out(%x: tensor<?x4x32xf16>, %w: tensor<4x32x64xf16>) -> tensor<?x4x64xf16> {
  %y = decoda.linear %x, %w {weight_layout = #decoda.weight_layout<in_out>} : tensor<?x4x32xf16>, tensor<4x32x64xf16>
  return %y : tensor<?x4x64xf16>
}

// -----

// Embedding: a run-time check that every id is in [0, V) (a loop nest over the ids carrying the
// and-ed condition, scalar reads that GPU host code may make, and a cf.assert naming the op),
// then a gather that reads row clamp(id, 0, V - 1) with tensor.extract.
// CHECK-DAG: #[[$ROWS:.*]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-LABEL: func.func @embedding(
// CHECK-SAME:    %[[IDS:[a-z0-9]+]]: tensor<?x16xi64>, %[[T:[a-z0-9]+]]: tensor<1000x64xbf16>) -> tensor<?x16x64xbf16>
// CHECK-DAG:     %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG:     %[[C1:.*]] = arith.constant 1 : index
// CHECK-DAG:     %[[Z:.*]] = arith.constant 0 : i64
// CHECK-DAG:     %[[TRUE:.*]] = arith.constant true
// CHECK:         %[[V:.*]] = tensor.dim %[[T]], %[[C0]] : tensor<1000x64xbf16>
// CHECK:         %[[VI:.*]] = arith.index_cast %[[V]] : index to i64
// CHECK:         %[[B:.*]] = tensor.dim %[[IDS]], %[[C0]] : tensor<?x16xi64>
// CHECK:         %[[N:.*]] = tensor.dim %[[IDS]], %[[C1]] : tensor<?x16xi64>
// CHECK:         %[[OK:.*]] = scf.for %[[I:.*]] = %[[C0]] to %[[B]] step %[[C1]] iter_args(%[[A0:.*]] = %[[TRUE]]) -> (i1) {
// CHECK-NEXT:      %[[OK1:.*]] = scf.for %[[J:.*]] = %[[C0]] to %[[N]] step %[[C1]] iter_args(%[[A1:.*]] = %[[A0]]) -> (i1) {
// CHECK-NEXT:        %[[ID:.*]] = tensor.extract %[[IDS]][%[[I]], %[[J]]] : tensor<?x16xi64>
// CHECK-NEXT:        %[[GE:.*]] = arith.cmpi sge, %[[ID]], %[[Z]] : i64
// CHECK-NEXT:        %[[LT:.*]] = arith.cmpi slt, %[[ID]], %[[VI]] : i64
// CHECK-NEXT:        %[[IN:.*]] = arith.andi %[[GE]], %[[LT]] : i1
// CHECK-NEXT:        %[[ALLV:.*]] = arith.andi %[[A1]], %[[IN]] : i1
// CHECK-NEXT:        scf.yield %[[ALLV]] : i1
// CHECK:           scf.yield %[[OK1]] : i1
// CHECK:         cf.assert %[[OK]], "decoda.embedding: token id outside [0, V) of the embedding table"
// CHECK:         %[[LAST:.*]] = arith.subi %[[V]], %[[C1]] : index
// CHECK:         %[[E:.*]] = linalg.generic {indexing_maps = [#[[$ROWS]], #{{.*}}], iterator_types = ["parallel", "parallel", "parallel"]} ins(%[[IDS]] : tensor<?x16xi64>) outs(%{{.*}} : tensor<?x16x64xbf16>)
// CHECK-NEXT:    ^bb0(%[[ID:[a-z0-9_]+]]: i64, %{{[a-z0-9_]+}}: bf16):
// CHECK-NEXT:      %[[R:.*]] = arith.index_cast %[[ID]] : i64 to index
// CHECK-NEXT:      %[[R1:.*]] = arith.maxsi %[[R]], %[[C0]] : index
// CHECK-NEXT:      %[[R2:.*]] = arith.minsi %[[R1]], %[[LAST]] : index
// CHECK-NEXT:      %[[D:.*]] = linalg.index 2 : index
// CHECK-NEXT:      %[[VAL:.*]] = tensor.extract %[[T]][%[[R2]], %[[D]]] : tensor<1000x64xbf16>
// CHECK-NEXT:      linalg.yield %[[VAL]] : bf16
// CHECK:         return %[[E]]
func.func @embedding(%ids: tensor<?x16xi64>, %table: tensor<1000x64xbf16>) -> tensor<?x16x64xbf16> {
  %e = decoda.embedding %ids, %table : tensor<?x16xi64>, tensor<1000x64xbf16>
  return %e : tensor<?x16x64xbf16>
}

// -----

// i32 ids and a table with a dynamic vocabulary: V comes from tensor.dim at run time.
// CHECK-LABEL: func.func @embedding_i32_dynamic_vocab(
// CHECK-SAME:    %[[IDS:[a-z0-9]+]]: tensor<8xi32>, %[[T:[a-z0-9]+]]: tensor<?x32xf32>)
// CHECK:         %[[V:.*]] = tensor.dim %[[T]], %c0 : tensor<?x32xf32>
// CHECK:         arith.index_cast %[[V]] : index to i32
// CHECK:         scf.for {{.*}} -> (i1)
// CHECK:           tensor.extract %[[IDS]][%{{.*}}] : tensor<8xi32>
// CHECK:         cf.assert
// CHECK:         linalg.generic {{.*}} outs(%{{.*}} : tensor<8x32xf32>)
// CHECK:           arith.index_cast %{{.*}} : i32 to index
// CHECK:           tensor.extract %[[T]]
func.func @embedding_i32_dynamic_vocab(%ids: tensor<8xi32>, %table: tensor<?x32xf32>) -> tensor<8x32xf32> {
  %e = decoda.embedding %ids, %table : tensor<8xi32>, tensor<?x32xf32>
  return %e : tensor<8x32xf32>
}

// -----

// Plain MLP with biases, bf16, GELU (tanh): up contraction in f32; one generic adds b_up,
// applies the activation in f32 and rounds the hidden to bf16; then the down projection with
// b_down.
// CHECK-LABEL: func.func @mlp_bias_bf16(
// CHECK-SAME:    %[[X:[a-z0-9]+]]: tensor<2x16x64xbf16>, %[[WU:[a-z0-9]+]]: tensor<256x64xbf16>, %[[WD:[a-z0-9]+]]: tensor<64x256xbf16>, %[[BU:[a-z0-9]+]]: tensor<256xbf16>, %[[BD:[a-z0-9]+]]: tensor<64xbf16>)
// CHECK:         %[[UP:.*]] = linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "parallel", "reduction"]{{.*}} ins(%[[X]], %[[WU]] : {{.*}}) outs(%{{.*}} : tensor<2x16x256xf32>)
// CHECK:         %[[H:.*]] = linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "parallel"]{{.*}} ins(%[[UP]], %[[BU]] : tensor<2x16x256xf32>, tensor<256xbf16>) outs(%{{.*}} : tensor<2x16x256xbf16>)
// CHECK:           arith.addf
// CHECK:           math.tanh
// CHECK:           arith.truncf %{{.*}} : f32 to bf16
// CHECK:         %[[DN:.*]] = linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "parallel", "reduction"]{{.*}} ins(%[[H]], %[[WD]] : tensor<2x16x256xbf16>, tensor<64x256xbf16>) outs(%{{.*}} : tensor<2x16x64xf32>)
// CHECK:         %[[Y:.*]] = linalg.generic {{.*}} ins(%[[DN]], %[[BD]] : tensor<2x16x64xf32>, tensor<64xbf16>) outs(%{{.*}} : tensor<2x16x64xbf16>)
// CHECK:         return %[[Y]]
func.func @mlp_bias_bf16(%x: tensor<2x16x64xbf16>, %wu: tensor<256x64xbf16>, %wd: tensor<64x256xbf16>, %bu: tensor<256xbf16>, %bd: tensor<64xbf16>) -> tensor<2x16x64xbf16> {
  %y = decoda.mlp %x, %wu, %wd bias(%bu, %bd : tensor<256xbf16>, tensor<64xbf16>) {activation = #decoda.activation<gelu_tanh>} : tensor<2x16x64xbf16>, tensor<256x64xbf16>, tensor<64x256xbf16>
  return %y : tensor<2x16x64xbf16>
}

// -----

// Plain MLP without biases, in_out weights, ReLU, dynamic tokens.
// CHECK-DAG: #[[$MWIO:.*]] = affine_map<(d0, d1, d2) -> (d2, d1)>
// CHECK-LABEL: func.func @mlp_relu_in_out(
// CHECK:         linalg.generic {indexing_maps = [#{{.*}}, #[[$MWIO]], #{{.*}}]{{.*}} outs(%{{.*}} : tensor<?x128xf32>)
// CHECK:         linalg.generic {{.*}} outs(%{{.*}} : tensor<?x128xf32>)
// CHECK:           arith.maximumf
// CHECK:         linalg.generic {indexing_maps = [#{{.*}}, #[[$MWIO]], #{{.*}}]{{.*}} outs(%{{.*}} : tensor<?x32xf32>)
func.func @mlp_relu_in_out(%x: tensor<?x32xf32>, %wu: tensor<32x128xf32>, %wd: tensor<128x32xf32>) -> tensor<?x32xf32> {
  %y = decoda.mlp %x, %wu, %wd {activation = #decoda.activation<relu>, weight_layout = #decoda.weight_layout<in_out>} : tensor<?x32xf32>, tensor<32x128xf32>, tensor<128x32xf32>
  return %y : tensor<?x32xf32>
}

// -----

// Gated MLP, f16, in_out weights, bias triple: gate and up accumulators in f32, one generic
// adds both biases, evaluates the GLU in f32 and rounds to f16; then the down projection.
// CHECK-DAG: #[[$GX:.*]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-DAG: #[[$GW:.*]] = affine_map<(d0, d1, d2) -> (d2, d1)>
// CHECK-DAG: #[[$GO:.*]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-DAG: #[[$E2:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[$F2:.*]] = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @gated_mlp_in_out_bias_f16(
// CHECK-SAME:    %[[X:[a-z0-9]+]]: tensor<?x64xf16>, %[[WG:[a-z0-9]+]]: tensor<64x128xf16>, %[[WU:[a-z0-9]+]]: tensor<64x128xf16>, %[[WD:[a-z0-9]+]]: tensor<128x64xf16>, %[[BG:[a-z0-9]+]]: tensor<128xf16>, %[[BU:[a-z0-9]+]]: tensor<128xf16>, %[[BD:[a-z0-9]+]]: tensor<64xf16>)
// CHECK:         %[[G:.*]] = linalg.generic {indexing_maps = [#[[$GX]], #[[$GW]], #[[$GO]]], iterator_types = ["parallel", "parallel", "reduction"]} ins(%[[X]], %[[WG]] : tensor<?x64xf16>, tensor<64x128xf16>) outs(%{{.*}} : tensor<?x128xf32>)
// CHECK-NEXT:    ^bb0(%[[XV:[a-z0-9_]+]]: f16, %[[WV:[a-z0-9_]+]]: f16, %[[AV:[a-z0-9_]+]]: f32):
// CHECK-NEXT:      %[[XF:.*]] = arith.extf %[[XV]] : f16 to f32
// CHECK-NEXT:      %[[WF:.*]] = arith.extf %[[WV]] : f16 to f32
// CHECK-NEXT:      %[[P:.*]] = arith.mulf %[[XF]], %[[WF]] : f32
// CHECK-NEXT:      %[[S:.*]] = arith.addf %[[AV]], %[[P]] : f32
// CHECK-NEXT:      linalg.yield %[[S]] : f32
// CHECK:         %[[U:.*]] = linalg.generic {indexing_maps = [#[[$GX]], #[[$GW]], #[[$GO]]], iterator_types = ["parallel", "parallel", "reduction"]} ins(%[[X]], %[[WU]] : tensor<?x64xf16>, tensor<64x128xf16>) outs(%{{.*}} : tensor<?x128xf32>)
// CHECK:         %[[H:.*]] = linalg.generic {indexing_maps = [#[[$E2]], #[[$F2]], #[[$E2]], #[[$F2]], #[[$E2]]], iterator_types = ["parallel", "parallel"]}
// CHECK-SAME:      ins(%[[G]], %[[BG]], %[[U]], %[[BU]] : tensor<?x128xf32>, tensor<128xf16>, tensor<?x128xf32>, tensor<128xf16>) outs(%{{.*}} : tensor<?x128xf16>)
// CHECK-NEXT:    ^bb0(%[[GV:[a-z0-9_]+]]: f32, %[[BGV:[a-z0-9_]+]]: f16, %[[UV:[a-z0-9_]+]]: f32, %[[BUV:[a-z0-9_]+]]: f16, %{{[a-z0-9_]+}}: f16):
// CHECK-NEXT:      %[[BGF:.*]] = arith.extf %[[BGV]] : f16 to f32
// CHECK-NEXT:      %[[GB:.*]] = arith.addf %[[GV]], %[[BGF]] : f32
// CHECK-NEXT:      %[[BUF:.*]] = arith.extf %[[BUV]] : f16 to f32
// CHECK-NEXT:      %[[UB:.*]] = arith.addf %[[UV]], %[[BUF]] : f32
// CHECK:           %[[SILU:.*]] = arith.mulf %[[GB]], %{{.*}} : f32
// CHECK-NEXT:      %[[HV:.*]] = arith.mulf %[[SILU]], %[[UB]] : f32
// CHECK-NEXT:      %[[HT:.*]] = arith.truncf %[[HV]] : f32 to f16
// CHECK-NEXT:      linalg.yield %[[HT]] : f16
// CHECK:         %[[D:.*]] = linalg.generic {indexing_maps = [#[[$GX]], #[[$GW]], #[[$GO]]], iterator_types = ["parallel", "parallel", "reduction"]} ins(%[[H]], %[[WD]] : tensor<?x128xf16>, tensor<128x64xf16>) outs(%{{.*}} : tensor<?x64xf32>)
// CHECK:         %[[Y:.*]] = linalg.generic {{.*}} ins(%[[D]], %[[BD]] : tensor<?x64xf32>, tensor<64xf16>) outs(%{{.*}} : tensor<?x64xf16>)
// CHECK:         return %[[Y]]
func.func @gated_mlp_in_out_bias_f16(%x: tensor<?x64xf16>, %wg: tensor<64x128xf16>, %wu: tensor<64x128xf16>, %wd: tensor<128x64xf16>, %bg: tensor<128xf16>, %bu: tensor<128xf16>, %bd: tensor<64xf16>) -> tensor<?x64xf16> {
  %y = decoda.gated_mlp %x, %wg, %wu, %wd bias(%bg, %bu, %bd : tensor<128xf16>, tensor<128xf16>, tensor<64xf16>) {kind = #decoda.glu<swiglu>, weight_layout = #decoda.weight_layout<in_out>} : tensor<?x64xf16>, tensor<64x128xf16>, tensor<64x128xf16>, tensor<128x64xf16>
  return %y : tensor<?x64xf16>
}

// -----

// Gated MLP without biases, out_in, SiTU-GLU: no bias operands in the GLU generic.
// CHECK-LABEL: func.func @gated_mlp_situ(
// CHECK-SAME:    %[[X:[a-z0-9]+]]: tensor<2x16x64xf32>
// CHECK:         %[[G:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<2x16x256xf32>)
// CHECK:         %[[U:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<2x16x256xf32>)
// CHECK:         linalg.generic {{.*}} ins(%[[G]], %[[U]] : tensor<2x16x256xf32>, tensor<2x16x256xf32>) outs(%{{.*}} : tensor<2x16x256xf32>)
// CHECK:           math.tanh
// CHECK:           math.tanh
// CHECK:         linalg.generic {{.*}} outs(%{{.*}} : tensor<2x16x64xf32>)
func.func @gated_mlp_situ(%x: tensor<2x16x64xf32>, %wg: tensor<256x64xf32>, %wu: tensor<256x64xf32>, %wd: tensor<64x256xf32>) -> tensor<2x16x64xf32> {
  %y = decoda.gated_mlp %x, %wg, %wu, %wd {kind = #decoda.glu<situ, beta1 = 4.0, beta2 = 25.0>} : tensor<2x16x64xf32>, tensor<256x64xf32>, tensor<256x64xf32>, tensor<64x256xf32>
  return %y : tensor<2x16x64xf32>
}
