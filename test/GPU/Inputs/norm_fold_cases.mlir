// The RMSNorm folds of decoda-gpu-gemv{fold-norms} (norm-fold-sim.mlir, gemv-norm-fold.mlir;
// NumPy references in norm_fold_data.py). Folded: @plain_bf16 (one row of D = 72: fewer
// chunks than threads, two projections read it), @add_f16 (add_rms_norm with scale 0.5 and
// weight offset 1 over 4 rows of 256; gate and up read the rows, the sum is down's residual),
// @plain_f32 (2 rows of 1024: several chunks a thread), @rows8 (8 rows of 2048: 32 KiB of
// normalised rows a kernel, so its two kernels stay two launches), @mixed_weight (bf16 rows,
// an f32 weight), @layer (LayerNorm with a bias: the mean, then the centred variance). Not
// folded: @returned (the rows are also a result), @rows17 (T = 17, above the tensor-core GEMV's
// 16 rows). @many_rows (T = 16) is folded into the tensor-core GEMV (bf16: up to 16 rows; the
// SIMT kernel's 8 before). Dynamic T (dispatched at run time): @dynamic and @dynamic_add
// (@add_f16's block with T a run-time dim) fold the norm into their M = 1 kernels and keep
// the norm's kernel for every other T.
func.func @plain_bf16(%x: tensor<1x1x72xbf16>, %w: tensor<72xbf16>, %wq: tensor<48x72xbf16>,
                      %wk: tensor<24x72xbf16>) -> (tensor<1x1x48xbf16>, tensor<1x1x24xbf16>) {
  %n = decoda.rms_norm %x, %w {eps = 1.0e-05 : f64} : tensor<1x1x72xbf16>, tensor<72xbf16>
  %q = decoda.linear %n, %wq : tensor<1x1x72xbf16>, tensor<48x72xbf16>
  %k = decoda.linear %n, %wk : tensor<1x1x72xbf16>, tensor<24x72xbf16>
  return %q, %k : tensor<1x1x48xbf16>, tensor<1x1x24xbf16>
}

func.func @add_f16(%r: tensor<1x4x256xf16>, %a: tensor<1x4x256xf16>, %w: tensor<256xf16>,
                   %wg: tensor<64x256xf16>, %wu: tensor<64x256xf16>, %wd: tensor<256x64xf16>)
    -> tensor<1x4x256xf16> {
  %h, %n = decoda.add_rms_norm %r, %a, %w {eps = 1.0e-06 : f64, weight_offset = 1.0 : f64, scale = 0.5 : f64} : tensor<1x4x256xf16>, tensor<256xf16>
  %m = decoda.gated_mlp %n, %wg, %wu, %wd {kind = #decoda.glu<swiglu>}
      : tensor<1x4x256xf16>, tensor<64x256xf16>, tensor<64x256xf16>, tensor<256x64xf16>
  %y = decoda.residual_add %h, %m : tensor<1x4x256xf16>
  return %y : tensor<1x4x256xf16>
}

func.func @plain_f32(%x: tensor<1x2x1024xf32>, %w: tensor<1024xf32>, %wp: tensor<40x1024xf32>)
    -> tensor<1x2x40xf32> {
  %n = decoda.rms_norm %x, %w {eps = 1.0e-05 : f64} : tensor<1x2x1024xf32>, tensor<1024xf32>
  %p = decoda.linear %n, %wp : tensor<1x2x1024xf32>, tensor<40x1024xf32>
  return %p : tensor<1x2x40xf32>
}

func.func @rows8(%x: tensor<1x8x2048xbf16>, %w: tensor<2048xbf16>, %wq: tensor<16x2048xbf16>,
                 %wk: tensor<8x2048xbf16>) -> (tensor<1x8x16xbf16>, tensor<1x8x8xbf16>) {
  %n = decoda.rms_norm %x, %w {eps = 1.0e-05 : f64} : tensor<1x8x2048xbf16>, tensor<2048xbf16>
  %q = decoda.linear %n, %wq : tensor<1x8x2048xbf16>, tensor<16x2048xbf16>
  %k = decoda.linear %n, %wk : tensor<1x8x2048xbf16>, tensor<8x2048xbf16>
  return %q, %k : tensor<1x8x16xbf16>, tensor<1x8x8xbf16>
}

func.func @mixed_weight(%x: tensor<1x1x64xbf16>, %w: tensor<64xf32>, %wp: tensor<32x64xbf16>)
    -> tensor<1x1x32xbf16> {
  %n = decoda.rms_norm %x, %w {eps = 1.0e-05 : f64} : tensor<1x1x64xbf16>, tensor<64xf32>
  %p = decoda.linear %n, %wp : tensor<1x1x64xbf16>, tensor<32x64xbf16>
  return %p : tensor<1x1x32xbf16>
}

func.func @returned(%x: tensor<1x1x64xbf16>, %w: tensor<64xbf16>, %wp: tensor<32x64xbf16>)
    -> (tensor<1x1x32xbf16>, tensor<1x1x64xbf16>) {
  %n = decoda.rms_norm %x, %w {eps = 1.0e-05 : f64} : tensor<1x1x64xbf16>, tensor<64xbf16>
  %p = decoda.linear %n, %wp : tensor<1x1x64xbf16>, tensor<32x64xbf16>
  return %p, %n : tensor<1x1x32xbf16>, tensor<1x1x64xbf16>
}

func.func @layer(%x: tensor<1x1x64xbf16>, %w: tensor<64xbf16>, %b: tensor<64xbf16>,
                 %wp: tensor<32x64xbf16>) -> tensor<1x1x32xbf16> {
  %n = decoda.layer_norm %x, %w, %b {eps = 1.0e-05 : f64} : tensor<1x1x64xbf16>, tensor<64xbf16>, tensor<64xbf16>
  %p = decoda.linear %n, %wp : tensor<1x1x64xbf16>, tensor<32x64xbf16>
  return %p : tensor<1x1x32xbf16>
}

func.func @dynamic(%x: tensor<1x?x64xbf16>, %w: tensor<64xbf16>, %wp: tensor<32x64xbf16>)
    -> tensor<1x?x32xbf16> {
  %n = decoda.rms_norm %x, %w {eps = 1.0e-05 : f64} : tensor<1x?x64xbf16>, tensor<64xbf16>
  %p = decoda.linear %n, %wp : tensor<1x?x64xbf16>, tensor<32x64xbf16>
  return %p : tensor<1x?x32xbf16>
}

func.func @many_rows(%x: tensor<1x16x64xbf16>, %w: tensor<64xbf16>, %wp: tensor<32x64xbf16>)
    -> tensor<1x16x32xbf16> {
  %n = decoda.rms_norm %x, %w {eps = 1.0e-05 : f64} : tensor<1x16x64xbf16>, tensor<64xbf16>
  %p = decoda.linear %n, %wp : tensor<1x16x64xbf16>, tensor<32x64xbf16>
  return %p : tensor<1x16x32xbf16>
}

func.func @rows17(%x: tensor<1x17x64xbf16>, %w: tensor<64xbf16>, %wp: tensor<32x64xbf16>)
    -> tensor<1x17x32xbf16> {
  %n = decoda.rms_norm %x, %w {eps = 1.0e-05 : f64} : tensor<1x17x64xbf16>, tensor<64xbf16>
  %p = decoda.linear %n, %wp : tensor<1x17x64xbf16>, tensor<32x64xbf16>
  return %p : tensor<1x17x32xbf16>
}

func.func @dynamic_add(%r: tensor<1x?x256xf16>, %a: tensor<1x?x256xf16>, %w: tensor<256xf16>,
                       %wg: tensor<64x256xf16>, %wu: tensor<64x256xf16>, %wd: tensor<256x64xf16>)
    -> tensor<1x?x256xf16> {
  %h, %n = decoda.add_rms_norm %r, %a, %w {eps = 1.0e-06 : f64, weight_offset = 1.0 : f64, scale = 0.5 : f64} : tensor<1x?x256xf16>, tensor<256xf16>
  %m = decoda.gated_mlp %n, %wg, %wu, %wd {kind = #decoda.glu<swiglu>}
      : tensor<1x?x256xf16>, tensor<64x256xf16>, tensor<64x256xf16>, tensor<256x64xf16>
  %y = decoda.residual_add %h, %m : tensor<1x?x256xf16>
  return %y : tensor<1x?x256xf16>
}

// A parallel block's two LayerNorms of one input (GPT-NeoX), placed side by side by
// decoda-fuse-residual-norm: each folds into the GEMV that reads it, the second across the
// attention's call and its run-time checks (a key count only known at run time).
func.func @parallel(%x: tensor<1x1x64xbf16>, %w1: tensor<64xbf16>, %b1: tensor<64xbf16>,
                    %w2: tensor<64xbf16>, %b2: tensor<64xbf16>, %wq: tensor<64x64xbf16>,
                    %k: tensor<1x?x4x16xbf16>, %v: tensor<1x?x4x16xbf16>, %wp: tensor<32x64xbf16>)
    -> (tensor<1x1x4x16xbf16>, tensor<1x1x32xbf16>) {
  %n1 = decoda.layer_norm %x, %w1, %b1 {eps = 1.0e-05 : f64} : tensor<1x1x64xbf16>, tensor<64xbf16>, tensor<64xbf16>
  %n2 = decoda.layer_norm %x, %w2, %b2 {eps = 1.0e-05 : f64} : tensor<1x1x64xbf16>, tensor<64xbf16>, tensor<64xbf16>
  %q = decoda.linear %n1, %wq : tensor<1x1x64xbf16>, tensor<64x64xbf16>
  %q4 = tensor.expand_shape %q [[0], [1], [2, 3]] output_shape [1, 1, 4, 16] : tensor<1x1x64xbf16> into tensor<1x1x4x16xbf16>
  %o = decoda.attention %q4, %k, %v {num_heads = 4 : i64, num_kv_heads = 4 : i64}
      : tensor<1x1x4x16xbf16>, tensor<1x?x4x16xbf16>, tensor<1x?x4x16xbf16>
  %p = decoda.linear %n2, %wp : tensor<1x1x64xbf16>, tensor<32x64xbf16>
  return %o, %p : tensor<1x1x4x16xbf16>, tensor<1x1x32xbf16>
}
