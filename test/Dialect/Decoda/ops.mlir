// RUN: decoda-opt %s -split-input-file | decoda-opt -split-input-file | FileCheck %s
// RUN: decoda-opt %s -split-input-file -mlir-print-op-generic | decoda-opt -split-input-file | FileCheck %s

// Round trip of every decoda op and attribute, through the custom and the generic form.

//===----------------------------------------------------------------------===//
// Norms
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @rms_norm(
// CHECK-SAME:    %[[X:[a-z0-9]+]]: tensor<2x16x64xf32>, %[[W:[a-z0-9]+]]: tensor<64xf32>)
// CHECK:         %[[Y:.+]] = decoda.rms_norm %[[X]], %[[W]] {eps = 1.000000e-05 : f64} : tensor<2x16x64xf32>, tensor<64xf32>
// CHECK:         return %[[Y]] : tensor<2x16x64xf32>
func.func @rms_norm(%x: tensor<2x16x64xf32>, %w: tensor<64xf32>) -> tensor<2x16x64xf32> {
  %y = decoda.rms_norm %x, %w {eps = 1.0e-05 : f64} : tensor<2x16x64xf32>, tensor<64xf32>
  return %y : tensor<2x16x64xf32>
}

// -----

// Gemma-style weight offset, bf16 storage, dynamic leading dims.
// CHECK-LABEL: func.func @rms_norm_offset_dynamic(
// CHECK-SAME:    %[[X:[a-z0-9]+]]: tensor<?x?x64xbf16>, %[[W:[a-z0-9]+]]: tensor<64xbf16>)
// CHECK:         decoda.rms_norm %[[X]], %[[W]] {eps = 9.9999999999999995E-7 : f64, weight_offset = 1.000000e+00 : f64} : tensor<?x?x64xbf16>, tensor<64xbf16>
func.func @rms_norm_offset_dynamic(%x: tensor<?x?x64xbf16>, %w: tensor<64xbf16>) -> tensor<?x?x64xbf16> {
  %y = decoda.rms_norm %x, %w {eps = 1.0e-06 : f64, weight_offset = 1.0 : f64} : tensor<?x?x64xbf16>, tensor<64xbf16>
  return %y : tensor<?x?x64xbf16>
}

// -----

// QK-norm: per-head input [B, T, H, D], weight [D]; eps = 0 is allowed.
// CHECK-LABEL: func.func @rms_norm_qk(
// CHECK:         decoda.rms_norm %{{.+}}, %{{.+}} {eps = 0.000000e+00 : f64} : tensor<2x16x8x32xf16>, tensor<32xf16>
func.func @rms_norm_qk(%x: tensor<2x16x8x32xf16>, %w: tensor<32xf16>) -> tensor<2x16x8x32xf16> {
  %y = decoda.rms_norm %x, %w {eps = 0.0 : f64} : tensor<2x16x8x32xf16>, tensor<32xf16>
  return %y : tensor<2x16x8x32xf16>
}

// -----

// CHECK-LABEL: func.func @layer_norm(
// CHECK-SAME:    %[[X:[a-z0-9]+]]: tensor<2x16x64xf32>, %[[W:[a-z0-9]+]]: tensor<64xf32>, %[[B:[a-z0-9]+]]: tensor<64xf32>)
// CHECK:         %[[Y:.+]] = decoda.layer_norm %[[X]], %[[W]], %[[B]] {eps = 1.000000e-05 : f64} : tensor<2x16x64xf32>, tensor<64xf32>, tensor<64xf32>
// CHECK:         return %[[Y]]
func.func @layer_norm(%x: tensor<2x16x64xf32>, %w: tensor<64xf32>, %b: tensor<64xf32>) -> tensor<2x16x64xf32> {
  %y = decoda.layer_norm %x, %w, %b {eps = 1.0e-05 : f64} : tensor<2x16x64xf32>, tensor<64xf32>, tensor<64xf32>
  return %y : tensor<2x16x64xf32>
}

// -----

// CHECK-LABEL: func.func @layer_norm_no_bias(
// CHECK-SAME:    %[[X:[a-z0-9]+]]: tensor<?x64xf32>, %[[W:[a-z0-9]+]]: tensor<64xf32>)
// CHECK:         decoda.layer_norm %[[X]], %[[W]] {eps = 1.000000e-05 : f64} : tensor<?x64xf32>, tensor<64xf32>{{$}}
func.func @layer_norm_no_bias(%x: tensor<?x64xf32>, %w: tensor<64xf32>) -> tensor<?x64xf32> {
  %y = decoda.layer_norm %x, %w {eps = 1.0e-05 : f64} : tensor<?x64xf32>, tensor<64xf32>
  return %y : tensor<?x64xf32>
}

// -----

// CHECK-LABEL: func.func @add_rms_norm(
// CHECK-SAME:    %[[X:[a-z0-9]+]]: tensor<2x16x64xf32>, %[[A:[a-z0-9]+]]: tensor<2x16x64xf32>, %[[W:[a-z0-9]+]]: tensor<64xf32>)
// CHECK:         %[[H:.+]], %[[N:.+]] = decoda.add_rms_norm %[[X]], %[[A]], %[[W]] {eps = 1.000000e-05 : f64} : tensor<2x16x64xf32>, tensor<64xf32>
// CHECK:         return %[[H]], %[[N]]
func.func @add_rms_norm(%x: tensor<2x16x64xf32>, %a: tensor<2x16x64xf32>, %w: tensor<64xf32>) -> (tensor<2x16x64xf32>, tensor<2x16x64xf32>) {
  %h, %n = decoda.add_rms_norm %x, %a, %w {eps = 1.0e-05 : f64} : tensor<2x16x64xf32>, tensor<64xf32>
  return %h, %n : tensor<2x16x64xf32>, tensor<2x16x64xf32>
}

// -----

// CHECK-LABEL: func.func @add_rms_norm_attrs(
// CHECK:         decoda.add_rms_norm %{{.+}}, %{{.+}}, %{{.+}} {eps = 9.9999999999999995E-7 : f64, scale = 5.000000e-01 : f64, weight_offset = 1.000000e+00 : f64} : tensor<?x16x64xbf16>, tensor<64xbf16>
func.func @add_rms_norm_attrs(%x: tensor<?x16x64xbf16>, %a: tensor<?x16x64xbf16>, %w: tensor<64xbf16>) -> (tensor<?x16x64xbf16>, tensor<?x16x64xbf16>) {
  %h, %n = decoda.add_rms_norm %x, %a, %w {eps = 1.0e-06 : f64, weight_offset = 1.0 : f64, scale = 0.5 : f64} : tensor<?x16x64xbf16>, tensor<64xbf16>
  return %h, %n : tensor<?x16x64xbf16>, tensor<?x16x64xbf16>
}

// -----

// CHECK-LABEL: func.func @add_layer_norm(
// CHECK-SAME:    %[[X:[a-z0-9]+]]: tensor<2x16x64xf32>, %[[A:[a-z0-9]+]]: tensor<2x16x64xf32>, %[[W:[a-z0-9]+]]: tensor<64xf32>, %[[B:[a-z0-9]+]]: tensor<64xf32>)
// CHECK:         %[[H:.+]], %[[N:.+]] = decoda.add_layer_norm %[[X]], %[[A]], %[[W]], %[[B]] {eps = 1.000000e-05 : f64} : tensor<2x16x64xf32>, tensor<64xf32>, tensor<64xf32>
// CHECK:         return %[[H]], %[[N]]
func.func @add_layer_norm(%x: tensor<2x16x64xf32>, %a: tensor<2x16x64xf32>, %w: tensor<64xf32>, %b: tensor<64xf32>) -> (tensor<2x16x64xf32>, tensor<2x16x64xf32>) {
  %h, %n = decoda.add_layer_norm %x, %a, %w, %b {eps = 1.0e-05 : f64} : tensor<2x16x64xf32>, tensor<64xf32>, tensor<64xf32>
  return %h, %n : tensor<2x16x64xf32>, tensor<2x16x64xf32>
}

// -----

// Post-norm use: only `normalized` is used.
// CHECK-LABEL: func.func @add_layer_norm_no_bias(
// CHECK-SAME:    %[[X:[a-z0-9]+]]: tensor<2x16x64xf16>, %[[A:[a-z0-9]+]]: tensor<2x16x64xf16>, %[[W:[a-z0-9]+]]: tensor<64xf16>)
// CHECK:         %{{.+}}, %[[N:.+]] = decoda.add_layer_norm %[[X]], %[[A]], %[[W]] {eps = 1.000000e-05 : f64, scale = 2.000000e+00 : f64} : tensor<2x16x64xf16>, tensor<64xf16>{{$}}
// CHECK:         return %[[N]]
func.func @add_layer_norm_no_bias(%x: tensor<2x16x64xf16>, %a: tensor<2x16x64xf16>, %w: tensor<64xf16>) -> tensor<2x16x64xf16> {
  %h, %n = decoda.add_layer_norm %x, %a, %w {eps = 1.0e-05 : f64, scale = 2.0 : f64} : tensor<2x16x64xf16>, tensor<64xf16>
  return %n : tensor<2x16x64xf16>
}

// -----

//===----------------------------------------------------------------------===//
// Residual mixing
//===----------------------------------------------------------------------===//

// The default scale (1.0) is not printed.
// CHECK-LABEL: func.func @residual_add(
// CHECK-SAME:    %[[X:[a-z0-9]+]]: tensor<2x16x64xf32>, %[[B:[a-z0-9]+]]: tensor<2x16x64xf32>)
// CHECK:         %[[Y:.+]] = decoda.residual_add %[[X]], %[[B]] : tensor<2x16x64xf32>
// CHECK:         return %[[Y]]
func.func @residual_add(%x: tensor<2x16x64xf32>, %b: tensor<2x16x64xf32>) -> tensor<2x16x64xf32> {
  %y = decoda.residual_add %x, %b : tensor<2x16x64xf32>
  return %y : tensor<2x16x64xf32>
}

// -----

// CHECK-LABEL: func.func @residual_add_scale(
// CHECK-SAME:    %[[X:[a-z0-9]+]]: tensor<?x?x64xbf16>, %[[B:[a-z0-9]+]]: tensor<?x?x64xbf16>)
// CHECK:         decoda.residual_add %[[X]], %[[B]] {scale = 5.000000e-01 : f64} : tensor<?x?x64xbf16>
func.func @residual_add_scale(%x: tensor<?x?x64xbf16>, %b: tensor<?x?x64xbf16>) -> tensor<?x?x64xbf16> {
  %y = decoda.residual_add %x, %b {scale = 5.000000e-01 : f64} : tensor<?x?x64xbf16>
  return %y : tensor<?x?x64xbf16>
}

// -----

// Static logits (one set per layer); sinkhorn_iters = 20 is the default and is elided.
// CHECK-LABEL: func.func @hyper_connection_static(
// CHECK-SAME:    %[[X:[a-z0-9]+]]: tensor<2x16x4x64xf32>, %[[A:[a-z0-9]+]]: tensor<4xf32>, %[[B:[a-z0-9]+]]: tensor<4x4xf32>, %[[C:[a-z0-9]+]]: tensor<4xf32>)
// CHECK:         %[[Y:.+]] = decoda.hyper_connection %[[X]], %[[A]], %[[B]], %[[C]] : tensor<2x16x4x64xf32>, tensor<4xf32>, tensor<4x4xf32>, tensor<4xf32> {
// CHECK-NEXT:    ^bb0(%[[H:.+]]: tensor<2x16x64xf32>):
// CHECK-NEXT:      %[[F:.+]] = decoda.softcap %[[H]] {cap = 3.000000e+01 : f64} : tensor<2x16x64xf32>
// CHECK-NEXT:      decoda.yield %[[F]] : tensor<2x16x64xf32>
// CHECK-NEXT:    }
// CHECK:         return %[[Y]] : tensor<2x16x4x64xf32>
func.func @hyper_connection_static(%x: tensor<2x16x4x64xf32>, %a: tensor<4xf32>, %b: tensor<4x4xf32>, %c: tensor<4xf32>) -> tensor<2x16x4x64xf32> {
  %y = decoda.hyper_connection %x, %a, %b, %c {sinkhorn_iters = 20 : i64} : tensor<2x16x4x64xf32>, tensor<4xf32>, tensor<4x4xf32>, tensor<4xf32> {
  ^bb0(%h: tensor<2x16x64xf32>):
    %f = decoda.softcap %h {cap = 3.0e+01 : f64} : tensor<2x16x64xf32>
    decoda.yield %f : tensor<2x16x64xf32>
  }
  return %y : tensor<2x16x4x64xf32>
}

// -----

// Per-token logits [..., n], [..., n, n], [..., n]; dynamic leading dims; mixed storage types
// of the logits.
// CHECK-LABEL: func.func @hyper_connection_per_token(
// CHECK-SAME:    %[[X:[a-z0-9]+]]: tensor<?x16x4x64xbf16>, %[[A:[a-z0-9]+]]: tensor<?x16x4xbf16>, %[[B:[a-z0-9]+]]: tensor<?x16x4x4xf32>, %[[C:[a-z0-9]+]]: tensor<2x16x4xf32>)
// CHECK:         decoda.hyper_connection %[[X]], %[[A]], %[[B]], %[[C]] {sinkhorn_iters = 3 : i64} : tensor<?x16x4x64xbf16>, tensor<?x16x4xbf16>, tensor<?x16x4x4xf32>, tensor<2x16x4xf32> {
// CHECK-NEXT:    ^bb0(%[[H:.+]]: tensor<?x16x64xbf16>):
// CHECK-NEXT:      decoda.yield %[[H]] : tensor<?x16x64xbf16>
func.func @hyper_connection_per_token(%x: tensor<?x16x4x64xbf16>, %a: tensor<?x16x4xbf16>, %b: tensor<?x16x4x4xf32>, %c: tensor<2x16x4xf32>) -> tensor<?x16x4x64xbf16> {
  %y = decoda.hyper_connection %x, %a, %b, %c {sinkhorn_iters = 3 : i64} : tensor<?x16x4x64xbf16>, tensor<?x16x4xbf16>, tensor<?x16x4x4xf32>, tensor<2x16x4xf32> {
  ^bb0(%h: tensor<?x16x64xbf16>):
    decoda.yield %h : tensor<?x16x64xbf16>
  }
  return %y : tensor<?x16x4x64xbf16>
}

// -----

// Streams of rank 2 ([n, d]): the layer sees a rank-1 tensor.
// CHECK-LABEL: func.func @hyper_connection_rank2(
// CHECK:         decoda.hyper_connection %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}} : tensor<2x64xf32>, tensor<2xf32>, tensor<2x2xf32>, tensor<2xf32> {
// CHECK-NEXT:    ^bb0(%[[H:.+]]: tensor<64xf32>):
// CHECK-NEXT:      decoda.yield %[[H]] : tensor<64xf32>
func.func @hyper_connection_rank2(%x: tensor<2x64xf32>, %a: tensor<2xf32>, %b: tensor<2x2xf32>, %c: tensor<2xf32>) -> tensor<2x64xf32> {
  %y = decoda.hyper_connection %x, %a, %b, %c : tensor<2x64xf32>, tensor<2xf32>, tensor<2x2xf32>, tensor<2xf32> {
  ^bb0(%h: tensor<64xf32>):
    decoda.yield %h : tensor<64xf32>
  }
  return %y : tensor<2x64xf32>
}

// -----

//===----------------------------------------------------------------------===//
// Projections
//===----------------------------------------------------------------------===//

// Default `out_in` layout [N, K]; the result type is inferred.
// CHECK-LABEL: func.func @linear(
// CHECK-SAME:    %[[X:[a-z0-9]+]]: tensor<2x16x64xf32>, %[[W:[a-z0-9]+]]: tensor<128x64xf32>) -> tensor<2x16x128xf32>
// CHECK:         %[[Y:.+]] = decoda.linear %[[X]], %[[W]] : tensor<2x16x64xf32>, tensor<128x64xf32>
// CHECK:         return %[[Y]] : tensor<2x16x128xf32>
func.func @linear(%x: tensor<2x16x64xf32>, %w: tensor<128x64xf32>) -> tensor<2x16x128xf32> {
  %y = decoda.linear %x, %w : tensor<2x16x64xf32>, tensor<128x64xf32>
  return %y : tensor<2x16x128xf32>
}

// -----

// `in_out` layout [K, N] with a bias; the inferred type follows the layout.
// CHECK-LABEL: func.func @linear_in_out_bias(
// CHECK-SAME:    %[[X:[a-z0-9]+]]: tensor<?x?x64xf32>, %[[W:[a-z0-9]+]]: tensor<64x32xf32>, %[[B:[a-z0-9]+]]: tensor<32xf32>) -> tensor<?x?x32xf32>
// CHECK:         %[[Y:.+]] = decoda.linear %[[X]], %[[W]], %[[B]] {weight_layout = #decoda.weight_layout<in_out>} : tensor<?x?x64xf32>, tensor<64x32xf32>, tensor<32xf32>
// CHECK:         return %[[Y]] : tensor<?x?x32xf32>
func.func @linear_in_out_bias(%x: tensor<?x?x64xf32>, %w: tensor<64x32xf32>, %b: tensor<32xf32>) -> tensor<?x?x32xf32> {
  %y = decoda.linear %x, %w, %b {weight_layout = #decoda.weight_layout<in_out>} : tensor<?x?x64xf32>, tensor<64x32xf32>, tensor<32xf32>
  return %y : tensor<?x?x32xf32>
}

// -----

// An explicit default layout is elided; rank-1 input.
// CHECK-LABEL: func.func @linear_out_in_explicit(
// CHECK:         decoda.linear %{{.+}}, %{{.+}} : tensor<64xbf16>, tensor<32x64xbf16>{{$}}
func.func @linear_out_in_explicit(%x: tensor<64xbf16>, %w: tensor<32x64xbf16>) -> tensor<32xbf16> {
  %y = decoda.linear %x, %w {weight_layout = #decoda.weight_layout<out_in>} : tensor<64xbf16>, tensor<32x64xbf16>
  return %y : tensor<32xbf16>
}

// -----

// Per-head weight [H, N, K] and bias [H, N].
// CHECK-LABEL: func.func @linear_per_head(
// CHECK-SAME:    %[[X:[a-z0-9]+]]: tensor<2x16x4x32xf32>, %[[W:[a-z0-9]+]]: tensor<4x64x32xf32>, %[[B:[a-z0-9]+]]: tensor<4x64xf32>) -> tensor<2x16x4x64xf32>
// CHECK:         decoda.linear %[[X]], %[[W]], %[[B]] : tensor<2x16x4x32xf32>, tensor<4x64x32xf32>, tensor<4x64xf32>
func.func @linear_per_head(%x: tensor<2x16x4x32xf32>, %w: tensor<4x64x32xf32>, %b: tensor<4x64xf32>) -> tensor<2x16x4x64xf32> {
  %y = decoda.linear %x, %w, %b : tensor<2x16x4x32xf32>, tensor<4x64x32xf32>, tensor<4x64xf32>
  return %y : tensor<2x16x4x64xf32>
}

// -----

// Per-head weight in `in_out` layout [H, K, N].
// CHECK-LABEL: func.func @linear_per_head_in_out(
// CHECK-SAME:    -> tensor<?x4x64xf16>
// CHECK:         decoda.linear %{{.+}}, %{{.+}} {weight_layout = #decoda.weight_layout<in_out>} : tensor<?x4x32xf16>, tensor<4x32x64xf16>
func.func @linear_per_head_in_out(%x: tensor<?x4x32xf16>, %w: tensor<4x32x64xf16>) -> tensor<?x4x64xf16> {
  %y = decoda.linear %x, %w {weight_layout = #decoda.weight_layout<in_out>} : tensor<?x4x32xf16>, tensor<4x32x64xf16>
  return %y : tensor<?x4x64xf16>
}

// -----

// CHECK-LABEL: func.func @embedding(
// CHECK-SAME:    %[[IDS:[a-z0-9]+]]: tensor<2x16xi64>, %[[T:[a-z0-9]+]]: tensor<1000x64xf32>) -> tensor<2x16x64xf32>
// CHECK:         %[[E:.+]] = decoda.embedding %[[IDS]], %[[T]] : tensor<2x16xi64>, tensor<1000x64xf32>
// CHECK:         return %[[E]] : tensor<2x16x64xf32>
func.func @embedding(%ids: tensor<2x16xi64>, %t: tensor<1000x64xf32>) -> tensor<2x16x64xf32> {
  %e = decoda.embedding %ids, %t : tensor<2x16xi64>, tensor<1000x64xf32>
  return %e : tensor<2x16x64xf32>
}

// -----

// i32 ids, dynamic vocabulary and sequence.
// CHECK-LABEL: func.func @embedding_i32_dynamic(
// CHECK-SAME:    -> tensor<?x64xbf16>
// CHECK:         decoda.embedding %{{.+}}, %{{.+}} : tensor<?xi32>, tensor<?x64xbf16>
func.func @embedding_i32_dynamic(%ids: tensor<?xi32>, %t: tensor<?x64xbf16>) -> tensor<?x64xbf16> {
  %e = decoda.embedding %ids, %t : tensor<?xi32>, tensor<?x64xbf16>
  return %e : tensor<?x64xbf16>
}

// -----

//===----------------------------------------------------------------------===//
// MLPs and GLUs
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @mlp_gelu_erf(
// CHECK-SAME:    %[[X:[a-z0-9]+]]: tensor<2x16x64xf32>, %[[WU:[a-z0-9]+]]: tensor<256x64xf32>, %[[WD:[a-z0-9]+]]: tensor<64x256xf32>)
// CHECK:         decoda.mlp %[[X]], %[[WU]], %[[WD]] {activation = #decoda.activation<gelu_erf>} : tensor<2x16x64xf32>, tensor<256x64xf32>, tensor<64x256xf32>
func.func @mlp_gelu_erf(%x: tensor<2x16x64xf32>, %wu: tensor<256x64xf32>, %wd: tensor<64x256xf32>) -> tensor<2x16x64xf32> {
  %y = decoda.mlp %x, %wu, %wd {activation = #decoda.activation<gelu_erf>} : tensor<2x16x64xf32>, tensor<256x64xf32>, tensor<64x256xf32>
  return %y : tensor<2x16x64xf32>
}

// -----

// CHECK-LABEL: func.func @mlp_gelu_tanh_bias(
// CHECK-SAME:    %[[X:[a-z0-9]+]]: tensor<2x16x64xf32>, %[[WU:[a-z0-9]+]]: tensor<256x64xf32>, %[[WD:[a-z0-9]+]]: tensor<64x256xf32>, %[[BU:[a-z0-9]+]]: tensor<256xf32>, %[[BD:[a-z0-9]+]]: tensor<64xf32>)
// CHECK:         decoda.mlp %[[X]], %[[WU]], %[[WD]] bias(%[[BU]], %[[BD]] : tensor<256xf32>, tensor<64xf32>) {activation = #decoda.activation<gelu_tanh>} : tensor<2x16x64xf32>, tensor<256x64xf32>, tensor<64x256xf32>
func.func @mlp_gelu_tanh_bias(%x: tensor<2x16x64xf32>, %wu: tensor<256x64xf32>, %wd: tensor<64x256xf32>, %bu: tensor<256xf32>, %bd: tensor<64xf32>) -> tensor<2x16x64xf32> {
  %y = decoda.mlp %x, %wu, %wd bias(%bu, %bd : tensor<256xf32>, tensor<64xf32>) {activation = #decoda.activation<gelu_tanh>} : tensor<2x16x64xf32>, tensor<256x64xf32>, tensor<64x256xf32>
  return %y : tensor<2x16x64xf32>
}

// -----

// CHECK-LABEL: func.func @mlp_relu_in_out(
// CHECK:         decoda.mlp %{{.+}}, %{{.+}}, %{{.+}} {activation = #decoda.activation<relu>, weight_layout = #decoda.weight_layout<in_out>} : tensor<?x64xf16>, tensor<64x256xf16>, tensor<256x64xf16>
func.func @mlp_relu_in_out(%x: tensor<?x64xf16>, %wu: tensor<64x256xf16>, %wd: tensor<256x64xf16>) -> tensor<?x64xf16> {
  %y = decoda.mlp %x, %wu, %wd {activation = #decoda.activation<relu>, weight_layout = #decoda.weight_layout<in_out>} : tensor<?x64xf16>, tensor<64x256xf16>, tensor<256x64xf16>
  return %y : tensor<?x64xf16>
}

// -----

// CHECK-LABEL: func.func @mlp_silu(
// CHECK:         decoda.mlp %{{.+}}, %{{.+}}, %{{.+}} {activation = #decoda.activation<silu>} : tensor<4x64xbf16>, tensor<128x64xbf16>, tensor<64x128xbf16>
func.func @mlp_silu(%x: tensor<4x64xbf16>, %wu: tensor<128x64xbf16>, %wd: tensor<64x128xbf16>) -> tensor<4x64xbf16> {
  %y = decoda.mlp %x, %wu, %wd {activation = #decoda.activation<silu>} : tensor<4x64xbf16>, tensor<128x64xbf16>, tensor<64x128xbf16>
  return %y : tensor<4x64xbf16>
}

// -----

// CHECK-LABEL: func.func @gated_mlp_swiglu(
// CHECK-SAME:    %[[X:[a-z0-9]+]]: tensor<2x16x64xf32>, %[[WG:[a-z0-9]+]]: tensor<256x64xf32>, %[[WU:[a-z0-9]+]]: tensor<256x64xf32>, %[[WD:[a-z0-9]+]]: tensor<64x256xf32>)
// CHECK:         %[[Y:.+]] = decoda.gated_mlp %[[X]], %[[WG]], %[[WU]], %[[WD]] {kind = #decoda.glu<swiglu>} : tensor<2x16x64xf32>, tensor<256x64xf32>, tensor<256x64xf32>, tensor<64x256xf32>
// CHECK:         return %[[Y]]
func.func @gated_mlp_swiglu(%x: tensor<2x16x64xf32>, %wg: tensor<256x64xf32>, %wu: tensor<256x64xf32>, %wd: tensor<64x256xf32>) -> tensor<2x16x64xf32> {
  %y = decoda.gated_mlp %x, %wg, %wu, %wd {kind = #decoda.glu<swiglu>} : tensor<2x16x64xf32>, tensor<256x64xf32>, tensor<256x64xf32>, tensor<64x256xf32>
  return %y : tensor<2x16x64xf32>
}

// -----

// CHECK-LABEL: func.func @gated_mlp_geglu_bias(
// CHECK-SAME:    %[[X:[a-z0-9]+]]: tensor<2x16x64xf32>, %[[WG:[a-z0-9]+]]: tensor<256x64xf32>, %[[WU:[a-z0-9]+]]: tensor<256x64xf32>, %[[WD:[a-z0-9]+]]: tensor<64x256xf32>, %[[BG:[a-z0-9]+]]: tensor<256xf32>, %[[BU:[a-z0-9]+]]: tensor<256xf32>, %[[BD:[a-z0-9]+]]: tensor<64xf32>)
// CHECK:         decoda.gated_mlp %[[X]], %[[WG]], %[[WU]], %[[WD]] bias(%[[BG]], %[[BU]], %[[BD]] : tensor<256xf32>, tensor<256xf32>, tensor<64xf32>) {kind = #decoda.glu<geglu>} : tensor<2x16x64xf32>, tensor<256x64xf32>, tensor<256x64xf32>, tensor<64x256xf32>
func.func @gated_mlp_geglu_bias(%x: tensor<2x16x64xf32>, %wg: tensor<256x64xf32>, %wu: tensor<256x64xf32>, %wd: tensor<64x256xf32>, %bg: tensor<256xf32>, %bu: tensor<256xf32>, %bd: tensor<64xf32>) -> tensor<2x16x64xf32> {
  %y = decoda.gated_mlp %x, %wg, %wu, %wd bias(%bg, %bu, %bd : tensor<256xf32>, tensor<256xf32>, tensor<64xf32>) {kind = #decoda.glu<geglu>} : tensor<2x16x64xf32>, tensor<256x64xf32>, tensor<256x64xf32>, tensor<64x256xf32>
  return %y : tensor<2x16x64xf32>
}

// -----

// CHECK-LABEL: func.func @gated_mlp_geglu_tanh_in_out(
// CHECK:         decoda.gated_mlp %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}} {kind = #decoda.glu<geglu_tanh>, weight_layout = #decoda.weight_layout<in_out>} : tensor<?x?x64xbf16>, tensor<64x256xbf16>, tensor<64x256xbf16>, tensor<256x64xbf16>
func.func @gated_mlp_geglu_tanh_in_out(%x: tensor<?x?x64xbf16>, %wg: tensor<64x256xbf16>, %wu: tensor<64x256xbf16>, %wd: tensor<256x64xbf16>) -> tensor<?x?x64xbf16> {
  %y = decoda.gated_mlp %x, %wg, %wu, %wd {kind = #decoda.glu<geglu_tanh>, weight_layout = #decoda.weight_layout<in_out>} : tensor<?x?x64xbf16>, tensor<64x256xbf16>, tensor<64x256xbf16>, tensor<256x64xbf16>
  return %y : tensor<?x?x64xbf16>
}

// -----

// CHECK-LABEL: func.func @gated_mlp_situ(
// CHECK:         decoda.gated_mlp %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}} {kind = #decoda.glu<situ, beta1 = 4.000000e+00, beta2 = 2.500000e+01>} : tensor<2x16x64xf32>, tensor<256x64xf32>, tensor<256x64xf32>, tensor<64x256xf32>
func.func @gated_mlp_situ(%x: tensor<2x16x64xf32>, %wg: tensor<256x64xf32>, %wu: tensor<256x64xf32>, %wd: tensor<64x256xf32>) -> tensor<2x16x64xf32> {
  %y = decoda.gated_mlp %x, %wg, %wu, %wd {kind = #decoda.glu<situ, beta1 = 4.0, beta2 = 25.0>} : tensor<2x16x64xf32>, tensor<256x64xf32>, tensor<256x64xf32>, tensor<64x256xf32>
  return %y : tensor<2x16x64xf32>
}

// -----

// CHECK-LABEL: func.func @gated_mlp_clamped_swiglu(
// CHECK:         decoda.gated_mlp %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}} {kind = #decoda.glu<clamped_swiglu, limit = 1.000000e+01>} : tensor<2x16x64xf16>, tensor<256x64xf16>, tensor<256x64xf16>, tensor<64x256xf16>
func.func @gated_mlp_clamped_swiglu(%x: tensor<2x16x64xf16>, %wg: tensor<256x64xf16>, %wu: tensor<256x64xf16>, %wd: tensor<64x256xf16>) -> tensor<2x16x64xf16> {
  %y = decoda.gated_mlp %x, %wg, %wu, %wd {kind = #decoda.glu<clamped_swiglu, limit = 10.0>} : tensor<2x16x64xf16>, tensor<256x64xf16>, tensor<256x64xf16>, tensor<64x256xf16>
  return %y : tensor<2x16x64xf16>
}

// -----

// Every GLU kind on the elementwise op.
// CHECK-LABEL: func.func @glu_kinds(
// CHECK-SAME:    %[[G:[a-z0-9]+]]: tensor<2x16x256xf32>, %[[U:[a-z0-9]+]]: tensor<2x16x256xf32>)
// CHECK:         decoda.glu %[[G]], %[[U]] {kind = #decoda.glu<swiglu>} : tensor<2x16x256xf32>
// CHECK:         decoda.glu %[[G]], %[[U]] {kind = #decoda.glu<geglu>} : tensor<2x16x256xf32>
// CHECK:         decoda.glu %[[G]], %[[U]] {kind = #decoda.glu<geglu_tanh>} : tensor<2x16x256xf32>
// CHECK:         decoda.glu %[[G]], %[[U]] {kind = #decoda.glu<situ, beta1 = 4.000000e+00, beta2 = 2.500000e+01>} : tensor<2x16x256xf32>
// CHECK:         decoda.glu %[[G]], %[[U]] {kind = #decoda.glu<clamped_swiglu, limit = 7.500000e+00>} : tensor<2x16x256xf32>
func.func @glu_kinds(%g: tensor<2x16x256xf32>, %u: tensor<2x16x256xf32>) -> (tensor<2x16x256xf32>, tensor<2x16x256xf32>, tensor<2x16x256xf32>, tensor<2x16x256xf32>, tensor<2x16x256xf32>) {
  %0 = decoda.glu %g, %u {kind = #decoda.glu<swiglu>} : tensor<2x16x256xf32>
  %1 = decoda.glu %g, %u {kind = #decoda.glu<geglu>} : tensor<2x16x256xf32>
  %2 = decoda.glu %g, %u {kind = #decoda.glu<geglu_tanh>} : tensor<2x16x256xf32>
  %3 = decoda.glu %g, %u {kind = #decoda.glu<situ, beta1 = 4.0, beta2 = 25.0>} : tensor<2x16x256xf32>
  %4 = decoda.glu %g, %u {kind = #decoda.glu<clamped_swiglu, limit = 7.5>} : tensor<2x16x256xf32>
  return %0, %1, %2, %3, %4 : tensor<2x16x256xf32>, tensor<2x16x256xf32>, tensor<2x16x256xf32>, tensor<2x16x256xf32>, tensor<2x16x256xf32>
}

// -----

// GLU parameters written `inf` or as the bit pattern of +inf print as `inf`; parameters print
// in canonical order whatever order they were written in.
// CHECK-LABEL: func.func @glu_inf_params(
// CHECK:         decoda.glu %{{.+}}, %{{.+}} {kind = #decoda.glu<situ, beta1 = inf, beta2 = inf>} : tensor<?x256xbf16>
// CHECK:         decoda.glu %{{.+}}, %{{.+}} {kind = #decoda.glu<clamped_swiglu, limit = inf>} : tensor<?x256xbf16>
// CHECK:         decoda.glu %{{.+}}, %{{.+}} {kind = #decoda.glu<situ, beta1 = inf, beta2 = 2.500000e+01>} : tensor<?x256xbf16>
func.func @glu_inf_params(%g: tensor<?x256xbf16>) -> (tensor<?x256xbf16>, tensor<?x256xbf16>, tensor<?x256xbf16>) {
  %0 = decoda.glu %g, %g {kind = #decoda.glu<situ, beta1 = inf, beta2 = 0x7FF0000000000000>} : tensor<?x256xbf16>
  %1 = decoda.glu %g, %g {kind = #decoda.glu<clamped_swiglu, limit = 0x7FF0000000000000>} : tensor<?x256xbf16>
  %2 = decoda.glu %g, %g {kind = #decoda.glu<situ, beta2 = 2.5e+01, beta1 = inf>} : tensor<?x256xbf16>
  return %0, %1, %2 : tensor<?x256xbf16>, tensor<?x256xbf16>, tensor<?x256xbf16>
}

// -----

// CHECK-LABEL: func.func @softcap(
// CHECK-SAME:    %[[X:[a-z0-9]+]]: tensor<2x16x1000xf32>)
// CHECK:         %[[A:.+]] = decoda.softcap %[[X]] {cap = 3.000000e+01 : f64} : tensor<2x16x1000xf32>
// CHECK:         %[[B:.+]] = decoda.softcap %[[X]] {cap = 0x7FF0000000000000 : f64} : tensor<2x16x1000xf32>
// CHECK:         return %[[A]], %[[B]]
func.func @softcap(%x: tensor<2x16x1000xf32>) -> (tensor<2x16x1000xf32>, tensor<2x16x1000xf32>) {
  %0 = decoda.softcap %x {cap = 3.0e+01 : f64} : tensor<2x16x1000xf32>
  %1 = decoda.softcap %x {cap = 0x7FF0000000000000 : f64} : tensor<2x16x1000xf32>
  return %0, %1 : tensor<2x16x1000xf32>, tensor<2x16x1000xf32>
}

// -----

//===----------------------------------------------------------------------===//
// Rotary embeddings
//===----------------------------------------------------------------------===//

// Defaults (theta = 10000, half_split, rotary_dim = D) are elided.
// CHECK-LABEL: func.func @rope(
// CHECK-SAME:    %[[Q:[a-z0-9]+]]: tensor<2x16x8x64xf32>)
// CHECK:         %[[Y:.+]] = decoda.rope %[[Q]] : tensor<2x16x8x64xf32>
// CHECK:         return %[[Y]]
func.func @rope(%q: tensor<2x16x8x64xf32>) -> tensor<2x16x8x64xf32> {
  %y = decoda.rope %q {theta = 10000.0 : f64} : tensor<2x16x8x64xf32>
  return %y : tensor<2x16x8x64xf32>
}

// -----

// [B, T] positions, partial rotary, interleaved pairs, YaRN with the required parameters only.
// CHECK-LABEL: func.func @rope_positions_bt(
// CHECK-SAME:    %[[Q:[a-z0-9]+]]: tensor<2x16x8x64xf32>, %[[P:[a-z0-9]+]]: tensor<2x16xi64>)
// CHECK:         decoda.rope %[[Q]] positions(%[[P]] : tensor<2x16xi64>) {layout = #decoda.rope_layout<interleaved>, rotary_dim = 32 : i64, scaling = #decoda.rope_scaling<yarn, factor = 4.000000e+00, original_max_position = 4096>, theta = 5.000000e+05 : f64} : tensor<2x16x8x64xf32>
func.func @rope_positions_bt(%q: tensor<2x16x8x64xf32>, %pos: tensor<2x16xi64>) -> tensor<2x16x8x64xf32> {
  %y = decoda.rope %q positions(%pos : tensor<2x16xi64>) {theta = 5.0e+05 : f64, rotary_dim = 32 : i64, layout = #decoda.rope_layout<interleaved>, scaling = #decoda.rope_scaling<yarn, factor = 4.0, original_max_position = 4096>} : tensor<2x16x8x64xf32>
  return %y : tensor<2x16x8x64xf32>
}

// -----

// [T] positions (i32), dynamic B, T and H; the default half_split layout is elided.
// CHECK-LABEL: func.func @rope_positions_t(
// CHECK-SAME:    %[[Q:[a-z0-9]+]]: tensor<?x?x?x128xbf16>, %[[P:[a-z0-9]+]]: tensor<?xi32>)
// CHECK:         decoda.rope %[[Q]] positions(%[[P]] : tensor<?xi32>) : tensor<?x?x?x128xbf16>
func.func @rope_positions_t(%q: tensor<?x?x?x128xbf16>, %pos: tensor<?xi32>) -> tensor<?x?x?x128xbf16> {
  %y = decoda.rope %q positions(%pos : tensor<?xi32>) {layout = #decoda.rope_layout<half_split>} : tensor<?x?x?x128xbf16>
  return %y : tensor<?x?x?x128xbf16>
}

// -----

// CHECK-LABEL: func.func @rope_scaling_linear(
// CHECK:         decoda.rope %{{.+}} {scaling = #decoda.rope_scaling<linear, factor = 2.000000e+00>} : tensor<1x4x2x16xf16>
func.func @rope_scaling_linear(%q: tensor<1x4x2x16xf16>) -> tensor<1x4x2x16xf16> {
  %y = decoda.rope %q {scaling = #decoda.rope_scaling<linear, factor = 2.0>} : tensor<1x4x2x16xf16>
  return %y : tensor<1x4x2x16xf16>
}

// -----

// YaRN with every optional parameter, written out of order.
// CHECK-LABEL: func.func @rope_scaling_yarn_all(
// CHECK:         decoda.rope %{{.+}} {scaling = #decoda.rope_scaling<yarn, factor = 4.000000e+01, original_max_position = 4096, beta_fast = 3.200000e+01, beta_slow = 1.000000e+00, attention_factor = 1.250000e+00>} : tensor<1x4x2x16xf32>
func.func @rope_scaling_yarn_all(%q: tensor<1x4x2x16xf32>) -> tensor<1x4x2x16xf32> {
  %y = decoda.rope %q {scaling = #decoda.rope_scaling<yarn, attention_factor = 1.25, beta_slow = 1.0, beta_fast = 32.0, original_max_position = 4096, factor = 40.0>} : tensor<1x4x2x16xf32>
  return %y : tensor<1x4x2x16xf32>
}

// -----

// CHECK-LABEL: func.func @rope_scaling_llama3(
// CHECK:         decoda.rope %{{.+}} {rotary_dim = 8 : i64, scaling = #decoda.rope_scaling<llama3, factor = 3.200000e+01, original_max_position = 8192, low_freq_factor = 1.000000e+00, high_freq_factor = 4.000000e+00>} : tensor<1x4x2x16xf32>
func.func @rope_scaling_llama3(%q: tensor<1x4x2x16xf32>) -> tensor<1x4x2x16xf32> {
  %y = decoda.rope %q {rotary_dim = 8 : i64, scaling = #decoda.rope_scaling<llama3, factor = 32.0, original_max_position = 8192, low_freq_factor = 1.0, high_freq_factor = 4.0>} : tensor<1x4x2x16xf32>
  return %y : tensor<1x4x2x16xf32>
}

// -----

// llama3 with one of the two frequency factors (the other takes its default).
// CHECK-LABEL: func.func @rope_scaling_llama3_partial(
// CHECK:         decoda.rope %{{.+}} {scaling = #decoda.rope_scaling<llama3, factor = 8.000000e+00, original_max_position = 8192, high_freq_factor = 8.000000e+00>} : tensor<1x4x2x16xf32>
func.func @rope_scaling_llama3_partial(%q: tensor<1x4x2x16xf32>) -> tensor<1x4x2x16xf32> {
  %y = decoda.rope %q {scaling = #decoda.rope_scaling<llama3, high_freq_factor = 8.0, factor = 8.0, original_max_position = 8192>} : tensor<1x4x2x16xf32>
  return %y : tensor<1x4x2x16xf32>
}

// -----

//===----------------------------------------------------------------------===//
// Attention
//===----------------------------------------------------------------------===//

// MHA, no optional operand or attribute; the result type is inferred.
// CHECK-LABEL: func.func @attention_mha(
// CHECK-SAME:    %[[Q:[a-z0-9]+]]: tensor<1x16x8x64xf32>, %[[K:[a-z0-9]+]]: tensor<1x16x8x64xf32>, %[[V:[a-z0-9]+]]: tensor<1x16x8x64xf32>)
// CHECK:         %[[O:.+]] = decoda.attention %[[Q]], %[[K]], %[[V]] {num_heads = 8 : i64, num_kv_heads = 8 : i64} : tensor<1x16x8x64xf32>, tensor<1x16x8x64xf32>, tensor<1x16x8x64xf32>
// CHECK:         return %[[O]] : tensor<1x16x8x64xf32>
func.func @attention_mha(%q: tensor<1x16x8x64xf32>, %k: tensor<1x16x8x64xf32>, %v: tensor<1x16x8x64xf32>) -> tensor<1x16x8x64xf32> {
  %o = decoda.attention %q, %k, %v {num_heads = 8 : i64, num_kv_heads = 8 : i64} : tensor<1x16x8x64xf32>, tensor<1x16x8x64xf32>, tensor<1x16x8x64xf32>
  return %o : tensor<1x16x8x64xf32>
}

// -----

// GQA with every optional operand and attribute; Tq < Tk, Dv != D.
// CHECK-LABEL: func.func @attention_gqa_all(
// CHECK-SAME:    %[[Q:[a-z0-9]+]]: tensor<2x16x8x64xf32>, %[[K:[a-z0-9]+]]: tensor<2x32x2x64xf32>, %[[V:[a-z0-9]+]]: tensor<2x32x2x32xf32>, %[[M:[a-z0-9]+]]: tensor<2x1x16x32xf32>, %[[SEG:[a-z0-9]+]]: tensor<2x32xi32>, %[[S:[a-z0-9]+]]: tensor<8xf32>) -> tensor<2x16x8x32xf32>
// CHECK:         decoda.attention %[[Q]], %[[K]], %[[V]] mask(%[[M]] : tensor<2x1x16x32xf32>) segment_ids(%[[SEG]] : tensor<2x32xi32>) sinks(%[[S]] : tensor<8xf32>)
// CHECK-SAME:      {causal, chunk_size = 64 : i64, num_heads = 8 : i64, num_kv_heads = 2 : i64, scale = 1.250000e-01 : f64, softcap = 5.000000e+01 : f64, window = 128 : i64}
// CHECK-SAME:      : tensor<2x16x8x64xf32>, tensor<2x32x2x64xf32>, tensor<2x32x2x32xf32>
func.func @attention_gqa_all(%q: tensor<2x16x8x64xf32>, %k: tensor<2x32x2x64xf32>, %v: tensor<2x32x2x32xf32>, %m: tensor<2x1x16x32xf32>, %seg: tensor<2x32xi32>, %s: tensor<8xf32>) -> tensor<2x16x8x32xf32> {
  %o = decoda.attention %q, %k, %v mask(%m : tensor<2x1x16x32xf32>) segment_ids(%seg : tensor<2x32xi32>) sinks(%s : tensor<8xf32>) {num_heads = 8 : i64, num_kv_heads = 2 : i64, scale = 0.125 : f64, causal, window = 128 : i64, chunk_size = 64 : i64, softcap = 50.0 : f64} : tensor<2x16x8x64xf32>, tensor<2x32x2x64xf32>, tensor<2x32x2x32xf32>
  return %o : tensor<2x16x8x32xf32>
}

// -----

// MQA with dynamic batch and lengths and a broadcast mask [1, H, ?, ?].
// CHECK-LABEL: func.func @attention_mqa_dynamic(
// CHECK-SAME:    -> tensor<?x?x4x64xbf16>
// CHECK:         decoda.attention %{{.+}}, %{{.+}}, %{{.+}} mask(%{{.+}} : tensor<1x4x?x?xf32>) {causal, num_heads = 4 : i64, num_kv_heads = 1 : i64} : tensor<?x?x4x64xbf16>, tensor<?x?x1x64xbf16>, tensor<?x?x1x64xbf16>
func.func @attention_mqa_dynamic(%q: tensor<?x?x4x64xbf16>, %k: tensor<?x?x1x64xbf16>, %v: tensor<?x?x1x64xbf16>, %m: tensor<1x4x?x?xf32>) -> tensor<?x?x4x64xbf16> {
  %o = decoda.attention %q, %k, %v mask(%m : tensor<1x4x?x?xf32>) {num_heads = 4 : i64, num_kv_heads = 1 : i64, causal} : tensor<?x?x4x64xbf16>, tensor<?x?x1x64xbf16>, tensor<?x?x1x64xbf16>
  return %o : tensor<?x?x4x64xbf16>
}

// -----

// i64 segment ids alone, chunked attention without `causal`.
// CHECK-LABEL: func.func @attention_segment_ids_chunked(
// CHECK:         decoda.attention %{{.+}}, %{{.+}}, %{{.+}} segment_ids(%{{.+}} : tensor<1x8xi64>) {chunk_size = 4 : i64, num_heads = 2 : i64, num_kv_heads = 2 : i64} : tensor<1x8x2x16xf32>, tensor<1x8x2x16xf32>, tensor<1x8x2x16xf32>
func.func @attention_segment_ids_chunked(%q: tensor<1x8x2x16xf32>, %k: tensor<1x8x2x16xf32>, %v: tensor<1x8x2x16xf32>, %seg: tensor<1x8xi64>) -> tensor<1x8x2x16xf32> {
  %o = decoda.attention %q, %k, %v segment_ids(%seg : tensor<1x8xi64>) {num_heads = 2 : i64, num_kv_heads = 2 : i64, chunk_size = 4 : i64} : tensor<1x8x2x16xf32>, tensor<1x8x2x16xf32>, tensor<1x8x2x16xf32>
  return %o : tensor<1x8x2x16xf32>
}

// -----

// Sinks alone and an infinite softcap (accepted: no cap).
// CHECK-LABEL: func.func @attention_sinks_inf_softcap(
// CHECK:         decoda.attention %{{.+}}, %{{.+}}, %{{.+}} sinks(%{{.+}} : tensor<4xf32>) {num_heads = 4 : i64, num_kv_heads = 2 : i64, softcap = 0x7FF0000000000000 : f64} : tensor<1x8x4x16xf32>, tensor<1x8x2x16xf32>, tensor<1x8x2x16xf32>
func.func @attention_sinks_inf_softcap(%q: tensor<1x8x4x16xf32>, %k: tensor<1x8x2x16xf32>, %v: tensor<1x8x2x16xf32>, %s: tensor<4xf32>) -> tensor<1x8x4x16xf32> {
  %o = decoda.attention %q, %k, %v sinks(%s : tensor<4xf32>) {num_heads = 4 : i64, num_kv_heads = 2 : i64, softcap = 0x7FF0000000000000 : f64} : tensor<1x8x4x16xf32>, tensor<1x8x2x16xf32>, tensor<1x8x2x16xf32>
  return %o : tensor<1x8x4x16xf32>
}

// -----

// INT8 attention: the three quantisation scales, with sinks and a mask.
// CHECK-LABEL: func.func @attention_quantize(
// CHECK:         decoda.attention %{{.+}}, %{{.+}}, %{{.+}} mask(%{{.+}} : tensor<1x1x8x8xf32>) sinks(%{{.+}} : tensor<4xf32>) quantize(%[[QS:.+]], %[[KS:.+]], %[[VS:.+]] : tensor<f32>, tensor<f32>, tensor<f32>) {causal, num_heads = 4 : i64, num_kv_heads = 2 : i64} : tensor<1x8x4x16xf32>, tensor<1x8x2x16xf32>, tensor<1x8x2x16xf32>
func.func @attention_quantize(%q: tensor<1x8x4x16xf32>, %k: tensor<1x8x2x16xf32>, %v: tensor<1x8x2x16xf32>, %m: tensor<1x1x8x8xf32>, %s: tensor<4xf32>, %qs: tensor<f32>, %ks: tensor<f32>, %vs: tensor<f32>) -> tensor<1x8x4x16xf32> {
  %o = decoda.attention %q, %k, %v mask(%m : tensor<1x1x8x8xf32>) sinks(%s : tensor<4xf32>) quantize(%qs, %ks, %vs : tensor<f32>, tensor<f32>, tensor<f32>) {num_heads = 4 : i64, num_kv_heads = 2 : i64, causal} : tensor<1x8x4x16xf32>, tensor<1x8x2x16xf32>, tensor<1x8x2x16xf32>
  return %o : tensor<1x8x4x16xf32>
}

// -----

// Decode step without sinks; three results (output, key cache, value cache).
// CHECK-LABEL: func.func @cached_attention(
// CHECK-SAME:    %[[Q:[a-z0-9]+]]: tensor<1x1x8x64xf32>, %[[K:[a-z0-9]+]]: tensor<1x1x2x64xf32>, %[[V:[a-z0-9]+]]: tensor<1x1x2x64xf32>, %[[KC:[a-z0-9]+]]: tensor<1x512x2x64xf32>, %[[VC:[a-z0-9]+]]: tensor<1x512x2x64xf32>, %[[OFF:[a-z0-9]+]]: index)
// CHECK:         %[[O:.+]], %[[KC2:.+]], %[[VC2:.+]] = decoda.cached_attention %[[Q]], %[[K]], %[[V]], %[[KC]], %[[VC]][%[[OFF]]] {causal, num_heads = 8 : i64, num_kv_heads = 2 : i64} : tensor<1x1x8x64xf32>, tensor<1x1x2x64xf32>, tensor<1x1x2x64xf32>, tensor<1x512x2x64xf32>, tensor<1x512x2x64xf32>
// CHECK:         return %[[O]], %[[KC2]], %[[VC2]] : tensor<1x1x8x64xf32>, tensor<1x512x2x64xf32>, tensor<1x512x2x64xf32>
func.func @cached_attention(%q: tensor<1x1x8x64xf32>, %k: tensor<1x1x2x64xf32>, %v: tensor<1x1x2x64xf32>, %kc: tensor<1x512x2x64xf32>, %vc: tensor<1x512x2x64xf32>, %off: index) -> (tensor<1x1x8x64xf32>, tensor<1x512x2x64xf32>, tensor<1x512x2x64xf32>) {
  %o, %kc2, %vc2 = decoda.cached_attention %q, %k, %v, %kc, %vc[%off] {num_heads = 8 : i64, num_kv_heads = 2 : i64, causal} : tensor<1x1x8x64xf32>, tensor<1x1x2x64xf32>, tensor<1x1x2x64xf32>, tensor<1x512x2x64xf32>, tensor<1x512x2x64xf32>
  return %o, %kc2, %vc2 : tensor<1x1x8x64xf32>, tensor<1x512x2x64xf32>, tensor<1x512x2x64xf32>
}

// -----

// Sinks and every attribute; everything dynamic except the heads and head dims; Dv != D.
// CHECK-LABEL: func.func @cached_attention_sinks(
// CHECK-SAME:    %[[S:[a-z0-9]+]]: tensor<4xf16>) -> tensor<?x?x4x16xf16>
// CHECK:         decoda.cached_attention %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}[%{{.+}}] sinks(%[[S]] : tensor<4xf16>) {causal, chunk_size = 1024 : i64, num_heads = 4 : i64, num_kv_heads = 4 : i64, scale = 2.500000e-01 : f64, softcap = 3.000000e+01 : f64, window = 256 : i64} : tensor<?x?x4x32xf16>, tensor<?x?x4x32xf16>, tensor<?x?x4x16xf16>, tensor<?x?x4x32xf16>, tensor<?x?x4x16xf16>
func.func @cached_attention_sinks(%q: tensor<?x?x4x32xf16>, %k: tensor<?x?x4x32xf16>, %v: tensor<?x?x4x16xf16>, %kc: tensor<?x?x4x32xf16>, %vc: tensor<?x?x4x16xf16>, %off: index, %s: tensor<4xf16>) -> tensor<?x?x4x16xf16> {
  %o, %kc2, %vc2 = decoda.cached_attention %q, %k, %v, %kc, %vc[%off] sinks(%s : tensor<4xf16>) {num_heads = 4 : i64, num_kv_heads = 4 : i64, scale = 0.25 : f64, causal, window = 256 : i64, softcap = 30.0 : f64, chunk_size = 1024 : i64} : tensor<?x?x4x32xf16>, tensor<?x?x4x32xf16>, tensor<?x?x4x16xf16>, tensor<?x?x4x32xf16>, tensor<?x?x4x16xf16>
  return %o : tensor<?x?x4x16xf16>
}

// -----

// INT8 cached attention: the three quantisation scales, with sinks; dynamic lengths.
// CHECK-LABEL: func.func @cached_attention_quantize(
// CHECK-SAME:    %[[QS:[a-z0-9]+]]: tensor<f32>, %[[KS:[a-z0-9]+]]: tensor<f32>, %[[VS:[a-z0-9]+]]: tensor<f32>)
// CHECK:         decoda.cached_attention %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}[%{{.+}}] sinks(%{{.+}} : tensor<8xf32>) quantize(%[[QS]], %[[KS]], %[[VS]] : tensor<f32>, tensor<f32>, tensor<f32>) {causal, num_heads = 8 : i64, num_kv_heads = 2 : i64} : tensor<1x?x8x64xf32>, tensor<1x?x2x64xf32>, tensor<1x?x2x64xf32>, tensor<1x512x2x64xf32>, tensor<1x512x2x64xf32>
func.func @cached_attention_quantize(%q: tensor<1x?x8x64xf32>, %k: tensor<1x?x2x64xf32>, %v: tensor<1x?x2x64xf32>, %kc: tensor<1x512x2x64xf32>, %vc: tensor<1x512x2x64xf32>, %off: index, %s: tensor<8xf32>, %qs: tensor<f32>, %ks: tensor<f32>, %vs: tensor<f32>) -> tensor<1x?x8x64xf32> {
  %o, %kc2, %vc2 = decoda.cached_attention %q, %k, %v, %kc, %vc[%off] sinks(%s : tensor<8xf32>) quantize(%qs, %ks, %vs : tensor<f32>, tensor<f32>, tensor<f32>) {num_heads = 8 : i64, num_kv_heads = 2 : i64, causal} : tensor<1x?x8x64xf32>, tensor<1x?x2x64xf32>, tensor<1x?x2x64xf32>, tensor<1x512x2x64xf32>, tensor<1x512x2x64xf32>
  return %o : tensor<1x?x8x64xf32>
}

// -----

// CHECK-LABEL: func.func @mla(
// CHECK-SAME:    %[[QN:[a-z0-9]+]]: tensor<1x16x4x32xf32>, %[[QR:[a-z0-9]+]]: tensor<1x16x4x16xf32>, %[[C:[a-z0-9]+]]: tensor<1x16x64xf32>, %[[KR:[a-z0-9]+]]: tensor<1x16x16xf32>, %[[WUK:[a-z0-9]+]]: tensor<4x32x64xf32>, %[[WUV:[a-z0-9]+]]: tensor<4x32x64xf32>)
// CHECK:         %[[O:.+]] = decoda.mla %[[QN]], %[[QR]], %[[C]], %[[KR]], %[[WUK]], %[[WUV]] {causal, num_heads = 4 : i64} : tensor<1x16x4x32xf32>, tensor<1x16x4x16xf32>, tensor<1x16x64xf32>, tensor<1x16x16xf32>, tensor<4x32x64xf32>, tensor<4x32x64xf32>
// CHECK:         return %[[O]] : tensor<1x16x4x32xf32>
func.func @mla(%qn: tensor<1x16x4x32xf32>, %qr: tensor<1x16x4x16xf32>, %c: tensor<1x16x64xf32>, %kr: tensor<1x16x16xf32>, %wuk: tensor<4x32x64xf32>, %wuv: tensor<4x32x64xf32>) -> tensor<1x16x4x32xf32> {
  %o = decoda.mla %qn, %qr, %c, %kr, %wuk, %wuv {num_heads = 4 : i64, causal} : tensor<1x16x4x32xf32>, tensor<1x16x4x16xf32>, tensor<1x16x64xf32>, tensor<1x16x16xf32>, tensor<4x32x64xf32>, tensor<4x32x64xf32>
  return %o : tensor<1x16x4x32xf32>
}

// -----

// Explicit scale, no causal, dynamic batch and lengths, Dv (16) != Dn (32).
// CHECK-LABEL: func.func @mla_scale_dynamic(
// CHECK-SAME:    -> tensor<?x?x2x16xbf16>
// CHECK:         decoda.mla %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}} {num_heads = 2 : i64, scale = 1.000000e-01 : f64} : tensor<?x?x2x32xbf16>, tensor<?x?x2x8xbf16>, tensor<?x?x64xbf16>, tensor<?x?x8xbf16>, tensor<2x32x64xbf16>, tensor<2x16x64xbf16>
func.func @mla_scale_dynamic(%qn: tensor<?x?x2x32xbf16>, %qr: tensor<?x?x2x8xbf16>, %c: tensor<?x?x64xbf16>, %kr: tensor<?x?x8xbf16>, %wuk: tensor<2x32x64xbf16>, %wuv: tensor<2x16x64xbf16>) -> tensor<?x?x2x16xbf16> {
  %o = decoda.mla %qn, %qr, %c, %kr, %wuk, %wuv {num_heads = 2 : i64, scale = 0.1 : f64} : tensor<?x?x2x32xbf16>, tensor<?x?x2x8xbf16>, tensor<?x?x64xbf16>, tensor<?x?x8xbf16>, tensor<2x32x64xbf16>, tensor<2x16x64xbf16>
  return %o : tensor<?x?x2x16xbf16>
}

// -----

//===----------------------------------------------------------------------===//
// Mixture of experts
//===----------------------------------------------------------------------===//

// Routed experts only, softmax scoring.
// CHECK-LABEL: func.func @moe(
// CHECK-SAME:    %[[X:[a-z0-9]+]]: tensor<2x16x64xf32>, %[[R:[a-z0-9]+]]: tensor<8x64xf32>, %[[EG:[a-z0-9]+]]: tensor<8x32x64xf32>, %[[EU:[a-z0-9]+]]: tensor<8x32x64xf32>, %[[ED:[a-z0-9]+]]: tensor<8x64x32xf32>)
// CHECK:         %[[Y:.+]] = decoda.moe %[[X]] router(%[[R]]) experts(%[[EG]], %[[EU]], %[[ED]]) {kind = #decoda.glu<swiglu>, scoring = #decoda.scoring<softmax>, top_k = 2 : i64} : tensor<2x16x64xf32>, tensor<8x64xf32>, tensor<8x32x64xf32>, tensor<8x32x64xf32>, tensor<8x64x32xf32>
// CHECK:         return %[[Y]]
func.func @moe(%x: tensor<2x16x64xf32>, %r: tensor<8x64xf32>, %eg: tensor<8x32x64xf32>, %eu: tensor<8x32x64xf32>, %ed: tensor<8x64x32xf32>) -> tensor<2x16x64xf32> {
  %y = decoda.moe %x router(%r) experts(%eg, %eu, %ed) {top_k = 2 : i64, scoring = #decoda.scoring<softmax>, kind = #decoda.glu<swiglu>} : tensor<2x16x64xf32>, tensor<8x64xf32>, tensor<8x32x64xf32>, tensor<8x32x64xf32>, tensor<8x64x32xf32>
  return %y : tensor<2x16x64xf32>
}

// -----

// Everything: selection bias, shared experts, sigmoid scoring, normalize, routed_scale,
// SiTU-GLU, `in_out` weights, dynamic tokens, top_k = E.
// CHECK-LABEL: func.func @moe_all(
// CHECK-SAME:    %[[X:[a-z0-9]+]]: tensor<?x64xbf16>, %[[R:[a-z0-9]+]]: tensor<8x64xbf16>, %[[EG:[a-z0-9]+]]: tensor<8x64x32xbf16>, %[[EU:[a-z0-9]+]]: tensor<8x64x32xbf16>, %[[ED:[a-z0-9]+]]: tensor<8x32x64xbf16>, %[[SB:[a-z0-9]+]]: tensor<8xf32>, %[[SG:[a-z0-9]+]]: tensor<64x48xbf16>, %[[SU:[a-z0-9]+]]: tensor<64x48xbf16>, %[[SD:[a-z0-9]+]]: tensor<48x64xbf16>)
// CHECK:         decoda.moe %[[X]] router(%[[R]]) experts(%[[EG]], %[[EU]], %[[ED]]) selection_bias(%[[SB]] : tensor<8xf32>) shared(%[[SG]], %[[SU]], %[[SD]] : tensor<64x48xbf16>, tensor<64x48xbf16>, tensor<48x64xbf16>)
// CHECK-SAME:      {kind = #decoda.glu<situ, beta1 = 4.000000e+00, beta2 = 2.500000e+01>, normalize, routed_scale = 2.500000e+00 : f64, scoring = #decoda.scoring<sigmoid>, top_k = 8 : i64, weight_layout = #decoda.weight_layout<in_out>}
// CHECK-SAME:      : tensor<?x64xbf16>, tensor<8x64xbf16>, tensor<8x64x32xbf16>, tensor<8x64x32xbf16>, tensor<8x32x64xbf16>
func.func @moe_all(%x: tensor<?x64xbf16>, %r: tensor<8x64xbf16>, %eg: tensor<8x64x32xbf16>, %eu: tensor<8x64x32xbf16>, %ed: tensor<8x32x64xbf16>, %bias: tensor<8xf32>, %sg: tensor<64x48xbf16>, %su: tensor<64x48xbf16>, %sd: tensor<48x64xbf16>) -> tensor<?x64xbf16> {
  %y = decoda.moe %x router(%r) experts(%eg, %eu, %ed) selection_bias(%bias : tensor<8xf32>) shared(%sg, %su, %sd : tensor<64x48xbf16>, tensor<64x48xbf16>, tensor<48x64xbf16>) {top_k = 8 : i64, scoring = #decoda.scoring<sigmoid>, normalize, routed_scale = 2.5 : f64, kind = #decoda.glu<situ, beta1 = 4.0, beta2 = 25.0>, weight_layout = #decoda.weight_layout<in_out>} : tensor<?x64xbf16>, tensor<8x64xbf16>, tensor<8x64x32xbf16>, tensor<8x64x32xbf16>, tensor<8x32x64xbf16>
  return %y : tensor<?x64xbf16>
}

// -----

// Shared experts without a selection bias; clamped SwiGLU experts.
// CHECK-LABEL: func.func @moe_shared_only(
// CHECK:         decoda.moe %{{.+}} router(%{{.+}}) experts(%{{.+}}, %{{.+}}, %{{.+}}) shared(%{{.+}}, %{{.+}}, %{{.+}} : tensor<32x64xf32>, tensor<32x64xf32>, tensor<64x32xf32>) {kind = #decoda.glu<clamped_swiglu, limit = 7.000000e+00>, normalize, scoring = #decoda.scoring<softmax>, top_k = 1 : i64} : tensor<2x16x64xf32>, tensor<4x64xf32>, tensor<4x32x64xf32>, tensor<4x32x64xf32>, tensor<4x64x32xf32>
func.func @moe_shared_only(%x: tensor<2x16x64xf32>, %r: tensor<4x64xf32>, %eg: tensor<4x32x64xf32>, %eu: tensor<4x32x64xf32>, %ed: tensor<4x64x32xf32>, %sg: tensor<32x64xf32>, %su: tensor<32x64xf32>, %sd: tensor<64x32xf32>) -> tensor<2x16x64xf32> {
  %y = decoda.moe %x router(%r) experts(%eg, %eu, %ed) shared(%sg, %su, %sd : tensor<32x64xf32>, tensor<32x64xf32>, tensor<64x32xf32>) {top_k = 1 : i64, scoring = #decoda.scoring<softmax>, normalize, kind = #decoda.glu<clamped_swiglu, limit = 7.0>} : tensor<2x16x64xf32>, tensor<4x64xf32>, tensor<4x32x64xf32>, tensor<4x32x64xf32>, tensor<4x64x32xf32>
  return %y : tensor<2x16x64xf32>
}

// -----

// A selection bias without shared experts; rank-1 input; GeGLU experts.
// CHECK-LABEL: func.func @moe_bias_only(
// CHECK:         decoda.moe %{{.+}} router(%{{.+}}) experts(%{{.+}}, %{{.+}}, %{{.+}}) selection_bias(%{{.+}} : tensor<4xf16>) {kind = #decoda.glu<geglu>, scoring = #decoda.scoring<sigmoid>, top_k = 2 : i64} : tensor<64xf16>, tensor<4x64xf16>, tensor<4x32x64xf16>, tensor<4x32x64xf16>, tensor<4x64x32xf16>
func.func @moe_bias_only(%x: tensor<64xf16>, %r: tensor<4x64xf16>, %eg: tensor<4x32x64xf16>, %eu: tensor<4x32x64xf16>, %ed: tensor<4x64x32xf16>, %b: tensor<4xf16>) -> tensor<64xf16> {
  %y = decoda.moe %x router(%r) experts(%eg, %eu, %ed) selection_bias(%b : tensor<4xf16>) {top_k = 2 : i64, scoring = #decoda.scoring<sigmoid>, kind = #decoda.glu<geglu>} : tensor<64xf16>, tensor<4x64xf16>, tensor<4x32x64xf16>, tensor<4x32x64xf16>, tensor<4x64x32xf16>
  return %y : tensor<64xf16>
}

// -----

//===----------------------------------------------------------------------===//
// INT8 quantisation
//===----------------------------------------------------------------------===//

// Per-token scale with and without a zero point, per-tensor scale; the i8 result is inferred.
// CHECK-LABEL: func.func @quantize(
// CHECK-SAME:    %[[X:[a-z0-9]+]]: tensor<2x16x64xf32>, %[[S:[a-z0-9]+]]: tensor<2x16x1xf32>, %[[ST:[a-z0-9]+]]: tensor<f32>, %[[ZP:[a-z0-9]+]]: tensor<2x16x1xi8>)
// CHECK:         %[[Q0:.+]] = decoda.quantize %[[X]], %[[S]] : tensor<2x16x64xf32>, tensor<2x16x1xf32>
// CHECK:         %[[Q1:.+]] = decoda.quantize %[[X]], %[[S]] zero_point(%[[ZP]] : tensor<2x16x1xi8>) : tensor<2x16x64xf32>, tensor<2x16x1xf32>
// CHECK:         %[[Q2:.+]] = decoda.quantize %[[X]], %[[ST]] : tensor<2x16x64xf32>, tensor<f32>
// CHECK:         return %[[Q0]], %[[Q1]], %[[Q2]] : tensor<2x16x64xi8>, tensor<2x16x64xi8>, tensor<2x16x64xi8>
func.func @quantize(%x: tensor<2x16x64xf32>, %s: tensor<2x16x1xf32>, %st: tensor<f32>, %zp: tensor<2x16x1xi8>) -> (tensor<2x16x64xi8>, tensor<2x16x64xi8>, tensor<2x16x64xi8>) {
  %q0 = decoda.quantize %x, %s : tensor<2x16x64xf32>, tensor<2x16x1xf32>
  %q1 = decoda.quantize %x, %s zero_point(%zp : tensor<2x16x1xi8>) : tensor<2x16x64xf32>, tensor<2x16x1xf32>
  %q2 = decoda.quantize %x, %st : tensor<2x16x64xf32>, tensor<f32>
  return %q0, %q1, %q2 : tensor<2x16x64xi8>, tensor<2x16x64xi8>, tensor<2x16x64xi8>
}

// -----

// CHECK-LABEL: func.func @quantize_dynamic(
// CHECK-SAME:    -> tensor<?x64xi8>
// CHECK:         decoda.quantize %{{.+}}, %{{.+}} : tensor<?x64xbf16>, tensor<?x1xf32>
func.func @quantize_dynamic(%x: tensor<?x64xbf16>, %s: tensor<?x1xf32>) -> tensor<?x64xi8> {
  %q = decoda.quantize %x, %s : tensor<?x64xbf16>, tensor<?x1xf32>
  return %q : tensor<?x64xi8>
}

// -----

// Per-channel scale to f32; per-tensor scale and zero point to f16.
// CHECK-LABEL: func.func @dequantize(
// CHECK-SAME:    %[[Q:[a-z0-9]+]]: tensor<128x64xi8>, %[[S:[a-z0-9]+]]: tensor<128x1xf32>, %[[ST:[a-z0-9]+]]: tensor<f32>, %[[ZP:[a-z0-9]+]]: tensor<i8>)
// CHECK:         %[[W:.+]] = decoda.dequantize %[[Q]], %[[S]] : tensor<128x64xi8>, tensor<128x1xf32> -> tensor<128x64xf32>
// CHECK:         %[[H:.+]] = decoda.dequantize %[[Q]], %[[ST]] zero_point(%[[ZP]] : tensor<i8>) : tensor<128x64xi8>, tensor<f32> -> tensor<128x64xf16>
// CHECK:         return %[[W]], %[[H]]
func.func @dequantize(%q: tensor<128x64xi8>, %s: tensor<128x1xf32>, %st: tensor<f32>, %zp: tensor<i8>) -> (tensor<128x64xf32>, tensor<128x64xf16>) {
  %w = decoda.dequantize %q, %s : tensor<128x64xi8>, tensor<128x1xf32> -> tensor<128x64xf32>
  %h = decoda.dequantize %q, %st zero_point(%zp : tensor<i8>) : tensor<128x64xi8>, tensor<f32> -> tensor<128x64xf16>
  return %w, %h : tensor<128x64xf32>, tensor<128x64xf16>
}

// -----

// Block-quantised weights: 4-bit codes with zero points (f16), 2-bit with the default (f32,
// K = 80: a ragged last block of 16 padded to 32 codes).
// CHECK-LABEL: func.func @dequantize_blocks(
// CHECK:         decoda.dequantize_blocks %{{.+}}, %{{.+}} zero_points(%{{.+}} : tensor<128x2xf16>) {bits = 4 : i64, block_size = 32 : i64} : tensor<128x32xi8>, tensor<128x2xf16> -> tensor<128x64xf16>
// CHECK:         decoda.dequantize_blocks %{{.+}}, %{{.+}} {bits = 2 : i64, block_size = 32 : i64} : tensor<8x24xi8>, tensor<8x3xf32> -> tensor<8x80xf32>
func.func @dequantize_blocks(%c: tensor<128x32xi8>, %s: tensor<128x2xf16>, %z: tensor<128x2xf16>,
                             %c2: tensor<8x24xi8>, %s2: tensor<8x3xf32>) -> (tensor<128x64xf16>, tensor<8x80xf32>) {
  %w = decoda.dequantize_blocks %c, %s zero_points(%z : tensor<128x2xf16>) {bits = 4 : i64, block_size = 32 : i64} : tensor<128x32xi8>, tensor<128x2xf16> -> tensor<128x64xf16>
  %v = decoda.dequantize_blocks %c2, %s2 {bits = 2 : i64, block_size = 32 : i64} : tensor<8x24xi8>, tensor<8x3xf32> -> tensor<8x80xf32>
  return %w, %v : tensor<128x64xf16>, tensor<8x80xf32>
}

// -----

// CHECK-LABEL: func.func @dequantize_dynamic(
// CHECK:         decoda.dequantize %{{.+}}, %{{.+}} : tensor<?x?xi8>, tensor<?x1xf32> -> tensor<?x?xbf16>
func.func @dequantize_dynamic(%q: tensor<?x?xi8>, %s: tensor<?x1xf32>) -> tensor<?x?xbf16> {
  %w = decoda.dequantize %q, %s : tensor<?x?xi8>, tensor<?x1xf32> -> tensor<?x?xbf16>
  return %w : tensor<?x?xbf16>
}

// -----

// Per-tensor x_scale, per-channel w_scale, float result.
// CHECK-LABEL: func.func @qlinear(
// CHECK-SAME:    %[[XQ:[a-z0-9]+]]: tensor<2x16x64xi8>, %[[WQ:[a-z0-9]+]]: tensor<128x64xi8>, %[[XS:[a-z0-9]+]]: tensor<f32>, %[[WS:[a-z0-9]+]]: tensor<128xf32>)
// CHECK:         %[[Y:.+]] = decoda.qlinear %[[XQ]], %[[WQ]], %[[XS]], %[[WS]] : tensor<2x16x64xi8>, tensor<128x64xi8>, tensor<f32>, tensor<128xf32> -> tensor<2x16x128xf32>
// CHECK:         return %[[Y]]
func.func @qlinear(%xq: tensor<2x16x64xi8>, %wq: tensor<128x64xi8>, %xs: tensor<f32>, %ws: tensor<128xf32>) -> tensor<2x16x128xf32> {
  %y = decoda.qlinear %xq, %wq, %xs, %ws : tensor<2x16x64xi8>, tensor<128x64xi8>, tensor<f32>, tensor<128xf32> -> tensor<2x16x128xf32>
  return %y : tensor<2x16x128xf32>
}

// -----

// Per-token x_scale with x_zero_point, per-tensor w_scale, bias and requantize to i8.
// CHECK-LABEL: func.func @qlinear_all(
// CHECK-SAME:    %[[XQ:[a-z0-9]+]]: tensor<?x16x64xi8>, %[[WQ:[a-z0-9]+]]: tensor<128x64xi8>, %[[XS:[a-z0-9]+]]: tensor<?x16x1xf32>, %[[WS:[a-z0-9]+]]: tensor<f32>, %[[XZP:[a-z0-9]+]]: tensor<?x16x1xi8>, %[[B:[a-z0-9]+]]: tensor<128xbf16>, %[[OS:[a-z0-9]+]]: tensor<f32>)
// CHECK:         decoda.qlinear %[[XQ]], %[[WQ]], %[[XS]], %[[WS]] x_zero_point(%[[XZP]] : tensor<?x16x1xi8>) bias(%[[B]] : tensor<128xbf16>) requantize(%[[OS]] : tensor<f32>) : tensor<?x16x64xi8>, tensor<128x64xi8>, tensor<?x16x1xf32>, tensor<f32> -> tensor<?x16x128xi8>
func.func @qlinear_all(%xq: tensor<?x16x64xi8>, %wq: tensor<128x64xi8>, %xs: tensor<?x16x1xf32>, %ws: tensor<f32>, %xzp: tensor<?x16x1xi8>, %b: tensor<128xbf16>, %os: tensor<f32>) -> tensor<?x16x128xi8> {
  %y = decoda.qlinear %xq, %wq, %xs, %ws x_zero_point(%xzp : tensor<?x16x1xi8>) bias(%b : tensor<128xbf16>) requantize(%os : tensor<f32>) : tensor<?x16x64xi8>, tensor<128x64xi8>, tensor<?x16x1xf32>, tensor<f32> -> tensor<?x16x128xi8>
  return %y : tensor<?x16x128xi8>
}

// -----

// Bias alone, f16 result.
// CHECK-LABEL: func.func @qlinear_bias_f16(
// CHECK:         decoda.qlinear %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}} bias(%{{.+}} : tensor<32xf16>) : tensor<4x64xi8>, tensor<32x64xi8>, tensor<4x1xf32>, tensor<32xf32> -> tensor<4x32xf16>
func.func @qlinear_bias_f16(%xq: tensor<4x64xi8>, %wq: tensor<32x64xi8>, %xs: tensor<4x1xf32>, %ws: tensor<32xf32>, %b: tensor<32xf16>) -> tensor<4x32xf16> {
  %y = decoda.qlinear %xq, %wq, %xs, %ws bias(%b : tensor<32xf16>) : tensor<4x64xi8>, tensor<32x64xi8>, tensor<4x1xf32>, tensor<32xf32> -> tensor<4x32xf16>
  return %y : tensor<4x32xf16>
}

// -----

// x_zero_point alone with a per-tensor x_scale.
// CHECK-LABEL: func.func @qlinear_x_zero_point(
// CHECK:         decoda.qlinear %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}} x_zero_point(%{{.+}} : tensor<i8>) : tensor<64xi8>, tensor<32x64xi8>, tensor<f32>, tensor<f32> -> tensor<32xbf16>
func.func @qlinear_x_zero_point(%xq: tensor<64xi8>, %wq: tensor<32x64xi8>, %xs: tensor<f32>, %ws: tensor<f32>, %zp: tensor<i8>) -> tensor<32xbf16> {
  %y = decoda.qlinear %xq, %wq, %xs, %ws x_zero_point(%zp : tensor<i8>) : tensor<64xi8>, tensor<32x64xi8>, tensor<f32>, tensor<f32> -> tensor<32xbf16>
  return %y : tensor<32xbf16>
}

// -----

//===----------------------------------------------------------------------===//
// Attributes on their own (every enum value, including the defaults that ops elide)
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @attribute_forms()
// CHECK-SAME:    activations = [#decoda.activation<gelu_erf>, #decoda.activation<gelu_tanh>, #decoda.activation<relu>, #decoda.activation<silu>]
// CHECK-SAME:    glus = [#decoda.glu<swiglu>, #decoda.glu<geglu>, #decoda.glu<geglu_tanh>, #decoda.glu<situ, beta1 = 1.000000e+00, beta2 = inf>, #decoda.glu<clamped_swiglu, limit = 5.000000e-01>]
// CHECK-SAME:    rope_layouts = [#decoda.rope_layout<half_split>, #decoda.rope_layout<interleaved>]
// CHECK-SAME:    rope_scalings = [#decoda.rope_scaling<linear, factor = 1.000000e+00>, #decoda.rope_scaling<yarn, factor = 1.600000e+01, original_max_position = 2048, beta_fast = 6.400000e+01>, #decoda.rope_scaling<yarn, factor = 2.000000e+00, original_max_position = 1, beta_slow = 2.000000e+00>, #decoda.rope_scaling<llama3, factor = 1.000000e+00, original_max_position = 8192, low_freq_factor = 2.000000e+00>]
// CHECK-SAME:    scorings = [#decoda.scoring<softmax>, #decoda.scoring<sigmoid>]
// CHECK-SAME:    weight_layouts = [#decoda.weight_layout<out_in>, #decoda.weight_layout<in_out>]
func.func @attribute_forms() attributes {
    activations = [#decoda.activation<gelu_erf>, #decoda.activation<gelu_tanh>, #decoda.activation<relu>, #decoda.activation<silu>],
    glus = [#decoda.glu<swiglu>, #decoda.glu<geglu>, #decoda.glu<geglu_tanh>, #decoda.glu<situ, beta1 = 1.0, beta2 = inf>, #decoda.glu<clamped_swiglu, limit = 0.5>],
    rope_layouts = [#decoda.rope_layout<half_split>, #decoda.rope_layout<interleaved>],
    rope_scalings = [#decoda.rope_scaling<linear, factor = 1.0>, #decoda.rope_scaling<yarn, factor = 16.0, original_max_position = 2048, beta_fast = 64.0>, #decoda.rope_scaling<yarn, factor = 2.0, original_max_position = 1, beta_slow = 2.0>, #decoda.rope_scaling<llama3, factor = 1.0, original_max_position = 8192, low_freq_factor = 2.0>],
    scorings = [#decoda.scoring<softmax>, #decoda.scoring<sigmoid>],
    weight_layouts = [#decoda.weight_layout<out_in>, #decoda.weight_layout<in_out>]} {
  return
}
