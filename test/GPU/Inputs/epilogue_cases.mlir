// Projections whose elementwise consumers are fused into the contraction kernels' stores, for
// epilogue-sim.mlir (the reference: Inputs/epilogue_data.py).

// A bf16 projection and a residual add (one generic after decoda-fuse-elementwise:
// bf16(r + f32(bf16(acc)))). T dynamic: the GEMV kernel at T = 1, the tensor cores otherwise;
// N = 136 is ragged over the 128-column tile, K = 128 four 32-wide stages.
func.func @res(%x: tensor<1x?x128xbf16>, %w: tensor<136x128xbf16>, %r: tensor<1x?x136xbf16>) -> tensor<1x?x136xbf16> {
  %y = decoda.linear %x, %w : tensor<1x?x128xbf16>, tensor<136x128xbf16>
  %o = decoda.residual_add %r, %y : tensor<1x?x136xbf16>
  return %o : tensor<1x?x136xbf16>
}

// A SwiGLU MLP (gate, up, down; hidden 64, intermediate 96), T dynamic.
func.func @mlp(%x: tensor<1x?x64xbf16>, %wg: tensor<96x64xbf16>, %wu: tensor<96x64xbf16>, %wd: tensor<64x96xbf16>) -> tensor<1x?x64xbf16> {
  %m = decoda.gated_mlp %x, %wg, %wu, %wd {kind = #decoda.glu<swiglu>}
      : tensor<1x?x64xbf16>, tensor<96x64xbf16>, tensor<96x64xbf16>, tensor<64x96xbf16>
  return %m : tensor<1x?x64xbf16>
}

// A static decode step (M = 2 over two lead dims, the GEMV kernel; K = 200 not a multiple of
// 256: the per-lane remainder loop) with a residual add.
func.func @dec(%x: tensor<2x1x200xbf16>, %w: tensor<37x200xbf16>, %r: tensor<2x1x37xbf16>) -> tensor<2x1x37xbf16> {
  %y = decoda.linear %x, %w : tensor<2x1x200xbf16>, tensor<37x200xbf16>
  %o = decoda.residual_add %r, %y : tensor<2x1x37xbf16>
  return %o : tensor<2x1x37xbf16>
}

// INT8 with a dynamic T (the dp4a GEMV at T = 1, integer tensor cores otherwise): per-token
// x_scale, per-channel w_scale, a bf16 bias, a bf16 output. K = 128 (two 64-wide wgmma stages).
func.func @q8(%x: tensor<1x?x128xi8>, %w: tensor<40x128xi8>, %xs: tensor<1x?x1xf32>, %ws: tensor<40xf32>, %b: tensor<40xbf16>) -> tensor<1x?x40xbf16> {
  %y = decoda.qlinear %x, %w, %xs, %ws bias(%b : tensor<40xbf16>) : tensor<1x?x128xi8>, tensor<40x128xi8>, tensor<1x?x1xf32>, tensor<40xf32> -> tensor<1x?x40xbf16>
  return %y : tensor<1x?x40xbf16>
}

// K = 200 is not a multiple of 32: decoda-gpu-tensorcore-matmul leaves the T > 1 branch's
// contraction to the SIMT loops, where the residual add stays the next kernel; the T = 1 GEMV
// kernel applies it.
func.func @odd(%x: tensor<1x?x200xbf16>, %w: tensor<40x200xbf16>, %r: tensor<1x?x40xbf16>) -> tensor<1x?x40xbf16> {
  %y = decoda.linear %x, %w : tensor<1x?x200xbf16>, tensor<40x200xbf16>
  %o = decoda.residual_add %r, %y : tensor<1x?x40xbf16>
  return %o : tensor<1x?x40xbf16>
}

// A decode-shaped SwiGLU MLP (static T = 1, hidden 512, 200 features): gate and up in one GEMV
// kernel (decoda-gpu-gemv{gate-up}; 50 blocks, so K splits over two warps a column).
func.func @mlp_decode(%x: tensor<1x1x512xbf16>, %wg: tensor<200x512xbf16>, %wu: tensor<200x512xbf16>, %wd: tensor<512x200xbf16>) -> tensor<1x1x512xbf16> {
  %m = decoda.gated_mlp %x, %wg, %wu, %wd {kind = #decoda.glu<swiglu>}
      : tensor<1x1x512xbf16>, tensor<200x512xbf16>, tensor<200x512xbf16>, tensor<512x200xbf16>
  return %m : tensor<1x1x512xbf16>
}
