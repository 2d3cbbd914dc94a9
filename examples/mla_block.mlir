// A DeepSeek-V2-style decoder block with multi-head latent attention (MLA), scaled down:
// hidden 64 (5120), 4 heads (128), q_lora_rank 48 (1536), kv_lora_rank 32 (512),
// qk_nope_head_dim 16 (128), qk_rope_head_dim 8 (64), v_head_dim 16 (128), SwiGLU MLP 128;
// batch 1, dynamic sequence length.
//
// Queries go through a low-rank bottleneck (W_DQ, RMSNorm, W_UQ) and split into a non-rotary
// part and a rotary part. Keys and values are compressed into one latent c per token (W_DKV,
// RMSNorm); the RoPE key k_rope is a separate projection shared by all heads (decoupled RoPE),
// since a rotation cannot be absorbed into W_UK. decoda.mla takes W_UK and W_UV as operands, so
// a lowering can score against the latent directly instead of decompressing per-head K and V.

func.func @mla_block(
    %h: tensor<1x?x64xf32>,
    %attn_norm: tensor<64xf32>,
    %w_dq: tensor<48x64xf32>, %q_norm: tensor<48xf32>, %w_uq: tensor<96x48xf32>,
    %w_dkv: tensor<40x64xf32>, %kv_norm: tensor<32xf32>,
    %w_uk: tensor<4x16x32xf32>, %w_uv: tensor<4x16x32xf32>, %wo: tensor<64x64xf32>,
    %mlp_norm: tensor<64xf32>, %w_gate: tensor<128x64xf32>, %w_up: tensor<128x64xf32>,
    %w_down: tensor<64x128xf32>) -> tensor<1x?x64xf32> {
  %c1 = arith.constant 1 : index
  %t = tensor.dim %h, %c1 : tensor<1x?x64xf32>

  %x = decoda.rms_norm %h, %attn_norm {eps = 1.0e-06 : f64} : tensor<1x?x64xf32>, tensor<64xf32>

  // Queries: [1, T, 4, 16 + 8] from the low-rank path, split into nope and rope parts.
  %cq = decoda.linear %x, %w_dq : tensor<1x?x64xf32>, tensor<48x64xf32>
  %cqn = decoda.rms_norm %cq, %q_norm {eps = 1.0e-06 : f64} : tensor<1x?x48xf32>, tensor<48xf32>
  %q2 = decoda.linear %cqn, %w_uq : tensor<1x?x48xf32>, tensor<96x48xf32>
  %q = tensor.expand_shape %q2 [[0], [1], [2, 3]] output_shape [1, %t, 4, 24]
      : tensor<1x?x96xf32> into tensor<1x?x4x24xf32>
  %q_nope = tensor.extract_slice %q[0, 0, 0, 0] [1, %t, 4, 16] [1, 1, 1, 1]
      : tensor<1x?x4x24xf32> to tensor<1x?x4x16xf32>
  %q_pe = tensor.extract_slice %q[0, 0, 0, 16] [1, %t, 4, 8] [1, 1, 1, 1]
      : tensor<1x?x4x24xf32> to tensor<1x?x4x8xf32>
  %q_rope = decoda.rope %q_pe {theta = 1.0e+04 : f64, layout = #decoda.rope_layout<interleaved>}
      : tensor<1x?x4x8xf32>

  // The latent c [1, T, 32] and the shared RoPE key [1, T, 8] from one down-projection.
  %kv = decoda.linear %x, %w_dkv : tensor<1x?x64xf32>, tensor<40x64xf32>
  %c_raw = tensor.extract_slice %kv[0, 0, 0] [1, %t, 32] [1, 1, 1]
      : tensor<1x?x40xf32> to tensor<1x?x32xf32>
  %c = decoda.rms_norm %c_raw, %kv_norm {eps = 1.0e-06 : f64} : tensor<1x?x32xf32>, tensor<32xf32>
  %k_pe3 = tensor.extract_slice %kv[0, 0, 32] [1, %t, 8] [1, 1, 1]
      : tensor<1x?x40xf32> to tensor<1x?x8xf32>
  %k_pe = tensor.expand_shape %k_pe3 [[0], [1], [2, 3]] output_shape [1, %t, 1, 8]
      : tensor<1x?x8xf32> into tensor<1x?x1x8xf32>
  %k_rope4 = decoda.rope %k_pe {theta = 1.0e+04 : f64, layout = #decoda.rope_layout<interleaved>}
      : tensor<1x?x1x8xf32>
  %k_rope = tensor.collapse_shape %k_rope4 [[0], [1], [2, 3]]
      : tensor<1x?x1x8xf32> into tensor<1x?x8xf32>

  %o = decoda.mla %q_nope, %q_rope, %c, %k_rope, %w_uk, %w_uv {num_heads = 4 : i64, causal}
      : tensor<1x?x4x16xf32>, tensor<1x?x4x8xf32>, tensor<1x?x32xf32>, tensor<1x?x8xf32>,
        tensor<4x16x32xf32>, tensor<4x16x32xf32>
  %o2 = tensor.collapse_shape %o [[0], [1], [2, 3]] : tensor<1x?x4x16xf32> into tensor<1x?x64xf32>
  %attn = decoda.linear %o2, %wo : tensor<1x?x64xf32>, tensor<64x64xf32>
  %u = decoda.residual_add %h, %attn : tensor<1x?x64xf32>

  %y = decoda.rms_norm %u, %mlp_norm {eps = 1.0e-06 : f64} : tensor<1x?x64xf32>, tensor<64xf32>
  %m = decoda.gated_mlp %y, %w_gate, %w_up, %w_down {kind = #decoda.glu<swiglu>}
      : tensor<1x?x64xf32>, tensor<128x64xf32>, tensor<128x64xf32>, tensor<64x128xf32>
  %out = decoda.residual_add %u, %m : tensor<1x?x64xf32>
  return %out : tensor<1x?x64xf32>
}
