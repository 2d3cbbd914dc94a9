// RUN: decoda-opt %s --decoda-convert-to-linalg --split-input-file | FileCheck %s
// RUN: decoda-opt %s --decoda-convert-to-linalg --split-input-file | FileCheck %s --check-prefix=NODECODA

// Lowering of rope: inv_freq computed at compile time (with the scaling) as a dense f32
// constant; a cos/sin table generic over [T, r/2] ([B, T, r/2] for per-batch positions); then one
// generic over [B, T, H, D] that reads the pair partner and the table entry with tensor.extract.

// NODECODA-NOT: {{^[^"]*decoda\.}}

// Default: half_split, rotary_dim = D = 8, theta 10^4, positions = the token index.
// CHECK-DAG: #[[$FREQ:.*]] = affine_map<(d0, d1) -> (d1)>
// CHECK-DAG: #[[$TAB:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[$ID4:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
// CHECK-LABEL: func.func @rope_default(
// CHECK-SAME:    %[[X:[a-z0-9]+]]: tensor<2x16x4x8xf32>)
// CHECK-DAG:     %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG:     %[[C4:.*]] = arith.constant 4 : index
// CHECK-DAG:     %[[C8:.*]] = arith.constant 8 : index
// CHECK-DAG:     %[[FREQS:.*]] = arith.constant dense<[1.000000e+00, 1.000000e-01, 0.00999999977, 1.000000e-03]> : tensor<4xf32>
// CHECK:         %[[TABLE:.*]]:2 = linalg.generic {indexing_maps = [#[[$FREQ]], #[[$TAB]], #[[$TAB]]], iterator_types = ["parallel", "parallel"]}
// CHECK-SAME:      ins(%[[FREQS]] : tensor<4xf32>) outs(%{{.*}}, %{{.*}} : tensor<16x4xf32>, tensor<16x4xf32>)
// CHECK-NEXT:    ^bb0(%[[F:[a-z0-9_]+]]: f32, %{{[a-z0-9_]+}}: f32, %{{[a-z0-9_]+}}: f32):
// CHECK-NEXT:      %[[T:.*]] = linalg.index 0 : index
// CHECK-NEXT:      %[[TI:.*]] = arith.index_cast %[[T]] : index to i64
// CHECK-NEXT:      %[[P:.*]] = arith.sitofp %[[TI]] : i64 to f32
// CHECK-NEXT:      %[[ANG:.*]] = arith.mulf %[[P]], %[[F]] : f32
// CHECK-NEXT:      %[[COS:.*]] = math.cos %[[ANG]] : f32
// CHECK-NEXT:      %[[SIN:.*]] = math.sin %[[ANG]] : f32
// CHECK-NEXT:      linalg.yield %[[COS]], %[[SIN]] : f32, f32
// CHECK:         %[[Y:.*]] = linalg.generic {indexing_maps = [#[[$ID4]], #[[$ID4]]], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
// CHECK-SAME:      ins(%[[X]] : tensor<2x16x4x8xf32>)
// CHECK-NEXT:    ^bb0(%[[V:[a-z0-9_]+]]: f32, %{{[a-z0-9_]+}}: f32):
// CHECK-DAG:       %[[B:.*]] = linalg.index 0 : index
// CHECK-DAG:       %[[TT:.*]] = linalg.index 1 : index
// CHECK-DAG:       %[[H:.*]] = linalg.index 2 : index
// CHECK-DAG:       %[[D:.*]] = linalg.index 3 : index
// CHECK:           %[[INROT:.*]] = arith.cmpi ult, %[[D]], %[[C8]] : index
// CHECK:           %[[FIRST:.*]] = arith.cmpi ult, %[[D]], %[[C4]] : index
// CHECK:           %[[DM:.*]] = arith.subi %[[D]], %[[C4]] : index
// CHECK:           %[[K0:.*]] = arith.select %[[FIRST]], %[[D]], %[[DM]] : index
// CHECK:           %[[DP:.*]] = arith.addi %[[D]], %[[C4]] : index
// CHECK:           %[[PART0:.*]] = arith.select %[[FIRST]], %[[DP]], %[[DM]] : index
// CHECK:           %[[K:.*]] = arith.select %[[INROT]], %[[K0]], %[[C0]] : index
// CHECK:           %[[PART:.*]] = arith.select %[[INROT]], %[[PART0]], %[[D]] : index
// CHECK:           %[[CV:.*]] = tensor.extract %[[TABLE]]#0[%[[TT]], %[[K]]] : tensor<16x4xf32>
// CHECK:           %[[SV:.*]] = tensor.extract %[[TABLE]]#1[%[[TT]], %[[K]]] : tensor<16x4xf32>
// CHECK:           %[[PV:.*]] = tensor.extract %[[X]][%[[B]], %[[TT]], %[[H]], %[[PART]]] : tensor<2x16x4x8xf32>
// CHECK:           %[[NEG:.*]] = arith.negf %[[PV]] : f32
// CHECK:           %[[SGN:.*]] = arith.select %[[FIRST]], %[[NEG]], %[[PV]] : f32
// CHECK:           %[[VC:.*]] = arith.mulf %[[V]], %[[CV]] : f32
// CHECK:           %[[PS:.*]] = arith.mulf %[[SGN]], %[[SV]] : f32
// CHECK:           %[[ROT:.*]] = arith.addf %[[VC]], %[[PS]] : f32
// CHECK:           %[[OUT:.*]] = arith.select %[[INROT]], %[[ROT]], %[[V]] : f32
// CHECK:           linalg.yield %[[OUT]] : f32
// CHECK:         return %[[Y]]
func.func @rope_default(%q: tensor<2x16x4x8xf32>) -> tensor<2x16x4x8xf32> {
  %r = decoda.rope %q : tensor<2x16x4x8xf32>
  return %r : tensor<2x16x4x8xf32>
}

// -----

// Interleaved, partial (rotary_dim 8 of 64), bf16, [B, T] i64 positions, dynamic B and T: the
// table is per batch ([B, T, 4], positions read at (b, t)); pairs are (2k, 2k + 1): k = d >> 1,
// partner = d ^ 1, the even element takes -partner·sin; features d >= 8 pass through.
// CHECK-DAG: #[[$F3:.*]] = affine_map<(d0, d1, d2) -> (d2)>
// CHECK-DAG: #[[$P3:.*]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-DAG: #[[$T3:.*]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-LABEL: func.func @rope_interleaved_partial(
// CHECK-SAME:    %[[X:[a-z0-9]+]]: tensor<?x?x8x64xbf16>, %[[POS:[a-z0-9]+]]: tensor<?x?xi64>)
// CHECK-DAG:     %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG:     %[[C1:.*]] = arith.constant 1 : index
// CHECK-DAG:     %[[C8:.*]] = arith.constant 8 : index
// CHECK-DAG:     %[[FREQS:.*]] = arith.constant dense<[1.000000e+00, 1.000000e-01, 0.00999999977, 1.000000e-03]> : tensor<4xf32>
// CHECK-DAG:     %[[DB:.*]] = tensor.dim %[[X]], %[[C0]]
// CHECK-DAG:     %[[DT:.*]] = tensor.dim %[[X]], %[[C1]]
// CHECK:         tensor.empty(%[[DB]], %[[DT]]) : tensor<?x?x4xf32>
// CHECK:         %[[TABLE:.*]]:2 = linalg.generic {indexing_maps = [#[[$F3]], #[[$P3]], #[[$T3]], #[[$T3]]], iterator_types = ["parallel", "parallel", "parallel"]}
// CHECK-SAME:      ins(%[[FREQS]], %[[POS]] : tensor<4xf32>, tensor<?x?xi64>)
// CHECK-NEXT:    ^bb0(%[[F:[a-z0-9_]+]]: f32, %[[PI:[a-z0-9_]+]]: i64, %{{[a-z0-9_]+}}: f32, %{{[a-z0-9_]+}}: f32):
// CHECK-NEXT:      %[[P:.*]] = arith.sitofp %[[PI]] : i64 to f32
// CHECK-NEXT:      arith.mulf %[[P]], %[[F]] : f32
// CHECK:         linalg.generic {{.*}} ins(%[[X]] : tensor<?x?x8x64xbf16>) outs(%{{.*}} : tensor<?x?x8x64xbf16>)
// CHECK-NEXT:    ^bb0(%[[V:[a-z0-9_]+]]: bf16, %{{[a-z0-9_]+}}: bf16):
// CHECK-DAG:       %[[B:.*]] = linalg.index 0 : index
// CHECK-DAG:       %[[T:.*]] = linalg.index 1 : index
// CHECK-DAG:       %[[D:.*]] = linalg.index 3 : index
// CHECK:           %[[INROT:.*]] = arith.cmpi ult, %[[D]], %[[C8]] : index
// CHECK:           %[[PAR:.*]] = arith.andi %[[D]], %[[C1]] : index
// CHECK:           %[[EVEN:.*]] = arith.cmpi eq, %[[PAR]], %[[C0]] : index
// CHECK:           %[[K0:.*]] = arith.shrui %[[D]], %[[C1]] : index
// CHECK:           %[[PART0:.*]] = arith.xori %[[D]], %[[C1]] : index
// CHECK:           %[[K:.*]] = arith.select %[[INROT]], %[[K0]], %[[C0]] : index
// CHECK:           %[[PART:.*]] = arith.select %[[INROT]], %[[PART0]], %[[D]] : index
// CHECK:           tensor.extract %[[TABLE]]#0[%[[B]], %[[T]], %[[K]]] : tensor<?x?x4xf32>
// CHECK:           tensor.extract %[[TABLE]]#1[%[[B]], %[[T]], %[[K]]] : tensor<?x?x4xf32>
// CHECK:           %[[VF:.*]] = arith.extf %[[V]] : bf16 to f32
// CHECK:           %[[PV:.*]] = tensor.extract %[[X]][%[[B]], %[[T]], %{{.*}}, %[[PART]]] : tensor<?x?x8x64xbf16>
// CHECK:           %[[PF:.*]] = arith.extf %[[PV]] : bf16 to f32
// CHECK:           arith.select %[[EVEN]], %{{.*}}, %[[PF]] : f32
// CHECK:           %[[OUT:.*]] = arith.select %[[INROT]], %{{.*}}, %[[VF]] : f32
// CHECK:           %[[R:.*]] = arith.truncf %[[OUT]] : f32 to bf16
// CHECK:           linalg.yield %[[R]] : bf16
func.func @rope_interleaved_partial(%q: tensor<?x?x8x64xbf16>, %pos: tensor<?x?xi64>) -> tensor<?x?x8x64xbf16> {
  %r = decoda.rope %q positions(%pos : tensor<?x?xi64>) {theta = 10000.0 : f64, rotary_dim = 8 : i64, layout = #decoda.rope_layout<interleaved>} : tensor<?x?x8x64xbf16>
  return %r : tensor<?x?x8x64xbf16>
}

// -----

// [T] i32 positions (shared by the batch: the table is [T, r/2], positions read at (t)), linear
// scaling divides inv_freq by the factor.
// CHECK-DAG: #[[$PT:.*]] = affine_map<(d0, d1) -> (d0)>
// CHECK-LABEL: func.func @rope_positions_t_linear(
// CHECK-SAME:    %[[X:[a-z0-9]+]]: tensor<1x?x2x8xf16>, %[[POS:[a-z0-9]+]]: tensor<?xi32>)
// CHECK-DAG:     arith.constant dense<[5.000000e-01, 5.000000e-02, 5.000000e-03, 5.000000e-04]> : tensor<4xf32>
// CHECK:         linalg.generic {indexing_maps = [#{{.*}}, #[[$PT]], #{{.*}}, #{{.*}}], iterator_types = ["parallel", "parallel"]}
// CHECK-SAME:      ins(%{{.*}}, %[[POS]] : tensor<4xf32>, tensor<?xi32>) outs(%{{.*}}, %{{.*}} : tensor<?x4xf32>, tensor<?x4xf32>)
// CHECK:           arith.sitofp %{{.*}} : i32 to f32
// CHECK:         linalg.generic
// CHECK:           arith.extf %{{.*}} : f16 to f32
// CHECK:           arith.truncf %{{.*}} : f32 to f16
func.func @rope_positions_t_linear(%q: tensor<1x?x2x8xf16>, %pos: tensor<?xi32>) -> tensor<1x?x2x8xf16> {
  %r = decoda.rope %q positions(%pos : tensor<?xi32>) {scaling = #decoda.rope_scaling<linear, factor = 2.0>} : tensor<1x?x2x8xf16>
  return %r : tensor<1x?x2x8xf16>
}

// -----

// YaRN: the blended inv_freq (as the Hugging Face definition) and cos/sin scaled by the attention
// factor 0.1 ln 4 + 1.
// CHECK-LABEL: func.func @rope_yarn(
// CHECK-DAG:     %[[AF:.*]] = arith.constant 1.13862944 : f32
// CHECK-DAG:     arith.constant dense<[1.000000e+00, 0.23717083, 5.000000e-02, 0.00790569372, 2.500000e-03, 7.90569407E-4, 2.500000e-04, 7.90569392E-5]> : tensor<8xf32>
// CHECK:         linalg.generic
// CHECK:           %[[COS:.*]] = math.cos
// CHECK:           %[[SIN:.*]] = math.sin
// CHECK:           %[[C:.*]] = arith.mulf %[[COS]], %[[AF]] : f32
// CHECK:           %[[S:.*]] = arith.mulf %[[SIN]], %[[AF]] : f32
// CHECK:           linalg.yield %[[C]], %[[S]] : f32, f32
func.func @rope_yarn(%q: tensor<1x4x2x16xf16>) -> tensor<1x4x2x16xf16> {
  %r = decoda.rope %q {theta = 10000.0 : f64, scaling = #decoda.rope_scaling<yarn, factor = 4.0, original_max_position = 64>} : tensor<1x4x2x16xf16>
  return %r : tensor<1x4x2x16xf16>
}

// -----

// Llama 3 scaling (theta 5·10^5): long wavelengths divided by the factor, short ones kept, a
// smooth blend in between; no attention factor.
// CHECK-LABEL: func.func @rope_llama3(
// CHECK:         arith.constant dense<[1.000000e+00, 0.0794030055, 0.00470075384, 9.11583076E-4, 1.76776695E-4, 3.42810235E-5, 6.64786967E-6, 1.28917316E-6]> : tensor<8xf32>
// CHECK:         linalg.generic
// CHECK:           math.cos
// CHECK:           math.sin
// CHECK-NEXT:      linalg.yield
func.func @rope_llama3(%q: tensor<1x?x2x16xf32>, %pos: tensor<?xi32>) -> tensor<1x?x2x16xf32> {
  %r = decoda.rope %q positions(%pos : tensor<?xi32>) {theta = 500000.0 : f64, scaling = #decoda.rope_scaling<llama3, factor = 8.0, original_max_position = 64, low_freq_factor = 1.0, high_freq_factor = 4.0>} : tensor<1x?x2x16xf32>
  return %r : tensor<1x?x2x16xf32>
}
