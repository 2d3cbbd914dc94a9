// decoda-compile --verify-numerics: the program as written and after each graph pass, run on
// the same random inputs through the JIT, must agree within the tolerance. The test-only pass
// decoda-test-break-numerics (appended to the graph passes by a hidden flag; in no pipeline)
// sets eps = 0.5 on the first norm of each function: the check must name that pass and that
// norm's location, and write no output.
//
// RUN: rm -rf %t && split-file %s %t
// A correct compile: no drift, and the artifact is written.
// RUN: decoda-compile %decoda_src/examples/llama_block.mlir -o %t/llama.mlir --emit=mlir \
// RUN:   --verify-numerics 2>&1 | FileCheck %s --check-prefix=GOOD
// RUN: test -s %t/llama.mlir
// RUN: not decoda-compile %decoda_src/examples/llama_block.mlir -o %t/broken.mlir --emit=mlir \
// RUN:   --verify-numerics --test-insert-pass-after-graph-opt=decoda-test-break-numerics 2>&1 \
// RUN:   | FileCheck %s --check-prefix=LLAMA
// RUN: not test -e %t/broken.mlir
// RUN: not decoda-compile %decoda_src/examples/mla_block.mlir -o %t/broken.mlir --emit=mlir \
// RUN:   --verify-numerics --test-insert-pass-after-graph-opt=decoda-test-break-numerics 2>&1 \
// RUN:   | FileCheck %s --check-prefix=MLA
// The wrong pass in the middle: the passes before it are clean, the ones after it never run.
// RUN: not decoda-compile %t/post.mlir -o %t/broken.mlir --emit=mlir --verify-numerics \
// RUN:   --no-graph-opt --test-insert-pass-after-graph-opt=decoda-fuse-residual-norm,decoda-test-break-numerics,cse \
// RUN:   2>&1 | FileCheck %s --check-prefix=POST
// A tolerance above the damage: no drift reported.
// RUN: decoda-compile %t/post.mlir -o %t/post.out.mlir --emit=mlir --verify-numerics \
// RUN:   --verify-numerics-tol=10 --test-insert-pass-after-graph-opt=decoda-test-break-numerics \
// RUN:   2>&1 | FileCheck %s --check-prefix=LOOSE
// bf16 storage (inputs rounded to bf16, the bf16 tolerance), static shapes, a KV cache.
// RUN: decoda-compile %t/decode.mlir -o %t/x.mlir --emit=mlir --verify-numerics 2>&1 \
// RUN:   | FileCheck %s --check-prefix=BF16-GOOD
// RUN: not decoda-compile %t/decode.mlir -o %t/x.mlir --emit=mlir --verify-numerics \
// RUN:   --test-insert-pass-after-graph-opt=decoda-test-break-numerics 2>&1 \
// RUN:   | FileCheck %s --check-prefix=BF16-BAD
// Random inputs the program refuses (T = 8 > the cache's 4 slots) are an error, not a crash;
// a dynamic size that fits passes.
// RUN: not decoda-compile %t/overflow.mlir -o %t/x.mlir --emit=mlir --verify-numerics 2>&1 \
// RUN:   | FileCheck %s --check-prefix=OVERFLOW
// RUN: decoda-compile %t/overflow.mlir -o %t/x.mlir --emit=mlir --verify-numerics \
// RUN:   --verify-numerics-dim=3 --verify-numerics-seed=7 2>&1 | FileCheck %s --check-prefix=FITS
// RUN: decoda-compile %t/post.mlir -o %t/x.mlir --emit=mlir --verify-numerics --no-graph-opt \
// RUN:   2>&1 | FileCheck %s --check-prefix=NOPASS
// RUN: not decoda-compile %t/post.mlir -o %t/x.mlir --verify-numerics --verify-numerics-tol=0 \
// RUN:   2>&1 | FileCheck %s --check-prefix=BADTOL
// RUN: not decoda-compile %t/post.mlir -o %t/x.mlir --verify-numerics --verify-numerics-dim=0 \
// RUN:   2>&1 | FileCheck %s --check-prefix=BADDIM
// RUN: not decoda-compile %t/post.mlir -o %t/x.mlir \
// RUN:   --test-insert-pass-after-graph-opt=decoda-no-such-pass 2>&1 | FileCheck %s --check-prefix=BADPASS
// The test pass is not a pass of decoda-opt (nor of any pipeline).
// RUN: not decoda-opt %t/post.mlir --decoda-test-break-numerics 2>&1 | FileCheck %s --check-prefix=OPT

// GOOD: verify-numerics: random inputs (seed 1), every dynamic dimension 8, tolerance by element type (f32/f64 1e-4, f16 1e-2, bf16 5e-2)
// GOOD: verify-numerics: @llama_block after decoda-fuse-residual-norm: ok, outputs max abs err 0, max rel err 0;
// GOOD: verify-numerics: no drift after {{[0-9]+}} graph passes

// LLAMA: verify-numerics: @llama_block after decoda-fuse-residual-norm: ok
// LLAMA: verify-numerics: @llama_block after decoda-test-break-numerics: DRIFT
// LLAMA: llama_block.mlir:5:1: error: --verify-numerics: output 0 of @llama_block drifts beyond tolerance 0.0001 after pass 'decoda-test-break-numerics' (graph pass [[N:[0-9]+]] of [[N]]): max abs err
// LLAMA: llama_block.mlir:15:8: note: first op whose values drift: 'decoda.rms_norm' at llama_block.mlir:15:8, result 0, against the program as written: max abs err
// LLAMA-NOT: no drift

// MLA: mla_block.mlir:12:1: error: --verify-numerics: output 0 of @mla_block drifts beyond tolerance 0.0001 after pass 'decoda-test-break-numerics'
// MLA: mla_block.mlir:23:8: note: first op whose values drift: 'decoda.rms_norm' at mla_block.mlir:23:8, result 0, against the program as written

// The broken norm is the add_rms_norm that decoda-fuse-residual-norm made (at the rms_norm's
// location): it has no counterpart as written, so it is compared with the program before the
// wrong pass.
// POST:      verify-numerics: random inputs
// POST-NEXT: verify-numerics: @post after decoda-fuse-residual-norm: ok, outputs max abs err 0, max rel err 0; op results: 2 compared, 2 new in this pass
// POST-NEXT: verify-numerics: @post after decoda-test-break-numerics: DRIFT
// POST-NEXT: post.mlir:1:1: error: --verify-numerics: output 0 of @post drifts beyond tolerance 0.0001 after pass 'decoda-test-break-numerics' (graph pass 2 of 3)
// POST:      post.mlir:4:8: note: first op whose values drift: 'decoda.add_rms_norm' at post.mlir:4:8, result 1, against the program before this pass
// POST-NOT:  after cse

// LOOSE: tolerance 10
// LOOSE: verify-numerics: @post after decoda-test-break-numerics: ok
// LOOSE: verify-numerics: no drift after

// BF16-GOOD: verify-numerics: no drift after
// BF16-BAD: decode.mlir:1:1: error: --verify-numerics: output 0 of @decode drifts beyond tolerance 0.05 after pass 'decoda-test-break-numerics'
// BF16-BAD: decode.mlir:5:8: note: first op whose values drift: 'decoda.rms_norm' at decode.mlir:5:8, result 0, against the program as written

// OVERFLOW: overflow.mlir:1:1: error: --verify-numerics: @step as written fails a run-time check on the random inputs (every dynamic dimension 8): decoda.cached_attention: the new tokens [offset, offset + T) do not fit in the cache
// FITS: verify-numerics: random inputs (seed 7), every dynamic dimension 3, tolerance by element type
// FITS: verify-numerics: no drift after
// NOPASS: verify-numerics: no graph pass ran; nothing to compare
// BADTOL: error: --verify-numerics-tol must be a positive finite number
// BADDIM: error: --verify-numerics-dim must be positive
// BADPASS: error: --test-insert-pass-after-graph-opt: {{.*}}'decoda-no-such-pass' does not refer to a registered pass
// OPT: Unknown command line argument '--decoda-test-break-numerics'

//--- post.mlir
func.func @post(%h: tensor<1x?x16xf32>, %a: tensor<1x?x16xf32>, %w: tensor<16xf32>,
                %wo: tensor<16x16xf32>) -> tensor<1x?x16xf32> {
  %s = decoda.residual_add %h, %a : tensor<1x?x16xf32>
  %n = decoda.rms_norm %s, %w {eps = 1.0e-05 : f64} : tensor<1x?x16xf32>, tensor<16xf32>
  %p = decoda.linear %n, %wo : tensor<1x?x16xf32>, tensor<16x16xf32>
  %y = decoda.residual_add %s, %p : tensor<1x?x16xf32>
  return %y : tensor<1x?x16xf32>
}

//--- overflow.mlir
func.func @step(%q: tensor<1x?x2x8xf32>, %k: tensor<1x?x1x8xf32>, %v: tensor<1x?x1x8xf32>,
                %kc: tensor<1x4x1x8xf32>, %vc: tensor<1x4x1x8xf32>, %offset: tensor<i64>)
    -> tensor<1x?x2x8xf32> {
  %off64 = tensor.extract %offset[] : tensor<i64>
  %off = arith.index_cast %off64 : i64 to index
  %o, %kc2, %vc2 = decoda.cached_attention %q, %k, %v, %kc, %vc[%off]
      {num_heads = 2 : i64, num_kv_heads = 1 : i64, causal}
      : tensor<1x?x2x8xf32>, tensor<1x?x1x8xf32>, tensor<1x?x1x8xf32>,
        tensor<1x4x1x8xf32>, tensor<1x4x1x8xf32>
  return %o : tensor<1x?x2x8xf32>
}

//--- decode.mlir
func.func @decode(%h: tensor<1x1x64xbf16>, %norm: tensor<64xbf16>, %wq: tensor<64x64xbf16>,
                  %wkv: tensor<64x64xbf16>, %kc: tensor<1x8x2x16xbf16>,
                  %vc: tensor<1x8x2x16xbf16>, %offset: tensor<i64>) -> tensor<1x1x64xbf16> {
  %off64 = tensor.extract %offset[] : tensor<i64>
  %x = decoda.rms_norm %h, %norm {eps = 1.0e-05 : f64} : tensor<1x1x64xbf16>, tensor<64xbf16>
  %off = arith.index_cast %off64 : i64 to index
  %q2 = decoda.linear %x, %wq : tensor<1x1x64xbf16>, tensor<64x64xbf16>
  %kv = decoda.linear %x, %wkv : tensor<1x1x64xbf16>, tensor<64x64xbf16>
  %k2 = tensor.extract_slice %kv[0, 0, 0] [1, 1, 32] [1, 1, 1] : tensor<1x1x64xbf16> to tensor<1x1x32xbf16>
  %v2 = tensor.extract_slice %kv[0, 0, 32] [1, 1, 32] [1, 1, 1] : tensor<1x1x64xbf16> to tensor<1x1x32xbf16>
  %q = tensor.expand_shape %q2 [[0], [1], [2, 3]] output_shape [1, 1, 4, 16] : tensor<1x1x64xbf16> into tensor<1x1x4x16xbf16>
  %k = tensor.expand_shape %k2 [[0], [1], [2, 3]] output_shape [1, 1, 2, 16] : tensor<1x1x32xbf16> into tensor<1x1x2x16xbf16>
  %v = tensor.expand_shape %v2 [[0], [1], [2, 3]] output_shape [1, 1, 2, 16] : tensor<1x1x32xbf16> into tensor<1x1x2x16xbf16>
  %o, %kc2, %vc2 = decoda.cached_attention %q, %k, %v, %kc, %vc[%off]
      {num_heads = 4 : i64, num_kv_heads = 2 : i64, causal}
      : tensor<1x1x4x16xbf16>, tensor<1x1x2x16xbf16>, tensor<1x1x2x16xbf16>,
        tensor<1x8x2x16xbf16>, tensor<1x8x2x16xbf16>
  %o2 = tensor.collapse_shape %o [[0], [1], [2, 3]] : tensor<1x1x4x16xbf16> into tensor<1x1x64xbf16>
  %y = decoda.residual_add %h, %o2 : tensor<1x1x64xbf16>
  return %y : tensor<1x1x64xbf16>
}
