// RUN: decoda-opt %s --decoda-convert-to-linalg --split-input-file | FileCheck %s
// RUN: decoda-opt %s --decoda-convert-to-linalg --split-input-file | FileCheck %s --check-prefix=NODECODA

// Lowering of quantize, dequantize and qlinear. Scales broadcast by their indexing maps (a static
// 1 reads index 0); a dynamic extent that may be 1 is read with tensor.extract at
// `size == 1 ? 0 : i`. qlinear: an i32 contraction generic (extsi, zero-point subtraction), then
// an f32 epilogue generic (scales, bias, rounding or requantisation).

// NODECODA-NOT: {{^[^"]*decoda\.}}

// Per-token scale [2, 16, 1] (read at (d0, d1, 0)) with a zero point; f32 input.
// q = clamp(roundeven(x / s) + zp, -128, 127), the clamp with maxnumf/minnumf, then fptosi.
// CHECK-DAG: #[[$ID:.*]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-DAG: #[[$TOK:.*]] = affine_map<(d0, d1, d2) -> (d0, d1, 0)>
// CHECK-LABEL: func.func @quantize_per_token_zp(
// CHECK-SAME:    %[[X:[a-z0-9]+]]: tensor<2x16x64xf32>, %[[S:[a-z0-9]+]]: tensor<2x16x1xf32>, %[[Z:[a-z0-9]+]]: tensor<2x16x1xi8>) -> tensor<2x16x64xi8>
// CHECK-DAG:     %[[LO:.*]] = arith.constant -1.280000e+02 : f32
// CHECK-DAG:     %[[HI:.*]] = arith.constant 1.270000e+02 : f32
// CHECK:         %[[E:.*]] = tensor.empty() : tensor<2x16x64xi8>
// CHECK:         %[[Q:.*]] = linalg.generic {indexing_maps = [#[[$ID]], #[[$TOK]], #[[$TOK]], #[[$ID]]], iterator_types = ["parallel", "parallel", "parallel"]}
// CHECK-SAME:      ins(%[[X]], %[[S]], %[[Z]] : tensor<2x16x64xf32>, tensor<2x16x1xf32>, tensor<2x16x1xi8>) outs(%[[E]] : tensor<2x16x64xi8>)
// CHECK-NEXT:    ^bb0(%[[XV:[a-z0-9_]+]]: f32, %[[SV:[a-z0-9_]+]]: f32, %[[ZV:[a-z0-9_]+]]: i8, %{{[a-z0-9_]+}}: i8):
// CHECK-NEXT:      %[[D:.*]] = arith.divf %[[XV]], %[[SV]] : f32
// CHECK-NEXT:      %[[R:.*]] = math.roundeven %[[D]] : f32
// CHECK-NEXT:      %[[ZF:.*]] = arith.sitofp %[[ZV]] : i8 to f32
// CHECK-NEXT:      %[[A:.*]] = arith.addf %[[R]], %[[ZF]] : f32
// CHECK-NEXT:      %[[C1:.*]] = arith.maxnumf %[[A]], %[[LO]] : f32
// CHECK-NEXT:      %[[C2:.*]] = arith.minnumf %[[C1]], %[[HI]] : f32
// CHECK-NEXT:      %[[I:.*]] = arith.fptosi %[[C2]] : f32 to i8
// CHECK-NEXT:      linalg.yield %[[I]] : i8
// CHECK:         return %[[Q]]
func.func @quantize_per_token_zp(%x: tensor<2x16x64xf32>, %s: tensor<2x16x1xf32>, %zp: tensor<2x16x1xi8>) -> tensor<2x16x64xi8> {
  %q = decoda.quantize %x, %s zero_point(%zp : tensor<2x16x1xi8>) : tensor<2x16x64xf32>, tensor<2x16x1xf32>
  return %q : tensor<2x16x64xi8>
}

// -----

// Per-tensor scale (rank 0, read through the map () ), bf16 input extended to f32; no zero point.
// CHECK-DAG: #[[$SCALAR:.*]] = affine_map<(d0, d1) -> ()>
// CHECK-LABEL: func.func @quantize_per_tensor_bf16(
// CHECK-SAME:    %[[X:[a-z0-9]+]]: tensor<8x64xbf16>, %[[S:[a-z0-9]+]]: tensor<f32>)
// CHECK:         linalg.generic {indexing_maps = [#{{.*}}, #[[$SCALAR]], #{{.*}}]{{.*}} ins(%[[X]], %[[S]] : tensor<8x64xbf16>, tensor<f32>)
// CHECK-NEXT:    ^bb0(%[[XV:[a-z0-9_]+]]: bf16, %[[SV:[a-z0-9_]+]]: f32, %{{[a-z0-9_]+}}: i8):
// CHECK-NEXT:      %[[XF:.*]] = arith.extf %[[XV]] : bf16 to f32
// CHECK-NEXT:      %[[D:.*]] = arith.divf %[[XF]], %[[SV]] : f32
// CHECK-NEXT:      %[[R:.*]] = math.roundeven %[[D]] : f32
// CHECK-NEXT:      arith.maxnumf %[[R]]
// CHECK-NOT:       arith.sitofp
// CHECK:           arith.fptosi
func.func @quantize_per_tensor_bf16(%x: tensor<8x64xbf16>, %s: tensor<f32>) -> tensor<8x64xi8> {
  %q = decoda.quantize %x, %s : tensor<8x64xbf16>, tensor<f32>
  return %q : tensor<8x64xi8>
}

// -----

// A dynamic scale extent against a dynamic data extent may be 1 at run time (NumPy
// broadcasting): the scale and the zero point are read with tensor.extract at (d0 or 0, 0).
// CHECK-LABEL: func.func @quantize_dynamic_broadcast(
// CHECK-SAME:    %[[X:[a-z0-9]+]]: tensor<?x64xf16>, %[[S:[a-z0-9]+]]: tensor<?x1xf32>, %[[Z:[a-z0-9]+]]: tensor<?x1xi8>)
// CHECK-DAG:     %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG:     %[[C1:.*]] = arith.constant 1 : index
// CHECK:         %[[SD:.*]] = tensor.dim %[[S]], %[[C0]] : tensor<?x1xf32>
// CHECK:         %[[SONE:.*]] = arith.cmpi eq, %[[SD]], %[[C1]] : index
// CHECK:         %[[ZD:.*]] = tensor.dim %[[Z]], %[[C0]] : tensor<?x1xi8>
// CHECK:         %[[ZONE:.*]] = arith.cmpi eq, %[[ZD]], %[[C1]] : index
// CHECK:         linalg.generic {{.*}} ins(%[[X]] : tensor<?x64xf16>) outs(%{{.*}} : tensor<?x64xi8>)
// CHECK:           %[[I0:.*]] = linalg.index 0 : index
// CHECK:           %[[SI:.*]] = arith.select %[[SONE]], %[[C0]], %[[I0]] : index
// CHECK:           tensor.extract %[[S]][%[[SI]], %[[C0]]] : tensor<?x1xf32>
// CHECK:           arith.extf %{{.*}} : f16 to f32
// CHECK:           %[[ZI:.*]] = arith.select %[[ZONE]], %[[C0]], %{{.*}} : index
// CHECK:           tensor.extract %[[Z]][%[[ZI]], %[[C0]]] : tensor<?x1xi8>
func.func @quantize_dynamic_broadcast(%x: tensor<?x64xf16>, %s: tensor<?x1xf32>, %zp: tensor<?x1xi8>) -> tensor<?x64xi8> {
  %q = decoda.quantize %x, %s zero_point(%zp : tensor<?x1xi8>) : tensor<?x64xf16>, tensor<?x1xf32>
  return %q : tensor<?x64xi8>
}

// -----

// Per-channel dequantisation to f32: (q - 0) * s with s read at (d0, 0).
// CHECK-DAG: #[[$CH:.*]] = affine_map<(d0, d1) -> (d0, 0)>
// CHECK-LABEL: func.func @dequantize_per_channel(
// CHECK-SAME:    %[[Q:[a-z0-9]+]]: tensor<128x64xi8>, %[[S:[a-z0-9]+]]: tensor<128x1xf32>)
// CHECK:         %[[W:.*]] = linalg.generic {indexing_maps = [#{{.*}}, #[[$CH]], #{{.*}}]{{.*}} ins(%[[Q]], %[[S]] : tensor<128x64xi8>, tensor<128x1xf32>) outs(%{{.*}} : tensor<128x64xf32>)
// CHECK-NEXT:    ^bb0(%[[QV:[a-z0-9_]+]]: i8, %[[SV:[a-z0-9_]+]]: f32, %{{[a-z0-9_]+}}: f32):
// CHECK-NEXT:      %[[QF:.*]] = arith.sitofp %[[QV]] : i8 to f32
// CHECK-NEXT:      %[[V:.*]] = arith.mulf %[[QF]], %[[SV]] : f32
// CHECK-NEXT:      linalg.yield %[[V]] : f32
// CHECK:         return %[[W]]
func.func @dequantize_per_channel(%q: tensor<128x64xi8>, %s: tensor<128x1xf32>) -> tensor<128x64xf32> {
  %w = decoda.dequantize %q, %s : tensor<128x64xi8>, tensor<128x1xf32> -> tensor<128x64xf32>
  return %w : tensor<128x64xf32>
}

// -----

// Per-tensor scale and zero point, rounded to f16.
// CHECK-LABEL: func.func @dequantize_zp_f16(
// CHECK:         linalg.generic {{.*}} outs(%{{.*}} : tensor<?x64xf16>)
// CHECK-NEXT:    ^bb0(%[[QV:[a-z0-9_]+]]: i8, %[[SV:[a-z0-9_]+]]: f32, %[[ZV:[a-z0-9_]+]]: i8, %{{[a-z0-9_]+}}: f16):
// CHECK-NEXT:      %[[QF:.*]] = arith.sitofp %[[QV]] : i8 to f32
// CHECK-NEXT:      %[[ZF:.*]] = arith.sitofp %[[ZV]] : i8 to f32
// CHECK-NEXT:      %[[C:.*]] = arith.subf %[[QF]], %[[ZF]] : f32
// CHECK-NEXT:      %[[V:.*]] = arith.mulf %[[C]], %[[SV]] : f32
// CHECK-NEXT:      %[[T:.*]] = arith.truncf %[[V]] : f32 to f16
// CHECK-NEXT:      linalg.yield %[[T]] : f16
func.func @dequantize_zp_f16(%q: tensor<?x64xi8>, %s: tensor<f32>, %zp: tensor<i8>) -> tensor<?x64xf16> {
  %h = decoda.dequantize %q, %s zero_point(%zp : tensor<i8>) : tensor<?x64xi8>, tensor<f32> -> tensor<?x64xf16>
  return %h : tensor<?x64xf16>
}

// -----

// qlinear, per-tensor x_scale, per-channel w_scale, f32 result: i8 x i8 -> i32 accumulation with
// extsi, then acc * x_scale * w_scale[n].
// CHECK-DAG: #[[$QX:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>
// CHECK-DAG: #[[$QW:.*]] = affine_map<(d0, d1, d2, d3) -> (d2, d3)>
// CHECK-DAG: #[[$QO:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
// CHECK-DAG: #[[$E3:.*]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-DAG: #[[$S3:.*]] = affine_map<(d0, d1, d2) -> ()>
// CHECK-DAG: #[[$N3:.*]] = affine_map<(d0, d1, d2) -> (d2)>
// CHECK-LABEL: func.func @qlinear(
// CHECK-SAME:    %[[X:[a-z0-9]+]]: tensor<2x16x64xi8>, %[[W:[a-z0-9]+]]: tensor<128x64xi8>, %[[XS:[a-z0-9]+]]: tensor<f32>, %[[WS:[a-z0-9]+]]: tensor<128xf32>)
// CHECK-DAG:     %[[ZERO:.*]] = arith.constant 0 : i32
// CHECK:         %[[INIT:.*]] = linalg.fill ins(%[[ZERO]] : i32) outs(%{{.*}} : tensor<2x16x128xi32>)
// CHECK:         %[[ACC:.*]] = linalg.generic {indexing_maps = [#[[$QX]], #[[$QW]], #[[$QO]]], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
// CHECK-SAME:      ins(%[[X]], %[[W]] : tensor<2x16x64xi8>, tensor<128x64xi8>) outs(%[[INIT]] : tensor<2x16x128xi32>) attrs =  {decoda.qlinear_acc}
// CHECK-NEXT:    ^bb0(%[[XV:[a-z0-9_]+]]: i8, %[[WV:[a-z0-9_]+]]: i8, %[[AV:[a-z0-9_]+]]: i32):
// CHECK-NEXT:      %[[XI:.*]] = arith.extsi %[[XV]] : i8 to i32
// CHECK-NEXT:      %[[WI:.*]] = arith.extsi %[[WV]] : i8 to i32
// CHECK-NEXT:      %[[P:.*]] = arith.muli %[[XI]], %[[WI]] : i32
// CHECK-NEXT:      %[[S:.*]] = arith.addi %[[AV]], %[[P]] : i32
// CHECK-NEXT:      linalg.yield %[[S]] : i32
// CHECK:         %[[Y:.*]] = linalg.generic {indexing_maps = [#[[$E3]], #[[$S3]], #[[$N3]], #[[$E3]]], iterator_types = ["parallel", "parallel", "parallel"]}
// CHECK-SAME:      ins(%[[ACC]], %[[XS]], %[[WS]] : tensor<2x16x128xi32>, tensor<f32>, tensor<128xf32>) outs(%{{.*}} : tensor<2x16x128xf32>)
// CHECK-NEXT:    ^bb0(%[[A:[a-z0-9_]+]]: i32, %[[XSV:[a-z0-9_]+]]: f32, %[[WSV:[a-z0-9_]+]]: f32, %{{[a-z0-9_]+}}: f32):
// CHECK-NEXT:      %[[AF:.*]] = arith.sitofp %[[A]] : i32 to f32
// CHECK-NEXT:      %[[M1:.*]] = arith.mulf %[[AF]], %[[XSV]] : f32
// CHECK-NEXT:      %[[M2:.*]] = arith.mulf %[[M1]], %[[WSV]] : f32
// CHECK-NEXT:      linalg.yield %[[M2]] : f32
// CHECK:         return %[[Y]]
func.func @qlinear(%xq: tensor<2x16x64xi8>, %wq: tensor<128x64xi8>, %xs: tensor<f32>, %ws: tensor<128xf32>) -> tensor<2x16x128xf32> {
  %y = decoda.qlinear %xq, %wq, %xs, %ws : tensor<2x16x64xi8>, tensor<128x64xi8>, tensor<f32>, tensor<128xf32> -> tensor<2x16x128xf32>
  return %y : tensor<2x16x128xf32>
}

// -----

// Per-token x_scale and x_zero_point ([B, T, 1], read at (d0, d1, 0)), per-tensor w_scale, a bf16
// bias and requantisation to i8 with out_scale; dynamic batch.
// CHECK-DAG: #[[$ZP4:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, 0)>
// CHECK-DAG: #[[$TOK3:.*]] = affine_map<(d0, d1, d2) -> (d0, d1, 0)>
// CHECK-DAG: #[[$SC3:.*]] = affine_map<(d0, d1, d2) -> ()>
// CHECK-DAG: #[[$B3:.*]] = affine_map<(d0, d1, d2) -> (d2)>
// CHECK-LABEL: func.func @qlinear_all(
// CHECK-SAME:    %[[X:[a-z0-9]+]]: tensor<?x16x64xi8>, %[[W:[a-z0-9]+]]: tensor<128x64xi8>, %[[XS:[a-z0-9]+]]: tensor<?x16x1xf32>, %[[WS:[a-z0-9]+]]: tensor<f32>, %[[XZP:[a-z0-9]+]]: tensor<?x16x1xi8>, %[[B:[a-z0-9]+]]: tensor<128xbf16>, %[[OS:[a-z0-9]+]]: tensor<f32>)
// CHECK:         %[[ACC:.*]] = linalg.generic {indexing_maps = [#{{.*}}, #{{.*}}, #[[$ZP4]], #{{.*}}], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
// CHECK-SAME:      ins(%[[X]], %[[W]], %[[XZP]] : tensor<?x16x64xi8>, tensor<128x64xi8>, tensor<?x16x1xi8>) outs(%{{.*}} : tensor<?x16x128xi32>)
// CHECK-NEXT:    ^bb0(%[[XV:[a-z0-9_]+]]: i8, %[[WV:[a-z0-9_]+]]: i8, %[[ZV:[a-z0-9_]+]]: i8, %{{[a-z0-9_]+}}: i32):
// CHECK-NEXT:      %[[XI:.*]] = arith.extsi %[[XV]] : i8 to i32
// CHECK-NEXT:      %[[ZI:.*]] = arith.extsi %[[ZV]] : i8 to i32
// CHECK-NEXT:      %[[XC:.*]] = arith.subi %[[XI]], %[[ZI]] : i32
// CHECK-NEXT:      %[[WI:.*]] = arith.extsi %[[WV]] : i8 to i32
// CHECK-NEXT:      arith.muli %[[XC]], %[[WI]] : i32
// CHECK:         linalg.generic {indexing_maps = [#{{.*}}, #[[$TOK3]], #[[$SC3]], #[[$B3]], #[[$SC3]], #{{.*}}], iterator_types = ["parallel", "parallel", "parallel"]}
// CHECK-SAME:      ins(%[[ACC]], %[[XS]], %[[WS]], %[[B]], %[[OS]] : tensor<?x16x128xi32>, tensor<?x16x1xf32>, tensor<f32>, tensor<128xbf16>, tensor<f32>) outs(%{{.*}} : tensor<?x16x128xi8>)
// CHECK:           arith.sitofp %{{.*}} : i32 to f32
// CHECK:           arith.mulf
// CHECK:           arith.mulf
// CHECK:           arith.extf %{{.*}} : bf16 to f32
// CHECK:           arith.addf
// CHECK:           arith.divf
// CHECK:           math.roundeven
// CHECK:           arith.maxnumf
// CHECK:           arith.minnumf
// CHECK:           arith.fptosi %{{.*}} : f32 to i8
func.func @qlinear_all(%xq: tensor<?x16x64xi8>, %wq: tensor<128x64xi8>, %xs: tensor<?x16x1xf32>, %ws: tensor<f32>, %xzp: tensor<?x16x1xi8>, %b: tensor<128xbf16>, %os: tensor<f32>) -> tensor<?x16x128xi8> {
  %y = decoda.qlinear %xq, %wq, %xs, %ws x_zero_point(%xzp : tensor<?x16x1xi8>) bias(%b : tensor<128xbf16>) requantize(%os : tensor<f32>) : tensor<?x16x64xi8>, tensor<128x64xi8>, tensor<?x16x1xf32>, tensor<f32> -> tensor<?x16x128xi8>
  return %y : tensor<?x16x128xi8>
}

// -----

// A float bias with an f16 result: the epilogue ends in truncf.
// CHECK-LABEL: func.func @qlinear_bias_f16(
// CHECK:         linalg.generic {{.*}} outs(%{{.*}} : tensor<4x32xi32>)
// CHECK:         linalg.generic {{.*}} outs(%{{.*}} : tensor<4x32xf16>)
// CHECK:           arith.extf %{{.*}} : f16 to f32
// CHECK:           arith.addf
// CHECK-NEXT:      arith.truncf %{{.*}} : f32 to f16
func.func @qlinear_bias_f16(%xq: tensor<4x64xi8>, %wq: tensor<32x64xi8>, %xs: tensor<4x1xf32>, %ws: tensor<32xf32>, %b: tensor<32xf16>) -> tensor<4x32xf16> {
  %y = decoda.qlinear %xq, %wq, %xs, %ws bias(%b : tensor<32xf16>) : tensor<4x64xi8>, tensor<32x64xi8>, tensor<4x1xf32>, tensor<32xf32> -> tensor<4x32xf16>
  return %y : tensor<4x32xf16>
}

// -----

// dequantize_blocks: one generic over w [N, K] tagged decoda.dequantize_blocks; code k read from
// byte k floordiv 2 (4 bits) and shifted by (k mod 2) * 4 (linalg.index), the block's scale and
// zero point at (n, k floordiv 32); (code - zp) * scale in f32, rounded once to f16.
// CHECK-DAG: #[[$CODES:.*]] = affine_map<(d0, d1) -> (d0, d1 floordiv 2)>
// CHECK-DAG: #[[$BLOCKS:.*]] = affine_map<(d0, d1) -> (d0, d1 floordiv 32)>
// CHECK-DAG: #[[$W:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @dequantize_blocks_4bit(
// CHECK:         linalg.generic {indexing_maps = [#[[$CODES]], #[[$BLOCKS]], #[[$BLOCKS]], #[[$W]]], iterator_types = ["parallel", "parallel"]}
// CHECK-SAME:        ins(%{{.*}}, %{{.*}}, %{{.*}} : tensor<8x32xi8>, tensor<8x2xf16>, tensor<8x2xf16>) outs(%{{.*}} : tensor<8x64xf16>)
// CHECK-SAME:        attrs = {decoda.dequantize_blocks = {bits = 4 : i64, block_size = 32 : i64}}
// CHECK:         ^bb0(%[[B:.*]]: i8, %[[S:.*]]: f16, %[[Z:.*]]: f16, %{{.*}}: f16):
// CHECK:           %[[E:.*]] = arith.extui %[[B]] : i8 to i32
// CHECK:           %[[K:.*]] = linalg.index 1 : index
// CHECK:           %[[KI:.*]] = arith.index_castui %[[K]] : index to i32
// CHECK:           %[[R:.*]] = arith.remui %[[KI]], %{{.*}} : i32
// CHECK:           %[[SH:.*]] = arith.muli %[[R]], %{{.*}} : i32
// CHECK:           %[[X:.*]] = arith.shrui %[[E]], %[[SH]] : i32
// CHECK:           %[[C:.*]] = arith.andi %[[X]], %{{.*}} : i32
// CHECK:           %[[CF:.*]] = arith.uitofp %[[C]] : i32 to f32
// CHECK:           %[[ZF:.*]] = arith.extf %[[Z]] : f16 to f32
// CHECK:           %[[SF:.*]] = arith.extf %[[S]] : f16 to f32
// CHECK:           %[[D:.*]] = arith.subf %[[CF]], %[[ZF]] : f32
// CHECK:           %[[V:.*]] = arith.mulf %[[D]], %[[SF]] : f32
// CHECK:           %[[H:.*]] = arith.truncf %[[V]] : f32 to f16
// CHECK:           linalg.yield %[[H]] : f16
func.func @dequantize_blocks_4bit(%c: tensor<8x32xi8>, %s: tensor<8x2xf16>, %z: tensor<8x2xf16>) -> tensor<8x64xf16> {
  %w = decoda.dequantize_blocks %c, %s zero_points(%z : tensor<8x2xf16>) {bits = 4 : i64, block_size = 32 : i64} : tensor<8x32xi8>, tensor<8x2xf16> -> tensor<8x64xf16>
  return %w : tensor<8x64xf16>
}

// -----

// 8 bits: the byte is the code (no shift, no mask); the default zero point 128; f32, no rounding.
// CHECK-LABEL: func.func @dequantize_blocks_8bit(
// CHECK:         ^bb0(%[[B:.*]]: i8, %[[S:.*]]: f32, %{{.*}}: f32):
// CHECK:           %[[E:.*]] = arith.extui %[[B]] : i8 to i32
// CHECK-NOT:       arith.shrui
// CHECK:           %[[CF:.*]] = arith.uitofp %[[E]] : i32 to f32
// CHECK:           %[[D:.*]] = arith.subf %[[CF]], %{{.*}} : f32
// CHECK:           %[[V:.*]] = arith.mulf %[[D]], %[[S]] : f32
// CHECK-NEXT:      linalg.yield %[[V]] : f32
func.func @dequantize_blocks_8bit(%c: tensor<4x16xi8>, %s: tensor<4x1xf32>) -> tensor<4x16xf32> {
  %w = decoda.dequantize_blocks %c, %s {bits = 8 : i64, block_size = 16 : i64} : tensor<4x16xi8>, tensor<4x1xf32> -> tensor<4x16xf32>
  return %w : tensor<4x16xf32>
}
