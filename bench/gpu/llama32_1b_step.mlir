// One decode step of the Llama-3.2-1B-shaped block (hidden 2048, 32 query heads over 8 KV heads
// of 64, SwiGLU MLP 8192) in bf16 with a 4096-entry KV cache: the token at `offset` attends to
// the cache after its own K/V row is appended. The caches are donated (decoda-compile
// --donate-caches): bench/gpu_check.sh runs it with `decoda-run --device-inputs --donate`, so
// weights and caches stay on the device and a step reads 121.6 MB of weights and up to 8 MiB of
// cache. Made from llama32_1b_block.mlir.

func.func @llama32_1b_step(
    %h: tensor<1x1x2048xbf16> {decoda.name = "h"},
    %attn_norm: tensor<2048xbf16> {decoda.name = "attn_norm"},
    %wq: tensor<2048x2048xbf16> {decoda.name = "wq"},
    %wk: tensor<512x2048xbf16> {decoda.name = "wk"},
    %wv: tensor<512x2048xbf16> {decoda.name = "wv"},
    %wo: tensor<2048x2048xbf16> {decoda.name = "wo"},
    %mlp_norm: tensor<2048xbf16> {decoda.name = "mlp_norm"},
    %w_gate: tensor<8192x2048xbf16> {decoda.name = "w_gate"},
    %w_up: tensor<8192x2048xbf16> {decoda.name = "w_up"},
    %w_down: tensor<2048x8192xbf16> {decoda.name = "w_down"},
    %kc: tensor<1x4096x8x64xbf16> {decoda.name = "k_cache"},
    %vc: tensor<1x4096x8x64xbf16> {decoda.name = "v_cache"},
    %offset: tensor<i64> {decoda.name = "offset"})
    -> (tensor<1x1x2048xbf16> {decoda.name = "h_out"},
        tensor<1x4096x8x64xbf16> {decoda.name = "k_cache_out"},
        tensor<1x4096x8x64xbf16> {decoda.name = "v_cache_out"}) {
  %off64 = tensor.extract %offset[] : tensor<i64>
  %off = arith.index_cast %off64 : i64 to index

  // u = h + Attn(RMSNorm(h)) over the cache
  %x = decoda.rms_norm %h, %attn_norm {eps = 1.0e-05 : f64} : tensor<1x1x2048xbf16>, tensor<2048xbf16>
  %q2 = decoda.linear %x, %wq : tensor<1x1x2048xbf16>, tensor<2048x2048xbf16>
  %k2 = decoda.linear %x, %wk : tensor<1x1x2048xbf16>, tensor<512x2048xbf16>
  %v2 = decoda.linear %x, %wv : tensor<1x1x2048xbf16>, tensor<512x2048xbf16>
  %q = tensor.expand_shape %q2 [[0], [1], [2, 3]] output_shape [1, 1, 32, 64]
      : tensor<1x1x2048xbf16> into tensor<1x1x32x64xbf16>
  %k = tensor.expand_shape %k2 [[0], [1], [2, 3]] output_shape [1, 1, 8, 64]
      : tensor<1x1x512xbf16> into tensor<1x1x8x64xbf16>
  %v = tensor.expand_shape %v2 [[0], [1], [2, 3]] output_shape [1, 1, 8, 64]
      : tensor<1x1x512xbf16> into tensor<1x1x8x64xbf16>
  %pos = tensor.expand_shape %offset [] output_shape [1] : tensor<i64> into tensor<1xi64>
  %qr = decoda.rope %q positions(%pos : tensor<1xi64>) {theta = 5.0e+05 : f64} : tensor<1x1x32x64xbf16>
  %kr = decoda.rope %k positions(%pos : tensor<1xi64>) {theta = 5.0e+05 : f64} : tensor<1x1x8x64xbf16>
  %o, %kc2, %vc2 = decoda.cached_attention %qr, %kr, %v, %kc, %vc[%off]
      {num_heads = 32 : i64, num_kv_heads = 8 : i64, causal}
      : tensor<1x1x32x64xbf16>, tensor<1x1x8x64xbf16>, tensor<1x1x8x64xbf16>,
        tensor<1x4096x8x64xbf16>, tensor<1x4096x8x64xbf16>
  %o2 = tensor.collapse_shape %o [[0], [1], [2, 3]] : tensor<1x1x32x64xbf16> into tensor<1x1x2048xbf16>
  %attn = decoda.linear %o2, %wo : tensor<1x1x2048xbf16>, tensor<2048x2048xbf16>
  %u = decoda.residual_add %h, %attn : tensor<1x1x2048xbf16>

  // h' = u + SwiGLU(RMSNorm(u))
  %y = decoda.rms_norm %u, %mlp_norm {eps = 1.0e-05 : f64} : tensor<1x1x2048xbf16>, tensor<2048xbf16>
  %m = decoda.gated_mlp %y, %w_gate, %w_up, %w_down {kind = #decoda.glu<swiglu>}
      : tensor<1x1x2048xbf16>, tensor<8192x2048xbf16>, tensor<8192x2048xbf16>, tensor<2048x8192xbf16>
  %out = decoda.residual_add %u, %m : tensor<1x1x2048xbf16>
  return %out, %kc2, %vc2 : tensor<1x1x2048xbf16>, tensor<1x4096x8x64xbf16>, tensor<1x4096x8x64xbf16>
}
