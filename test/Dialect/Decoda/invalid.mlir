// RUN: decoda-opt %s -split-input-file -verify-diagnostics

// Every verifier rule of the decoda dialect, one case each.

//===----------------------------------------------------------------------===//
// Norms (NormOpInterface)
//===----------------------------------------------------------------------===//

func.func @rms_norm_negative_eps(%x: tensor<2x64xf32>, %w: tensor<64xf32>) {
  // expected-error @+1 {{'decoda.rms_norm' op eps must be finite and non-negative, found -1.000000e-05}}
  %y = decoda.rms_norm %x, %w {eps = -1.0e-05 : f64} : tensor<2x64xf32>, tensor<64xf32>
  return
}

// -----

func.func @layer_norm_infinite_eps(%x: tensor<2x64xf32>, %w: tensor<64xf32>) {
  // expected-error @+1 {{'decoda.layer_norm' op eps must be finite and non-negative, found INF}}
  %y = decoda.layer_norm %x, %w {eps = 0x7FF0000000000000 : f64} : tensor<2x64xf32>, tensor<64xf32>
  return
}

// -----

func.func @rms_norm_rank0(%x: tensor<f32>, %w: tensor<1xf32>) {
  // expected-error @+1 {{'decoda.rms_norm' op normalises the last axis and needs rank >= 1, found 'tensor<f32>'}}
  %y = decoda.rms_norm %x, %w {eps = 1.0e-05 : f64} : tensor<f32>, tensor<1xf32>
  return
}

// -----

func.func @rms_norm_weight_rank(%x: tensor<2x64xf32>, %w: tensor<1x64xf32>) {
  // expected-error @+1 {{'decoda.rms_norm' op weight must have rank 1, found 'tensor<1x64xf32>'}}
  %y = decoda.rms_norm %x, %w {eps = 1.0e-05 : f64} : tensor<2x64xf32>, tensor<1x64xf32>
  return
}

// -----

func.func @rms_norm_weight_size(%x: tensor<2x64xf32>, %w: tensor<32xf32>) {
  // expected-error @+1 {{'decoda.rms_norm' op weight size is 32, expected 64 (the last dim of the input)}}
  %y = decoda.rms_norm %x, %w {eps = 1.0e-05 : f64} : tensor<2x64xf32>, tensor<32xf32>
  return
}

// -----

func.func @layer_norm_bias_rank(%x: tensor<2x64xf32>, %w: tensor<64xf32>, %b: tensor<64x1xf32>) {
  // expected-error @+1 {{'decoda.layer_norm' op bias must have rank 1, found 'tensor<64x1xf32>'}}
  %y = decoda.layer_norm %x, %w, %b {eps = 1.0e-05 : f64} : tensor<2x64xf32>, tensor<64xf32>, tensor<64x1xf32>
  return
}

// -----

func.func @layer_norm_bias_size(%x: tensor<2x64xf32>, %w: tensor<64xf32>, %b: tensor<63xf32>) {
  // expected-error @+1 {{'decoda.layer_norm' op bias size is 63, expected 64 (the last dim of the input)}}
  %y = decoda.layer_norm %x, %w, %b {eps = 1.0e-05 : f64} : tensor<2x64xf32>, tensor<64xf32>, tensor<63xf32>
  return
}

// -----

func.func @add_rms_norm_weight_size(%x: tensor<2x64xf32>, %a: tensor<2x64xf32>, %w: tensor<32xf32>) {
  // expected-error @+1 {{'decoda.add_rms_norm' op weight size is 32, expected 64 (the last dim of the input)}}
  %h, %n = decoda.add_rms_norm %x, %a, %w {eps = 1.0e-05 : f64} : tensor<2x64xf32>, tensor<32xf32>
  return
}

// -----

func.func @add_layer_norm_bias_size(%x: tensor<2x64xf32>, %a: tensor<2x64xf32>, %w: tensor<64xf32>, %b: tensor<32xf32>) {
  // expected-error @+1 {{'decoda.add_layer_norm' op bias size is 32, expected 64 (the last dim of the input)}}
  %h, %n = decoda.add_layer_norm %x, %a, %w, %b {eps = 1.0e-05 : f64} : tensor<2x64xf32>, tensor<64xf32>, tensor<32xf32>
  return
}

// -----

func.func @add_layer_norm_negative_eps(%x: tensor<2x64xf32>, %a: tensor<2x64xf32>, %w: tensor<64xf32>) {
  // expected-error @+1 {{'decoda.add_layer_norm' op eps must be finite and non-negative, found -1.000000e+00}}
  %h, %n = decoda.add_layer_norm %x, %a, %w {eps = -1.0 : f64} : tensor<2x64xf32>, tensor<64xf32>
  return
}

// -----

// ODS: float storage only.
func.func @rms_norm_int_input(%x: tensor<2x64xi32>, %w: tensor<64xf32>) {
  // expected-error @+1 {{'decoda.rms_norm' op operand #0 must be ranked tensor of 32-bit float or 16-bit float or bfloat16 type values, but got 'tensor<2x64xi32>'}}
  %y = decoda.rms_norm %x, %w {eps = 1.0e-05 : f64} : tensor<2x64xi32>, tensor<64xf32>
  return
}

// -----

// ODS: unranked tensors are rejected by the parser of the custom form.
func.func @rms_norm_unranked(%x: tensor<*xf32>, %w: tensor<64xf32>) {
  // expected-error @+1 {{invalid kind of type specified: expected builtin.tensor, but found 'tensor<*xf32>'}}
  %y = decoda.rms_norm %x, %w {eps = 1.0e-05 : f64} : tensor<*xf32>, tensor<64xf32>
  return
}

// -----

// ODS: missing required attribute.
func.func @rms_norm_missing_eps(%x: tensor<2x64xf32>, %w: tensor<64xf32>) {
  // expected-error @+1 {{'decoda.rms_norm' op requires attribute 'eps'}}
  %y = decoda.rms_norm %x, %w : tensor<2x64xf32>, tensor<64xf32>
  return
}

// -----

// ODS: AllTypesMatch (generic form, since the custom form derives the result type).
func.func @rms_norm_result_type(%x: tensor<2x64xf32>, %w: tensor<64xf32>) {
  // expected-error @+1 {{'decoda.rms_norm' op failed to verify that all of {input, result} have same type}}
  %y = "decoda.rms_norm"(%x, %w) <{eps = 1.0e-05 : f64}> : (tensor<2x64xf32>, tensor<64xf32>) -> tensor<2x64xf16>
  return
}

// -----

func.func @add_rms_norm_branch_type(%x: tensor<2x64xf32>, %a: tensor<2x64xf16>, %w: tensor<64xf32>) {
  // expected-error @+1 {{'decoda.add_rms_norm' op failed to verify that all of {residual, branch, sum, normalized} have same type}}
  %h, %n = "decoda.add_rms_norm"(%x, %a, %w) <{eps = 1.0e-05 : f64}> : (tensor<2x64xf32>, tensor<2x64xf16>, tensor<64xf32>) -> (tensor<2x64xf32>, tensor<2x64xf32>)
  return
}

// -----

//===----------------------------------------------------------------------===//
// Residual mixing
//===----------------------------------------------------------------------===//

func.func @residual_add_infinite_scale(%x: tensor<2x64xf32>, %b: tensor<2x64xf32>) {
  // expected-error @+1 {{'decoda.residual_add' op branch scale must be finite, found INF}}
  %y = decoda.residual_add %x, %b {scale = 0x7FF0000000000000 : f64} : tensor<2x64xf32>
  return
}

// -----

func.func @residual_add_type_mismatch(%x: tensor<2x64xf32>, %b: tensor<2x64xbf16>) {
  // expected-error @+1 {{'decoda.residual_add' op requires the same type for all operands and results}}
  %y = "decoda.residual_add"(%x, %b) : (tensor<2x64xf32>, tensor<2x64xbf16>) -> tensor<2x64xf32>
  return
}

// -----

func.func @hyper_connection_rank1(%x: tensor<64xf32>, %a: tensor<4xf32>, %b: tensor<4x4xf32>) {
  // expected-error @+1 {{'decoda.hyper_connection' op streams must be [..., n, d] (rank >= 2), found 'tensor<64xf32>'}}
  %y = decoda.hyper_connection %x, %a, %b, %a : tensor<64xf32>, tensor<4xf32>, tensor<4x4xf32>, tensor<4xf32> {
  ^bb0(%h: tensor<64xf32>):
    decoda.yield %h : tensor<64xf32>
  }
  return
}

// -----

func.func @hyper_connection_dynamic_n(%x: tensor<2x?x64xf32>, %a: tensor<4xf32>, %b: tensor<4x4xf32>) {
  // expected-error @+1 {{'decoda.hyper_connection' op the number of streams n (dim -2 of streams) must be static}}
  %y = decoda.hyper_connection %x, %a, %b, %a : tensor<2x?x64xf32>, tensor<4xf32>, tensor<4x4xf32>, tensor<4xf32> {
  ^bb0(%h: tensor<2x64xf32>):
    decoda.yield %h : tensor<2x64xf32>
  }
  return
}

// -----

func.func @hyper_connection_zero_iters(%x: tensor<2x4x64xf32>, %a: tensor<4xf32>, %b: tensor<4x4xf32>) {
  // expected-error @+1 {{'decoda.hyper_connection' op sinkhorn_iters must be >= 1 to make the mixing matrix doubly stochastic, found 0}}
  %y = decoda.hyper_connection %x, %a, %b, %a {sinkhorn_iters = 0 : i64} : tensor<2x4x64xf32>, tensor<4xf32>, tensor<4x4xf32>, tensor<4xf32> {
  ^bb0(%h: tensor<2x64xf32>):
    decoda.yield %h : tensor<2x64xf32>
  }
  return
}

// -----

func.func @hyper_connection_negative_iters(%x: tensor<2x4x64xf32>, %a: tensor<4xf32>, %b: tensor<4x4xf32>) {
  // expected-error @+1 {{'decoda.hyper_connection' op sinkhorn_iters must be >= 1 to make the mixing matrix doubly stochastic, found -1}}
  %y = decoda.hyper_connection %x, %a, %b, %a {sinkhorn_iters = -1 : i64} : tensor<2x4x64xf32>, tensor<4xf32>, tensor<4x4xf32>, tensor<4xf32> {
  ^bb0(%h: tensor<2x64xf32>):
    decoda.yield %h : tensor<2x64xf32>
  }
  return
}

// -----

func.func @hyper_connection_read_logits(%x: tensor<2x4x64xf32>, %a: tensor<3xf32>, %b: tensor<4x4xf32>, %c: tensor<4xf32>) {
  // expected-error @+1 {{'decoda.hyper_connection' op read logits (Ã) must be [4] (one set per layer) or [..., 4] with the leading dims of the streams (one per token), found 'tensor<3xf32>'}}
  %y = decoda.hyper_connection %x, %a, %b, %c : tensor<2x4x64xf32>, tensor<3xf32>, tensor<4x4xf32>, tensor<4xf32> {
  ^bb0(%h: tensor<2x64xf32>):
    decoda.yield %h : tensor<2x64xf32>
  }
  return
}

// -----

func.func @hyper_connection_mix_logits(%x: tensor<2x4x64xf32>, %a: tensor<4xf32>, %b: tensor<4x3xf32>) {
  // expected-error @+1 {{'decoda.hyper_connection' op mix logits (B̃) must be [4x4] (one set per layer) or [..., 4x4] with the leading dims of the streams (one per token), found 'tensor<4x3xf32>'}}
  %y = decoda.hyper_connection %x, %a, %b, %a : tensor<2x4x64xf32>, tensor<4xf32>, tensor<4x3xf32>, tensor<4xf32> {
  ^bb0(%h: tensor<2x64xf32>):
    decoda.yield %h : tensor<2x64xf32>
  }
  return
}

// -----

// Per-token logits whose leading dims differ from the streams'.
func.func @hyper_connection_write_logits(%x: tensor<2x4x64xf32>, %a: tensor<4xf32>, %b: tensor<4x4xf32>, %c: tensor<3x4xf32>) {
  // expected-error @+1 {{'decoda.hyper_connection' op write logits (C̃) must be [4] (one set per layer) or [..., 4] with the leading dims of the streams (one per token), found 'tensor<3x4xf32>'}}
  %y = decoda.hyper_connection %x, %a, %b, %c : tensor<2x4x64xf32>, tensor<4xf32>, tensor<4x4xf32>, tensor<3x4xf32> {
  ^bb0(%h: tensor<2x64xf32>):
    decoda.yield %h : tensor<2x64xf32>
  }
  return
}

// -----

func.func @hyper_connection_body_arg(%x: tensor<2x4x64xf32>, %a: tensor<4xf32>, %b: tensor<4x4xf32>) {
  // expected-error @+1 {{'decoda.hyper_connection' op body must take one argument, the layer input 'tensor<2x64xf32>'}}
  %y = decoda.hyper_connection %x, %a, %b, %a : tensor<2x4x64xf32>, tensor<4xf32>, tensor<4x4xf32>, tensor<4xf32> {
  ^bb0(%h: tensor<2x4x64xf32>):
    decoda.yield %h : tensor<2x4x64xf32>
  }
  return
}

// -----

func.func @hyper_connection_body_yield_type(%x: tensor<2x4x64xf32>, %a: tensor<4xf32>, %b: tensor<4x4xf32>, %z: tensor<2x32xf32>) {
  // expected-error @+1 {{'decoda.hyper_connection' op body must yield one value, the layer output 'tensor<2x64xf32>'}}
  %y = decoda.hyper_connection %x, %a, %b, %a : tensor<2x4x64xf32>, tensor<4xf32>, tensor<4x4xf32>, tensor<4xf32> {
  ^bb0(%h: tensor<2x64xf32>):
    decoda.yield %z : tensor<2x32xf32>
  }
  return
}

// -----

// The implicit terminator yields nothing.
func.func @hyper_connection_body_no_yield(%x: tensor<2x4x64xf32>, %a: tensor<4xf32>, %b: tensor<4x4xf32>) {
  // expected-error @+1 {{'decoda.hyper_connection' op body must yield one value, the layer output 'tensor<2x64xf32>'}}
  %y = decoda.hyper_connection %x, %a, %b, %a : tensor<2x4x64xf32>, tensor<4xf32>, tensor<4x4xf32>, tensor<4xf32> {
  ^bb0(%h: tensor<2x64xf32>):
  }
  return
}

// -----

func.func @hyper_connection_body_two_args(%x: tensor<2x4x64xf32>, %a: tensor<4xf32>, %b: tensor<4x4xf32>) {
  // expected-error @+1 {{'decoda.hyper_connection' op body must take one argument, the layer input 'tensor<2x64xf32>'}}
  %y = decoda.hyper_connection %x, %a, %b, %a : tensor<2x4x64xf32>, tensor<4xf32>, tensor<4x4xf32>, tensor<4xf32> {
  ^bb0(%h: tensor<2x64xf32>, %h2: tensor<2x64xf32>):
    decoda.yield %h : tensor<2x64xf32>
  }
  return
}

// -----

func.func @hyper_connection_body_two_yields(%x: tensor<2x4x64xf32>, %a: tensor<4xf32>, %b: tensor<4x4xf32>) {
  // expected-error @+1 {{'decoda.hyper_connection' op body must yield one value, the layer output 'tensor<2x64xf32>'}}
  %y = decoda.hyper_connection %x, %a, %b, %a : tensor<2x4x64xf32>, tensor<4xf32>, tensor<4x4xf32>, tensor<4xf32> {
  ^bb0(%h: tensor<2x64xf32>):
    decoda.yield %h, %h : tensor<2x64xf32>, tensor<2x64xf32>
  }
  return
}

// -----

// ODS: the body is a single block.
func.func @hyper_connection_two_blocks(%x: tensor<2x4x64xf32>, %a: tensor<4xf32>, %b: tensor<4x4xf32>) {
  // expected-error @+1 {{'decoda.hyper_connection' op expects region #0 to have 0 or 1 blocks}}
  %y = decoda.hyper_connection %x, %a, %b, %a : tensor<2x4x64xf32>, tensor<4xf32>, tensor<4x4xf32>, tensor<4xf32> {
  ^bb0(%h: tensor<2x64xf32>):
    cf.br ^bb1
  ^bb1:
    decoda.yield %h : tensor<2x64xf32>
  }
  return
}

// -----

func.func @hyper_connection_empty_body(%x: tensor<2x4x64xf32>, %a: tensor<4xf32>, %b: tensor<4x4xf32>) {
  // expected-error @+1 {{'decoda.hyper_connection' op region #0 ('body') failed to verify constraint: region with 1 blocks}}
  %y = "decoda.hyper_connection"(%x, %a, %b, %a) ({
  }) : (tensor<2x4x64xf32>, tensor<4xf32>, tensor<4x4xf32>, tensor<4xf32>) -> tensor<2x4x64xf32>
  return
}

// -----

func.func @hyper_connection_result_type(%x: tensor<2x4x64xf32>, %a: tensor<4xf32>, %b: tensor<4x4xf32>) {
  // expected-error @+1 {{'decoda.hyper_connection' op failed to verify that all of {streams, result} have same type}}
  %y = "decoda.hyper_connection"(%x, %a, %b, %a) ({
  ^bb0(%h: tensor<2x64xf32>):
    "decoda.yield"(%h) : (tensor<2x64xf32>) -> ()
  }) : (tensor<2x4x64xf32>, tensor<4xf32>, tensor<4x4xf32>, tensor<4xf32>) -> tensor<2x4x64xf16>
  return
}

// -----

func.func @yield_outside_hyper_connection(%x: tensor<2x64xf32>) {
  // expected-error @+1 {{'decoda.yield' op expects parent op 'decoda.hyper_connection'}}
  decoda.yield %x : tensor<2x64xf32>
}

// -----

//===----------------------------------------------------------------------===//
// Projections
//===----------------------------------------------------------------------===//

// ODS: unranked tensors are rejected while parsing, before type inference runs.
func.func @linear_unranked(%x: tensor<*xf32>, %w: tensor<32x64xf32>) {
  // expected-error @+1 {{custom op 'decoda.linear' invalid kind of type specified: expected builtin.tensor, but found 'tensor<*xf32>'}}
  %y = decoda.linear %x, %w : tensor<*xf32>, tensor<32x64xf32>
  return
}

// -----

func.func @linear_weight_rank(%x: tensor<2x64xf32>, %w: tensor<64xf32>) {
  // expected-error @+1 {{'decoda.linear' weight must be [N, K] or per-head [H, N, K], found 'tensor<64xf32>'}}
  %y = decoda.linear %x, %w : tensor<2x64xf32>, tensor<64xf32>
  return
}

// -----

func.func @linear_per_head_input_rank(%x: tensor<32xf32>, %w: tensor<4x64x32xf32>) {
  // expected-error @+1 {{'decoda.linear' input must have rank >= 2 for a rank-3 weight, found 'tensor<32xf32>'}}
  %y = decoda.linear %x, %w : tensor<32xf32>, tensor<4x64x32xf32>
  return
}

// -----

func.func @linear_input_dim(%x: tensor<2x64xf32>, %w: tensor<128x32xf32>) {
  // expected-error @+1 {{'decoda.linear' op weight input dim [out_in] is 32, expected 64 (the last dim of the input)}}
  %y = decoda.linear %x, %w : tensor<2x64xf32>, tensor<128x32xf32>
  return
}

// -----

// An `out_in`-shaped weight under `in_out`.
func.func @linear_input_dim_in_out(%x: tensor<2x64xf32>, %w: tensor<128x64xf32>) {
  // expected-error @+1 {{'decoda.linear' op weight input dim [in_out] is 128, expected 64 (the last dim of the input)}}
  %y = decoda.linear %x, %w {weight_layout = #decoda.weight_layout<in_out>} : tensor<2x64xf32>, tensor<128x64xf32>
  return
}

// -----

func.func @linear_per_head_heads(%x: tensor<2x3x32xf32>, %w: tensor<4x64x32xf32>) {
  // expected-error @+1 {{'decoda.linear' op input dim -2 (heads) is 3, expected 4 (dim 0 of the per-head weight)}}
  %y = decoda.linear %x, %w : tensor<2x3x32xf32>, tensor<4x64x32xf32>
  return
}

// -----

func.func @linear_per_head_bias(%x: tensor<2x4x32xf32>, %w: tensor<4x64x32xf32>, %b: tensor<64xf32>) {
  // expected-error @+1 {{'decoda.linear' op bias of a per-head linear must be [4, 64], found 'tensor<64xf32>'}}
  %y = decoda.linear %x, %w, %b : tensor<2x4x32xf32>, tensor<4x64x32xf32>, tensor<64xf32>
  return
}

// -----

func.func @linear_bias_rank(%x: tensor<2x64xf32>, %w: tensor<128x64xf32>, %b: tensor<1x128xf32>) {
  // expected-error @+1 {{'decoda.linear' op bias must have rank 1, found 'tensor<1x128xf32>'}}
  %y = decoda.linear %x, %w, %b : tensor<2x64xf32>, tensor<128x64xf32>, tensor<1x128xf32>
  return
}

// -----

func.func @linear_bias_size(%x: tensor<2x64xf32>, %w: tensor<64x32xf32>, %b: tensor<64xf32>) {
  // expected-error @+1 {{'decoda.linear' op bias size is 64, expected 32 (the weight's output dim)}}
  %y = decoda.linear %x, %w, %b {weight_layout = #decoda.weight_layout<in_out>} : tensor<2x64xf32>, tensor<64x32xf32>, tensor<64xf32>
  return
}

// -----

// The result type is inferred; the generic form may not state another.
func.func @linear_result_type(%x: tensor<2x64xf32>, %w: tensor<128x64xf32>) {
  // expected-error @+2 {{'decoda.linear' op inferred type(s) 'tensor<2x128xf32>' are incompatible with return type(s) of operation 'tensor<2x64xf32>'}}
  // expected-error @+1 {{'decoda.linear' op failed to infer returned types}}
  %y = "decoda.linear"(%x, %w) : (tensor<2x64xf32>, tensor<128x64xf32>) -> tensor<2x64xf32>
  return
}

// -----

func.func @linear_unknown_layout(%x: tensor<2x64xf32>, %w: tensor<128x64xf32>) {
  // expected-error @+2 {{expected ::mlir::decoda::WeightLayout to be one of: out_in, in_out}}
  // expected-error @+1 {{failed to parse Decoda_WeightLayoutAttr parameter 'value' which is to be a `::mlir::decoda::WeightLayout`}}
  %y = decoda.linear %x, %w {weight_layout = #decoda.weight_layout<nk>} : tensor<2x64xf32>, tensor<128x64xf32>
  return
}

// -----

func.func @embedding_unranked(%ids: tensor<*xi64>, %t: tensor<100x64xf32>) {
  // expected-error @+1 {{custom op 'decoda.embedding' invalid kind of type specified: expected builtin.tensor, but found 'tensor<*xi64>'}}
  %e = decoda.embedding %ids, %t : tensor<*xi64>, tensor<100x64xf32>
  return
}

// -----

func.func @embedding_table_rank(%ids: tensor<2x16xi64>, %t: tensor<100x8x64xf32>) {
  // expected-error @+1 {{'decoda.embedding' table must be [V, D], found 'tensor<100x8x64xf32>'}}
  %e = decoda.embedding %ids, %t : tensor<2x16xi64>, tensor<100x8x64xf32>
  return
}

// -----

func.func @embedding_float_ids(%ids: tensor<2x16xf32>, %t: tensor<100x64xf32>) {
  // expected-error @+1 {{'decoda.embedding' op operand #0 must be ranked tensor of 32-bit signless integer or 64-bit signless integer values, but got 'tensor<2x16xf32>'}}
  %e = decoda.embedding %ids, %t : tensor<2x16xf32>, tensor<100x64xf32>
  return
}

// -----

func.func @embedding_int_table(%ids: tensor<2x16xi64>, %t: tensor<100x64xi8>) {
  // expected-error @+1 {{'decoda.embedding' op operand #1 must be ranked tensor of 32-bit float or 16-bit float or bfloat16 type values, but got 'tensor<100x64xi8>'}}
  %e = decoda.embedding %ids, %t : tensor<2x16xi64>, tensor<100x64xi8>
  return
}

// -----

//===----------------------------------------------------------------------===//
// MLPs
//===----------------------------------------------------------------------===//

func.func @mlp_rank0(%x: tensor<f32>, %wu: tensor<256x64xf32>, %wd: tensor<64x256xf32>) {
  // expected-error @+1 {{'decoda.mlp' op input must have rank >= 1, found 'tensor<f32>'}}
  %y = decoda.mlp %x, %wu, %wd {activation = #decoda.activation<relu>} : tensor<f32>, tensor<256x64xf32>, tensor<64x256xf32>
  return
}

// -----

func.func @mlp_w_up_rank(%x: tensor<2x64xf32>, %wu: tensor<4x256x64xf32>, %wd: tensor<64x256xf32>) {
  // expected-error @+1 {{'decoda.mlp' op w_up must have rank 2, found 'tensor<4x256x64xf32>'}}
  %y = decoda.mlp %x, %wu, %wd {activation = #decoda.activation<relu>} : tensor<2x64xf32>, tensor<4x256x64xf32>, tensor<64x256xf32>
  return
}

// -----

func.func @mlp_w_up_input_dim(%x: tensor<2x64xf32>, %wu: tensor<256x32xf32>, %wd: tensor<64x256xf32>) {
  // expected-error @+1 {{'decoda.mlp' op w_up input dim [out_in] is 32, expected 64 (the last dim of the input)}}
  %y = decoda.mlp %x, %wu, %wd {activation = #decoda.activation<relu>} : tensor<2x64xf32>, tensor<256x32xf32>, tensor<64x256xf32>
  return
}

// -----

func.func @mlp_w_down_rank(%x: tensor<2x64xf32>, %wu: tensor<256x64xf32>, %wd: tensor<64xf32>) {
  // expected-error @+1 {{'decoda.mlp' op w_down must have rank 2, found 'tensor<64xf32>'}}
  %y = decoda.mlp %x, %wu, %wd {activation = #decoda.activation<relu>} : tensor<2x64xf32>, tensor<256x64xf32>, tensor<64xf32>
  return
}

// -----

func.func @mlp_w_down_output_dim(%x: tensor<2x64xf32>, %wu: tensor<256x64xf32>, %wd: tensor<32x256xf32>) {
  // expected-error @+1 {{'decoda.mlp' op w_down output dim [out_in] is 32, expected 64 (the last dim of the input)}}
  %y = decoda.mlp %x, %wu, %wd {activation = #decoda.activation<gelu_erf>} : tensor<2x64xf32>, tensor<256x64xf32>, tensor<32x256xf32>
  return
}

// -----

// `in_out` weights given in `out_in` shape: w_up [F, D] reads as in = 256.
func.func @mlp_w_down_input_dim_in_out(%x: tensor<2x64xf32>, %wu: tensor<64x256xf32>, %wd: tensor<128x64xf32>) {
  // expected-error @+1 {{'decoda.mlp' op w_down input dim [in_out] is 128, expected 256 (w_up's hidden width)}}
  %y = decoda.mlp %x, %wu, %wd {activation = #decoda.activation<silu>, weight_layout = #decoda.weight_layout<in_out>} : tensor<2x64xf32>, tensor<64x256xf32>, tensor<128x64xf32>
  return
}

// -----

// Biases come in pairs; only the generic form can leave one out.
func.func @mlp_single_bias(%x: tensor<2x64xf32>, %wu: tensor<256x64xf32>, %wd: tensor<64x256xf32>, %bu: tensor<256xf32>) {
  // expected-error @+1 {{'decoda.mlp' op biases come in pairs: b_up and b_down are both present or both absent}}
  %y = "decoda.mlp"(%x, %wu, %wd, %bu) <{activation = #decoda.activation<relu>, operandSegmentSizes = array<i32: 1, 1, 1, 1, 0>}> : (tensor<2x64xf32>, tensor<256x64xf32>, tensor<64x256xf32>, tensor<256xf32>) -> tensor<2x64xf32>
  return
}

// -----

func.func @mlp_b_up_size(%x: tensor<2x64xf32>, %wu: tensor<256x64xf32>, %wd: tensor<64x256xf32>, %bu: tensor<64xf32>, %bd: tensor<64xf32>) {
  // expected-error @+1 {{'decoda.mlp' op b_up size is 64, expected 256 (w_up's hidden width)}}
  %y = decoda.mlp %x, %wu, %wd bias(%bu, %bd : tensor<64xf32>, tensor<64xf32>) {activation = #decoda.activation<relu>} : tensor<2x64xf32>, tensor<256x64xf32>, tensor<64x256xf32>
  return
}

// -----

func.func @mlp_b_down_size(%x: tensor<2x64xf32>, %wu: tensor<256x64xf32>, %wd: tensor<64x256xf32>, %bu: tensor<256xf32>, %bd: tensor<256xf32>) {
  // expected-error @+1 {{'decoda.mlp' op b_down size is 256, expected 64 (the last dim of the input)}}
  %y = decoda.mlp %x, %wu, %wd bias(%bu, %bd : tensor<256xf32>, tensor<256xf32>) {activation = #decoda.activation<relu>} : tensor<2x64xf32>, tensor<256x64xf32>, tensor<64x256xf32>
  return
}

// -----

func.func @mlp_missing_activation(%x: tensor<2x64xf32>, %wu: tensor<256x64xf32>, %wd: tensor<64x256xf32>) {
  // expected-error @+1 {{'decoda.mlp' op requires attribute 'activation'}}
  %y = decoda.mlp %x, %wu, %wd : tensor<2x64xf32>, tensor<256x64xf32>, tensor<64x256xf32>
  return
}

// -----

func.func @mlp_unknown_activation(%x: tensor<2x64xf32>, %wu: tensor<256x64xf32>, %wd: tensor<64x256xf32>) {
  // expected-error @+2 {{expected ::mlir::decoda::Activation to be one of: gelu_erf, gelu_tanh, relu, silu}}
  // expected-error @+1 {{failed to parse Decoda_ActivationAttr parameter 'value'}}
  %y = decoda.mlp %x, %wu, %wd {activation = #decoda.activation<swish>} : tensor<2x64xf32>, tensor<256x64xf32>, tensor<64x256xf32>
  return
}

// -----

func.func @mlp_result_type(%x: tensor<2x64xf32>, %wu: tensor<256x64xf32>, %wd: tensor<64x256xf32>) {
  // expected-error @+1 {{'decoda.mlp' op failed to verify that all of {input, result} have same type}}
  %y = "decoda.mlp"(%x, %wu, %wd) <{activation = #decoda.activation<relu>, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0>}> : (tensor<2x64xf32>, tensor<256x64xf32>, tensor<64x256xf32>) -> tensor<2x32xf32>
  return
}

// -----

func.func @gated_mlp_rank0(%x: tensor<f32>, %wg: tensor<256x64xf32>, %wu: tensor<256x64xf32>, %wd: tensor<64x256xf32>) {
  // expected-error @+1 {{'decoda.gated_mlp' op input must have rank >= 1, found 'tensor<f32>'}}
  %y = decoda.gated_mlp %x, %wg, %wu, %wd {kind = #decoda.glu<swiglu>} : tensor<f32>, tensor<256x64xf32>, tensor<256x64xf32>, tensor<64x256xf32>
  return
}

// -----

func.func @gated_mlp_w_gate_rank(%x: tensor<2x64xf32>, %wg: tensor<256xf32>, %wu: tensor<256x64xf32>, %wd: tensor<64x256xf32>) {
  // expected-error @+1 {{'decoda.gated_mlp' op w_gate must have rank 2, found 'tensor<256xf32>'}}
  %y = decoda.gated_mlp %x, %wg, %wu, %wd {kind = #decoda.glu<swiglu>} : tensor<2x64xf32>, tensor<256xf32>, tensor<256x64xf32>, tensor<64x256xf32>
  return
}

// -----

func.func @gated_mlp_w_gate_input_dim(%x: tensor<2x64xf32>, %wg: tensor<256x32xf32>, %wu: tensor<256x64xf32>, %wd: tensor<64x256xf32>) {
  // expected-error @+1 {{'decoda.gated_mlp' op w_gate input dim [out_in] is 32, expected 64 (the last dim of the input)}}
  %y = decoda.gated_mlp %x, %wg, %wu, %wd {kind = #decoda.glu<swiglu>} : tensor<2x64xf32>, tensor<256x32xf32>, tensor<256x64xf32>, tensor<64x256xf32>
  return
}

// -----

func.func @gated_mlp_w_up_rank(%x: tensor<2x64xf32>, %wg: tensor<256x64xf32>, %wu: tensor<2x256x64xf32>, %wd: tensor<64x256xf32>) {
  // expected-error @+1 {{'decoda.gated_mlp' op w_up must have rank 2, found 'tensor<2x256x64xf32>'}}
  %y = decoda.gated_mlp %x, %wg, %wu, %wd {kind = #decoda.glu<swiglu>} : tensor<2x64xf32>, tensor<256x64xf32>, tensor<2x256x64xf32>, tensor<64x256xf32>
  return
}

// -----

func.func @gated_mlp_w_up_output_dim(%x: tensor<2x64xf32>, %wg: tensor<256x64xf32>, %wu: tensor<128x64xf32>, %wd: tensor<64x256xf32>) {
  // expected-error @+1 {{'decoda.gated_mlp' op w_up output dim [out_in] is 128, expected 256 (w_gate's hidden width)}}
  %y = decoda.gated_mlp %x, %wg, %wu, %wd {kind = #decoda.glu<swiglu>} : tensor<2x64xf32>, tensor<256x64xf32>, tensor<128x64xf32>, tensor<64x256xf32>
  return
}

// -----

func.func @gated_mlp_w_up_input_dim_in_out(%x: tensor<2x64xf32>, %wg: tensor<64x256xf32>, %wu: tensor<32x256xf32>, %wd: tensor<256x64xf32>) {
  // expected-error @+1 {{'decoda.gated_mlp' op w_up input dim [in_out] is 32, expected 64 (the last dim of the input)}}
  %y = decoda.gated_mlp %x, %wg, %wu, %wd {kind = #decoda.glu<swiglu>, weight_layout = #decoda.weight_layout<in_out>} : tensor<2x64xf32>, tensor<64x256xf32>, tensor<32x256xf32>, tensor<256x64xf32>
  return
}

// -----

func.func @gated_mlp_w_down_output_dim(%x: tensor<2x64xf32>, %wg: tensor<256x64xf32>, %wu: tensor<256x64xf32>, %wd: tensor<32x256xf32>) {
  // expected-error @+1 {{'decoda.gated_mlp' op w_down output dim [out_in] is 32, expected 64 (the last dim of the input)}}
  %y = decoda.gated_mlp %x, %wg, %wu, %wd {kind = #decoda.glu<geglu>} : tensor<2x64xf32>, tensor<256x64xf32>, tensor<256x64xf32>, tensor<32x256xf32>
  return
}

// -----

func.func @gated_mlp_w_down_input_dim(%x: tensor<2x64xf32>, %wg: tensor<256x64xf32>, %wu: tensor<256x64xf32>, %wd: tensor<64x128xf32>) {
  // expected-error @+1 {{'decoda.gated_mlp' op w_down input dim [out_in] is 128, expected 256 (w_gate's hidden width)}}
  %y = decoda.gated_mlp %x, %wg, %wu, %wd {kind = #decoda.glu<geglu_tanh>} : tensor<2x64xf32>, tensor<256x64xf32>, tensor<256x64xf32>, tensor<64x128xf32>
  return
}

// -----

func.func @gated_mlp_w_down_rank(%x: tensor<2x64xf32>, %wg: tensor<256x64xf32>, %wu: tensor<256x64xf32>, %wd: tensor<64x256x1xf32>) {
  // expected-error @+1 {{'decoda.gated_mlp' op w_down must have rank 2, found 'tensor<64x256x1xf32>'}}
  %y = decoda.gated_mlp %x, %wg, %wu, %wd {kind = #decoda.glu<swiglu>} : tensor<2x64xf32>, tensor<256x64xf32>, tensor<256x64xf32>, tensor<64x256x1xf32>
  return
}

// -----

// Biases come in triples; only the generic form can leave some out.
func.func @gated_mlp_two_biases(%x: tensor<2x64xf32>, %wg: tensor<256x64xf32>, %wu: tensor<256x64xf32>, %wd: tensor<64x256xf32>, %b: tensor<256xf32>) {
  // expected-error @+1 {{'decoda.gated_mlp' op biases come in triples: b_gate, b_up and b_down are all present or all absent, found 2}}
  %y = "decoda.gated_mlp"(%x, %wg, %wu, %wd, %b, %b) <{kind = #decoda.glu<swiglu>, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 0>}> : (tensor<2x64xf32>, tensor<256x64xf32>, tensor<256x64xf32>, tensor<64x256xf32>, tensor<256xf32>, tensor<256xf32>) -> tensor<2x64xf32>
  return
}

// -----

func.func @gated_mlp_b_gate_size(%x: tensor<2x64xf32>, %wg: tensor<256x64xf32>, %wu: tensor<256x64xf32>, %wd: tensor<64x256xf32>, %bg: tensor<128xf32>, %bu: tensor<256xf32>, %bd: tensor<64xf32>) {
  // expected-error @+1 {{'decoda.gated_mlp' op b_gate size is 128, expected 256 (w_gate's hidden width)}}
  %y = decoda.gated_mlp %x, %wg, %wu, %wd bias(%bg, %bu, %bd : tensor<128xf32>, tensor<256xf32>, tensor<64xf32>) {kind = #decoda.glu<swiglu>} : tensor<2x64xf32>, tensor<256x64xf32>, tensor<256x64xf32>, tensor<64x256xf32>
  return
}

// -----

func.func @gated_mlp_b_up_rank(%x: tensor<2x64xf32>, %wg: tensor<256x64xf32>, %wu: tensor<256x64xf32>, %wd: tensor<64x256xf32>, %bg: tensor<256xf32>, %bu: tensor<1x256xf32>, %bd: tensor<64xf32>) {
  // expected-error @+1 {{'decoda.gated_mlp' op b_up must have rank 1, found 'tensor<1x256xf32>'}}
  %y = decoda.gated_mlp %x, %wg, %wu, %wd bias(%bg, %bu, %bd : tensor<256xf32>, tensor<1x256xf32>, tensor<64xf32>) {kind = #decoda.glu<swiglu>} : tensor<2x64xf32>, tensor<256x64xf32>, tensor<256x64xf32>, tensor<64x256xf32>
  return
}

// -----

func.func @gated_mlp_b_down_size(%x: tensor<2x64xf32>, %wg: tensor<256x64xf32>, %wu: tensor<256x64xf32>, %wd: tensor<64x256xf32>, %bg: tensor<256xf32>, %bu: tensor<256xf32>, %bd: tensor<256xf32>) {
  // expected-error @+1 {{'decoda.gated_mlp' op b_down size is 256, expected 64 (the last dim of the input)}}
  %y = decoda.gated_mlp %x, %wg, %wu, %wd bias(%bg, %bu, %bd : tensor<256xf32>, tensor<256xf32>, tensor<256xf32>) {kind = #decoda.glu<swiglu>} : tensor<2x64xf32>, tensor<256x64xf32>, tensor<256x64xf32>, tensor<64x256xf32>
  return
}

// -----

func.func @gated_mlp_missing_kind(%x: tensor<2x64xf32>, %wg: tensor<256x64xf32>, %wu: tensor<256x64xf32>, %wd: tensor<64x256xf32>) {
  // expected-error @+1 {{'decoda.gated_mlp' op requires attribute 'kind'}}
  %y = decoda.gated_mlp %x, %wg, %wu, %wd : tensor<2x64xf32>, tensor<256x64xf32>, tensor<256x64xf32>, tensor<64x256xf32>
  return
}

// -----

func.func @glu_operand_types(%g: tensor<2x64xf32>, %u: tensor<2x64xf16>) {
  // expected-error @+1 {{'decoda.glu' op requires the same type for all operands and results}}
  %h = "decoda.glu"(%g, %u) <{kind = #decoda.glu<swiglu>}> : (tensor<2x64xf32>, tensor<2x64xf16>) -> tensor<2x64xf32>
  return
}

// -----

func.func @glu_int_operands(%g: tensor<2x64xi32>) {
  // expected-error @+1 {{'decoda.glu' op operand #0 must be ranked tensor of 32-bit float or 16-bit float or bfloat16 type values, but got 'tensor<2x64xi32>'}}
  %h = decoda.glu %g, %g {kind = #decoda.glu<swiglu>} : tensor<2x64xi32>
  return
}

// -----

func.func @glu_wrong_attr_kind(%g: tensor<2x64xf32>) {
  // expected-error @+1 {{'decoda.glu' op attribute 'kind' failed to satisfy constraint}}
  %h = decoda.glu %g, %g {kind = #decoda.activation<silu>} : tensor<2x64xf32>
  return
}

// -----

func.func @softcap_zero(%x: tensor<2x64xf32>) {
  // expected-error @+1 {{'decoda.softcap' op cap must be positive (+inf for no cap), found 0.000000e+00}}
  %y = decoda.softcap %x {cap = 0.0 : f64} : tensor<2x64xf32>
  return
}

// -----

func.func @softcap_negative(%x: tensor<2x64xf32>) {
  // expected-error @+1 {{'decoda.softcap' op cap must be positive (+inf for no cap), found -3.000000e+01}}
  %y = decoda.softcap %x {cap = -30.0 : f64} : tensor<2x64xf32>
  return
}

// -----

func.func @softcap_nan(%x: tensor<2x64xf32>) {
  // expected-error @+1 {{'decoda.softcap' op cap must be positive (+inf for no cap), found nan}}
  %y = decoda.softcap %x {cap = 0x7FF8000000000000 : f64} : tensor<2x64xf32>
  return
}

// -----

//===----------------------------------------------------------------------===//
// Rotary embeddings
//===----------------------------------------------------------------------===//

func.func @rope_rank(%q: tensor<2x16x64xf32>) {
  // expected-error @+1 {{'decoda.rope' op input must be [B, T, H, D] (rank 4), found 'tensor<2x16x64xf32>'}}
  %y = decoda.rope %q : tensor<2x16x64xf32>
  return
}

// -----

func.func @rope_dynamic_head_dim(%q: tensor<2x16x8x?xf32>) {
  // expected-error @+1 {{'decoda.rope' op the head dim (dim 3 of the input) must be static}}
  %y = decoda.rope %q : tensor<2x16x8x?xf32>
  return
}

// -----

func.func @rope_rotary_dim_too_large(%q: tensor<2x16x8x64xf32>) {
  // expected-error @+1 {{'decoda.rope' op rotary_dim must be in [1, head dim = 64], found 128}}
  %y = decoda.rope %q {rotary_dim = 128 : i64} : tensor<2x16x8x64xf32>
  return
}

// -----

func.func @rope_rotary_dim_zero(%q: tensor<2x16x8x64xf32>) {
  // expected-error @+1 {{'decoda.rope' op rotary_dim must be in [1, head dim = 64], found 0}}
  %y = decoda.rope %q {rotary_dim = 0 : i64} : tensor<2x16x8x64xf32>
  return
}

// -----

func.func @rope_rotary_dim_negative(%q: tensor<2x16x8x64xf32>) {
  // expected-error @+1 {{'decoda.rope' op rotary_dim must be in [1, head dim = 64], found -2}}
  %y = decoda.rope %q {rotary_dim = -2 : i64} : tensor<2x16x8x64xf32>
  return
}

// -----

func.func @rope_rotary_dim_odd(%q: tensor<2x16x8x64xf32>) {
  // expected-error @+1 {{'decoda.rope' op rotary_dim must be even (features rotate in pairs), found 33}}
  %y = decoda.rope %q {rotary_dim = 33 : i64} : tensor<2x16x8x64xf32>
  return
}

// -----

// Without rotary_dim the whole (odd) head dim would rotate.
func.func @rope_odd_head_dim(%q: tensor<2x16x8x65xf32>) {
  // expected-error @+1 {{'decoda.rope' op rotary_dim must be even (features rotate in pairs), found 65}}
  %y = decoda.rope %q : tensor<2x16x8x65xf32>
  return
}

// -----

func.func @rope_theta_one(%q: tensor<2x16x8x64xf32>) {
  // expected-error @+1 {{'decoda.rope' op theta must be finite and > 1, found 1.000000e+00}}
  %y = decoda.rope %q {theta = 1.0 : f64} : tensor<2x16x8x64xf32>
  return
}

// -----

func.func @rope_theta_inf(%q: tensor<2x16x8x64xf32>) {
  // expected-error @+1 {{'decoda.rope' op theta must be finite and > 1, found INF}}
  %y = decoda.rope %q {theta = 0x7FF0000000000000 : f64} : tensor<2x16x8x64xf32>
  return
}

// -----

func.func @rope_positions_t_size(%q: tensor<2x16x8x64xf32>, %p: tensor<8xi64>) {
  // expected-error @+1 {{'decoda.rope' op positions size is 8, expected 16 (the sequence dim of the input)}}
  %y = decoda.rope %q positions(%p : tensor<8xi64>) : tensor<2x16x8x64xf32>
  return
}

// -----

func.func @rope_positions_batch(%q: tensor<2x16x8x64xf32>, %p: tensor<3x16xi64>) {
  // expected-error @+1 {{'decoda.rope' op positions dim 0 is 3, expected 2 (the batch dim of the input)}}
  %y = decoda.rope %q positions(%p : tensor<3x16xi64>) : tensor<2x16x8x64xf32>
  return
}

// -----

func.func @rope_positions_seq(%q: tensor<2x16x8x64xf32>, %p: tensor<2x8xi32>) {
  // expected-error @+1 {{'decoda.rope' op positions dim 1 is 8, expected 16 (the sequence dim of the input)}}
  %y = decoda.rope %q positions(%p : tensor<2x8xi32>) : tensor<2x16x8x64xf32>
  return
}

// -----

func.func @rope_positions_rank(%q: tensor<2x16x8x64xf32>, %p: tensor<2x16x1xi64>) {
  // expected-error @+1 {{'decoda.rope' op positions must be [T] or [B, T], found 'tensor<2x16x1xi64>'}}
  %y = decoda.rope %q positions(%p : tensor<2x16x1xi64>) : tensor<2x16x8x64xf32>
  return
}

// -----

func.func @rope_float_positions(%q: tensor<2x16x8x64xf32>, %p: tensor<16xf32>) {
  // expected-error @+1 {{'decoda.rope' op operand #1 must be ranked tensor of 32-bit signless integer or 64-bit signless integer values, but got 'tensor<16xf32>'}}
  %y = decoda.rope %q positions(%p : tensor<16xf32>) : tensor<2x16x8x64xf32>
  return
}

// -----

func.func @rope_unknown_layout(%q: tensor<2x16x8x64xf32>) {
  // expected-error @+2 {{expected ::mlir::decoda::RopeLayout to be one of: half_split, interleaved}}
  // expected-error @+1 {{failed to parse Decoda_RopeLayoutAttr parameter 'value'}}
  %y = decoda.rope %q {layout = #decoda.rope_layout<neox>} : tensor<2x16x8x64xf32>
  return
}

// -----

//===----------------------------------------------------------------------===//
// Attention: the shared configuration
//===----------------------------------------------------------------------===//

func.func @attention_zero_heads(%q: tensor<1x16x8x64xf32>, %k: tensor<1x16x2x64xf32>) {
  // expected-error @+1 {{'decoda.attention' op num_heads and num_kv_heads must be positive, found 8 and 0}}
  %o = decoda.attention %q, %k, %k {num_heads = 8 : i64, num_kv_heads = 0 : i64} : tensor<1x16x8x64xf32>, tensor<1x16x2x64xf32>, tensor<1x16x2x64xf32>
  return
}

// -----

func.func @attention_negative_heads(%q: tensor<1x16x8x64xf32>, %k: tensor<1x16x2x64xf32>) {
  // expected-error @+1 {{'decoda.attention' op num_heads and num_kv_heads must be positive, found -8 and 2}}
  %o = decoda.attention %q, %k, %k {num_heads = -8 : i64, num_kv_heads = 2 : i64} : tensor<1x16x8x64xf32>, tensor<1x16x2x64xf32>, tensor<1x16x2x64xf32>
  return
}

// -----

// 32 query heads cannot be spread over 6 KV heads.
func.func @attention_gqa_not_multiple(%q: tensor<1x16x32x64xf32>, %k: tensor<1x16x6x64xf32>) {
  // expected-error @+1 {{'decoda.attention' op num_heads (32) must be a multiple of num_kv_heads (6) so that each KV head serves a whole group of query heads}}
  %o = decoda.attention %q, %k, %k {num_heads = 32 : i64, num_kv_heads = 6 : i64} : tensor<1x16x32x64xf32>, tensor<1x16x6x64xf32>, tensor<1x16x6x64xf32>
  return
}

// -----

func.func @attention_quantize_scale_rank(%q: tensor<1x16x8x64xf32>, %k: tensor<1x16x8x64xf32>, %s: tensor<f32>, %v: tensor<1xf32>) {
  // expected-error @+1 {{'decoda.attention' op v_scale must be a rank-0 f32 tensor, found 'tensor<1xf32>'}}
  %o = decoda.attention %q, %k, %k quantize(%s, %s, %v : tensor<f32>, tensor<f32>, tensor<1xf32>) {num_heads = 8 : i64, num_kv_heads = 8 : i64} : tensor<1x16x8x64xf32>, tensor<1x16x8x64xf32>, tensor<1x16x8x64xf32>
  return
}

// -----

func.func @attention_quantize_not_f32(%q: tensor<1x16x8x64xf32>, %k: tensor<1x16x8x64xf32>, %s: tensor<f32>, %h: tensor<f16>) {
  // expected-error @+1 {{'decoda.attention' op operand #4 must be ranked tensor of 32-bit float values, but got 'tensor<f16>'}}
  %o = decoda.attention %q, %k, %k quantize(%s, %h, %s : tensor<f32>, tensor<f16>, tensor<f32>) {num_heads = 8 : i64, num_kv_heads = 8 : i64} : tensor<1x16x8x64xf32>, tensor<1x16x8x64xf32>, tensor<1x16x8x64xf32>
  return
}

// -----

// Only q_scale (the generic form can say so): all three or none.
func.func @attention_quantize_partial(%q: tensor<1x16x8x64xf32>, %k: tensor<1x16x8x64xf32>, %s: tensor<f32>) {
  // expected-error @+1 {{'decoda.attention' op quantize needs all three of q_scale, k_scale, v_scale, found 1}}
  %o = "decoda.attention"(%q, %k, %k, %s) <{num_heads = 8 : i64, num_kv_heads = 8 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 1, 0, 0>}> : (tensor<1x16x8x64xf32>, tensor<1x16x8x64xf32>, tensor<1x16x8x64xf32>, tensor<f32>) -> tensor<1x16x8x64xf32>
  return
}

// -----

func.func @attention_zero_scale(%q: tensor<1x16x8x64xf32>, %k: tensor<1x16x8x64xf32>) {
  // expected-error @+1 {{'decoda.attention' op scale must be finite and positive, found 0.000000e+00}}
  %o = decoda.attention %q, %k, %k {num_heads = 8 : i64, num_kv_heads = 8 : i64, scale = 0.0 : f64} : tensor<1x16x8x64xf32>, tensor<1x16x8x64xf32>, tensor<1x16x8x64xf32>
  return
}

// -----

func.func @attention_infinite_scale(%q: tensor<1x16x8x64xf32>, %k: tensor<1x16x8x64xf32>) {
  // expected-error @+1 {{'decoda.attention' op scale must be finite and positive, found INF}}
  %o = decoda.attention %q, %k, %k {num_heads = 8 : i64, num_kv_heads = 8 : i64, scale = 0x7FF0000000000000 : f64} : tensor<1x16x8x64xf32>, tensor<1x16x8x64xf32>, tensor<1x16x8x64xf32>
  return
}

// -----

func.func @attention_softcap_zero(%q: tensor<1x16x8x64xf32>, %k: tensor<1x16x8x64xf32>) {
  // expected-error @+1 {{'decoda.attention' op softcap must be positive, found 0.000000e+00}}
  %o = decoda.attention %q, %k, %k {num_heads = 8 : i64, num_kv_heads = 8 : i64, softcap = 0.0 : f64} : tensor<1x16x8x64xf32>, tensor<1x16x8x64xf32>, tensor<1x16x8x64xf32>
  return
}

// -----

func.func @attention_softcap_negative(%q: tensor<1x16x8x64xf32>, %k: tensor<1x16x8x64xf32>) {
  // expected-error @+1 {{'decoda.attention' op softcap must be positive, found -5.000000e+01}}
  %o = decoda.attention %q, %k, %k {num_heads = 8 : i64, num_kv_heads = 8 : i64, softcap = -50.0 : f64} : tensor<1x16x8x64xf32>, tensor<1x16x8x64xf32>, tensor<1x16x8x64xf32>
  return
}

// -----

func.func @attention_window_zero(%q: tensor<1x16x8x64xf32>, %k: tensor<1x16x8x64xf32>) {
  // expected-error @+1 {{'decoda.attention' op window must be positive, found 0}}
  %o = decoda.attention %q, %k, %k {num_heads = 8 : i64, num_kv_heads = 8 : i64, causal, window = 0 : i64} : tensor<1x16x8x64xf32>, tensor<1x16x8x64xf32>, tensor<1x16x8x64xf32>
  return
}

// -----

func.func @attention_window_negative(%q: tensor<1x16x8x64xf32>, %k: tensor<1x16x8x64xf32>) {
  // expected-error @+1 {{'decoda.attention' op window must be positive, found -128}}
  %o = decoda.attention %q, %k, %k {num_heads = 8 : i64, num_kv_heads = 8 : i64, causal, window = -128 : i64} : tensor<1x16x8x64xf32>, tensor<1x16x8x64xf32>, tensor<1x16x8x64xf32>
  return
}

// -----

func.func @attention_window_not_causal(%q: tensor<1x16x8x64xf32>, %k: tensor<1x16x8x64xf32>) {
  // expected-error @+1 {{'decoda.attention' op a sliding window needs 'causal' (it bounds how far back a query looks)}}
  %o = decoda.attention %q, %k, %k {num_heads = 8 : i64, num_kv_heads = 8 : i64, window = 128 : i64} : tensor<1x16x8x64xf32>, tensor<1x16x8x64xf32>, tensor<1x16x8x64xf32>
  return
}

// -----

func.func @attention_chunk_zero(%q: tensor<1x16x8x64xf32>, %k: tensor<1x16x8x64xf32>) {
  // expected-error @+1 {{'decoda.attention' op chunk_size must be positive, found 0}}
  %o = decoda.attention %q, %k, %k {num_heads = 8 : i64, num_kv_heads = 8 : i64, chunk_size = 0 : i64} : tensor<1x16x8x64xf32>, tensor<1x16x8x64xf32>, tensor<1x16x8x64xf32>
  return
}

// -----

func.func @attention_missing_num_kv_heads(%q: tensor<1x16x8x64xf32>, %k: tensor<1x16x8x64xf32>) {
  // expected-error @+1 {{'decoda.attention' op requires attribute 'num_kv_heads'}}
  %o = decoda.attention %q, %k, %k {num_heads = 8 : i64} : tensor<1x16x8x64xf32>, tensor<1x16x8x64xf32>, tensor<1x16x8x64xf32>
  return
}

// -----

//===----------------------------------------------------------------------===//
// Attention: query, key, value
//===----------------------------------------------------------------------===//

// Type inference needs rank-4 query and value; it runs first.
func.func @attention_query_rank(%q: tensor<16x8x64xf32>, %k: tensor<1x16x8x64xf32>) {
  // expected-error @+1 {{'decoda.attention' expects query [B, Tq, num_heads, D] and value [B, Tk, num_kv_heads, Dv] of rank 4, found 'tensor<16x8x64xf32>' and 'tensor<1x16x8x64xf32>'}}
  %o = decoda.attention %q, %k, %k {num_heads = 8 : i64, num_kv_heads = 8 : i64} : tensor<16x8x64xf32>, tensor<1x16x8x64xf32>, tensor<1x16x8x64xf32>
  return
}

// -----

func.func @attention_key_rank(%q: tensor<1x16x8x64xf32>, %k: tensor<16x8x64xf32>) {
  // expected-error @+1 {{'decoda.attention' op key [B, T, num_kv_heads, D] must have rank 4, found 'tensor<16x8x64xf32>'}}
  %o = decoda.attention %q, %k, %q {num_heads = 8 : i64, num_kv_heads = 8 : i64} : tensor<1x16x8x64xf32>, tensor<16x8x64xf32>, tensor<1x16x8x64xf32>
  return
}

// -----

func.func @attention_query_heads(%q: tensor<1x16x4x64xf32>, %k: tensor<1x16x2x64xf32>) {
  // expected-error @+1 {{'decoda.attention' op query has 4 heads (dim 2), expected num_heads = 8}}
  %o = decoda.attention %q, %k, %k {num_heads = 8 : i64, num_kv_heads = 2 : i64} : tensor<1x16x4x64xf32>, tensor<1x16x2x64xf32>, tensor<1x16x2x64xf32>
  return
}

// -----

func.func @attention_dynamic_query_heads(%q: tensor<1x16x?x64xf32>, %k: tensor<1x16x2x64xf32>) {
  // expected-error @+1 {{'decoda.attention' op query has ? heads (dim 2), expected num_heads = 8}}
  %o = decoda.attention %q, %k, %k {num_heads = 8 : i64, num_kv_heads = 2 : i64} : tensor<1x16x?x64xf32>, tensor<1x16x2x64xf32>, tensor<1x16x2x64xf32>
  return
}

// -----

func.func @attention_key_heads(%q: tensor<1x16x8x64xf32>, %k: tensor<1x16x4x64xf32>, %v: tensor<1x16x2x64xf32>) {
  // expected-error @+1 {{'decoda.attention' op key has 4 heads (dim 2), expected num_kv_heads = 2}}
  %o = decoda.attention %q, %k, %v {num_heads = 8 : i64, num_kv_heads = 2 : i64} : tensor<1x16x8x64xf32>, tensor<1x16x4x64xf32>, tensor<1x16x2x64xf32>
  return
}

// -----

func.func @attention_value_heads(%q: tensor<1x16x8x64xf32>, %k: tensor<1x16x2x64xf32>, %v: tensor<1x16x8x64xf32>) {
  // expected-error @+1 {{'decoda.attention' op value has 8 heads (dim 2), expected num_kv_heads = 2}}
  %o = decoda.attention %q, %k, %v {num_heads = 8 : i64, num_kv_heads = 2 : i64} : tensor<1x16x8x64xf32>, tensor<1x16x2x64xf32>, tensor<1x16x8x64xf32>
  return
}

// -----

func.func @attention_dynamic_query_head_dim(%q: tensor<1x16x8x?xf32>, %k: tensor<1x16x8x64xf32>) {
  // expected-error @+1 {{'decoda.attention' op the query head dim must be static}}
  %o = decoda.attention %q, %k, %k {num_heads = 8 : i64, num_kv_heads = 8 : i64} : tensor<1x16x8x?xf32>, tensor<1x16x8x64xf32>, tensor<1x16x8x64xf32>
  return
}

// -----

func.func @attention_dynamic_value_head_dim(%q: tensor<1x16x8x64xf32>, %k: tensor<1x16x8x64xf32>, %v: tensor<1x16x8x?xf32>) {
  // expected-error @+1 {{'decoda.attention' op the value head dim must be static}}
  %o = decoda.attention %q, %k, %v {num_heads = 8 : i64, num_kv_heads = 8 : i64} : tensor<1x16x8x64xf32>, tensor<1x16x8x64xf32>, tensor<1x16x8x?xf32>
  return
}

// -----

func.func @attention_key_head_dim(%q: tensor<1x16x8x64xf32>, %k: tensor<1x16x8x32xf32>) {
  // expected-error @+1 {{'decoda.attention' op key head dim is 32, expected 64 (the query head dim)}}
  %o = decoda.attention %q, %k, %k {num_heads = 8 : i64, num_kv_heads = 8 : i64} : tensor<1x16x8x64xf32>, tensor<1x16x8x32xf32>, tensor<1x16x8x32xf32>
  return
}

// -----

func.func @attention_key_batch(%q: tensor<1x16x8x64xf32>, %k: tensor<2x16x8x64xf32>, %v: tensor<1x16x8x64xf32>) {
  // expected-error @+1 {{'decoda.attention' op key batch is 2, expected 1 (the query batch)}}
  %o = decoda.attention %q, %k, %v {num_heads = 8 : i64, num_kv_heads = 8 : i64} : tensor<1x16x8x64xf32>, tensor<2x16x8x64xf32>, tensor<1x16x8x64xf32>
  return
}

// -----

func.func @attention_value_batch(%q: tensor<1x16x8x64xf32>, %k: tensor<1x16x8x64xf32>, %v: tensor<2x16x8x64xf32>) {
  // expected-error @+1 {{'decoda.attention' op value batch is 2, expected 1 (the query batch)}}
  %o = decoda.attention %q, %k, %v {num_heads = 8 : i64, num_kv_heads = 8 : i64} : tensor<1x16x8x64xf32>, tensor<1x16x8x64xf32>, tensor<2x16x8x64xf32>
  return
}

// -----

func.func @attention_value_length(%q: tensor<1x16x8x64xf32>, %k: tensor<1x32x8x64xf32>, %v: tensor<1x16x8x64xf32>) {
  // expected-error @+1 {{'decoda.attention' op value length is 16, expected 32 (the key length)}}
  %o = decoda.attention %q, %k, %v {num_heads = 8 : i64, num_kv_heads = 8 : i64} : tensor<1x16x8x64xf32>, tensor<1x32x8x64xf32>, tensor<1x16x8x64xf32>
  return
}

// -----

func.func @attention_key_element_type(%q: tensor<1x16x8x64xf32>, %k: tensor<1x16x8x64xf16>, %v: tensor<1x16x8x64xf32>) {
  // expected-error @+1 {{'decoda.attention' op key element type 'f16' must match query ('f32')}}
  %o = decoda.attention %q, %k, %v {num_heads = 8 : i64, num_kv_heads = 8 : i64} : tensor<1x16x8x64xf32>, tensor<1x16x8x64xf16>, tensor<1x16x8x64xf32>
  return
}

// -----

func.func @attention_value_element_type(%q: tensor<1x16x8x64xf32>, %k: tensor<1x16x8x64xf32>, %v: tensor<1x16x8x64xbf16>) {
  // expected-error @+1 {{'decoda.attention' op value element type 'bf16' must match query ('f32')}}
  %o = decoda.attention %q, %k, %v {num_heads = 8 : i64, num_kv_heads = 8 : i64} : tensor<1x16x8x64xf32>, tensor<1x16x8x64xf32>, tensor<1x16x8x64xbf16>
  return
}

// -----

func.func @attention_sinks_rank(%q: tensor<1x16x8x64xf32>, %k: tensor<1x16x8x64xf32>, %s: tensor<1x8xf32>) {
  // expected-error @+1 {{'decoda.attention' op sinks must have rank 1, found 'tensor<1x8xf32>'}}
  %o = decoda.attention %q, %k, %k sinks(%s : tensor<1x8xf32>) {num_heads = 8 : i64, num_kv_heads = 8 : i64} : tensor<1x16x8x64xf32>, tensor<1x16x8x64xf32>, tensor<1x16x8x64xf32>
  return
}

// -----

func.func @attention_sinks_size(%q: tensor<1x16x8x64xf32>, %k: tensor<1x16x2x64xf32>, %s: tensor<2xf32>) {
  // expected-error @+1 {{'decoda.attention' op sinks size is 2, expected 8 (num_heads)}}
  %o = decoda.attention %q, %k, %k sinks(%s : tensor<2xf32>) {num_heads = 8 : i64, num_kv_heads = 2 : i64} : tensor<1x16x8x64xf32>, tensor<1x16x2x64xf32>, tensor<1x16x2x64xf32>
  return
}

// -----

func.func @attention_more_queries_than_keys(%q: tensor<1x16x8x64xf32>, %k: tensor<1x8x8x64xf32>) {
  // expected-error @+1 {{'decoda.attention' op has 16 queries but only 8 keys; queries are aligned to the end of the keys, so Tq <= Tk}}
  %o = decoda.attention %q, %k, %k {num_heads = 8 : i64, num_kv_heads = 8 : i64} : tensor<1x16x8x64xf32>, tensor<1x8x8x64xf32>, tensor<1x8x8x64xf32>
  return
}

// -----

func.func @attention_mask_rank(%q: tensor<1x16x8x64xf32>, %k: tensor<1x16x8x64xf32>, %m: tensor<16x16xf32>) {
  // expected-error @+1 {{'decoda.attention' op mask [B|1, num_heads|1, Tq, Tk] must have rank 4, found 'tensor<16x16xf32>'}}
  %o = decoda.attention %q, %k, %k mask(%m : tensor<16x16xf32>) {num_heads = 8 : i64, num_kv_heads = 8 : i64} : tensor<1x16x8x64xf32>, tensor<1x16x8x64xf32>, tensor<1x16x8x64xf32>
  return
}

// -----

func.func @attention_mask_batch(%q: tensor<2x16x8x64xf32>, %k: tensor<2x16x8x64xf32>, %m: tensor<3x1x16x16xf32>) {
  // expected-error @+1 {{'decoda.attention' op mask dim 0 is 3, expected 1 or 2 (batch)}}
  %o = decoda.attention %q, %k, %k mask(%m : tensor<3x1x16x16xf32>) {num_heads = 8 : i64, num_kv_heads = 8 : i64} : tensor<2x16x8x64xf32>, tensor<2x16x8x64xf32>, tensor<2x16x8x64xf32>
  return
}

// -----

func.func @attention_mask_heads(%q: tensor<1x16x8x64xf32>, %k: tensor<1x16x2x64xf32>, %m: tensor<1x2x16x16xf32>) {
  // expected-error @+1 {{'decoda.attention' op mask dim 1 is 2, expected 1 or 8 (num_heads)}}
  %o = decoda.attention %q, %k, %k mask(%m : tensor<1x2x16x16xf32>) {num_heads = 8 : i64, num_kv_heads = 2 : i64} : tensor<1x16x8x64xf32>, tensor<1x16x2x64xf32>, tensor<1x16x2x64xf32>
  return
}

// -----

func.func @attention_mask_tq(%q: tensor<1x8x8x64xf32>, %k: tensor<1x16x8x64xf32>, %m: tensor<1x1x16x16xf32>) {
  // expected-error @+1 {{'decoda.attention' op mask dim 2 is 16, expected 8 (Tq)}}
  %o = decoda.attention %q, %k, %k mask(%m : tensor<1x1x16x16xf32>) {num_heads = 8 : i64, num_kv_heads = 8 : i64} : tensor<1x8x8x64xf32>, tensor<1x16x8x64xf32>, tensor<1x16x8x64xf32>
  return
}

// -----

// A size-1 Tk dim does not broadcast: only the batch and head dims do.
func.func @attention_mask_tk(%q: tensor<1x16x8x64xf32>, %k: tensor<1x16x8x64xf32>, %m: tensor<1x1x16x1xf32>) {
  // expected-error @+1 {{'decoda.attention' op mask dim 3 is 1, expected 16 (Tk)}}
  %o = decoda.attention %q, %k, %k mask(%m : tensor<1x1x16x1xf32>) {num_heads = 8 : i64, num_kv_heads = 8 : i64} : tensor<1x16x8x64xf32>, tensor<1x16x8x64xf32>, tensor<1x16x8x64xf32>
  return
}

// -----

func.func @attention_int_mask(%q: tensor<1x16x8x64xf32>, %k: tensor<1x16x8x64xf32>, %m: tensor<1x1x16x16xi1>) {
  // expected-error @+1 {{'decoda.attention' op operand #3 must be ranked tensor of 32-bit float or 16-bit float or bfloat16 type values, but got 'tensor<1x1x16x16xi1>'}}
  %o = decoda.attention %q, %k, %k mask(%m : tensor<1x1x16x16xi1>) {num_heads = 8 : i64, num_kv_heads = 8 : i64} : tensor<1x16x8x64xf32>, tensor<1x16x8x64xf32>, tensor<1x16x8x64xf32>
  return
}

// -----

func.func @attention_segment_ids_rank(%q: tensor<2x16x8x64xf32>, %k: tensor<2x16x8x64xf32>, %s: tensor<16xi32>) {
  // expected-error @+1 {{'decoda.attention' op segment_ids [B, Tk] must have rank 2, found 'tensor<16xi32>'}}
  %o = decoda.attention %q, %k, %k segment_ids(%s : tensor<16xi32>) {num_heads = 8 : i64, num_kv_heads = 8 : i64} : tensor<2x16x8x64xf32>, tensor<2x16x8x64xf32>, tensor<2x16x8x64xf32>
  return
}

// -----

func.func @attention_segment_ids_batch(%q: tensor<2x16x8x64xf32>, %k: tensor<2x16x8x64xf32>, %s: tensor<1x16xi32>) {
  // expected-error @+1 {{'decoda.attention' op segment_ids dim 0 is 1, expected 2 (the batch)}}
  %o = decoda.attention %q, %k, %k segment_ids(%s : tensor<1x16xi32>) {num_heads = 8 : i64, num_kv_heads = 8 : i64} : tensor<2x16x8x64xf32>, tensor<2x16x8x64xf32>, tensor<2x16x8x64xf32>
  return
}

// -----

func.func @attention_segment_ids_length(%q: tensor<2x8x8x64xf32>, %k: tensor<2x16x8x64xf32>, %s: tensor<2x8xi64>) {
  // expected-error @+1 {{'decoda.attention' op segment_ids dim 1 is 8, expected 16 (the key length Tk)}}
  %o = decoda.attention %q, %k, %k segment_ids(%s : tensor<2x8xi64>) {num_heads = 8 : i64, num_kv_heads = 8 : i64} : tensor<2x8x8x64xf32>, tensor<2x16x8x64xf32>, tensor<2x16x8x64xf32>
  return
}

// -----

func.func @attention_float_segment_ids(%q: tensor<2x16x8x64xf32>, %k: tensor<2x16x8x64xf32>, %s: tensor<2x16xf32>) {
  // expected-error @+1 {{'decoda.attention' op operand #3 must be ranked tensor of 32-bit signless integer or 64-bit signless integer values, but got 'tensor<2x16xf32>'}}
  %o = decoda.attention %q, %k, %k segment_ids(%s : tensor<2x16xf32>) {num_heads = 8 : i64, num_kv_heads = 8 : i64} : tensor<2x16x8x64xf32>, tensor<2x16x8x64xf32>, tensor<2x16x8x64xf32>
  return
}

// -----

func.func @attention_result_type(%q: tensor<1x16x8x64xf32>, %k: tensor<1x16x8x64xf32>) {
  // expected-error @+2 {{'decoda.attention' op inferred type(s) 'tensor<1x16x8x64xf32>' are incompatible with return type(s) of operation 'tensor<1x16x8x32xf32>'}}
  // expected-error @+1 {{'decoda.attention' op failed to infer returned types}}
  %o = "decoda.attention"(%q, %k, %k) <{num_heads = 8 : i64, num_kv_heads = 8 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0>}> : (tensor<1x16x8x64xf32>, tensor<1x16x8x64xf32>, tensor<1x16x8x64xf32>) -> tensor<1x16x8x32xf32>
  return
}

// -----

//===----------------------------------------------------------------------===//
// Cached attention
//===----------------------------------------------------------------------===//

func.func @cached_attention_quantize_scale_rank(%q: tensor<1x1x8x64xf32>, %k: tensor<1x1x2x64xf32>, %kc: tensor<1x512x2x64xf32>, %off: index, %s: tensor<f32>, %v: tensor<1xf32>) {
  // expected-error @+1 {{'decoda.cached_attention' op k_scale must be a rank-0 f32 tensor, found 'tensor<1xf32>'}}
  %o, %kc2, %vc2 = decoda.cached_attention %q, %k, %k, %kc, %kc[%off] quantize(%s, %v, %s : tensor<f32>, tensor<1xf32>, tensor<f32>) {num_heads = 8 : i64, num_kv_heads = 2 : i64, causal} : tensor<1x1x8x64xf32>, tensor<1x1x2x64xf32>, tensor<1x1x2x64xf32>, tensor<1x512x2x64xf32>, tensor<1x512x2x64xf32>
  return
}

// -----

func.func @cached_attention_quantize_not_f32(%q: tensor<1x1x8x64xf32>, %k: tensor<1x1x2x64xf32>, %kc: tensor<1x512x2x64xf32>, %off: index, %s: tensor<f32>, %h: tensor<f16>) {
  // expected-error @+1 {{'decoda.cached_attention' op operand #8 must be ranked tensor of 32-bit float values, but got 'tensor<f16>'}}
  %o, %kc2, %vc2 = decoda.cached_attention %q, %k, %k, %kc, %kc[%off] quantize(%s, %s, %h : tensor<f32>, tensor<f32>, tensor<f16>) {num_heads = 8 : i64, num_kv_heads = 2 : i64, causal} : tensor<1x1x8x64xf32>, tensor<1x1x2x64xf32>, tensor<1x1x2x64xf32>, tensor<1x512x2x64xf32>, tensor<1x512x2x64xf32>
  return
}

// -----

// Only two of the three scales (the generic form can say so).
func.func @cached_attention_quantize_two_scales(%q: tensor<1x1x8x64xf32>, %k: tensor<1x1x2x64xf32>, %kc: tensor<1x512x2x64xf32>, %off: index, %s: tensor<f32>) {
  // expected-error @+1 {{'decoda.cached_attention' op quantize needs all three of q_scale, k_scale, v_scale, found 2}}
  %o:3 = "decoda.cached_attention"(%q, %k, %k, %kc, %kc, %off, %s, %s) <{num_heads = 8 : i64, num_kv_heads = 2 : i64, causal, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 0, 1, 1, 0>}> : (tensor<1x1x8x64xf32>, tensor<1x1x2x64xf32>, tensor<1x1x2x64xf32>, tensor<1x512x2x64xf32>, tensor<1x512x2x64xf32>, index, tensor<f32>, tensor<f32>) -> (tensor<1x1x8x64xf32>, tensor<1x512x2x64xf32>, tensor<1x512x2x64xf32>)
  return
}

// -----

func.func @cached_attention_window_not_causal(%q: tensor<1x1x8x64xf32>, %k: tensor<1x1x2x64xf32>, %kc: tensor<1x512x2x64xf32>, %off: index) {
  // expected-error @+1 {{'decoda.cached_attention' op a sliding window needs 'causal' (it bounds how far back a query looks)}}
  %o, %kc2, %vc2 = decoda.cached_attention %q, %k, %k, %kc, %kc[%off] {num_heads = 8 : i64, num_kv_heads = 2 : i64, window = 64 : i64} : tensor<1x1x8x64xf32>, tensor<1x1x2x64xf32>, tensor<1x1x2x64xf32>, tensor<1x512x2x64xf32>, tensor<1x512x2x64xf32>
  return
}

// -----

func.func @cached_attention_gqa_not_multiple(%q: tensor<1x1x32x64xf32>, %k: tensor<1x1x6x64xf32>, %kc: tensor<1x512x6x64xf32>, %off: index) {
  // expected-error @+1 {{'decoda.cached_attention' op num_heads (32) must be a multiple of num_kv_heads (6) so that each KV head serves a whole group of query heads}}
  %o, %kc2, %vc2 = decoda.cached_attention %q, %k, %k, %kc, %kc[%off] {num_heads = 32 : i64, num_kv_heads = 6 : i64, causal} : tensor<1x1x32x64xf32>, tensor<1x1x6x64xf32>, tensor<1x1x6x64xf32>, tensor<1x512x6x64xf32>, tensor<1x512x6x64xf32>
  return
}

// -----

func.func @cached_attention_query_rank(%q: tensor<1x8x64xf32>, %k: tensor<1x1x2x64xf32>, %kc: tensor<1x512x2x64xf32>, %off: index) {
  // expected-error @+1 {{'decoda.cached_attention' expects query [B, Tq, num_heads, D] and value [B, Tk, num_kv_heads, Dv] of rank 4, found 'tensor<1x8x64xf32>' and 'tensor<1x1x2x64xf32>'}}
  %o, %kc2, %vc2 = decoda.cached_attention %q, %k, %k, %kc, %kc[%off] {num_heads = 8 : i64, num_kv_heads = 2 : i64, causal} : tensor<1x8x64xf32>, tensor<1x1x2x64xf32>, tensor<1x1x2x64xf32>, tensor<1x512x2x64xf32>, tensor<1x512x2x64xf32>
  return
}

// -----

func.func @cached_attention_new_key_heads(%q: tensor<1x1x8x64xf32>, %k: tensor<1x1x4x64xf32>, %v: tensor<1x1x2x64xf32>, %kc: tensor<1x512x2x64xf32>, %off: index) {
  // expected-error @+1 {{'decoda.cached_attention' op key has 4 heads (dim 2), expected num_kv_heads = 2}}
  %o, %kc2, %vc2 = decoda.cached_attention %q, %k, %v, %kc, %kc[%off] {num_heads = 8 : i64, num_kv_heads = 2 : i64, causal} : tensor<1x1x8x64xf32>, tensor<1x1x4x64xf32>, tensor<1x1x2x64xf32>, tensor<1x512x2x64xf32>, tensor<1x512x2x64xf32>
  return
}

// -----

func.func @cached_attention_key_cache_rank(%q: tensor<1x1x8x64xf32>, %k: tensor<1x1x2x64xf32>, %kc: tensor<512x2x64xf32>, %vc: tensor<1x512x2x64xf32>, %off: index) {
  // expected-error @+1 {{'decoda.cached_attention' op key_cache [B, T, num_kv_heads, D] must have rank 4, found 'tensor<512x2x64xf32>'}}
  %o, %kc2, %vc2 = decoda.cached_attention %q, %k, %k, %kc, %vc[%off] {num_heads = 8 : i64, num_kv_heads = 2 : i64, causal} : tensor<1x1x8x64xf32>, tensor<1x1x2x64xf32>, tensor<1x1x2x64xf32>, tensor<512x2x64xf32>, tensor<1x512x2x64xf32>
  return
}

// -----

func.func @cached_attention_value_cache_rank(%q: tensor<1x1x8x64xf32>, %k: tensor<1x1x2x64xf32>, %kc: tensor<1x512x2x64xf32>, %vc: tensor<512x2x64xf32>, %off: index) {
  // expected-error @+1 {{'decoda.cached_attention' op value_cache [B, T, num_kv_heads, Dv] must have rank 4, found 'tensor<512x2x64xf32>'}}
  %o, %kc2, %vc2 = decoda.cached_attention %q, %k, %k, %kc, %vc[%off] {num_heads = 8 : i64, num_kv_heads = 2 : i64, causal} : tensor<1x1x8x64xf32>, tensor<1x1x2x64xf32>, tensor<1x1x2x64xf32>, tensor<1x512x2x64xf32>, tensor<512x2x64xf32>
  return
}

// -----

func.func @cached_attention_key_cache_heads(%q: tensor<1x1x8x64xf32>, %k: tensor<1x1x2x64xf32>, %kc: tensor<1x512x8x64xf32>, %vc: tensor<1x512x2x64xf32>, %off: index) {
  // expected-error @+1 {{'decoda.cached_attention' op key_cache has 8 heads (dim 2), expected num_kv_heads = 2}}
  %o, %kc2, %vc2 = decoda.cached_attention %q, %k, %k, %kc, %vc[%off] {num_heads = 8 : i64, num_kv_heads = 2 : i64, causal} : tensor<1x1x8x64xf32>, tensor<1x1x2x64xf32>, tensor<1x1x2x64xf32>, tensor<1x512x8x64xf32>, tensor<1x512x2x64xf32>
  return
}

// -----

func.func @cached_attention_value_cache_heads(%q: tensor<1x1x8x64xf32>, %k: tensor<1x1x2x64xf32>, %kc: tensor<1x512x2x64xf32>, %vc: tensor<1x512x1x64xf32>, %off: index) {
  // expected-error @+1 {{'decoda.cached_attention' op value_cache has 1 heads (dim 2), expected num_kv_heads = 2}}
  %o, %kc2, %vc2 = decoda.cached_attention %q, %k, %k, %kc, %vc[%off] {num_heads = 8 : i64, num_kv_heads = 2 : i64, causal} : tensor<1x1x8x64xf32>, tensor<1x1x2x64xf32>, tensor<1x1x2x64xf32>, tensor<1x512x2x64xf32>, tensor<1x512x1x64xf32>
  return
}

// -----

func.func @cached_attention_key_cache_head_dim(%q: tensor<1x1x8x64xf32>, %k: tensor<1x1x2x64xf32>, %kc: tensor<1x512x2x32xf32>, %vc: tensor<1x512x2x64xf32>, %off: index) {
  // expected-error @+1 {{'decoda.cached_attention' op key_cache head dim is 32, expected 64 (the query head dim)}}
  %o, %kc2, %vc2 = decoda.cached_attention %q, %k, %k, %kc, %vc[%off] {num_heads = 8 : i64, num_kv_heads = 2 : i64, causal} : tensor<1x1x8x64xf32>, tensor<1x1x2x64xf32>, tensor<1x1x2x64xf32>, tensor<1x512x2x32xf32>, tensor<1x512x2x64xf32>
  return
}

// -----

func.func @cached_attention_key_cache_batch(%q: tensor<1x1x8x64xf32>, %k: tensor<1x1x2x64xf32>, %kc: tensor<4x512x2x64xf32>, %vc: tensor<1x512x2x64xf32>, %off: index) {
  // expected-error @+1 {{'decoda.cached_attention' op key_cache batch is 4, expected 1 (the query batch)}}
  %o, %kc2, %vc2 = decoda.cached_attention %q, %k, %k, %kc, %vc[%off] {num_heads = 8 : i64, num_kv_heads = 2 : i64, causal} : tensor<1x1x8x64xf32>, tensor<1x1x2x64xf32>, tensor<1x1x2x64xf32>, tensor<4x512x2x64xf32>, tensor<1x512x2x64xf32>
  return
}

// -----

func.func @cached_attention_cache_capacities(%q: tensor<1x1x8x64xf32>, %k: tensor<1x1x2x64xf32>, %kc: tensor<1x512x2x64xf32>, %vc: tensor<1x256x2x64xf32>, %off: index) {
  // expected-error @+1 {{'decoda.cached_attention' op value_cache length is 256, expected 512 (the key_cache length)}}
  %o, %kc2, %vc2 = decoda.cached_attention %q, %k, %k, %kc, %vc[%off] {num_heads = 8 : i64, num_kv_heads = 2 : i64, causal} : tensor<1x1x8x64xf32>, tensor<1x1x2x64xf32>, tensor<1x1x2x64xf32>, tensor<1x512x2x64xf32>, tensor<1x256x2x64xf32>
  return
}

// -----

func.func @cached_attention_cache_element_type(%q: tensor<1x1x8x64xf32>, %k: tensor<1x1x2x64xf32>, %kc: tensor<1x512x2x64xf16>, %vc: tensor<1x512x2x64xf32>, %off: index) {
  // expected-error @+1 {{'decoda.cached_attention' op key_cache element type 'f16' must match query ('f32')}}
  %o, %kc2, %vc2 = decoda.cached_attention %q, %k, %k, %kc, %vc[%off] {num_heads = 8 : i64, num_kv_heads = 2 : i64, causal} : tensor<1x1x8x64xf32>, tensor<1x1x2x64xf32>, tensor<1x1x2x64xf32>, tensor<1x512x2x64xf16>, tensor<1x512x2x64xf32>
  return
}

// -----

func.func @cached_attention_sinks_size(%q: tensor<1x1x8x64xf32>, %k: tensor<1x1x2x64xf32>, %kc: tensor<1x512x2x64xf32>, %off: index, %s: tensor<2xf32>) {
  // expected-error @+1 {{'decoda.cached_attention' op sinks size is 2, expected 8 (num_heads)}}
  %o, %kc2, %vc2 = decoda.cached_attention %q, %k, %k, %kc, %kc[%off] sinks(%s : tensor<2xf32>) {num_heads = 8 : i64, num_kv_heads = 2 : i64, causal} : tensor<1x1x8x64xf32>, tensor<1x1x2x64xf32>, tensor<1x1x2x64xf32>, tensor<1x512x2x64xf32>, tensor<1x512x2x64xf32>
  return
}

// -----

func.func @cached_attention_new_key_length(%q: tensor<1x1x8x64xf32>, %k: tensor<1x2x2x64xf32>, %kc: tensor<1x512x2x64xf32>, %off: index) {
  // expected-error @+1 {{'decoda.cached_attention' op new key length is 2, expected 1 (the number of queries)}}
  %o, %kc2, %vc2 = decoda.cached_attention %q, %k, %k, %kc, %kc[%off] {num_heads = 8 : i64, num_kv_heads = 2 : i64, causal} : tensor<1x1x8x64xf32>, tensor<1x2x2x64xf32>, tensor<1x2x2x64xf32>, tensor<1x512x2x64xf32>, tensor<1x512x2x64xf32>
  return
}

// -----

func.func @cached_attention_value_cache_head_dim(%q: tensor<1x1x8x64xf32>, %k: tensor<1x1x2x64xf32>, %v: tensor<1x1x2x32xf32>, %kc: tensor<1x512x2x64xf32>, %vc: tensor<1x512x2x64xf32>, %off: index) {
  // expected-error @+1 {{'decoda.cached_attention' op value_cache head dim is 64, expected 32 (the value head dim)}}
  %o, %kc2, %vc2 = decoda.cached_attention %q, %k, %v, %kc, %vc[%off] {num_heads = 8 : i64, num_kv_heads = 2 : i64, causal} : tensor<1x1x8x64xf32>, tensor<1x1x2x64xf32>, tensor<1x1x2x32xf32>, tensor<1x512x2x64xf32>, tensor<1x512x2x64xf32>
  return
}

// -----

func.func @cached_attention_overflow(%q: tensor<1x16x8x64xf32>, %k: tensor<1x16x2x64xf32>, %kc: tensor<1x8x2x64xf32>, %off: index) {
  // expected-error @+1 {{'decoda.cached_attention' op appends 16 tokens to a cache with room for only 8}}
  %o, %kc2, %vc2 = decoda.cached_attention %q, %k, %k, %kc, %kc[%off] {num_heads = 8 : i64, num_kv_heads = 2 : i64, causal} : tensor<1x16x8x64xf32>, tensor<1x16x2x64xf32>, tensor<1x16x2x64xf32>, tensor<1x8x2x64xf32>, tensor<1x8x2x64xf32>
  return
}

// -----

// ODS: the offset is an index.
func.func @cached_attention_offset_type(%q: tensor<1x1x8x64xf32>, %k: tensor<1x1x2x64xf32>, %kc: tensor<1x512x2x64xf32>, %off: i64) {
  // expected-note @-1 {{prior use here}}
  // expected-error @+1 {{use of value '%off' expects different type than prior uses: 'index' vs 'i64'}}
  %o, %kc2, %vc2 = decoda.cached_attention %q, %k, %k, %kc, %kc[%off] {num_heads = 8 : i64, num_kv_heads = 2 : i64, causal} : tensor<1x1x8x64xf32>, tensor<1x1x2x64xf32>, tensor<1x1x2x64xf32>, tensor<1x512x2x64xf32>, tensor<1x512x2x64xf32>
  return
}

// -----

//===----------------------------------------------------------------------===//
// Multi-head latent attention
//===----------------------------------------------------------------------===//

func.func @mla_infer_ranks(%qn: tensor<16x4x32xf32>, %qr: tensor<1x16x4x16xf32>, %c: tensor<1x16x64xf32>, %kr: tensor<1x16x16xf32>, %wuk: tensor<4x32x64xf32>, %wuv: tensor<4x32x64xf32>) {
  // expected-error @+1 {{'decoda.mla' expects q_nope [B, Tq, H, Dn] and w_uv [H, Dv, Dc], found 'tensor<16x4x32xf32>' and 'tensor<4x32x64xf32>'}}
  %o = decoda.mla %qn, %qr, %c, %kr, %wuk, %wuv {num_heads = 4 : i64} : tensor<16x4x32xf32>, tensor<1x16x4x16xf32>, tensor<1x16x64xf32>, tensor<1x16x16xf32>, tensor<4x32x64xf32>, tensor<4x32x64xf32>
  return
}

// -----

func.func @mla_zero_heads(%qn: tensor<1x16x4x32xf32>, %qr: tensor<1x16x4x16xf32>, %c: tensor<1x16x64xf32>, %kr: tensor<1x16x16xf32>, %wuk: tensor<4x32x64xf32>, %wuv: tensor<4x32x64xf32>) {
  // expected-error @+1 {{'decoda.mla' op num_heads must be positive, found 0}}
  %o = decoda.mla %qn, %qr, %c, %kr, %wuk, %wuv {num_heads = 0 : i64} : tensor<1x16x4x32xf32>, tensor<1x16x4x16xf32>, tensor<1x16x64xf32>, tensor<1x16x16xf32>, tensor<4x32x64xf32>, tensor<4x32x64xf32>
  return
}

// -----

func.func @mla_negative_scale(%qn: tensor<1x16x4x32xf32>, %qr: tensor<1x16x4x16xf32>, %c: tensor<1x16x64xf32>, %kr: tensor<1x16x16xf32>, %wuk: tensor<4x32x64xf32>, %wuv: tensor<4x32x64xf32>) {
  // expected-error @+1 {{'decoda.mla' op scale must be finite and positive, found -1.000000e-01}}
  %o = decoda.mla %qn, %qr, %c, %kr, %wuk, %wuv {num_heads = 4 : i64, scale = -0.1 : f64} : tensor<1x16x4x32xf32>, tensor<1x16x4x16xf32>, tensor<1x16x64xf32>, tensor<1x16x16xf32>, tensor<4x32x64xf32>, tensor<4x32x64xf32>
  return
}

// -----

func.func @mla_q_rope_rank(%qn: tensor<1x16x4x32xf32>, %qr: tensor<1x16x64xf32>, %c: tensor<1x16x64xf32>, %kr: tensor<1x16x16xf32>, %wuk: tensor<4x32x64xf32>, %wuv: tensor<4x32x64xf32>) {
  // expected-error @+1 {{'decoda.mla' op q_rope [B, Tq, H, Dr] must have rank 4, found 'tensor<1x16x64xf32>'}}
  %o = decoda.mla %qn, %qr, %c, %kr, %wuk, %wuv {num_heads = 4 : i64} : tensor<1x16x4x32xf32>, tensor<1x16x64xf32>, tensor<1x16x64xf32>, tensor<1x16x16xf32>, tensor<4x32x64xf32>, tensor<4x32x64xf32>
  return
}

// -----

func.func @mla_latent_rank(%qn: tensor<1x16x4x32xf32>, %qr: tensor<1x16x4x16xf32>, %c: tensor<16x64xf32>, %kr: tensor<1x16x16xf32>, %wuk: tensor<4x32x64xf32>, %wuv: tensor<4x32x64xf32>) {
  // expected-error @+1 {{'decoda.mla' op latent [B, Tk, Dc] must have rank 3, found 'tensor<16x64xf32>'}}
  %o = decoda.mla %qn, %qr, %c, %kr, %wuk, %wuv {num_heads = 4 : i64} : tensor<1x16x4x32xf32>, tensor<1x16x4x16xf32>, tensor<16x64xf32>, tensor<1x16x16xf32>, tensor<4x32x64xf32>, tensor<4x32x64xf32>
  return
}

// -----

func.func @mla_k_rope_rank(%qn: tensor<1x16x4x32xf32>, %qr: tensor<1x16x4x16xf32>, %c: tensor<1x16x64xf32>, %kr: tensor<1x16x1x16xf32>, %wuk: tensor<4x32x64xf32>, %wuv: tensor<4x32x64xf32>) {
  // expected-error @+1 {{'decoda.mla' op k_rope [B, Tk, Dr] must have rank 3, found 'tensor<1x16x1x16xf32>'}}
  %o = decoda.mla %qn, %qr, %c, %kr, %wuk, %wuv {num_heads = 4 : i64} : tensor<1x16x4x32xf32>, tensor<1x16x4x16xf32>, tensor<1x16x64xf32>, tensor<1x16x1x16xf32>, tensor<4x32x64xf32>, tensor<4x32x64xf32>
  return
}

// -----

func.func @mla_w_uk_rank(%qn: tensor<1x16x4x32xf32>, %qr: tensor<1x16x4x16xf32>, %c: tensor<1x16x64xf32>, %kr: tensor<1x16x16xf32>, %wuk: tensor<128x64xf32>, %wuv: tensor<4x32x64xf32>) {
  // expected-error @+1 {{'decoda.mla' op w_uk [H, Dn, Dc] must have rank 3, found 'tensor<128x64xf32>'}}
  %o = decoda.mla %qn, %qr, %c, %kr, %wuk, %wuv {num_heads = 4 : i64} : tensor<1x16x4x32xf32>, tensor<1x16x4x16xf32>, tensor<1x16x64xf32>, tensor<1x16x16xf32>, tensor<128x64xf32>, tensor<4x32x64xf32>
  return
}

// -----

func.func @mla_heads(%qn: tensor<1x16x4x32xf32>, %qr: tensor<1x16x4x16xf32>, %c: tensor<1x16x64xf32>, %kr: tensor<1x16x16xf32>, %wuk: tensor<4x32x64xf32>, %wuv: tensor<2x32x64xf32>) {
  // expected-error @+1 {{'decoda.mla' op q_nope, q_rope, w_uk and w_uv must all have num_heads = 4 heads, found 4, 4, 4, 2}}
  %o = decoda.mla %qn, %qr, %c, %kr, %wuk, %wuv {num_heads = 4 : i64} : tensor<1x16x4x32xf32>, tensor<1x16x4x16xf32>, tensor<1x16x64xf32>, tensor<1x16x16xf32>, tensor<4x32x64xf32>, tensor<2x32x64xf32>
  return
}

// -----

func.func @mla_dynamic_dn(%qn: tensor<1x16x4x?xf32>, %qr: tensor<1x16x4x16xf32>, %c: tensor<1x16x64xf32>, %kr: tensor<1x16x16xf32>, %wuk: tensor<4x32x64xf32>, %wuv: tensor<4x32x64xf32>) {
  // expected-error @+1 {{'decoda.mla' op Dn (dim 3 of q_nope) must be static}}
  %o = decoda.mla %qn, %qr, %c, %kr, %wuk, %wuv {num_heads = 4 : i64} : tensor<1x16x4x?xf32>, tensor<1x16x4x16xf32>, tensor<1x16x64xf32>, tensor<1x16x16xf32>, tensor<4x32x64xf32>, tensor<4x32x64xf32>
  return
}

// -----

func.func @mla_dynamic_dr(%qn: tensor<1x16x4x32xf32>, %qr: tensor<1x16x4x?xf32>, %c: tensor<1x16x64xf32>, %kr: tensor<1x16x16xf32>, %wuk: tensor<4x32x64xf32>, %wuv: tensor<4x32x64xf32>) {
  // expected-error @+1 {{'decoda.mla' op Dr (dim 3 of q_rope) must be static}}
  %o = decoda.mla %qn, %qr, %c, %kr, %wuk, %wuv {num_heads = 4 : i64} : tensor<1x16x4x32xf32>, tensor<1x16x4x?xf32>, tensor<1x16x64xf32>, tensor<1x16x16xf32>, tensor<4x32x64xf32>, tensor<4x32x64xf32>
  return
}

// -----

func.func @mla_dynamic_dc(%qn: tensor<1x16x4x32xf32>, %qr: tensor<1x16x4x16xf32>, %c: tensor<1x16x?xf32>, %kr: tensor<1x16x16xf32>, %wuk: tensor<4x32x64xf32>, %wuv: tensor<4x32x64xf32>) {
  // expected-error @+1 {{'decoda.mla' op Dc (dim 2 of latent) must be static}}
  %o = decoda.mla %qn, %qr, %c, %kr, %wuk, %wuv {num_heads = 4 : i64} : tensor<1x16x4x32xf32>, tensor<1x16x4x16xf32>, tensor<1x16x?xf32>, tensor<1x16x16xf32>, tensor<4x32x64xf32>, tensor<4x32x64xf32>
  return
}

// -----

func.func @mla_q_rope_batch(%qn: tensor<1x16x4x32xf32>, %qr: tensor<2x16x4x16xf32>, %c: tensor<1x16x64xf32>, %kr: tensor<1x16x16xf32>, %wuk: tensor<4x32x64xf32>, %wuv: tensor<4x32x64xf32>) {
  // expected-error @+1 {{'decoda.mla' op q_rope batch is 2, expected 1 (the q_nope batch)}}
  %o = decoda.mla %qn, %qr, %c, %kr, %wuk, %wuv {num_heads = 4 : i64} : tensor<1x16x4x32xf32>, tensor<2x16x4x16xf32>, tensor<1x16x64xf32>, tensor<1x16x16xf32>, tensor<4x32x64xf32>, tensor<4x32x64xf32>
  return
}

// -----

func.func @mla_q_rope_length(%qn: tensor<1x16x4x32xf32>, %qr: tensor<1x8x4x16xf32>, %c: tensor<1x16x64xf32>, %kr: tensor<1x16x16xf32>, %wuk: tensor<4x32x64xf32>, %wuv: tensor<4x32x64xf32>) {
  // expected-error @+1 {{'decoda.mla' op q_rope length is 8, expected 16 (the q_nope length)}}
  %o = decoda.mla %qn, %qr, %c, %kr, %wuk, %wuv {num_heads = 4 : i64} : tensor<1x16x4x32xf32>, tensor<1x8x4x16xf32>, tensor<1x16x64xf32>, tensor<1x16x16xf32>, tensor<4x32x64xf32>, tensor<4x32x64xf32>
  return
}

// -----

func.func @mla_latent_batch(%qn: tensor<1x16x4x32xf32>, %qr: tensor<1x16x4x16xf32>, %c: tensor<2x16x64xf32>, %kr: tensor<2x16x16xf32>, %wuk: tensor<4x32x64xf32>, %wuv: tensor<4x32x64xf32>) {
  // expected-error @+1 {{'decoda.mla' op latent batch is 2, expected 1 (the q_nope batch)}}
  %o = decoda.mla %qn, %qr, %c, %kr, %wuk, %wuv {num_heads = 4 : i64} : tensor<1x16x4x32xf32>, tensor<1x16x4x16xf32>, tensor<2x16x64xf32>, tensor<2x16x16xf32>, tensor<4x32x64xf32>, tensor<4x32x64xf32>
  return
}

// -----

func.func @mla_k_rope_batch(%qn: tensor<1x16x4x32xf32>, %qr: tensor<1x16x4x16xf32>, %c: tensor<1x16x64xf32>, %kr: tensor<2x16x16xf32>, %wuk: tensor<4x32x64xf32>, %wuv: tensor<4x32x64xf32>) {
  // expected-error @+1 {{'decoda.mla' op k_rope batch is 2, expected 1 (the latent batch)}}
  %o = decoda.mla %qn, %qr, %c, %kr, %wuk, %wuv {num_heads = 4 : i64} : tensor<1x16x4x32xf32>, tensor<1x16x4x16xf32>, tensor<1x16x64xf32>, tensor<2x16x16xf32>, tensor<4x32x64xf32>, tensor<4x32x64xf32>
  return
}

// -----

func.func @mla_k_rope_length(%qn: tensor<1x16x4x32xf32>, %qr: tensor<1x16x4x16xf32>, %c: tensor<1x16x64xf32>, %kr: tensor<1x32x16xf32>, %wuk: tensor<4x32x64xf32>, %wuv: tensor<4x32x64xf32>) {
  // expected-error @+1 {{'decoda.mla' op k_rope length is 32, expected 16 (the latent length)}}
  %o = decoda.mla %qn, %qr, %c, %kr, %wuk, %wuv {num_heads = 4 : i64} : tensor<1x16x4x32xf32>, tensor<1x16x4x16xf32>, tensor<1x16x64xf32>, tensor<1x32x16xf32>, tensor<4x32x64xf32>, tensor<4x32x64xf32>
  return
}

// -----

func.func @mla_k_rope_dim(%qn: tensor<1x16x4x32xf32>, %qr: tensor<1x16x4x16xf32>, %c: tensor<1x16x64xf32>, %kr: tensor<1x16x8xf32>, %wuk: tensor<4x32x64xf32>, %wuv: tensor<4x32x64xf32>) {
  // expected-error @+1 {{'decoda.mla' op k_rope dim is 8, expected 16 (Dr of q_rope)}}
  %o = decoda.mla %qn, %qr, %c, %kr, %wuk, %wuv {num_heads = 4 : i64} : tensor<1x16x4x32xf32>, tensor<1x16x4x16xf32>, tensor<1x16x64xf32>, tensor<1x16x8xf32>, tensor<4x32x64xf32>, tensor<4x32x64xf32>
  return
}

// -----

func.func @mla_w_uk_dn(%qn: tensor<1x16x4x32xf32>, %qr: tensor<1x16x4x16xf32>, %c: tensor<1x16x64xf32>, %kr: tensor<1x16x16xf32>, %wuk: tensor<4x16x64xf32>, %wuv: tensor<4x32x64xf32>) {
  // expected-error @+1 {{'decoda.mla' op w_uk dim 1 is 16, expected 32 (Dn of q_nope)}}
  %o = decoda.mla %qn, %qr, %c, %kr, %wuk, %wuv {num_heads = 4 : i64} : tensor<1x16x4x32xf32>, tensor<1x16x4x16xf32>, tensor<1x16x64xf32>, tensor<1x16x16xf32>, tensor<4x16x64xf32>, tensor<4x32x64xf32>
  return
}

// -----

func.func @mla_w_uk_dc(%qn: tensor<1x16x4x32xf32>, %qr: tensor<1x16x4x16xf32>, %c: tensor<1x16x64xf32>, %kr: tensor<1x16x16xf32>, %wuk: tensor<4x32x128xf32>, %wuv: tensor<4x32x64xf32>) {
  // expected-error @+1 {{'decoda.mla' op w_uk dim 2 is 128, expected 64 (Dc of the latent)}}
  %o = decoda.mla %qn, %qr, %c, %kr, %wuk, %wuv {num_heads = 4 : i64} : tensor<1x16x4x32xf32>, tensor<1x16x4x16xf32>, tensor<1x16x64xf32>, tensor<1x16x16xf32>, tensor<4x32x128xf32>, tensor<4x32x64xf32>
  return
}

// -----

func.func @mla_w_uv_dc(%qn: tensor<1x16x4x32xf32>, %qr: tensor<1x16x4x16xf32>, %c: tensor<1x16x64xf32>, %kr: tensor<1x16x16xf32>, %wuk: tensor<4x32x64xf32>, %wuv: tensor<4x32x32xf32>) {
  // expected-error @+1 {{'decoda.mla' op w_uv dim 2 is 32, expected 64 (Dc of the latent)}}
  %o = decoda.mla %qn, %qr, %c, %kr, %wuk, %wuv {num_heads = 4 : i64} : tensor<1x16x4x32xf32>, tensor<1x16x4x16xf32>, tensor<1x16x64xf32>, tensor<1x16x16xf32>, tensor<4x32x64xf32>, tensor<4x32x32xf32>
  return
}

// -----

func.func @mla_element_type(%qn: tensor<1x16x4x32xf32>, %qr: tensor<1x16x4x16xf32>, %c: tensor<1x16x64xbf16>, %kr: tensor<1x16x16xf32>, %wuk: tensor<4x32x64xf32>, %wuv: tensor<4x32x64xf32>) {
  // expected-error @+1 {{'decoda.mla' op every operand element type 'bf16' must match q_nope ('f32')}}
  %o = decoda.mla %qn, %qr, %c, %kr, %wuk, %wuv {num_heads = 4 : i64} : tensor<1x16x4x32xf32>, tensor<1x16x4x16xf32>, tensor<1x16x64xbf16>, tensor<1x16x16xf32>, tensor<4x32x64xf32>, tensor<4x32x64xf32>
  return
}

// -----

func.func @mla_more_queries_than_keys(%qn: tensor<1x16x4x32xf32>, %qr: tensor<1x16x4x16xf32>, %c: tensor<1x8x64xf32>, %kr: tensor<1x8x16xf32>, %wuk: tensor<4x32x64xf32>, %wuv: tensor<4x32x64xf32>) {
  // expected-error @+1 {{'decoda.mla' op has 16 queries but only 8 latent keys; queries are aligned to the end of the keys}}
  %o = decoda.mla %qn, %qr, %c, %kr, %wuk, %wuv {num_heads = 4 : i64} : tensor<1x16x4x32xf32>, tensor<1x16x4x16xf32>, tensor<1x8x64xf32>, tensor<1x8x16xf32>, tensor<4x32x64xf32>, tensor<4x32x64xf32>
  return
}

// -----

//===----------------------------------------------------------------------===//
// Mixture of experts
//===----------------------------------------------------------------------===//

func.func @moe_rank0(%x: tensor<f32>, %r: tensor<8x64xf32>, %eg: tensor<8x32x64xf32>, %ed: tensor<8x64x32xf32>) {
  // expected-error @+1 {{'decoda.moe' op input must have rank >= 1, found 'tensor<f32>'}}
  %y = decoda.moe %x router(%r) experts(%eg, %eg, %ed) {top_k = 2 : i64, scoring = #decoda.scoring<softmax>, kind = #decoda.glu<swiglu>} : tensor<f32>, tensor<8x64xf32>, tensor<8x32x64xf32>, tensor<8x32x64xf32>, tensor<8x64x32xf32>
  return
}

// -----

func.func @moe_router_rank(%x: tensor<2x64xf32>, %r: tensor<8x64x1xf32>, %eg: tensor<8x32x64xf32>, %ed: tensor<8x64x32xf32>) {
  // expected-error @+1 {{'decoda.moe' op router [E, D] must have rank 2, found 'tensor<8x64x1xf32>'}}
  %y = decoda.moe %x router(%r) experts(%eg, %eg, %ed) {top_k = 2 : i64, scoring = #decoda.scoring<softmax>, kind = #decoda.glu<swiglu>} : tensor<2x64xf32>, tensor<8x64x1xf32>, tensor<8x32x64xf32>, tensor<8x32x64xf32>, tensor<8x64x32xf32>
  return
}

// -----

func.func @moe_w_gate_rank(%x: tensor<2x64xf32>, %r: tensor<8x64xf32>, %wg: tensor<32x64xf32>, %eg: tensor<8x32x64xf32>, %ed: tensor<8x64x32xf32>) {
  // expected-error @+1 {{'decoda.moe' op w_gate [E, F, D] must have rank 3, found 'tensor<32x64xf32>'}}
  %y = decoda.moe %x router(%r) experts(%wg, %eg, %ed) {top_k = 2 : i64, scoring = #decoda.scoring<softmax>, kind = #decoda.glu<swiglu>} : tensor<2x64xf32>, tensor<8x64xf32>, tensor<32x64xf32>, tensor<8x32x64xf32>, tensor<8x64x32xf32>
  return
}

// -----

func.func @moe_w_up_rank(%x: tensor<2x64xf32>, %r: tensor<8x64xf32>, %eg: tensor<8x32x64xf32>, %wu: tensor<32x64xf32>, %ed: tensor<8x64x32xf32>) {
  // expected-error @+1 {{'decoda.moe' op w_up [E, F, D] must have rank 3, found 'tensor<32x64xf32>'}}
  %y = decoda.moe %x router(%r) experts(%eg, %wu, %ed) {top_k = 2 : i64, scoring = #decoda.scoring<softmax>, kind = #decoda.glu<swiglu>} : tensor<2x64xf32>, tensor<8x64xf32>, tensor<8x32x64xf32>, tensor<32x64xf32>, tensor<8x64x32xf32>
  return
}

// -----

func.func @moe_w_down_rank(%x: tensor<2x64xf32>, %r: tensor<8x64xf32>, %eg: tensor<8x32x64xf32>, %wd: tensor<64x32xf32>) {
  // expected-error @+1 {{'decoda.moe' op w_down [E, D, F] must have rank 3, found 'tensor<64x32xf32>'}}
  %y = decoda.moe %x router(%r) experts(%eg, %eg, %wd) {top_k = 2 : i64, scoring = #decoda.scoring<softmax>, kind = #decoda.glu<swiglu>} : tensor<2x64xf32>, tensor<8x64xf32>, tensor<8x32x64xf32>, tensor<8x32x64xf32>, tensor<64x32xf32>
  return
}

// -----

func.func @moe_dynamic_experts(%x: tensor<2x64xf32>, %r: tensor<?x64xf32>, %eg: tensor<8x32x64xf32>, %ed: tensor<8x64x32xf32>) {
  // expected-error @+1 {{'decoda.moe' op the number of experts (dim 0 of the router) must be static}}
  %y = decoda.moe %x router(%r) experts(%eg, %eg, %ed) {top_k = 2 : i64, scoring = #decoda.scoring<softmax>, kind = #decoda.glu<swiglu>} : tensor<2x64xf32>, tensor<?x64xf32>, tensor<8x32x64xf32>, tensor<8x32x64xf32>, tensor<8x64x32xf32>
  return
}

// -----

func.func @moe_router_dim(%x: tensor<2x64xf32>, %r: tensor<8x32xf32>, %eg: tensor<8x32x64xf32>, %ed: tensor<8x64x32xf32>) {
  // expected-error @+1 {{'decoda.moe' op router dim 1 is 32, expected 64 (the last dim of the input)}}
  %y = decoda.moe %x router(%r) experts(%eg, %eg, %ed) {top_k = 2 : i64, scoring = #decoda.scoring<softmax>, kind = #decoda.glu<swiglu>} : tensor<2x64xf32>, tensor<8x32xf32>, tensor<8x32x64xf32>, tensor<8x32x64xf32>, tensor<8x64x32xf32>
  return
}

// -----

func.func @moe_w_gate_experts(%x: tensor<2x64xf32>, %r: tensor<8x64xf32>, %wg: tensor<4x32x64xf32>, %eg: tensor<8x32x64xf32>, %ed: tensor<8x64x32xf32>) {
  // expected-error @+1 {{'decoda.moe' op w_gate experts is 4, expected 8 (the router's expert count)}}
  %y = decoda.moe %x router(%r) experts(%wg, %eg, %ed) {top_k = 2 : i64, scoring = #decoda.scoring<softmax>, kind = #decoda.glu<swiglu>} : tensor<2x64xf32>, tensor<8x64xf32>, tensor<4x32x64xf32>, tensor<8x32x64xf32>, tensor<8x64x32xf32>
  return
}

// -----

func.func @moe_w_gate_input_dim(%x: tensor<2x64xf32>, %r: tensor<8x64xf32>, %wg: tensor<8x32x16xf32>, %eg: tensor<8x32x64xf32>, %ed: tensor<8x64x32xf32>) {
  // expected-error @+1 {{'decoda.moe' op w_gate input dim [out_in] is 16, expected 64 (expected width)}}
  %y = decoda.moe %x router(%r) experts(%wg, %eg, %ed) {top_k = 2 : i64, scoring = #decoda.scoring<softmax>, kind = #decoda.glu<swiglu>} : tensor<2x64xf32>, tensor<8x64xf32>, tensor<8x32x16xf32>, tensor<8x32x64xf32>, tensor<8x64x32xf32>
  return
}

// -----

func.func @moe_w_up_experts(%x: tensor<2x64xf32>, %r: tensor<8x64xf32>, %eg: tensor<8x32x64xf32>, %wu: tensor<6x32x64xf32>, %ed: tensor<8x64x32xf32>) {
  // expected-error @+1 {{'decoda.moe' op w_up experts is 6, expected 8 (the router's expert count)}}
  %y = decoda.moe %x router(%r) experts(%eg, %wu, %ed) {top_k = 2 : i64, scoring = #decoda.scoring<softmax>, kind = #decoda.glu<swiglu>} : tensor<2x64xf32>, tensor<8x64xf32>, tensor<8x32x64xf32>, tensor<6x32x64xf32>, tensor<8x64x32xf32>
  return
}

// -----

func.func @moe_w_up_output_dim(%x: tensor<2x64xf32>, %r: tensor<8x64xf32>, %eg: tensor<8x32x64xf32>, %wu: tensor<8x16x64xf32>, %ed: tensor<8x64x32xf32>) {
  // expected-error @+1 {{'decoda.moe' op w_up output dim [out_in] is 16, expected 32 (expected width)}}
  %y = decoda.moe %x router(%r) experts(%eg, %wu, %ed) {top_k = 2 : i64, scoring = #decoda.scoring<softmax>, kind = #decoda.glu<swiglu>} : tensor<2x64xf32>, tensor<8x64xf32>, tensor<8x32x64xf32>, tensor<8x16x64xf32>, tensor<8x64x32xf32>
  return
}

// -----

func.func @moe_w_up_input_dim_in_out(%x: tensor<2x64xf32>, %r: tensor<8x64xf32>, %eg: tensor<8x64x32xf32>, %wu: tensor<8x48x32xf32>, %ed: tensor<8x32x64xf32>) {
  // expected-error @+1 {{'decoda.moe' op w_up input dim [in_out] is 48, expected 64 (expected width)}}
  %y = decoda.moe %x router(%r) experts(%eg, %wu, %ed) {top_k = 2 : i64, scoring = #decoda.scoring<softmax>, kind = #decoda.glu<swiglu>, weight_layout = #decoda.weight_layout<in_out>} : tensor<2x64xf32>, tensor<8x64xf32>, tensor<8x64x32xf32>, tensor<8x48x32xf32>, tensor<8x32x64xf32>
  return
}

// -----

func.func @moe_w_down_experts(%x: tensor<2x64xf32>, %r: tensor<8x64xf32>, %eg: tensor<8x32x64xf32>, %ed: tensor<2x64x32xf32>) {
  // expected-error @+1 {{'decoda.moe' op w_down experts is 2, expected 8 (the router's expert count)}}
  %y = decoda.moe %x router(%r) experts(%eg, %eg, %ed) {top_k = 2 : i64, scoring = #decoda.scoring<softmax>, kind = #decoda.glu<swiglu>} : tensor<2x64xf32>, tensor<8x64xf32>, tensor<8x32x64xf32>, tensor<8x32x64xf32>, tensor<2x64x32xf32>
  return
}

// -----

func.func @moe_w_down_output_dim(%x: tensor<2x64xf32>, %r: tensor<8x64xf32>, %eg: tensor<8x32x64xf32>, %ed: tensor<8x32x32xf32>) {
  // expected-error @+1 {{'decoda.moe' op w_down output dim [out_in] is 32, expected 64 (expected width)}}
  %y = decoda.moe %x router(%r) experts(%eg, %eg, %ed) {top_k = 2 : i64, scoring = #decoda.scoring<softmax>, kind = #decoda.glu<swiglu>} : tensor<2x64xf32>, tensor<8x64xf32>, tensor<8x32x64xf32>, tensor<8x32x64xf32>, tensor<8x32x32xf32>
  return
}

// -----

func.func @moe_w_down_input_dim(%x: tensor<2x64xf32>, %r: tensor<8x64xf32>, %eg: tensor<8x32x64xf32>, %ed: tensor<8x64x16xf32>) {
  // expected-error @+1 {{'decoda.moe' op w_down input dim [out_in] is 16, expected 32 (expected width)}}
  %y = decoda.moe %x router(%r) experts(%eg, %eg, %ed) {top_k = 2 : i64, scoring = #decoda.scoring<softmax>, kind = #decoda.glu<swiglu>} : tensor<2x64xf32>, tensor<8x64xf32>, tensor<8x32x64xf32>, tensor<8x32x64xf32>, tensor<8x64x16xf32>
  return
}

// -----

func.func @moe_selection_bias_size(%x: tensor<2x64xf32>, %r: tensor<8x64xf32>, %eg: tensor<8x32x64xf32>, %ed: tensor<8x64x32xf32>, %b: tensor<4xf32>) {
  // expected-error @+1 {{'decoda.moe' op selection_bias size is 4, expected 8 (the number of experts)}}
  %y = decoda.moe %x router(%r) experts(%eg, %eg, %ed) selection_bias(%b : tensor<4xf32>) {top_k = 2 : i64, scoring = #decoda.scoring<sigmoid>, kind = #decoda.glu<swiglu>} : tensor<2x64xf32>, tensor<8x64xf32>, tensor<8x32x64xf32>, tensor<8x32x64xf32>, tensor<8x64x32xf32>
  return
}

// -----

func.func @moe_selection_bias_rank(%x: tensor<2x64xf32>, %r: tensor<8x64xf32>, %eg: tensor<8x32x64xf32>, %ed: tensor<8x64x32xf32>, %b: tensor<1x8xf32>) {
  // expected-error @+1 {{'decoda.moe' op selection_bias must have rank 1, found 'tensor<1x8xf32>'}}
  %y = decoda.moe %x router(%r) experts(%eg, %eg, %ed) selection_bias(%b : tensor<1x8xf32>) {top_k = 2 : i64, scoring = #decoda.scoring<sigmoid>, kind = #decoda.glu<swiglu>} : tensor<2x64xf32>, tensor<8x64xf32>, tensor<8x32x64xf32>, tensor<8x32x64xf32>, tensor<8x64x32xf32>
  return
}

// -----

// A shared expert needs all three weights; only the generic form can leave some out.
func.func @moe_partial_shared(%x: tensor<2x64xf32>, %r: tensor<8x64xf32>, %eg: tensor<8x32x64xf32>, %ed: tensor<8x64x32xf32>, %sg: tensor<32x64xf32>) {
  // expected-error @+1 {{'decoda.moe' op a shared expert needs shared_gate, shared_up and shared_down, found 2 of them}}
  %y = "decoda.moe"(%x, %r, %eg, %eg, %ed, %sg, %sg) <{top_k = 2 : i64, scoring = #decoda.scoring<softmax>, kind = #decoda.glu<swiglu>, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 0, 1, 1, 0>}> : (tensor<2x64xf32>, tensor<8x64xf32>, tensor<8x32x64xf32>, tensor<8x32x64xf32>, tensor<8x64x32xf32>, tensor<32x64xf32>, tensor<32x64xf32>) -> tensor<2x64xf32>
  return
}

// -----

func.func @moe_shared_gate_rank(%x: tensor<2x64xf32>, %r: tensor<8x64xf32>, %eg: tensor<8x32x64xf32>, %ed: tensor<8x64x32xf32>, %sg: tensor<2x32x64xf32>, %su: tensor<32x64xf32>, %sd: tensor<64x32xf32>) {
  // expected-error @+1 {{'decoda.moe' op shared_gate must have rank 2, found 'tensor<2x32x64xf32>'}}
  %y = decoda.moe %x router(%r) experts(%eg, %eg, %ed) shared(%sg, %su, %sd : tensor<2x32x64xf32>, tensor<32x64xf32>, tensor<64x32xf32>) {top_k = 2 : i64, scoring = #decoda.scoring<softmax>, kind = #decoda.glu<swiglu>} : tensor<2x64xf32>, tensor<8x64xf32>, tensor<8x32x64xf32>, tensor<8x32x64xf32>, tensor<8x64x32xf32>
  return
}

// -----

func.func @moe_shared_gate_input_dim(%x: tensor<2x64xf32>, %r: tensor<8x64xf32>, %eg: tensor<8x32x64xf32>, %ed: tensor<8x64x32xf32>, %sg: tensor<32x16xf32>, %su: tensor<32x64xf32>, %sd: tensor<64x32xf32>) {
  // expected-error @+1 {{'decoda.moe' op shared_gate input dim [out_in] is 16, expected 64 (the last dim of the input)}}
  %y = decoda.moe %x router(%r) experts(%eg, %eg, %ed) shared(%sg, %su, %sd : tensor<32x16xf32>, tensor<32x64xf32>, tensor<64x32xf32>) {top_k = 2 : i64, scoring = #decoda.scoring<softmax>, kind = #decoda.glu<swiglu>} : tensor<2x64xf32>, tensor<8x64xf32>, tensor<8x32x64xf32>, tensor<8x32x64xf32>, tensor<8x64x32xf32>
  return
}

// -----

func.func @moe_shared_up_rank(%x: tensor<2x64xf32>, %r: tensor<8x64xf32>, %eg: tensor<8x32x64xf32>, %ed: tensor<8x64x32xf32>, %sg: tensor<32x64xf32>, %su: tensor<64xf32>, %sd: tensor<64x32xf32>) {
  // expected-error @+1 {{'decoda.moe' op shared_up must have rank 2, found 'tensor<64xf32>'}}
  %y = decoda.moe %x router(%r) experts(%eg, %eg, %ed) shared(%sg, %su, %sd : tensor<32x64xf32>, tensor<64xf32>, tensor<64x32xf32>) {top_k = 2 : i64, scoring = #decoda.scoring<softmax>, kind = #decoda.glu<swiglu>} : tensor<2x64xf32>, tensor<8x64xf32>, tensor<8x32x64xf32>, tensor<8x32x64xf32>, tensor<8x64x32xf32>
  return
}

// -----

func.func @moe_shared_up_output_dim(%x: tensor<2x64xf32>, %r: tensor<8x64xf32>, %eg: tensor<8x32x64xf32>, %ed: tensor<8x64x32xf32>, %sg: tensor<32x64xf32>, %su: tensor<48x64xf32>, %sd: tensor<64x32xf32>) {
  // expected-error @+1 {{'decoda.moe' op shared_up output dim [out_in] is 48, expected 32 (shared_gate's width)}}
  %y = decoda.moe %x router(%r) experts(%eg, %eg, %ed) shared(%sg, %su, %sd : tensor<32x64xf32>, tensor<48x64xf32>, tensor<64x32xf32>) {top_k = 2 : i64, scoring = #decoda.scoring<softmax>, kind = #decoda.glu<swiglu>} : tensor<2x64xf32>, tensor<8x64xf32>, tensor<8x32x64xf32>, tensor<8x32x64xf32>, tensor<8x64x32xf32>
  return
}

// -----

func.func @moe_shared_up_input_dim(%x: tensor<2x64xf32>, %r: tensor<8x64xf32>, %eg: tensor<8x32x64xf32>, %ed: tensor<8x64x32xf32>, %sg: tensor<32x64xf32>, %su: tensor<32x32xf32>, %sd: tensor<64x32xf32>) {
  // expected-error @+1 {{'decoda.moe' op shared_up input dim [out_in] is 32, expected 64 (the last dim of the input)}}
  %y = decoda.moe %x router(%r) experts(%eg, %eg, %ed) shared(%sg, %su, %sd : tensor<32x64xf32>, tensor<32x32xf32>, tensor<64x32xf32>) {top_k = 2 : i64, scoring = #decoda.scoring<softmax>, kind = #decoda.glu<swiglu>} : tensor<2x64xf32>, tensor<8x64xf32>, tensor<8x32x64xf32>, tensor<8x32x64xf32>, tensor<8x64x32xf32>
  return
}

// -----

func.func @moe_shared_down_output_dim(%x: tensor<2x64xf32>, %r: tensor<8x64xf32>, %eg: tensor<8x32x64xf32>, %ed: tensor<8x64x32xf32>, %sg: tensor<32x64xf32>, %su: tensor<32x64xf32>, %sd: tensor<32x32xf32>) {
  // expected-error @+1 {{'decoda.moe' op shared_down output dim [out_in] is 32, expected 64 (the last dim of the input)}}
  %y = decoda.moe %x router(%r) experts(%eg, %eg, %ed) shared(%sg, %su, %sd : tensor<32x64xf32>, tensor<32x64xf32>, tensor<32x32xf32>) {top_k = 2 : i64, scoring = #decoda.scoring<softmax>, kind = #decoda.glu<swiglu>} : tensor<2x64xf32>, tensor<8x64xf32>, tensor<8x32x64xf32>, tensor<8x32x64xf32>, tensor<8x64x32xf32>
  return
}

// -----

func.func @moe_shared_down_input_dim_in_out(%x: tensor<2x64xf32>, %r: tensor<8x64xf32>, %eg: tensor<8x64x32xf32>, %ed: tensor<8x32x64xf32>, %sg: tensor<64x48xf32>, %su: tensor<64x48xf32>, %sd: tensor<32x64xf32>) {
  // expected-error @+1 {{'decoda.moe' op shared_down input dim [in_out] is 32, expected 48 (shared_gate's width)}}
  %y = decoda.moe %x router(%r) experts(%eg, %eg, %ed) shared(%sg, %su, %sd : tensor<64x48xf32>, tensor<64x48xf32>, tensor<32x64xf32>) {top_k = 2 : i64, scoring = #decoda.scoring<softmax>, kind = #decoda.glu<swiglu>, weight_layout = #decoda.weight_layout<in_out>} : tensor<2x64xf32>, tensor<8x64xf32>, tensor<8x64x32xf32>, tensor<8x64x32xf32>, tensor<8x32x64xf32>
  return
}

// -----

func.func @moe_top_k_zero(%x: tensor<2x64xf32>, %r: tensor<8x64xf32>, %eg: tensor<8x32x64xf32>, %ed: tensor<8x64x32xf32>) {
  // expected-error @+1 {{'decoda.moe' op top_k must be in [1, 8] (the number of experts), found 0}}
  %y = decoda.moe %x router(%r) experts(%eg, %eg, %ed) {top_k = 0 : i64, scoring = #decoda.scoring<softmax>, kind = #decoda.glu<swiglu>} : tensor<2x64xf32>, tensor<8x64xf32>, tensor<8x32x64xf32>, tensor<8x32x64xf32>, tensor<8x64x32xf32>
  return
}

// -----

func.func @moe_top_k_too_large(%x: tensor<2x64xf32>, %r: tensor<8x64xf32>, %eg: tensor<8x32x64xf32>, %ed: tensor<8x64x32xf32>) {
  // expected-error @+1 {{'decoda.moe' op top_k must be in [1, 8] (the number of experts), found 9}}
  %y = decoda.moe %x router(%r) experts(%eg, %eg, %ed) {top_k = 9 : i64, scoring = #decoda.scoring<softmax>, kind = #decoda.glu<swiglu>} : tensor<2x64xf32>, tensor<8x64xf32>, tensor<8x32x64xf32>, tensor<8x32x64xf32>, tensor<8x64x32xf32>
  return
}

// -----

func.func @moe_routed_scale(%x: tensor<2x64xf32>, %r: tensor<8x64xf32>, %eg: tensor<8x32x64xf32>, %ed: tensor<8x64x32xf32>) {
  // expected-error @+1 {{'decoda.moe' op routed_scale must be finite and positive, found 0.000000e+00}}
  %y = decoda.moe %x router(%r) experts(%eg, %eg, %ed) {top_k = 2 : i64, scoring = #decoda.scoring<softmax>, routed_scale = 0.0 : f64, kind = #decoda.glu<swiglu>} : tensor<2x64xf32>, tensor<8x64xf32>, tensor<8x32x64xf32>, tensor<8x32x64xf32>, tensor<8x64x32xf32>
  return
}

// -----

func.func @moe_missing_scoring(%x: tensor<2x64xf32>, %r: tensor<8x64xf32>, %eg: tensor<8x32x64xf32>, %ed: tensor<8x64x32xf32>) {
  // expected-error @+1 {{'decoda.moe' op requires attribute 'scoring'}}
  %y = decoda.moe %x router(%r) experts(%eg, %eg, %ed) {top_k = 2 : i64, kind = #decoda.glu<swiglu>} : tensor<2x64xf32>, tensor<8x64xf32>, tensor<8x32x64xf32>, tensor<8x32x64xf32>, tensor<8x64x32xf32>
  return
}

// -----

func.func @moe_unknown_scoring(%x: tensor<2x64xf32>, %r: tensor<8x64xf32>, %eg: tensor<8x32x64xf32>, %ed: tensor<8x64x32xf32>) {
  // expected-error @+2 {{expected ::mlir::decoda::RouterScoring to be one of: softmax, sigmoid}}
  // expected-error @+1 {{failed to parse Decoda_RouterScoringAttr parameter 'value'}}
  %y = decoda.moe %x router(%r) experts(%eg, %eg, %ed) {top_k = 2 : i64, scoring = #decoda.scoring<topk>, kind = #decoda.glu<swiglu>} : tensor<2x64xf32>, tensor<8x64xf32>, tensor<8x32x64xf32>, tensor<8x32x64xf32>, tensor<8x64x32xf32>
  return
}

// -----

func.func @moe_result_type(%x: tensor<2x64xf32>, %r: tensor<8x64xf32>, %eg: tensor<8x32x64xf32>, %ed: tensor<8x64x32xf32>) {
  // expected-error @+1 {{'decoda.moe' op failed to verify that all of {input, result} have same type}}
  %y = "decoda.moe"(%x, %r, %eg, %eg, %ed) <{top_k = 2 : i64, scoring = #decoda.scoring<softmax>, kind = #decoda.glu<swiglu>, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 0, 0, 0, 0>}> : (tensor<2x64xf32>, tensor<8x64xf32>, tensor<8x32x64xf32>, tensor<8x32x64xf32>, tensor<8x64x32xf32>) -> tensor<2x64xbf16>
  return
}

// -----

//===----------------------------------------------------------------------===//
// INT8 quantisation
//===----------------------------------------------------------------------===//

func.func @quantize_scale_rank(%x: tensor<2x16x64xf32>, %s: tensor<16x1xf32>) {
  // expected-error @+1 {{'decoda.quantize' op scale must be rank 0 or have the rank of the data (3), found 'tensor<16x1xf32>'}}
  %q = decoda.quantize %x, %s : tensor<2x16x64xf32>, tensor<16x1xf32>
  return
}

// -----

func.func @quantize_scale_broadcast(%x: tensor<2x16x64xf32>, %s: tensor<2x8x1xf32>) {
  // expected-error @+1 {{'decoda.quantize' op scale dim 1 is 8; expected 1 or 16 to broadcast against 'tensor<2x16x64xf32>'}}
  %q = decoda.quantize %x, %s : tensor<2x16x64xf32>, tensor<2x8x1xf32>
  return
}

// -----

func.func @quantize_zero_point_shape(%x: tensor<2x16x64xf32>, %s: tensor<2x16x1xf32>, %zp: tensor<i8>) {
  // expected-error @+1 {{'decoda.quantize' op zero_point must have the shape of scale ('tensor<2x16x1xf32>'), found 'tensor<i8>'}}
  %q = decoda.quantize %x, %s zero_point(%zp : tensor<i8>) : tensor<2x16x64xf32>, tensor<2x16x1xf32>
  return
}

// -----

func.func @quantize_f16_scale(%x: tensor<2x16x64xf32>, %s: tensor<f16>) {
  // expected-error @+1 {{'decoda.quantize' op operand #1 must be ranked tensor of 32-bit float values, but got 'tensor<f16>'}}
  %q = decoda.quantize %x, %s : tensor<2x16x64xf32>, tensor<f16>
  return
}

// -----

func.func @quantize_int_input(%x: tensor<2x16x64xi8>, %s: tensor<f32>) {
  // expected-error @+1 {{custom op 'decoda.quantize' 'input' must be ranked tensor of 32-bit float or 16-bit float or bfloat16 type values, but got 'tensor<2x16x64xi8>'}}
  %q = decoda.quantize %x, %s : tensor<2x16x64xi8>, tensor<f32>
  return
}

// -----

func.func @quantize_result_type(%x: tensor<2x16x64xf32>, %s: tensor<f32>) {
  // expected-error @+1 {{'decoda.quantize' op failed to verify that result is i8 with the shape of input}}
  %q = "decoda.quantize"(%x, %s) : (tensor<2x16x64xf32>, tensor<f32>) -> tensor<2x16x32xi8>
  return
}

// -----

func.func @dequantize_result_shape(%q: tensor<128x64xi8>, %s: tensor<128x1xf32>) {
  // expected-error @+1 {{'decoda.dequantize' op result shape must match the input, found 'tensor<64x128xf32>' for 'tensor<128x64xi8>'}}
  %w = decoda.dequantize %q, %s : tensor<128x64xi8>, tensor<128x1xf32> -> tensor<64x128xf32>
  return
}

// -----

func.func @dequantize_scale_broadcast(%q: tensor<128x64xi8>, %s: tensor<1x32xf32>) {
  // expected-error @+1 {{'decoda.dequantize' op scale dim 1 is 32; expected 1 or 64 to broadcast against 'tensor<128x64xi8>'}}
  %w = decoda.dequantize %q, %s : tensor<128x64xi8>, tensor<1x32xf32> -> tensor<128x64xf32>
  return
}

// -----

func.func @dequantize_zero_point_shape(%q: tensor<128x64xi8>, %s: tensor<128x1xf32>, %zp: tensor<1x64xi8>) {
  // expected-error @+1 {{'decoda.dequantize' op zero_point must have the shape of scale ('tensor<128x1xf32>'), found 'tensor<1x64xi8>'}}
  %w = decoda.dequantize %q, %s zero_point(%zp : tensor<1x64xi8>) : tensor<128x64xi8>, tensor<128x1xf32> -> tensor<128x64xf32>
  return
}

// -----

func.func @dequantize_blocks_bits(%c: tensor<8x16xi8>, %s: tensor<8x1xf32>) {
  // expected-error @+1 {{'decoda.dequantize_blocks' op bits must be 2, 4 or 8, found 3}}
  %w = decoda.dequantize_blocks %c, %s {bits = 3 : i64, block_size = 32 : i64} : tensor<8x16xi8>, tensor<8x1xf32> -> tensor<8x32xf32>
  return
}

// -----

func.func @dequantize_blocks_block_size(%c: tensor<8x12xi8>, %s: tensor<8x1xf32>) {
  // expected-error @+1 {{'decoda.dequantize_blocks' op block_size must be a power of two of at least 16, found 24}}
  %w = decoda.dequantize_blocks %c, %s {bits = 4 : i64, block_size = 24 : i64} : tensor<8x12xi8>, tensor<8x1xf32> -> tensor<8x24xf32>
  return
}

// -----

func.func @dequantize_blocks_block_size_small(%c: tensor<8x4xi8>, %s: tensor<8x1xf32>) {
  // expected-error @+1 {{'decoda.dequantize_blocks' op block_size must be a power of two of at least 16, found 8}}
  %w = decoda.dequantize_blocks %c, %s {bits = 4 : i64, block_size = 8 : i64} : tensor<8x4xi8>, tensor<8x1xf32> -> tensor<8x8xf32>
  return
}

// -----

func.func @dequantize_blocks_codes_width(%c: tensor<8x15xi8>, %s: tensor<8x1xf32>) {
  // expected-error @+1 {{'decoda.dequantize_blocks' op codes must be [8, 16] (N, blocks · block_size · bits / 8), found 'tensor<8x15xi8>'}}
  %w = decoda.dequantize_blocks %c, %s {bits = 4 : i64, block_size = 32 : i64} : tensor<8x15xi8>, tensor<8x1xf32> -> tensor<8x32xf32>
  return
}

// -----

func.func @dequantize_blocks_codes_rows(%c: tensor<4x16xi8>, %s: tensor<8x1xf32>) {
  // expected-error @+1 {{'decoda.dequantize_blocks' op codes must be [8, 16] (N, blocks · block_size · bits / 8), found 'tensor<4x16xi8>'}}
  %w = decoda.dequantize_blocks %c, %s {bits = 4 : i64, block_size = 32 : i64} : tensor<4x16xi8>, tensor<8x1xf32> -> tensor<8x32xf32>
  return
}

// -----

func.func @dequantize_blocks_scales_blocks(%c: tensor<8x48xi8>, %s: tensor<8x2xf32>) {
  // expected-error @+1 {{'decoda.dequantize_blocks' op scales must be [8, 3] (N, ceil(K / 32)), found 'tensor<8x2xf32>'}}
  %w = decoda.dequantize_blocks %c, %s {bits = 4 : i64, block_size = 32 : i64} : tensor<8x48xi8>, tensor<8x2xf32> -> tensor<8x80xf32>
  return
}

// -----

func.func @dequantize_blocks_scales_type(%c: tensor<8x16xi8>, %s: tensor<8x1xf16>) {
  // expected-error @+1 {{'decoda.dequantize_blocks' op scales must have the result's element type 'f32', found 'tensor<8x1xf16>'}}
  %w = decoda.dequantize_blocks %c, %s {bits = 4 : i64, block_size = 32 : i64} : tensor<8x16xi8>, tensor<8x1xf16> -> tensor<8x32xf32>
  return
}

// -----

func.func @dequantize_blocks_zero_points_type(%c: tensor<8x16xi8>, %s: tensor<8x1xf32>, %z: tensor<8x1xf16>) {
  // expected-error @+1 {{'decoda.dequantize_blocks' op zero_points must have the type of scales ('tensor<8x1xf32>'), found 'tensor<8x1xf16>'}}
  %w = decoda.dequantize_blocks %c, %s zero_points(%z : tensor<8x1xf16>) {bits = 4 : i64, block_size = 32 : i64} : tensor<8x16xi8>, tensor<8x1xf32> -> tensor<8x32xf32>
  return
}

// -----

func.func @dequantize_blocks_dynamic(%c: tensor<?x16xi8>, %s: tensor<?x1xf32>) {
  // expected-error @+1 {{'decoda.dequantize_blocks' op codes [N, P] must be a static rank-2 tensor, found 'tensor<?x16xi8>'}}
  %w = decoda.dequantize_blocks %c, %s {bits = 4 : i64, block_size = 32 : i64} : tensor<?x16xi8>, tensor<?x1xf32> -> tensor<?x32xf32>
  return
}

// -----

func.func @dequantize_blocks_codes_type(%c: tensor<8x16xui8>, %s: tensor<8x1xf32>) {
  // expected-error @+1 {{'decoda.dequantize_blocks' op operand #0 must be ranked tensor of 8-bit signless integer values, but got 'tensor<8x16xui8>'}}
  %w = decoda.dequantize_blocks %c, %s {bits = 4 : i64, block_size = 32 : i64} : tensor<8x16xui8>, tensor<8x1xf32> -> tensor<8x32xf32>
  return
}

// -----

func.func @dequantize_int_result(%q: tensor<128x64xi8>, %s: tensor<f32>) {
  // expected-error @+1 {{'decoda.dequantize' op result #0 must be ranked tensor of 32-bit float or 16-bit float or bfloat16 type values, but got 'tensor<128x64xi32>'}}
  %w = decoda.dequantize %q, %s : tensor<128x64xi8>, tensor<f32> -> tensor<128x64xi32>
  return
}

// -----

func.func @qlinear_rank0(%xq: tensor<i8>, %wq: tensor<128x64xi8>, %xs: tensor<f32>, %ws: tensor<128xf32>) {
  // expected-error @+1 {{'decoda.qlinear' op input must have rank >= 1, found 'tensor<i8>'}}
  %y = decoda.qlinear %xq, %wq, %xs, %ws : tensor<i8>, tensor<128x64xi8>, tensor<f32>, tensor<128xf32> -> tensor<128xf32>
  return
}

// -----

func.func @qlinear_weight_rank(%xq: tensor<2x64xi8>, %wq: tensor<2x128x64xi8>, %xs: tensor<f32>, %ws: tensor<128xf32>) {
  // expected-error @+1 {{'decoda.qlinear' op weight [N, K] must have rank 2, found 'tensor<2x128x64xi8>'}}
  %y = decoda.qlinear %xq, %wq, %xs, %ws : tensor<2x64xi8>, tensor<2x128x64xi8>, tensor<f32>, tensor<128xf32> -> tensor<2x128xf32>
  return
}

// -----

func.func @qlinear_k(%xq: tensor<2x64xi8>, %wq: tensor<128x32xi8>, %xs: tensor<f32>, %ws: tensor<128xf32>) {
  // expected-error @+1 {{'decoda.qlinear' op weight dim 1 (K) is 32, expected 64 (the last dim of the input)}}
  %y = decoda.qlinear %xq, %wq, %xs, %ws : tensor<2x64xi8>, tensor<128x32xi8>, tensor<f32>, tensor<128xf32> -> tensor<2x128xf32>
  return
}

// -----

func.func @qlinear_x_scale_not_per_token(%xq: tensor<2x16x64xi8>, %wq: tensor<128x64xi8>, %xs: tensor<2x16x64xf32>, %ws: tensor<128xf32>) {
  // expected-error @+1 {{'decoda.qlinear' op x_scale must be rank 0 (per tensor) or [..., 1] with the leading dims of the input (per token), found 'tensor<2x16x64xf32>'}}
  %y = decoda.qlinear %xq, %wq, %xs, %ws : tensor<2x16x64xi8>, tensor<128x64xi8>, tensor<2x16x64xf32>, tensor<128xf32> -> tensor<2x16x128xf32>
  return
}

// -----

func.func @qlinear_x_scale_leading_dims(%xq: tensor<2x16x64xi8>, %wq: tensor<128x64xi8>, %xs: tensor<2x8x1xf32>, %ws: tensor<128xf32>) {
  // expected-error @+1 {{'decoda.qlinear' op x_scale must be rank 0 (per tensor) or [..., 1] with the leading dims of the input (per token), found 'tensor<2x8x1xf32>'}}
  %y = decoda.qlinear %xq, %wq, %xs, %ws : tensor<2x16x64xi8>, tensor<128x64xi8>, tensor<2x8x1xf32>, tensor<128xf32> -> tensor<2x16x128xf32>
  return
}

// -----

func.func @qlinear_x_zero_point_shape(%xq: tensor<2x64xi8>, %wq: tensor<128x64xi8>, %xs: tensor<2x1xf32>, %ws: tensor<128xf32>, %zp: tensor<i8>) {
  // expected-error @+1 {{'decoda.qlinear' op x_zero_point must have the shape of x_scale ('tensor<2x1xf32>'), found 'tensor<i8>'}}
  %y = decoda.qlinear %xq, %wq, %xs, %ws x_zero_point(%zp : tensor<i8>) : tensor<2x64xi8>, tensor<128x64xi8>, tensor<2x1xf32>, tensor<128xf32> -> tensor<2x128xf32>
  return
}

// -----

func.func @qlinear_w_scale_rank(%xq: tensor<2x64xi8>, %wq: tensor<128x64xi8>, %xs: tensor<f32>, %ws: tensor<128x1xf32>) {
  // expected-error @+1 {{'decoda.qlinear' op w_scale must have rank 1, found 'tensor<128x1xf32>'}}
  %y = decoda.qlinear %xq, %wq, %xs, %ws : tensor<2x64xi8>, tensor<128x64xi8>, tensor<f32>, tensor<128x1xf32> -> tensor<2x128xf32>
  return
}

// -----

func.func @qlinear_w_scale_size(%xq: tensor<2x64xi8>, %wq: tensor<128x64xi8>, %xs: tensor<f32>, %ws: tensor<64xf32>) {
  // expected-error @+1 {{'decoda.qlinear' op w_scale size is 64, expected 128 (the weight's N)}}
  %y = decoda.qlinear %xq, %wq, %xs, %ws : tensor<2x64xi8>, tensor<128x64xi8>, tensor<f32>, tensor<64xf32> -> tensor<2x128xf32>
  return
}

// -----

func.func @qlinear_bias_size(%xq: tensor<2x64xi8>, %wq: tensor<128x64xi8>, %xs: tensor<f32>, %ws: tensor<128xf32>, %b: tensor<64xf32>) {
  // expected-error @+1 {{'decoda.qlinear' op bias size is 64, expected 128 (the weight's N)}}
  %y = decoda.qlinear %xq, %wq, %xs, %ws bias(%b : tensor<64xf32>) : tensor<2x64xi8>, tensor<128x64xi8>, tensor<f32>, tensor<128xf32> -> tensor<2x128xf32>
  return
}

// -----

func.func @qlinear_result_shape(%xq: tensor<2x64xi8>, %wq: tensor<128x64xi8>, %xs: tensor<f32>, %ws: tensor<128xf32>) {
  // expected-error @+1 {{'decoda.qlinear' op result must be the input shape with the last dim replaced by N = 128, found 'tensor<2x64xf32>'}}
  %y = decoda.qlinear %xq, %wq, %xs, %ws : tensor<2x64xi8>, tensor<128x64xi8>, tensor<f32>, tensor<128xf32> -> tensor<2x64xf32>
  return
}

// -----

func.func @qlinear_result_rank(%xq: tensor<2x64xi8>, %wq: tensor<128x64xi8>, %xs: tensor<f32>, %ws: tensor<128xf32>) {
  // expected-error @+1 {{'decoda.qlinear' op result must be the input shape with the last dim replaced by N = 128, found 'tensor<1x2x128xf32>'}}
  %y = decoda.qlinear %xq, %wq, %xs, %ws : tensor<2x64xi8>, tensor<128x64xi8>, tensor<f32>, tensor<128xf32> -> tensor<1x2x128xf32>
  return
}

// -----

func.func @qlinear_requantize_float_result(%xq: tensor<2x64xi8>, %wq: tensor<128x64xi8>, %xs: tensor<f32>, %ws: tensor<128xf32>, %os: tensor<f32>) {
  // expected-error @+1 {{'decoda.qlinear' op requantize(out_scale) produces i8, found 'f32'}}
  %y = decoda.qlinear %xq, %wq, %xs, %ws requantize(%os : tensor<f32>) : tensor<2x64xi8>, tensor<128x64xi8>, tensor<f32>, tensor<128xf32> -> tensor<2x128xf32>
  return
}

// -----

func.func @qlinear_i8_result_without_requantize(%xq: tensor<2x64xi8>, %wq: tensor<128x64xi8>, %xs: tensor<f32>, %ws: tensor<128xf32>) {
  // expected-error @+1 {{'decoda.qlinear' op without requantize the result is float, found 'i8'}}
  %y = decoda.qlinear %xq, %wq, %xs, %ws : tensor<2x64xi8>, tensor<128x64xi8>, tensor<f32>, tensor<128xf32> -> tensor<2x128xi8>
  return
}

// -----

func.func @qlinear_out_scale_rank(%xq: tensor<2x64xi8>, %wq: tensor<128x64xi8>, %xs: tensor<f32>, %ws: tensor<128xf32>, %os: tensor<128xf32>) {
  // expected-error @+1 {{'decoda.qlinear' op out_scale must be rank 0 (per tensor), found 'tensor<128xf32>'}}
  %y = decoda.qlinear %xq, %wq, %xs, %ws requantize(%os : tensor<128xf32>) : tensor<2x64xi8>, tensor<128x64xi8>, tensor<f32>, tensor<128xf32> -> tensor<2x128xi8>
  return
}

// -----

func.func @qlinear_float_input(%xq: tensor<2x64xf32>, %wq: tensor<128x64xi8>, %xs: tensor<f32>, %ws: tensor<128xf32>) {
  // expected-error @+1 {{'decoda.qlinear' op operand #0 must be ranked tensor of 8-bit signless integer values, but got 'tensor<2x64xf32>'}}
  %y = decoda.qlinear %xq, %wq, %xs, %ws : tensor<2x64xf32>, tensor<128x64xi8>, tensor<f32>, tensor<128xf32> -> tensor<2x128xf32>
  return
}

// -----

func.func @qlinear_i32_result(%xq: tensor<2x64xi8>, %wq: tensor<128x64xi8>, %xs: tensor<f32>, %ws: tensor<128xf32>) {
  // expected-error @+1 {{'decoda.qlinear' op result #0 must be ranked tensor of 32-bit float or 16-bit float or bfloat16 type or 8-bit signless integer values, but got 'tensor<2x128xi32>'}}
  %y = decoda.qlinear %xq, %wq, %xs, %ws : tensor<2x64xi8>, tensor<128x64xi8>, tensor<f32>, tensor<128xf32> -> tensor<2x128xi32>
  return
}

// -----

//===----------------------------------------------------------------------===//
// #decoda.glu
//===----------------------------------------------------------------------===//

func.func @glu_unknown_kind(%g: tensor<2x64xf32>) {
  // expected-error @+1 {{unknown GLU kind 'reglu'; expected swiglu, geglu, geglu_tanh, situ or clamped_swiglu}}
  %h = decoda.glu %g, %g {kind = #decoda.glu<reglu>} : tensor<2x64xf32>
  return
}

// -----

func.func @glu_unknown_parameter(%g: tensor<2x64xf32>) {
  // expected-error @+1 {{unknown GLU parameter 'alpha'; expected beta1, beta2 or limit}}
  %h = decoda.glu %g, %g {kind = #decoda.glu<clamped_swiglu, alpha = 1.0>} : tensor<2x64xf32>
  return
}

// -----

func.func @glu_parameter_twice(%g: tensor<2x64xf32>) {
  // expected-error @+1 {{parameter 'limit' given twice}}
  %h = decoda.glu %g, %g {kind = #decoda.glu<clamped_swiglu, limit = 1.0, limit = 2.0>} : tensor<2x64xf32>
  return
}

// -----

func.func @glu_situ_missing_beta2(%g: tensor<2x64xf32>) {
  // expected-error @+1 {{GLU kind 'situ' needs beta1 and beta2 (SiTU-GLU caps gate and up: beta1 * tanh(g / beta1) * sigmoid(g) * beta2 * tanh(u / beta2))}}
  %h = decoda.glu %g, %g {kind = #decoda.glu<situ, beta1 = 4.0>} : tensor<2x64xf32>
  return
}

// -----

func.func @glu_situ_zero_beta1(%g: tensor<2x64xf32>) {
  // expected-error @+1 {{SiTU-GLU caps must be positive, found beta1 = 0.000000e+00, beta2 = 2.500000e+01}}
  %h = decoda.glu %g, %g {kind = #decoda.glu<situ, beta1 = 0.0, beta2 = 25.0>} : tensor<2x64xf32>
  return
}

// -----

func.func @glu_situ_negative_beta1(%g: tensor<2x64xf32>) {
  // expected-error @+1 {{SiTU-GLU caps must be positive, found beta1 = -4.000000e+00, beta2 = 2.500000e+01}}
  %h = decoda.glu %g, %g {kind = #decoda.glu<situ, beta1 = -4.0, beta2 = 25.0>} : tensor<2x64xf32>
  return
}

// -----

func.func @glu_situ_negative_beta2(%g: tensor<2x64xf32>) {
  // expected-error @+1 {{SiTU-GLU caps must be positive, found beta1 = 4.000000e+00, beta2 = -2.500000e+01}}
  %h = decoda.glu %g, %g {kind = #decoda.glu<situ, beta1 = 4.0, beta2 = -25.0>} : tensor<2x64xf32>
  return
}

// -----

func.func @glu_situ_nan_beta(%g: tensor<2x64xf32>) {
  // expected-error @+1 {{SiTU-GLU caps must be positive, found beta1 = nan, beta2 = 2.500000e+01}}
  %h = decoda.glu %g, %g {kind = #decoda.glu<situ, beta1 = 0x7FF8000000000000, beta2 = 25.0>} : tensor<2x64xf32>
  return
}

// -----

func.func @glu_beta_on_swiglu(%g: tensor<2x64xf32>) {
  // expected-error @+1 {{beta1/beta2 belong to GLU kind 'situ', not 'swiglu'}}
  %h = decoda.glu %g, %g {kind = #decoda.glu<swiglu, beta1 = 4.0>} : tensor<2x64xf32>
  return
}

// -----

func.func @glu_clamped_missing_limit(%g: tensor<2x64xf32>) {
  // expected-error @+1 {{GLU kind 'clamped_swiglu' needs limit (the clamp bound L)}}
  %h = decoda.glu %g, %g {kind = #decoda.glu<clamped_swiglu>} : tensor<2x64xf32>
  return
}

// -----

func.func @glu_clamped_zero_limit(%g: tensor<2x64xf32>) {
  // expected-error @+1 {{clamped SwiGLU limit must be positive, found 0.000000e+00}}
  %h = decoda.glu %g, %g {kind = #decoda.glu<clamped_swiglu, limit = 0.0>} : tensor<2x64xf32>
  return
}

// -----

func.func @glu_limit_on_situ(%g: tensor<2x64xf32>) {
  // expected-error @+1 {{limit belongs to GLU kind 'clamped_swiglu', not 'situ'}}
  %h = decoda.glu %g, %g {kind = #decoda.glu<situ, beta1 = 4.0, beta2 = 25.0, limit = 10.0>} : tensor<2x64xf32>
  return
}

// -----

func.func @glu_limit_on_geglu(%g: tensor<2x64xf32>) {
  // expected-error @+1 {{limit belongs to GLU kind 'clamped_swiglu', not 'geglu'}}
  %h = decoda.glu %g, %g {kind = #decoda.glu<geglu, limit = 10.0>} : tensor<2x64xf32>
  return
}

// -----

//===----------------------------------------------------------------------===//
// #decoda.rope_scaling
//===----------------------------------------------------------------------===//

func.func @rope_scaling_unknown_kind(%q: tensor<1x4x2x16xf32>) {
  // expected-error @+1 {{unknown RoPE scaling 'ntk'; expected linear, yarn or llama3}}
  %y = decoda.rope %q {scaling = #decoda.rope_scaling<ntk, factor = 2.0>} : tensor<1x4x2x16xf32>
  return
}

// -----

func.func @rope_scaling_unknown_parameter(%q: tensor<1x4x2x16xf32>) {
  // expected-error @+1 {{unknown RoPE scaling parameter 'mscale'; expected factor, original_max_position, beta_fast, beta_slow, attention_factor, low_freq_factor or high_freq_factor}}
  %y = decoda.rope %q {scaling = #decoda.rope_scaling<yarn, factor = 2.0, original_max_position = 4096, mscale = 1.0>} : tensor<1x4x2x16xf32>
  return
}

// -----

func.func @rope_scaling_factor_twice(%q: tensor<1x4x2x16xf32>) {
  // expected-error @+1 {{parameter 'factor' given twice}}
  %y = decoda.rope %q {scaling = #decoda.rope_scaling<linear, factor = 2.0, factor = 4.0>} : tensor<1x4x2x16xf32>
  return
}

// -----

func.func @rope_scaling_original_max_position_twice(%q: tensor<1x4x2x16xf32>) {
  // expected-error @+1 {{parameter 'original_max_position' given twice}}
  %y = decoda.rope %q {scaling = #decoda.rope_scaling<yarn, factor = 2.0, original_max_position = 4096, original_max_position = 8192>} : tensor<1x4x2x16xf32>
  return
}

// -----

func.func @rope_scaling_missing_factor(%q: tensor<1x4x2x16xf32>) {
  // expected-error @+1 {{RoPE scaling 'yarn' needs a factor}}
  %y = decoda.rope %q {scaling = #decoda.rope_scaling<yarn, original_max_position = 4096>} : tensor<1x4x2x16xf32>
  return
}

// -----

func.func @rope_scaling_factor_below_one(%q: tensor<1x4x2x16xf32>) {
  // expected-error @+1 {{RoPE scaling factor must be finite and >= 1, found 5.000000e-01}}
  %y = decoda.rope %q {scaling = #decoda.rope_scaling<linear, factor = 0.5>} : tensor<1x4x2x16xf32>
  return
}

// -----

func.func @rope_scaling_factor_inf(%q: tensor<1x4x2x16xf32>) {
  // expected-error @+1 {{RoPE scaling factor must be finite and >= 1, found INF}}
  %y = decoda.rope %q {scaling = #decoda.rope_scaling<linear, factor = inf>} : tensor<1x4x2x16xf32>
  return
}

// -----

func.func @rope_scaling_yarn_missing_original_max_position(%q: tensor<1x4x2x16xf32>) {
  // expected-error @+1 {{RoPE scaling 'yarn' needs original_max_position (the pre-training context length)}}
  %y = decoda.rope %q {scaling = #decoda.rope_scaling<yarn, factor = 4.0>} : tensor<1x4x2x16xf32>
  return
}

// -----

func.func @rope_scaling_llama3_missing_original_max_position(%q: tensor<1x4x2x16xf32>) {
  // expected-error @+1 {{RoPE scaling 'llama3' needs original_max_position (the pre-training context length)}}
  %y = decoda.rope %q {scaling = #decoda.rope_scaling<llama3, factor = 8.0>} : tensor<1x4x2x16xf32>
  return
}

// -----

func.func @rope_scaling_original_max_position_zero(%q: tensor<1x4x2x16xf32>) {
  // expected-error @+1 {{original_max_position must be positive, found 0}}
  %y = decoda.rope %q {scaling = #decoda.rope_scaling<yarn, factor = 4.0, original_max_position = 0>} : tensor<1x4x2x16xf32>
  return
}

// -----

func.func @rope_scaling_original_max_position_negative(%q: tensor<1x4x2x16xf32>) {
  // expected-error @+1 {{original_max_position must be positive, found -4096}}
  %y = decoda.rope %q {scaling = #decoda.rope_scaling<llama3, factor = 4.0, original_max_position = -4096>} : tensor<1x4x2x16xf32>
  return
}

// -----

func.func @rope_scaling_linear_original_max_position(%q: tensor<1x4x2x16xf32>) {
  // expected-error @+1 {{original_max_position does not apply to RoPE scaling 'linear'}}
  %y = decoda.rope %q {scaling = #decoda.rope_scaling<linear, factor = 2.0, original_max_position = 4096>} : tensor<1x4x2x16xf32>
  return
}

// -----

func.func @rope_scaling_yarn_parameter_on_linear(%q: tensor<1x4x2x16xf32>) {
  // expected-error @+1 {{beta_fast, beta_slow and attention_factor belong to 'yarn', not 'linear'}}
  %y = decoda.rope %q {scaling = #decoda.rope_scaling<linear, factor = 2.0, attention_factor = 1.0>} : tensor<1x4x2x16xf32>
  return
}

// -----

func.func @rope_scaling_yarn_parameter_on_llama3(%q: tensor<1x4x2x16xf32>) {
  // expected-error @+1 {{beta_fast, beta_slow and attention_factor belong to 'yarn', not 'llama3'}}
  %y = decoda.rope %q {scaling = #decoda.rope_scaling<llama3, factor = 8.0, original_max_position = 8192, beta_fast = 32.0>} : tensor<1x4x2x16xf32>
  return
}

// -----

func.func @rope_scaling_yarn_beta_slow_zero(%q: tensor<1x4x2x16xf32>) {
  // expected-error @+1 {{YaRN beta_fast and beta_slow must be positive}}
  %y = decoda.rope %q {scaling = #decoda.rope_scaling<yarn, factor = 4.0, original_max_position = 4096, beta_slow = 0.0>} : tensor<1x4x2x16xf32>
  return
}

// -----

func.func @rope_scaling_yarn_beta_fast_negative(%q: tensor<1x4x2x16xf32>) {
  // expected-error @+1 {{YaRN beta_fast and beta_slow must be positive}}
  %y = decoda.rope %q {scaling = #decoda.rope_scaling<yarn, factor = 4.0, original_max_position = 4096, beta_fast = -32.0>} : tensor<1x4x2x16xf32>
  return
}

// -----

func.func @rope_scaling_yarn_beta_order(%q: tensor<1x4x2x16xf32>) {
  // expected-error @+1 {{YaRN needs beta_fast > beta_slow, found 1.000000e+00 <= 3.200000e+01}}
  %y = decoda.rope %q {scaling = #decoda.rope_scaling<yarn, factor = 4.0, original_max_position = 4096, beta_fast = 1.0, beta_slow = 32.0>} : tensor<1x4x2x16xf32>
  return
}

// -----

// beta_fast = beta_slow is not allowed either.
func.func @rope_scaling_yarn_beta_equal(%q: tensor<1x4x2x16xf32>) {
  // expected-error @+1 {{YaRN needs beta_fast > beta_slow, found 8.000000e+00 <= 8.000000e+00}}
  %y = decoda.rope %q {scaling = #decoda.rope_scaling<yarn, factor = 4.0, original_max_position = 4096, beta_fast = 8.0, beta_slow = 8.0>} : tensor<1x4x2x16xf32>
  return
}

// -----

// The defaults (beta_fast = 32, beta_slow = 1) take part in the check.
func.func @rope_scaling_yarn_beta_slow_above_default_fast(%q: tensor<1x4x2x16xf32>) {
  // expected-error @+1 {{YaRN needs beta_fast > beta_slow, found 3.200000e+01 <= 4.000000e+01}}
  %y = decoda.rope %q {scaling = #decoda.rope_scaling<yarn, factor = 4.0, original_max_position = 4096, beta_slow = 40.0>} : tensor<1x4x2x16xf32>
  return
}

// -----

func.func @rope_scaling_yarn_attention_factor(%q: tensor<1x4x2x16xf32>) {
  // expected-error @+1 {{YaRN attention_factor must be positive, found -1.000000e+00}}
  %y = decoda.rope %q {scaling = #decoda.rope_scaling<yarn, factor = 4.0, original_max_position = 4096, attention_factor = -1.0>} : tensor<1x4x2x16xf32>
  return
}

// -----

func.func @rope_scaling_llama3_parameter_on_yarn(%q: tensor<1x4x2x16xf32>) {
  // expected-error @+1 {{low_freq_factor and high_freq_factor belong to 'llama3', not 'yarn'}}
  %y = decoda.rope %q {scaling = #decoda.rope_scaling<yarn, factor = 4.0, original_max_position = 4096, low_freq_factor = 1.0>} : tensor<1x4x2x16xf32>
  return
}

// -----

func.func @rope_scaling_llama3_parameter_on_linear(%q: tensor<1x4x2x16xf32>) {
  // expected-error @+1 {{low_freq_factor and high_freq_factor belong to 'llama3', not 'linear'}}
  %y = decoda.rope %q {scaling = #decoda.rope_scaling<linear, factor = 2.0, high_freq_factor = 4.0>} : tensor<1x4x2x16xf32>
  return
}

// -----

func.func @rope_scaling_llama3_order(%q: tensor<1x4x2x16xf32>) {
  // expected-error @+1 {{llama3 RoPE scaling needs 0 < low_freq_factor < high_freq_factor, found 4.000000e+00 and 1.000000e+00}}
  %y = decoda.rope %q {scaling = #decoda.rope_scaling<llama3, factor = 8.0, original_max_position = 8192, low_freq_factor = 4.0, high_freq_factor = 1.0>} : tensor<1x4x2x16xf32>
  return
}

// -----

// low_freq_factor above the default high_freq_factor (4).
func.func @rope_scaling_llama3_low_above_default_high(%q: tensor<1x4x2x16xf32>) {
  // expected-error @+1 {{llama3 RoPE scaling needs 0 < low_freq_factor < high_freq_factor, found 8.000000e+00 and 4.000000e+00}}
  %y = decoda.rope %q {scaling = #decoda.rope_scaling<llama3, factor = 8.0, original_max_position = 8192, low_freq_factor = 8.0>} : tensor<1x4x2x16xf32>
  return
}

// -----

func.func @rope_scaling_llama3_low_zero(%q: tensor<1x4x2x16xf32>) {
  // expected-error @+1 {{llama3 RoPE scaling needs 0 < low_freq_factor < high_freq_factor, found 0.000000e+00 and 4.000000e+00}}
  %y = decoda.rope %q {scaling = #decoda.rope_scaling<llama3, factor = 8.0, original_max_position = 8192, low_freq_factor = 0.0>} : tensor<1x4x2x16xf32>
  return
}

// -----

func.func @rope_scaling_llama3_high_inf(%q: tensor<1x4x2x16xf32>) {
  // expected-error @+1 {{llama3 RoPE scaling needs 0 < low_freq_factor < high_freq_factor, found 1.000000e+00 and INF}}
  %y = decoda.rope %q {scaling = #decoda.rope_scaling<llama3, factor = 8.0, original_max_position = 8192, high_freq_factor = inf>} : tensor<1x4x2x16xf32>
  return
}

// -----

// ODS: the attribute must be a #decoda.rope_scaling.
func.func @rope_scaling_wrong_attribute(%q: tensor<1x4x2x16xf32>) {
  // expected-error @+1 {{'decoda.rope' op attribute 'scaling' failed to satisfy constraint}}
  %y = decoda.rope %q {scaling = 2.0 : f64} : tensor<1x4x2x16xf32>
  return
}

// -----

func.func @glu_integer_parameter(%g: tensor<2x64xf32>) {
  // expected-error @+2 {{unexpected decimal integer literal for a floating point value}}
  // expected-note @+1 {{add a trailing dot to make the literal a float}}
  %h = decoda.glu %g, %g {kind = #decoda.glu<clamped_swiglu, limit = 10>} : tensor<2x64xf32>
  return
}
