// A small block with constant weights and a KV cache for the decoda-compile --quantize tests:
// RMSNorm, Q/K/V (2 query heads over 1 KV head of 4), RoPE at positions offset + i, INT8-able
// cached_attention on a cache of 16 tokens, output projection, residual. The weights are those
// of quant-block.mlir.
func.func @step(%h: tensor<1x?x8xf32> {decoda.name = "h"}, %kc: tensor<1x16x1x4xf32> {decoda.name = "key_cache"},
                %vc: tensor<1x16x1x4xf32> {decoda.name = "value_cache"}, %pos: tensor<1xi64> {decoda.name = "pos"})
    -> (tensor<1x?x8xf32>, tensor<1x16x1x4xf32>, tensor<1x16x1x4xf32>) {
  %attn_norm = arith.constant dense<"0xA767863F5C56943F781D8E3F79DC633F7B896B3F3D20933FD4564D3F6872903F"> : tensor<8xf32>
  %wq = arith.constant dense<"0x256830BED2605EBE348F2F3E0DD1FF3D331F173D68BDA6BEDDBD27BC5932793E1CE2F0BE6E0224BE7D592ABFCD15E7BEFB0425BF6983A8BD5C20E3BE3A71C23DE6B7603DFAFD85BD6D8061BF4A1141BED90F8BBC9470223DA41909BF0E3A2BBEC259AFBE92F190BEF01CBE3ED1B590BE127E3ABC907B9E3E932951BECB2220BD845C1E3D07E0B63CAE87DBBE2C4FDA3C4C80F33EC99F0ABF5A009A3E1E1B2B3D2AE765BEC13C333FD198883E9EE9D6BE26A7D53C80AF4E3EAC5187BD4AC1743EEDB7BEBC3B246F3E41E4003F482872BE199C913DA80C26BEB673363DC9BED4BE279F4FBE1EA28CBDF90EA13E4A39CD3E1A2DEDBE61668EBEA6D9673E548532BF"> : tensor<8x8xf32>
  %wk = arith.constant dense<"0x050026BE75780BBDD041E13E1515773EED8BEABDFC1804BE0E57B3BD1C82083F766719BE98ADD9BD60BCFC3DF2222DBDD0698DBD0EA4C7BE2D2384BBC1FA1EBE58F8D03E22116A3EFA720ABC3A8C6F3E569EF3BD828ABC3EB8B4F7BA9015513EFC53E7BE1180F83D5A4317BF905D36BFC03FDABD5C44A1BEA32F6B3D5421493F"> : tensor<4x8xf32>
  %wv = arith.constant dense<"0x780B95BE139F5FBECA3B933D2BB2303E4FE57CBD619C93BD42C37B3EBC553A3E163CB9BE5707E3BC52594A3CB1F6BCBEAF40BA3DEDBE99BEC131AE3E07298A3DA007003D16D353BEFF092ABD81FF32BF8BBFCABEB20A023E38B83EBF56B6973E43731CBF889B873E588397BE5F988B3E4DBB3B3D4EB309BFF3D8DF3E4D2D013F"> : tensor<4x8xf32>
  %wo = arith.constant dense<"0x03ADBCBCDB57C4BD6F2F65BD4FBFAEBEE3DDC43E8D9242BEEDC592BCA2288EBE756260BEE6F7E4BE4E44E13E63E65CBDD917AD3E30D1983BCDDF78BE022BEABD6CC948BE0990363BE27E06BEE0FBD6BD640AF7BE389690BE1C34143FEB9170BEC3E4BCBEA7CBF13DE52EFC3ED44702BFED7795BD138762BE8FC91DBFE9B2833ED36F06BC8BD6CC3C70D086BEA1FE223EBF4841BEB5DD4CBDAF99C6BEF5ECD9BECA53EF3E0FBF35BE9413D13D93C441BC401B1EBE9F0D36BE54D2613EF260D8BD101C59BDC7DAFE3B8ED4D23E27E5733EBA1F093EE7FB49BE17A6F7BEE027AA3EF52FAD3E35B849BD0F36423EDB088C3EC1F2943EA71CA53E1A4B23BED8BD073F"> : tensor<8x8xf32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %t = tensor.dim %h, %c1 : tensor<1x?x8xf32>
  %p64 = tensor.extract %pos[%c0] : tensor<1xi64>
  %off = arith.index_cast %p64 : i64 to index
  %x = decoda.rms_norm %h, %attn_norm {eps = 1.0e-05 : f64} : tensor<1x?x8xf32>, tensor<8xf32>
  %q2 = decoda.linear %x, %wq : tensor<1x?x8xf32>, tensor<8x8xf32>
  %k2 = decoda.linear %x, %wk : tensor<1x?x8xf32>, tensor<4x8xf32>
  %v2 = decoda.linear %x, %wv : tensor<1x?x8xf32>, tensor<4x8xf32>
  %q = tensor.expand_shape %q2 [[0], [1], [2, 3]] output_shape [1, %t, 2, 4] : tensor<1x?x8xf32> into tensor<1x?x2x4xf32>
  %k = tensor.expand_shape %k2 [[0], [1], [2, 3]] output_shape [1, %t, 1, 4] : tensor<1x?x4xf32> into tensor<1x?x1x4xf32>
  %v = tensor.expand_shape %v2 [[0], [1], [2, 3]] output_shape [1, %t, 1, 4] : tensor<1x?x4xf32> into tensor<1x?x1x4xf32>
  %o, %kc2, %vc2 = decoda.cached_attention %q, %k, %v, %kc, %vc[%off] {num_heads = 2 : i64, num_kv_heads = 1 : i64, causal}
      : tensor<1x?x2x4xf32>, tensor<1x?x1x4xf32>, tensor<1x?x1x4xf32>, tensor<1x16x1x4xf32>, tensor<1x16x1x4xf32>
  %o2 = tensor.collapse_shape %o [[0], [1], [2, 3]] : tensor<1x?x2x4xf32> into tensor<1x?x8xf32>
  %attn = decoda.linear %o2, %wo : tensor<1x?x8xf32>, tensor<8x8xf32>
  %u = decoda.residual_add %h, %attn : tensor<1x?x8xf32>
  return %u, %kc2, %vc2 : tensor<1x?x8xf32>, tensor<1x16x1x4xf32>, tensor<1x16x1x4xf32>
}
