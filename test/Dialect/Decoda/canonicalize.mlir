// RUN: decoda-opt %s -canonicalize -split-input-file | FileCheck %s

// Folders and canonicalization patterns of the decoda dialect, each with the cases where it
// must not fire.

//===----------------------------------------------------------------------===//
// SoftcapOp::fold
//===----------------------------------------------------------------------===//

// cap = +inf is the identity.
// CHECK-LABEL: func.func @softcap_inf_folds(
// CHECK-SAME:    %[[X:[a-z0-9]+]]: tensor<2x16x64xf32>)
// CHECK-NOT:     decoda.softcap
// CHECK:         return %[[X]] : tensor<2x16x64xf32>
func.func @softcap_inf_folds(%x: tensor<2x16x64xf32>) -> tensor<2x16x64xf32> {
  %y = decoda.softcap %x {cap = 0x7FF0000000000000 : f64} : tensor<2x16x64xf32>
  return %y : tensor<2x16x64xf32>
}

// -----

// A finite cap stays, however large.
// CHECK-LABEL: func.func @softcap_finite_stays(
// CHECK-SAME:    %[[X:[a-z0-9]+]]: tensor<2x16x64xbf16>)
// CHECK:         %[[Y:.+]] = decoda.softcap %[[X]] {cap = 1.000000e+30 : f64} : tensor<2x16x64xbf16>
// CHECK:         return %[[Y]]
func.func @softcap_finite_stays(%x: tensor<2x16x64xbf16>) -> tensor<2x16x64xbf16> {
  %y = decoda.softcap %x {cap = 1.0e+30 : f64} : tensor<2x16x64xbf16>
  return %y : tensor<2x16x64xbf16>
}

// -----

// Folds inside a hyper-connection body too.
// CHECK-LABEL: func.func @softcap_inf_folds_in_body(
// CHECK:         decoda.hyper_connection
// CHECK-NEXT:    ^bb0(%[[H:.+]]: tensor<2x64xf32>):
// CHECK-NEXT:      decoda.yield %[[H]] : tensor<2x64xf32>
func.func @softcap_inf_folds_in_body(%x: tensor<2x4x64xf32>, %a: tensor<4xf32>, %b: tensor<4x4xf32>) -> tensor<2x4x64xf32> {
  %y = decoda.hyper_connection %x, %a, %b, %a : tensor<2x4x64xf32>, tensor<4xf32>, tensor<4x4xf32>, tensor<4xf32> {
  ^bb0(%h: tensor<2x64xf32>):
    %f = decoda.softcap %h {cap = 0x7FF0000000000000 : f64} : tensor<2x64xf32>
    decoda.yield %f : tensor<2x64xf32>
  }
  return %y : tensor<2x4x64xf32>
}

// -----

//===----------------------------------------------------------------------===//
// ResidualAddOp::fold
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @residual_add_zero_branch_folds(
// CHECK-SAME:    %[[X:[a-z0-9]+]]: tensor<2x16x64xf32>)
// CHECK-NOT:     decoda.residual_add
// CHECK:         return %[[X]] : tensor<2x16x64xf32>
func.func @residual_add_zero_branch_folds(%x: tensor<2x16x64xf32>) -> tensor<2x16x64xf32> {
  %zero = arith.constant dense<0.0> : tensor<2x16x64xf32>
  %y = decoda.residual_add %x, %zero : tensor<2x16x64xf32>
  return %y : tensor<2x16x64xf32>
}

// -----

// A scaled zero branch is still zero; -0.0 counts as zero.
// CHECK-LABEL: func.func @residual_add_scaled_negative_zero_folds(
// CHECK-SAME:    %[[X:[a-z0-9]+]]: tensor<4x64xbf16>)
// CHECK-NOT:     decoda.residual_add
// CHECK:         return %[[X]] : tensor<4x64xbf16>
func.func @residual_add_scaled_negative_zero_folds(%x: tensor<4x64xbf16>) -> tensor<4x64xbf16> {
  %zero = arith.constant dense<-0.0> : tensor<4x64xbf16>
  %y = decoda.residual_add %x, %zero {scale = 2.5 : f64} : tensor<4x64xbf16>
  return %y : tensor<4x64xbf16>
}

// -----

// CHECK-LABEL: func.func @residual_add_nonzero_constant_stays(
// CHECK-SAME:    %[[X:[a-z0-9]+]]: tensor<2x16x64xf32>)
// CHECK:         %[[C:.+]] = arith.constant dense<1.000000e+00> : tensor<2x16x64xf32>
// CHECK:         %[[Y:.+]] = decoda.residual_add %[[X]], %[[C]] : tensor<2x16x64xf32>
// CHECK:         return %[[Y]]
func.func @residual_add_nonzero_constant_stays(%x: tensor<2x16x64xf32>) -> tensor<2x16x64xf32> {
  %one = arith.constant dense<1.0> : tensor<2x16x64xf32>
  %y = decoda.residual_add %x, %one : tensor<2x16x64xf32>
  return %y : tensor<2x16x64xf32>
}

// -----

// A constant with one nonzero entry is not a zero branch.
// CHECK-LABEL: func.func @residual_add_non_splat_constant_stays(
// CHECK:         %[[C:.+]] = arith.constant dense<[0.000000e+00, 1.000000e+00]> : tensor<2xf32>
// CHECK:         decoda.residual_add %{{.+}}, %[[C]] : tensor<2xf32>
func.func @residual_add_non_splat_constant_stays(%x: tensor<2xf32>) -> tensor<2xf32> {
  %c = arith.constant dense<[0.0, 1.0]> : tensor<2xf32>
  %y = decoda.residual_add %x, %c : tensor<2xf32>
  return %y : tensor<2xf32>
}

// -----

// CHECK-LABEL: func.func @residual_add_non_constant_stays(
// CHECK-SAME:    %[[X:[a-z0-9]+]]: tensor<2x16x64xf32>, %[[B:[a-z0-9]+]]: tensor<2x16x64xf32>)
// CHECK:         %[[Y:.+]] = decoda.residual_add %[[X]], %[[B]] {scale = 5.000000e-01 : f64} : tensor<2x16x64xf32>
// CHECK:         return %[[Y]]
func.func @residual_add_non_constant_stays(%x: tensor<2x16x64xf32>, %b: tensor<2x16x64xf32>) -> tensor<2x16x64xf32> {
  %y = decoda.residual_add %x, %b {scale = 0.5 : f64} : tensor<2x16x64xf32>
  return %y : tensor<2x16x64xf32>
}

// -----

// A zero residual is not the identity: 0 + scale * b is not b.
// CHECK-LABEL: func.func @residual_add_zero_residual_stays(
// CHECK-SAME:    %[[B:[a-z0-9]+]]: tensor<2x16x64xf32>)
// CHECK:         %[[C:.+]] = arith.constant dense<0.000000e+00> : tensor<2x16x64xf32>
// CHECK:         %[[Y:.+]] = decoda.residual_add %[[C]], %[[B]] {scale = 2.000000e+00 : f64} : tensor<2x16x64xf32>
// CHECK:         return %[[Y]]
func.func @residual_add_zero_residual_stays(%b: tensor<2x16x64xf32>) -> tensor<2x16x64xf32> {
  %zero = arith.constant dense<0.0> : tensor<2x16x64xf32>
  %y = decoda.residual_add %zero, %b {scale = 2.0 : f64} : tensor<2x16x64xf32>
  return %y : tensor<2x16x64xf32>
}

// -----

//===----------------------------------------------------------------------===//
// Uncapped GLUs become SwiGLU (glu, gated_mlp, moe)
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @glu_situ_uncapped(
// CHECK-SAME:    %[[G:[a-z0-9]+]]: tensor<2x64xf32>, %[[U:[a-z0-9]+]]: tensor<2x64xf32>)
// CHECK:         %[[H:.+]] = decoda.glu %[[G]], %[[U]] {kind = #decoda.glu<swiglu>} : tensor<2x64xf32>
// CHECK:         return %[[H]]
func.func @glu_situ_uncapped(%g: tensor<2x64xf32>, %u: tensor<2x64xf32>) -> tensor<2x64xf32> {
  %h = decoda.glu %g, %u {kind = #decoda.glu<situ, beta1 = 0x7FF0000000000000, beta2 = 0x7FF0000000000000>} : tensor<2x64xf32>
  return %h : tensor<2x64xf32>
}

// -----

// One finite cap keeps SiTU-GLU (either beta).
// CHECK-LABEL: func.func @glu_situ_one_finite_beta(
// CHECK:         decoda.glu %{{.+}}, %{{.+}} {kind = #decoda.glu<situ, beta1 = 4.000000e+00, beta2 = inf>} : tensor<2x64xf32>
// CHECK:         decoda.glu %{{.+}}, %{{.+}} {kind = #decoda.glu<situ, beta1 = inf, beta2 = 2.500000e+01>} : tensor<2x64xf32>
// CHECK-NOT:     swiglu
func.func @glu_situ_one_finite_beta(%g: tensor<2x64xf32>, %u: tensor<2x64xf32>) -> (tensor<2x64xf32>, tensor<2x64xf32>) {
  %h0 = decoda.glu %g, %u {kind = #decoda.glu<situ, beta1 = 4.0, beta2 = inf>} : tensor<2x64xf32>
  %h1 = decoda.glu %g, %u {kind = #decoda.glu<situ, beta1 = inf, beta2 = 25.0>} : tensor<2x64xf32>
  return %h0, %h1 : tensor<2x64xf32>, tensor<2x64xf32>
}

// -----

// CHECK-LABEL: func.func @glu_situ_finite_stays(
// CHECK:         decoda.glu %{{.+}}, %{{.+}} {kind = #decoda.glu<situ, beta1 = 4.000000e+00, beta2 = 2.500000e+01>} : tensor<2x64xf32>
func.func @glu_situ_finite_stays(%g: tensor<2x64xf32>, %u: tensor<2x64xf32>) -> tensor<2x64xf32> {
  %h = decoda.glu %g, %u {kind = #decoda.glu<situ, beta1 = 4.0, beta2 = 25.0>} : tensor<2x64xf32>
  return %h : tensor<2x64xf32>
}

// -----

// CHECK-LABEL: func.func @glu_clamped_uncapped(
// CHECK:         decoda.glu %{{.+}}, %{{.+}} {kind = #decoda.glu<swiglu>} : tensor<2x64xbf16>
func.func @glu_clamped_uncapped(%g: tensor<2x64xbf16>, %u: tensor<2x64xbf16>) -> tensor<2x64xbf16> {
  %h = decoda.glu %g, %u {kind = #decoda.glu<clamped_swiglu, limit = inf>} : tensor<2x64xbf16>
  return %h : tensor<2x64xbf16>
}

// -----

// CHECK-LABEL: func.func @glu_clamped_finite_stays(
// CHECK:         decoda.glu %{{.+}}, %{{.+}} {kind = #decoda.glu<clamped_swiglu, limit = 1.000000e+01>} : tensor<2x64xbf16>
func.func @glu_clamped_finite_stays(%g: tensor<2x64xbf16>, %u: tensor<2x64xbf16>) -> tensor<2x64xbf16> {
  %h = decoda.glu %g, %u {kind = #decoda.glu<clamped_swiglu, limit = 10.0>} : tensor<2x64xbf16>
  return %h : tensor<2x64xbf16>
}

// -----

// The other kinds are left alone.
// CHECK-LABEL: func.func @glu_other_kinds_stay(
// CHECK:         decoda.glu %{{.+}}, %{{.+}} {kind = #decoda.glu<geglu>} : tensor<2x64xf32>
// CHECK:         decoda.glu %{{.+}}, %{{.+}} {kind = #decoda.glu<geglu_tanh>} : tensor<2x64xf32>
func.func @glu_other_kinds_stay(%g: tensor<2x64xf32>, %u: tensor<2x64xf32>) -> (tensor<2x64xf32>, tensor<2x64xf32>) {
  %h0 = decoda.glu %g, %u {kind = #decoda.glu<geglu>} : tensor<2x64xf32>
  %h1 = decoda.glu %g, %u {kind = #decoda.glu<geglu_tanh>} : tensor<2x64xf32>
  return %h0, %h1 : tensor<2x64xf32>, tensor<2x64xf32>
}

// -----

// CHECK-LABEL: func.func @gated_mlp_situ_uncapped(
// CHECK-SAME:    %[[X:[a-z0-9]+]]: tensor<2x64xf32>, %[[WG:[a-z0-9]+]]: tensor<256x64xf32>, %[[WU:[a-z0-9]+]]: tensor<256x64xf32>, %[[WD:[a-z0-9]+]]: tensor<64x256xf32>)
// CHECK:         decoda.gated_mlp %[[X]], %[[WG]], %[[WU]], %[[WD]] {kind = #decoda.glu<swiglu>} : tensor<2x64xf32>, tensor<256x64xf32>, tensor<256x64xf32>, tensor<64x256xf32>
func.func @gated_mlp_situ_uncapped(%x: tensor<2x64xf32>, %wg: tensor<256x64xf32>, %wu: tensor<256x64xf32>, %wd: tensor<64x256xf32>) -> tensor<2x64xf32> {
  %y = decoda.gated_mlp %x, %wg, %wu, %wd {kind = #decoda.glu<situ, beta1 = inf, beta2 = inf>} : tensor<2x64xf32>, tensor<256x64xf32>, tensor<256x64xf32>, tensor<64x256xf32>
  return %y : tensor<2x64xf32>
}

// -----

// The other attributes and the biases are kept.
// CHECK-LABEL: func.func @gated_mlp_clamped_uncapped_keeps_rest(
// CHECK:         decoda.gated_mlp %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}} bias(%{{.+}}, %{{.+}}, %{{.+}} : tensor<256xf32>, tensor<256xf32>, tensor<64xf32>) {kind = #decoda.glu<swiglu>, weight_layout = #decoda.weight_layout<in_out>} : tensor<2x64xf32>, tensor<64x256xf32>, tensor<64x256xf32>, tensor<256x64xf32>
func.func @gated_mlp_clamped_uncapped_keeps_rest(%x: tensor<2x64xf32>, %wg: tensor<64x256xf32>, %wu: tensor<64x256xf32>, %wd: tensor<256x64xf32>, %bg: tensor<256xf32>, %bu: tensor<256xf32>, %bd: tensor<64xf32>) -> tensor<2x64xf32> {
  %y = decoda.gated_mlp %x, %wg, %wu, %wd bias(%bg, %bu, %bd : tensor<256xf32>, tensor<256xf32>, tensor<64xf32>) {kind = #decoda.glu<clamped_swiglu, limit = 0x7FF0000000000000>, weight_layout = #decoda.weight_layout<in_out>} : tensor<2x64xf32>, tensor<64x256xf32>, tensor<64x256xf32>, tensor<256x64xf32>
  return %y : tensor<2x64xf32>
}

// -----

// CHECK-LABEL: func.func @gated_mlp_situ_one_finite_beta(
// CHECK:         decoda.gated_mlp {{.+}} {kind = #decoda.glu<situ, beta1 = inf, beta2 = 2.500000e+01>}
func.func @gated_mlp_situ_one_finite_beta(%x: tensor<2x64xf32>, %wg: tensor<256x64xf32>, %wu: tensor<256x64xf32>, %wd: tensor<64x256xf32>) -> tensor<2x64xf32> {
  %y = decoda.gated_mlp %x, %wg, %wu, %wd {kind = #decoda.glu<situ, beta1 = inf, beta2 = 25.0>} : tensor<2x64xf32>, tensor<256x64xf32>, tensor<256x64xf32>, tensor<64x256xf32>
  return %y : tensor<2x64xf32>
}

// -----

// CHECK-LABEL: func.func @gated_mlp_clamped_finite_stays(
// CHECK:         decoda.gated_mlp {{.+}} {kind = #decoda.glu<clamped_swiglu, limit = 7.000000e+00>}
func.func @gated_mlp_clamped_finite_stays(%x: tensor<2x64xf32>, %wg: tensor<256x64xf32>, %wu: tensor<256x64xf32>, %wd: tensor<64x256xf32>) -> tensor<2x64xf32> {
  %y = decoda.gated_mlp %x, %wg, %wu, %wd {kind = #decoda.glu<clamped_swiglu, limit = 7.0>} : tensor<2x64xf32>, tensor<256x64xf32>, tensor<256x64xf32>, tensor<64x256xf32>
  return %y : tensor<2x64xf32>
}

// -----

// CHECK-LABEL: func.func @moe_situ_uncapped(
// CHECK-SAME:    %[[X:[a-z0-9]+]]: tensor<2x64xf32>, %[[R:[a-z0-9]+]]: tensor<4x64xf32>, %[[EG:[a-z0-9]+]]: tensor<4x32x64xf32>, %[[ED:[a-z0-9]+]]: tensor<4x64x32xf32>)
// CHECK:         decoda.moe %[[X]] router(%[[R]]) experts(%[[EG]], %[[EG]], %[[ED]]) {kind = #decoda.glu<swiglu>, normalize, scoring = #decoda.scoring<sigmoid>, top_k = 2 : i64} : tensor<2x64xf32>, tensor<4x64xf32>, tensor<4x32x64xf32>, tensor<4x32x64xf32>, tensor<4x64x32xf32>
func.func @moe_situ_uncapped(%x: tensor<2x64xf32>, %r: tensor<4x64xf32>, %eg: tensor<4x32x64xf32>, %ed: tensor<4x64x32xf32>) -> tensor<2x64xf32> {
  %y = decoda.moe %x router(%r) experts(%eg, %eg, %ed) {top_k = 2 : i64, scoring = #decoda.scoring<sigmoid>, normalize, kind = #decoda.glu<situ, beta1 = inf, beta2 = inf>} : tensor<2x64xf32>, tensor<4x64xf32>, tensor<4x32x64xf32>, tensor<4x32x64xf32>, tensor<4x64x32xf32>
  return %y : tensor<2x64xf32>
}

// -----

// CHECK-LABEL: func.func @moe_clamped_uncapped(
// CHECK:         decoda.moe {{.+}} {kind = #decoda.glu<swiglu>, scoring = #decoda.scoring<softmax>, top_k = 1 : i64}
func.func @moe_clamped_uncapped(%x: tensor<2x64xf32>, %r: tensor<4x64xf32>, %eg: tensor<4x32x64xf32>, %ed: tensor<4x64x32xf32>) -> tensor<2x64xf32> {
  %y = decoda.moe %x router(%r) experts(%eg, %eg, %ed) {top_k = 1 : i64, scoring = #decoda.scoring<softmax>, kind = #decoda.glu<clamped_swiglu, limit = inf>} : tensor<2x64xf32>, tensor<4x64xf32>, tensor<4x32x64xf32>, tensor<4x32x64xf32>, tensor<4x64x32xf32>
  return %y : tensor<2x64xf32>
}

// -----

// CHECK-LABEL: func.func @moe_situ_one_finite_beta(
// CHECK:         decoda.moe {{.+}} {kind = #decoda.glu<situ, beta1 = 4.000000e+00, beta2 = inf>, scoring = #decoda.scoring<softmax>, top_k = 1 : i64}
func.func @moe_situ_one_finite_beta(%x: tensor<2x64xf32>, %r: tensor<4x64xf32>, %eg: tensor<4x32x64xf32>, %ed: tensor<4x64x32xf32>) -> tensor<2x64xf32> {
  %y = decoda.moe %x router(%r) experts(%eg, %eg, %ed) {top_k = 1 : i64, scoring = #decoda.scoring<softmax>, kind = #decoda.glu<situ, beta1 = 4.0, beta2 = inf>} : tensor<2x64xf32>, tensor<4x64xf32>, tensor<4x32x64xf32>, tensor<4x32x64xf32>, tensor<4x64x32xf32>
  return %y : tensor<2x64xf32>
}

// -----

//===----------------------------------------------------------------------===//
// QuantizeOp::fold: quantize(dequantize(q, s, zp), s, zp) -> q through f32
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @quantize_dequantize_folds(
// CHECK-SAME:    %[[Q:[a-z0-9]+]]: tensor<2x16x64xi8>, %[[S:[a-z0-9]+]]: tensor<2x16x1xf32>)
// CHECK-NOT:     decoda.dequantize
// CHECK-NOT:     decoda.quantize
// CHECK:         return %[[Q]] : tensor<2x16x64xi8>
func.func @quantize_dequantize_folds(%q: tensor<2x16x64xi8>, %s: tensor<2x16x1xf32>) -> tensor<2x16x64xi8> {
  %x = decoda.dequantize %q, %s : tensor<2x16x64xi8>, tensor<2x16x1xf32> -> tensor<2x16x64xf32>
  %r = decoda.quantize %x, %s : tensor<2x16x64xf32>, tensor<2x16x1xf32>
  return %r : tensor<2x16x64xi8>
}

// -----

// The same zero point on both sides folds too.
// CHECK-LABEL: func.func @quantize_dequantize_zero_point_folds(
// CHECK-SAME:    %[[Q:[a-z0-9]+]]: tensor<128x64xi8>, %[[S:[a-z0-9]+]]: tensor<f32>, %[[ZP:[a-z0-9]+]]: tensor<i8>)
// CHECK-NOT:     decoda.quantize
// CHECK:         return %[[Q]] : tensor<128x64xi8>
func.func @quantize_dequantize_zero_point_folds(%q: tensor<128x64xi8>, %s: tensor<f32>, %zp: tensor<i8>) -> tensor<128x64xi8> {
  %x = decoda.dequantize %q, %s zero_point(%zp : tensor<i8>) : tensor<128x64xi8>, tensor<f32> -> tensor<128x64xf32>
  %r = decoda.quantize %x, %s zero_point(%zp : tensor<i8>) : tensor<128x64xf32>, tensor<f32>
  return %r : tensor<128x64xi8>
}

// -----

// A different scale value does not fold.
// CHECK-LABEL: func.func @quantize_dequantize_other_scale_stays(
// CHECK-SAME:    %[[Q:[a-z0-9]+]]: tensor<2x16x64xi8>, %[[S0:[a-z0-9]+]]: tensor<f32>, %[[S1:[a-z0-9]+]]: tensor<f32>)
// CHECK:         %[[X:.+]] = decoda.dequantize %[[Q]], %[[S0]] : tensor<2x16x64xi8>, tensor<f32> -> tensor<2x16x64xf32>
// CHECK:         %[[R:.+]] = decoda.quantize %[[X]], %[[S1]] : tensor<2x16x64xf32>, tensor<f32>
// CHECK:         return %[[R]]
func.func @quantize_dequantize_other_scale_stays(%q: tensor<2x16x64xi8>, %s0: tensor<f32>, %s1: tensor<f32>) -> tensor<2x16x64xi8> {
  %x = decoda.dequantize %q, %s0 : tensor<2x16x64xi8>, tensor<f32> -> tensor<2x16x64xf32>
  %r = decoda.quantize %x, %s1 : tensor<2x16x64xf32>, tensor<f32>
  return %r : tensor<2x16x64xi8>
}

// -----

// A different zero point does not fold.
// CHECK-LABEL: func.func @quantize_dequantize_other_zero_point_stays(
// CHECK-SAME:    %[[Q:[a-z0-9]+]]: tensor<128x64xi8>, %[[S:[a-z0-9]+]]: tensor<f32>, %[[Z0:[a-z0-9]+]]: tensor<i8>, %[[Z1:[a-z0-9]+]]: tensor<i8>)
// CHECK:         %[[X:.+]] = decoda.dequantize %[[Q]], %[[S]] zero_point(%[[Z0]] : tensor<i8>)
// CHECK:         %[[R:.+]] = decoda.quantize %[[X]], %[[S]] zero_point(%[[Z1]] : tensor<i8>)
// CHECK:         return %[[R]]
func.func @quantize_dequantize_other_zero_point_stays(%q: tensor<128x64xi8>, %s: tensor<f32>, %z0: tensor<i8>, %z1: tensor<i8>) -> tensor<128x64xi8> {
  %x = decoda.dequantize %q, %s zero_point(%z0 : tensor<i8>) : tensor<128x64xi8>, tensor<f32> -> tensor<128x64xf32>
  %r = decoda.quantize %x, %s zero_point(%z1 : tensor<i8>) : tensor<128x64xf32>, tensor<f32>
  return %r : tensor<128x64xi8>
}

// -----

// A zero point on one side only does not fold.
// CHECK-LABEL: func.func @quantize_dequantize_one_zero_point_stays(
// CHECK:         %[[X:.+]] = decoda.dequantize %{{.+}}, %{{.+}} zero_point(%{{.+}} : tensor<i8>)
// CHECK:         %[[R:.+]] = decoda.quantize %[[X]], %{{.+}} : tensor<128x64xf32>, tensor<f32>
// CHECK:         return %[[R]]
func.func @quantize_dequantize_one_zero_point_stays(%q: tensor<128x64xi8>, %s: tensor<f32>, %zp: tensor<i8>) -> tensor<128x64xi8> {
  %x = decoda.dequantize %q, %s zero_point(%zp : tensor<i8>) : tensor<128x64xi8>, tensor<f32> -> tensor<128x64xf32>
  %r = decoda.quantize %x, %s : tensor<128x64xf32>, tensor<f32>
  return %r : tensor<128x64xi8>
}

// -----

// Through f16 the intermediate rounding can change the integer: no fold.
// CHECK-LABEL: func.func @quantize_dequantize_f16_stays(
// CHECK-SAME:    %[[Q:[a-z0-9]+]]: tensor<2x16x64xi8>, %[[S:[a-z0-9]+]]: tensor<2x16x1xf32>)
// CHECK:         %[[X:.+]] = decoda.dequantize %[[Q]], %[[S]] : tensor<2x16x64xi8>, tensor<2x16x1xf32> -> tensor<2x16x64xf16>
// CHECK:         %[[R:.+]] = decoda.quantize %[[X]], %[[S]] : tensor<2x16x64xf16>, tensor<2x16x1xf32>
// CHECK:         return %[[R]]
func.func @quantize_dequantize_f16_stays(%q: tensor<2x16x64xi8>, %s: tensor<2x16x1xf32>) -> tensor<2x16x64xi8> {
  %x = decoda.dequantize %q, %s : tensor<2x16x64xi8>, tensor<2x16x1xf32> -> tensor<2x16x64xf16>
  %r = decoda.quantize %x, %s : tensor<2x16x64xf16>, tensor<2x16x1xf32>
  return %r : tensor<2x16x64xi8>
}

// -----

// Nor through bf16.
// CHECK-LABEL: func.func @quantize_dequantize_bf16_stays(
// CHECK:         decoda.dequantize {{.+}} -> tensor<64xbf16>
// CHECK:         decoda.quantize {{.+}} : tensor<64xbf16>, tensor<f32>
func.func @quantize_dequantize_bf16_stays(%q: tensor<64xi8>, %s: tensor<f32>) -> tensor<64xi8> {
  %x = decoda.dequantize %q, %s : tensor<64xi8>, tensor<f32> -> tensor<64xbf16>
  %r = decoda.quantize %x, %s : tensor<64xbf16>, tensor<f32>
  return %r : tensor<64xi8>
}

// -----

// A quantize of anything but a dequantize stays.
// CHECK-LABEL: func.func @quantize_of_activation_stays(
// CHECK-SAME:    %[[X:[a-z0-9]+]]: tensor<64xf32>, %[[S:[a-z0-9]+]]: tensor<f32>)
// CHECK:         %[[R:.+]] = decoda.quantize %[[X]], %[[S]] : tensor<64xf32>, tensor<f32>
// CHECK:         return %[[R]]
func.func @quantize_of_activation_stays(%x: tensor<64xf32>, %s: tensor<f32>) -> tensor<64xi8> {
  %r = decoda.quantize %x, %s : tensor<64xf32>, tensor<f32>
  return %r : tensor<64xi8>
}
