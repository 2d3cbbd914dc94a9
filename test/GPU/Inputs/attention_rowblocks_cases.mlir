// Decode-shaped attention calls with more rows per (batch, K/V head) than one 16-row block and
// no tensor-core kernel, for test/GPU/flash-decoding-rowblocks-sim.mlir: the SIMT split form
// over several row blocks (block x: row block x % blocks of split x / blocks) and the combine.
// Inputs and NumPy references from attention_data.py (the case names).

// f32 speculative decoding: 5 draft tokens of 8 heads over 2 K/V heads (20 rows per K/V head:
// 2 row blocks, the second with 4 rows), causal over a cache of 300 keys, head dim 64.
func.func @rb_spec_f32(%q: tensor<1x?x8x64xf32>, %k: tensor<1x?x2x64xf32>, %v: tensor<1x?x2x64xf32>) -> tensor<1x?x8x64xf32> {
  %o = decoda.attention %q, %k, %v {num_heads = 8 : i64, num_kv_heads = 2 : i64, causal}
      : tensor<1x?x8x64xf32>, tensor<1x?x2x64xf32>, tensor<1x?x2x64xf32>
  return %o : tensor<1x?x8x64xf32>
}

// Absorbed MLA with more heads than a block (DeepSeek-V3 has 128; here 40: 3 row blocks, the
// last with 8 rows), bf16, D = 576, Dv = 512 (the tiles in dynamic shared memory), a decode
// step at batch 2 over 130 keys.
func.func @rb_mla40_bf16(%q: tensor<2x1x40x576xbf16>, %k: tensor<2x?x1x576xbf16>, %v: tensor<2x?x1x512xbf16>) -> tensor<2x1x40x512xbf16> {
  %o = decoda.attention %q, %k, %v {num_heads = 40 : i64, num_kv_heads = 1 : i64, scale = 0.07216878364870323 : f64, causal}
      : tensor<2x1x40x576xbf16>, tensor<2x?x1x576xbf16>, tensor<2x?x1x512xbf16>
  return %o : tensor<2x1x40x512xbf16>
}
