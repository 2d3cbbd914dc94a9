// Attention with an additive padding mask as Hugging Face exports build it (the float's lowest
// value, -3.4e38, on padded keys; test/GPU/attention-padding-mask-sim.mlir, reference
// Inputs/padding_mask_data.py CASE). Batch row 1 is left-padded: its first keys are padding, so
// its first queries see only padding (every logit about -3.4e38: the f32 model averages their
// values uniformly) and the first key tile of every query is all padding.

// f32 (SIMT), causal through the mask, GQA 2 over 1, T = 70, row 1 padded by 66 keys.
func.func @pad_f32(%q: tensor<2x70x2x32xf32>, %k: tensor<2x70x1x32xf32>, %v: tensor<2x70x1x32xf32>, %m: tensor<2x1x70x70xf32>) -> tensor<2x70x2x32xf32> {
  %o = decoda.attention %q, %k, %v mask(%m : tensor<2x1x70x70xf32>) {num_heads = 2 : i64, num_kv_heads = 1 : i64}
      : tensor<2x70x2x32xf32>, tensor<2x70x1x32xf32>, tensor<2x70x1x32xf32>
  return %o : tensor<2x70x2x32xf32>
}

// bf16 at head dim 64 (the tensor-core kernels: wgmma on sm_90a, mma.sync without it), GQA 4
// over 2, the mask in f32 (as --float-type=bf16 leaves it), T = 70, row 1 padded by 66.
func.func @pad_bf16(%q: tensor<2x70x4x64xbf16>, %k: tensor<2x70x2x64xbf16>, %v: tensor<2x70x2x64xbf16>, %m: tensor<2x1x70x70xf32>) -> tensor<2x70x4x64xbf16> {
  %o = decoda.attention %q, %k, %v mask(%m : tensor<2x1x70x70xf32>) {num_heads = 4 : i64, num_kv_heads = 2 : i64}
      : tensor<2x70x4x64xbf16>, tensor<2x70x2x64xbf16>, tensor<2x70x2x64xbf16>
  return %o : tensor<2x70x4x64xbf16>
}

// The same with the mask in bf16 holding bf16's lowest value (a model exported in bf16).
func.func @pad_bf16_mask16(%q: tensor<2x70x4x64xbf16>, %k: tensor<2x70x2x64xbf16>, %v: tensor<2x70x2x64xbf16>, %m: tensor<2x1x70x70xbf16>) -> tensor<2x70x4x64xbf16> {
  %o = decoda.attention %q, %k, %v mask(%m : tensor<2x1x70x70xbf16>) {num_heads = 4 : i64, num_kv_heads = 2 : i64}
      : tensor<2x70x4x64xbf16>, tensor<2x70x2x64xbf16>, tensor<2x70x2x64xbf16>
  return %o : tensor<2x70x4x64xbf16>
}

// A decode step (one query over 300 keys: flash decoding, the keys split over blocks) in f32
// and bf16: row 0 padded by 250 keys (whole splits are padding), row 1 all padding.
func.func @pad_decode_f32(%q: tensor<2x1x4x64xf32>, %k: tensor<2x300x2x64xf32>, %v: tensor<2x300x2x64xf32>, %m: tensor<2x1x1x300xf32>) -> tensor<2x1x4x64xf32> {
  %o = decoda.attention %q, %k, %v mask(%m : tensor<2x1x1x300xf32>) {num_heads = 4 : i64, num_kv_heads = 2 : i64}
      : tensor<2x1x4x64xf32>, tensor<2x300x2x64xf32>, tensor<2x300x2x64xf32>
  return %o : tensor<2x1x4x64xf32>
}

func.func @pad_decode_bf16(%q: tensor<2x1x4x64xbf16>, %k: tensor<2x300x2x64xbf16>, %v: tensor<2x300x2x64xbf16>, %m: tensor<2x1x1x300xf32>) -> tensor<2x1x4x64xbf16> {
  %o = decoda.attention %q, %k, %v mask(%m : tensor<2x1x1x300xf32>) {num_heads = 4 : i64, num_kv_heads = 2 : i64}
      : tensor<2x1x4x64xbf16>, tensor<2x300x2x64xbf16>, tensor<2x300x2x64xbf16>
  return %o : tensor<2x1x4x64xbf16>
}

// Eight tokens of eight query heads over two K/V heads, 32 rows a K/V head, over 300 keys (a
// speculative step: the tensor-core kernel's split form), row 0 padded by 250, row 1 all
// padding.
func.func @pad_spec_bf16(%q: tensor<2x8x8x64xbf16>, %k: tensor<2x300x2x64xbf16>, %v: tensor<2x300x2x64xbf16>, %m: tensor<2x1x8x300xf32>) -> tensor<2x8x8x64xbf16> {
  %o = decoda.attention %q, %k, %v mask(%m : tensor<2x1x8x300xf32>) {num_heads = 8 : i64, num_kv_heads = 2 : i64}
      : tensor<2x8x8x64xbf16>, tensor<2x300x2x64xbf16>, tensor<2x300x2x64xbf16>
  return %o : tensor<2x8x8x64xbf16>
}
