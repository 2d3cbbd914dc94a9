// A decoder block with manifold-constrained hyper-connections (mHC): the residual stream is
// widened to n = 4 streams of width 32 ([B, T, 4, 32]) and each sub-layer F is wrapped as
//
//   X' = B X + C ⊗ F(A X),   A = σ(Ã), C = 2σ(C̃), B = Sinkhorn(exp(B̃)) (20 iterations),
//
// so B is (nearly) doubly stochastic and the mixing keeps the signal's scale through depth.
// The attention sub-layer uses static (per-layer) logits; the MLP sub-layer computes its logits
// per token from the current streams (RMSNorm of the flattened streams, then linear maps with
// biases: the biases are the static part, the projections the dynamic part), as mHC does.
// Attention: RMSNorm, 2 heads of 16 with RoPE, causal. MLP: RMSNorm, SwiGLU 64.
// Batch 1, dynamic sequence length.

func.func @mhc_block(
    %x: tensor<1x?x4x32xf32>,
    %attn_read: tensor<4xf32>, %attn_mix: tensor<4x4xf32>, %attn_write: tensor<4xf32>,
    %attn_norm: tensor<32xf32>, %wq: tensor<32x32xf32>, %wk: tensor<32x32xf32>,
    %wv: tensor<32x32xf32>, %wo: tensor<32x32xf32>,
    %phi_norm: tensor<128xf32>,
    %w_read: tensor<4x128xf32>, %b_read: tensor<4xf32>,
    %w_mix: tensor<16x128xf32>, %b_mix: tensor<16xf32>,
    %w_write: tensor<4x128xf32>, %b_write: tensor<4xf32>,
    %mlp_norm: tensor<32xf32>, %w_gate: tensor<64x32xf32>, %w_up: tensor<64x32xf32>,
    %w_down: tensor<32x64xf32>) -> tensor<1x?x4x32xf32> {
  %c1 = arith.constant 1 : index
  %t = tensor.dim %x, %c1 : tensor<1x?x4x32xf32>

  // Attention sub-layer, static hyper-connection logits.
  %x1 = decoda.hyper_connection %x, %attn_read, %attn_mix, %attn_write {sinkhorn_iters = 20 : i64}
      : tensor<1x?x4x32xf32>, tensor<4xf32>, tensor<4x4xf32>, tensor<4xf32> {
  ^bb0(%h: tensor<1x?x32xf32>):
    %n = decoda.rms_norm %h, %attn_norm {eps = 1.0e-06 : f64} : tensor<1x?x32xf32>, tensor<32xf32>
    %q2 = decoda.linear %n, %wq : tensor<1x?x32xf32>, tensor<32x32xf32>
    %k2 = decoda.linear %n, %wk : tensor<1x?x32xf32>, tensor<32x32xf32>
    %v2 = decoda.linear %n, %wv : tensor<1x?x32xf32>, tensor<32x32xf32>
    %q = tensor.expand_shape %q2 [[0], [1], [2, 3]] output_shape [1, %t, 2, 16]
        : tensor<1x?x32xf32> into tensor<1x?x2x16xf32>
    %k = tensor.expand_shape %k2 [[0], [1], [2, 3]] output_shape [1, %t, 2, 16]
        : tensor<1x?x32xf32> into tensor<1x?x2x16xf32>
    %v = tensor.expand_shape %v2 [[0], [1], [2, 3]] output_shape [1, %t, 2, 16]
        : tensor<1x?x32xf32> into tensor<1x?x2x16xf32>
    %qr = decoda.rope %q {theta = 1.0e+04 : f64} : tensor<1x?x2x16xf32>
    %kr = decoda.rope %k {theta = 1.0e+04 : f64} : tensor<1x?x2x16xf32>
    %o = decoda.attention %qr, %kr, %v {num_heads = 2 : i64, num_kv_heads = 2 : i64, causal}
        : tensor<1x?x2x16xf32>, tensor<1x?x2x16xf32>, tensor<1x?x2x16xf32>
    %o2 = tensor.collapse_shape %o [[0], [1], [2, 3]] : tensor<1x?x2x16xf32> into tensor<1x?x32xf32>
    %a = decoda.linear %o2, %wo : tensor<1x?x32xf32>, tensor<32x32xf32>
    decoda.yield %a : tensor<1x?x32xf32>
  }

  // MLP sub-layer, per-token logits computed from the streams.
  %flat = tensor.collapse_shape %x1 [[0], [1], [2, 3]]
      : tensor<1x?x4x32xf32> into tensor<1x?x128xf32>
  %phi = decoda.rms_norm %flat, %phi_norm {eps = 1.0e-06 : f64}
      : tensor<1x?x128xf32>, tensor<128xf32>
  %read = decoda.linear %phi, %w_read, %b_read
      : tensor<1x?x128xf32>, tensor<4x128xf32>, tensor<4xf32>
  %mix2 = decoda.linear %phi, %w_mix, %b_mix
      : tensor<1x?x128xf32>, tensor<16x128xf32>, tensor<16xf32>
  %mix = tensor.expand_shape %mix2 [[0], [1], [2, 3]] output_shape [1, %t, 4, 4]
      : tensor<1x?x16xf32> into tensor<1x?x4x4xf32>
  %write = decoda.linear %phi, %w_write, %b_write
      : tensor<1x?x128xf32>, tensor<4x128xf32>, tensor<4xf32>
  %x2 = decoda.hyper_connection %x1, %read, %mix, %write {sinkhorn_iters = 20 : i64}
      : tensor<1x?x4x32xf32>, tensor<1x?x4xf32>, tensor<1x?x4x4xf32>, tensor<1x?x4xf32> {
  ^bb0(%h: tensor<1x?x32xf32>):
    %n = decoda.rms_norm %h, %mlp_norm {eps = 1.0e-06 : f64} : tensor<1x?x32xf32>, tensor<32xf32>
    %m = decoda.gated_mlp %n, %w_gate, %w_up, %w_down {kind = #decoda.glu<swiglu>}
        : tensor<1x?x32xf32>, tensor<64x32xf32>, tensor<64x32xf32>, tensor<32x64xf32>
    decoda.yield %m : tensor<1x?x32xf32>
  }
  return %x2 : tensor<1x?x4x32xf32>
}
