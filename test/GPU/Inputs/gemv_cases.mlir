// Decode-sized projections for gemv-sim.mlir (decoda-gpu-gemv): static rows, ragged N and K.
#a = affine_map<(m, n, k) -> (m, k)>
#b = affine_map<(m, n, k) -> (n, k)>
#c = affine_map<(m, n, k) -> (m, n)>

// M = 1, N = 37 (the last block has 1 of 4 warps' columns), K = 200: 8-wide vectors, no
// unrolled step, lanes 25-31 idle.
func.func @bf16_m1(%x: tensor<1x1x200xbf16>, %w: tensor<37x200xbf16>) -> tensor<1x1x37xbf16> {
  %y = decoda.linear %x, %w : tensor<1x1x200xbf16>, tensor<37x200xbf16>
  return %y : tensor<1x1x37xbf16>
}

// M = 4 over two lead dims, N = 70, K = 1096: one unrolled step of 4 x 256, then 72 more.
func.func @bf16_m4(%x: tensor<2x2x1096xbf16>, %w: tensor<70x1096xbf16>) -> tensor<2x2x70xbf16> {
  %y = decoda.linear %x, %w : tensor<2x2x1096xbf16>, tensor<70x1096xbf16>
  return %y : tensor<2x2x70xbf16>
}

// f32, M = 1, N = 41, K = 1030: K is not a multiple of 4, so 2-wide (8-byte) vectors; four
// unrolled steps of 4 x 64, then 6 more.
func.func @f32_m1(%x: tensor<1x1x1030xf32>, %w: tensor<41x1030xf32>) -> tensor<1x1x41xf32> {
  %y = decoda.linear %x, %w : tensor<1x1x1030xf32>, tensor<41x1030xf32>
  return %y : tensor<1x1x41xf32>
}

// f32, M = 4, accumulated onto an input C (no zero fill), N = 33, K = 300 (4-wide vectors).
func.func @f32_m4_acc(%x: tensor<4x300xf32>, %w: tensor<33x300xf32>, %c: tensor<4x33xf32>) -> tensor<4x33xf32> {
  %y = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : tensor<4x300xf32>, tensor<33x300xf32>) outs(%c : tensor<4x33xf32>) {
  ^bb0(%p: f32, %q: f32, %o: f32):
    %r = arith.mulf %q, %p : f32
    %s = arith.addf %r, %o : f32
    linalg.yield %s : f32
  } -> tensor<4x33xf32>
  return %y : tensor<4x33xf32>
}

// f16, M = 8 (the largest taken), N = 9, K = 37: odd K, scalar loads.
func.func @f16_m8(%x: tensor<8x37xf16>, %w: tensor<9x37xf16>) -> tensor<8x9xf16> {
  %y = decoda.linear %x, %w : tensor<8x37xf16>, tensor<9x37xf16>
  return %y : tensor<8x9xf16>
}

// f16 with 16 rows (the tensor-core GEMV's limit: its fragments' rows g and g + 8 both A's),
// K = 1040 (32 warp steps of 32 and a partial one), N = 20 (a partial tile of 8 columns).
func.func @f16_m16(%x: tensor<16x1040xf16>, %w: tensor<20x1040xf16>) -> tensor<16x20xf16> {
  %y = decoda.linear %x, %w : tensor<16x1040xf16>, tensor<20x1040xf16>
  return %y : tensor<16x20xf16>
}

// A dynamic row count (a prefill entry): the GEMV kernel when T = 1, the tensor-core GEMV for
// 2 to 16 rows (8 with --gpu-gemv-mma=false: SIMT), the tensor cores otherwise
// (N = 40 and K = 256 fit mma.sync: K a multiple of 32, N of 8).
func.func @dyn_bf16(%x: tensor<1x?x256xbf16>, %w: tensor<40x256xbf16>) -> tensor<1x?x40xbf16> {
  %y = decoda.linear %x, %w : tensor<1x?x256xbf16>, tensor<40x256xbf16>
  return %y : tensor<1x?x40xbf16>
}
