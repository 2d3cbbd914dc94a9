// decoda-compile --report: what each graph pass changed, and the memory ledger. Every expected
// byte count below is derived by hand from the shapes (comments); none comes from running the
// code under test. The graph passes are pinned (--no-graph-opt plus the test flag that appends
// passes) so that the "after graph passes" figures do not move when decoda-graph-opt grows; one
// run with the default pipeline checks only what no graph pass may change.
//
// RUN: rm -rf %t && split-file %s %t
// RUN: decoda-compile %decoda_src/examples/llama_block.mlir -o %t/llama.mlir --emit=mlir \
// RUN:   --report --no-graph-opt \
// RUN:   --test-insert-pass-after-graph-opt=canonicalize,cse,decoda-fuse-residual-norm 2>&1 \
// RUN:   | FileCheck %s --check-prefix=LLAMA
// RUN: decoda-compile %decoda_src/examples/mla_block.mlir -o %t/mla.mlir --emit=mlir \
// RUN:   --report=%t/mla.txt --no-graph-opt \
// RUN:   --test-insert-pass-after-graph-opt=canonicalize,cse,decoda-fuse-residual-norm
// RUN: FileCheck %s --check-prefix=MLA < %t/mla.txt
// RUN: decoda-compile %decoda_src/examples/llama_block.mlir -o %t/llama.mlir --emit=mlir \
// RUN:   --report --report-seq-len=1 2>&1 | FileCheck %s --check-prefix=DEFAULT
// RUN: decoda-compile %t/decode.mlir -o %t/decode.out.mlir --emit=mlir --report --no-graph-opt \
// RUN:   --test-insert-pass-after-graph-opt=canonicalize,cse,decoda-fuse-residual-norm 2>&1 \
// RUN:   | FileCheck %s --check-prefix=DECODE
// RUN: decoda-compile %t/absorbed.mlir -o %t/absorbed.out.mlir --emit=mlir --report --no-graph-opt \
// RUN:   --test-insert-pass-after-graph-opt=canonicalize,cse,decoda-fuse-residual-norm 2>&1 \
// RUN:   | FileCheck %s --check-prefix=ABSORBED
// RUN: decoda-compile %t/consts.mlir -o %t/consts.out.mlir --emit=mlir --report --no-graph-opt \
// RUN:   --test-insert-pass-after-graph-opt=canonicalize,cse,decoda-fuse-residual-norm 2>&1 \
// RUN:   | FileCheck %s --check-prefix=CONSTS
// RUN: not decoda-compile %t/consts.mlir -o %t/x.mlir --report=%t/missing/r.txt 2>&1 \
// RUN:   | FileCheck %s --check-prefix=BADFILE
// RUN: not decoda-compile %t/consts.mlir -o %t/x.mlir --report --report-seq-len=0 2>&1 \
// RUN:   | FileCheck %s --check-prefix=BADT

// examples/llama_block.mlir, f32 (4 B), hidden 256, T = 128; A = 128 x 256 x 4 = 131072 B.
// Parameters (9 arguments, all static and all weights): norms 2 x 256, wq 256x256, wk and wv
// 64x256, wo 256x256, w_gate and w_up 768x256, w_down 256x768:
//   512 + 65536 + 32768 + 65536 + 3 x 196608 = 754176 numbers = 3016704 B.
// Activation inputs: h = A. Outputs: A.
// Intermediates, 12 tensors: rms_norm A, q A, k A/4, v A/4, rope(q) A, rope(k) A/4,
// attention A, wo A, u A, rms_norm A, gated_mlp A, out A = 9.75 A = 1277952 B (reshapes are
// views; after fusion add_rms_norm gives sum + normalized = the same 2 A).
// Peak live as written: 3.5 A = 458752 B (after the v projection: h, x, q, k, v; also at the
// rope of q and at the attention). After fusion: add_rms_norm holds h, the wo output and both
// of its results: 4 A = 524288 B.
// KV cache per token: 2 x 4 B x 2 KV heads x 32 = 512 B.
// LLAMA:      decoda-compile report: {{.*}}llama_block.mlir
// LLAMA-NEXT: graph passes (op count changes; LLVM statistics are compiled out of this LLVM):
// LLAMA-NEXT:   canonicalize: no change
// LLAMA-NEXT:   cse: no change
// LLAMA-NEXT:   decoda-fuse-residual-norm: -1 decoda.residual_add, -1 decoda.rms_norm, +1 decoda.add_rms_norm
// LLAMA-NEXT: memory of @llama_block, bytes, every dynamic dimension = T = 128:
// LLAMA-NEXT: as written    after graph passes
// LLAMA-NEXT: parameters                 3016704    3016704
// LLAMA-NEXT:   weight arguments         3016704    3016704
// LLAMA-NEXT:     tensors                      9          9
// LLAMA-NEXT:   constants                      0          0
// LLAMA-NEXT:     tensors                      0          0
// LLAMA-NEXT: KV-cache inputs                  0          0
// LLAMA-NEXT: activation inputs           131072     131072
// LLAMA-NEXT: outputs                     131072     131072
// LLAMA-NEXT: intermediates (sum of op results) 1277952 1277952
// LLAMA-NEXT:   tensors                       12         12
// LLAMA-NEXT: peak live activations (program order) 458752 524288
// LLAMA-NEXT: KV cache per token, all layers     512        512
// LLAMA-NEXT: KV cache per token and layer:
// LLAMA-NEXT:   decoda.attention at llama_block.mlir:27:8: 512 = 2 x 4 B x 2 KV heads x 32

// examples/mla_block.mlir, f32, hidden 64, T = 128; U = 128 x 4 = 512 B per feature.
// Parameters (13 arguments): attn_norm 64, w_dq 48x64 = 3072, q_norm 48, w_uq 96x48 = 4608,
// w_dkv 40x64 = 2560, kv_norm 32, w_uk and w_uv 4x16x32 = 2048 each, wo 64x64 = 4096,
// mlp_norm 64, w_gate, w_up, w_down 128x64 = 8192 each: 43216 numbers = 172864 B.
// Activation inputs: h = 64 U = 32768 B; outputs the same.
// Intermediates, 14 tensors (features): x 64, cq 48, cqn 48, q2 96, q_rope 32, kv 40, c 32,
// k_rope 8, mla 64, wo 64, u 64, y 64, mlp 64, out 64 = 752 U = 385024 B.
// Peak live: 296 U = 151552 B, at the kv projection (h 64, x 64, q2 96 -- kept by the slices
// that feed the mla -- q_rope 32, kv 40) and again at the mla (h, q2, q_rope, c 32, k_rope 8,
// its result 64); the fused add_rms_norm holds 4 x 64 = 256 U, below that.
// KV cache per token: latent 4 B x (32 + 8) = 160 B; decompressed per-head K and V
// 4 B x 4 heads x (16 + 8 + 16) = 640 B.
// MLA:      decoda-fuse-residual-norm: -1 decoda.residual_add, -1 decoda.rms_norm, +1 decoda.add_rms_norm
// MLA:      memory of @mla_block, bytes, every dynamic dimension = T = 128:
// MLA:      parameters                  172864     172864
// MLA-NEXT:   weight arguments          172864     172864
// MLA-NEXT:     tensors                     13         13
// MLA:      activation inputs            32768      32768
// MLA-NEXT: outputs                      32768      32768
// MLA-NEXT: intermediates (sum of op results) 385024 385024
// MLA-NEXT:   tensors                       14         14
// MLA-NEXT: peak live activations (program order) 151552 151552
// MLA-NEXT: KV cache per token, all layers    160        160
// MLA-NEXT: KV cache per token and layer:
// MLA-NEXT:   decoda.mla at mla_block.mlir:52:8: 160 = 4 B x (32 + 8), the latent and the RoPE key
// MLA-NEXT:     (640 = 4 B x 4 heads x (16 + 8 + 16) if per-head K and V were cached)

// The default pipeline, T = 1: what no graph pass changes. A = 256 x 4 = 1024 B; intermediates
// 9.75 A = 9984 B; peak live as written 3.5 A = 3584 B.
// DEFAULT: graph passes
// DEFAULT: canonicalize:
// DEFAULT: decoda-fuse-residual-norm: -1 decoda.residual_add, -1 decoda.rms_norm, +1 decoda.add_rms_norm
// DEFAULT: every dynamic dimension = T = 1:
// DEFAULT: parameters                 3016704    3016704
// DEFAULT: activation inputs             1024       1024
// DEFAULT: intermediates (sum of op results) 9984
// DEFAULT: peak live activations (program order) 3584
// DEFAULT: KV cache per token, all layers     512

//--- decode.mlir
// One decode step in bf16 (2 B), every shape static. The static activation h (T = 1) is not a
// parameter: it feeds no weight operand.
// Parameters: norm 64 x 2 = 128, wq and wkv 64x64 x 2 = 8192 each: 16512 B in 3 tensors.
// KV-cache inputs: 2 x (32 x 2 x 16 x 2 B) = 4096 B. Activation inputs: h 128 + offset 8 = 136.
// Outputs: y 128 + both caches 4096 = 4224. Intermediates: x, q2, kv, attention, y, 5 x 128 =
// 640 B (the updated caches are the cache). Peak live 512 B: h, x, q2, kv at the kv projection
// (h, q2, kv and the attention result at the attention).
// KV cache per token: 2 x 2 B x 2 KV heads x 16 = 128 B.
// DECODE:      graph passes
// DECODE-NEXT:   canonicalize: no change
// DECODE:      memory of @decode, bytes, every dynamic dimension = T = 128:
// DECODE:      parameters                 16512      16512
// DECODE-NEXT:   weight arguments         16512      16512
// DECODE-NEXT:     tensors                    3          3
// DECODE:      KV-cache inputs             4096       4096
// DECODE-NEXT: activation inputs            136        136
// DECODE-NEXT: outputs                     4224       4224
// DECODE-NEXT: intermediates (sum of op results) 640 640
// DECODE-NEXT:   tensors                      5          5
// DECODE-NEXT: peak live activations (program order) 512 512
// DECODE-NEXT: KV cache per token, all layers  128        128
// DECODE-NEXT: KV cache per token and layer:
// DECODE-NEXT:   decoda.cached_attention at decode.mlir:{{[0-9]+}}:{{[0-9]+}}: 128 = 2 x 2 B x 2 KV heads x 16
func.func @decode(%h: tensor<1x1x64xbf16>, %norm: tensor<64xbf16>, %wq: tensor<64x64xbf16>,
                  %wkv: tensor<64x64xbf16>, %kc: tensor<1x32x2x16xbf16>,
                  %vc: tensor<1x32x2x16xbf16>, %offset: tensor<i64>)
    -> (tensor<1x1x64xbf16>, tensor<1x32x2x16xbf16>, tensor<1x32x2x16xbf16>) {
  %off64 = tensor.extract %offset[] : tensor<i64>
  %off = arith.index_cast %off64 : i64 to index
  %x = decoda.rms_norm %h, %norm {eps = 1.0e-05 : f64} : tensor<1x1x64xbf16>, tensor<64xbf16>
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
        tensor<1x32x2x16xbf16>, tensor<1x32x2x16xbf16>
  %o2 = tensor.collapse_shape %o [[0], [1], [2, 3]] : tensor<1x1x4x16xbf16> into tensor<1x1x64xbf16>
  %y = decoda.residual_add %h, %o2 : tensor<1x1x64xbf16>
  return %y, %kc2, %vc2 : tensor<1x1x64xbf16>, tensor<1x32x2x16xbf16>, tensor<1x32x2x16xbf16>
}

//--- absorbed.mlir
// The MQA form of an absorbed decoda.mla: key [c ; k_rope] (Dc + Dr = 32 + 8) over one KV head, value c.
// A cache holds the key alone: 4 B x 1 x 40 = 160 B per token (what decoda.mla's latent figure
// is); K and V counted apart would be 4 B x 1 x (40 + 32) = 288 B.
// At T = 128: activation inputs q 160 + c 32 + k_rope 8 features x 512 B = 102400 B; outputs
// 128 features = 65536 B; intermediates: the concatenated key 40 x 512 = 20480 and the
// attention 65536 = 86016 B in 2 tensors; peak live at the attention: q, c, key, result =
// 81920 + 16384 + 20480 + 65536 = 184320 B (k_rope's last use is the concatenation).
// ABSORBED:      activation inputs          102400     102400
// ABSORBED-NEXT: outputs                     65536      65536
// ABSORBED-NEXT: intermediates (sum of op results) 86016 86016
// ABSORBED-NEXT:   tensors                       2          2
// ABSORBED-NEXT: peak live activations (program order) 184320 184320
// ABSORBED-NEXT: KV cache per token, all layers   160        160
// ABSORBED-NEXT: KV cache per token and layer:
// ABSORBED-NEXT:   decoda.attention at absorbed.mlir:{{[0-9]+}}:{{[0-9]+}}: 160 = 4 B x 1 KV head x 40, the key alone: the value is part of it (a shared latent)
// ABSORBED-NEXT:     (288 = 4 B x 1 KV head x (40 + 32) if K and V were cached apart)
func.func @absorbed(%q: tensor<1x?x4x40xf32>, %c: tensor<1x?x32xf32>, %kr: tensor<1x?x8xf32>)
    -> tensor<1x?x4x32xf32> {
  %c1 = arith.constant 1 : index
  %t = tensor.dim %c, %c1 : tensor<1x?x32xf32>
  %c4 = tensor.expand_shape %c [[0], [1], [2, 3]] output_shape [1, %t, 1, 32] : tensor<1x?x32xf32> into tensor<1x?x1x32xf32>
  %kr4 = tensor.expand_shape %kr [[0], [1], [2, 3]] output_shape [1, %t, 1, 8] : tensor<1x?x8xf32> into tensor<1x?x1x8xf32>
  %k = tensor.concat dim(3) %c4, %kr4 : (tensor<1x?x1x32xf32>, tensor<1x?x1x8xf32>) -> tensor<1x?x1x40xf32>
  %o = decoda.attention %q, %k, %c4 {num_heads = 4 : i64, num_kv_heads = 1 : i64, causal}
      : tensor<1x?x4x40xf32>, tensor<1x?x1x40xf32>, tensor<1x?x1x32xf32>
  return %o : tensor<1x?x4x32xf32>
}

//--- consts.mlir
// Canonicalization folds a + b into one constant and the residual_add of a zero branch away.
// Constants (non-splat; the zero splat is a fill): a and b, 2 x 4 x 4 B = 32 B as written; the
// folded sum, 16 B after. Intermediates as written: the addf result 16 B, the residual_add
// 32 B and the rms_norm 32 B = 80 B in 3 tensors; after: the rms_norm alone, 32 B. Peak live as
// written 80 B (w, s and h at the residual_add; w, s and the norm at the norm); after: h and
// the norm, 64 B.
// CONSTS:      canonicalize: -1 arith.addf, -2 arith.constant, -1 decoda.residual_add; constant tensors 2 -> 1 (32 -> 16 bytes)
// CONSTS-NEXT: cse: no change
// CONSTS-NEXT: decoda-fuse-residual-norm: no change
// CONSTS:      parameters                     32         16
// CONSTS-NEXT:   weight arguments              0          0
// CONSTS-NEXT:     tensors                     0          0
// CONSTS-NEXT:   constants                    32         16
// CONSTS-NEXT:     tensors                     2          1
// CONSTS:      intermediates (sum of op results) 80     32
// CONSTS-NEXT:   tensors                       3          1
// CONSTS-NEXT: peak live activations (program order) 80 64
// CONSTS-NEXT: KV cache per token, all layers  0          0
// CONSTS-NEXT: KV cache per token and layer:
// CONSTS-NEXT:   (no attention layer)
// BADFILE: error: --report: cannot write '{{.*}}missing/r.txt'
// BADT: error: --report-seq-len must be positive
func.func @consts(%h: tensor<2x4xf32>) -> tensor<2x4xf32> {
  %a = arith.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %b = arith.constant dense<[0.5, 0.5, 0.5, 1.5]> : tensor<4xf32>
  %w = arith.addf %a, %b : tensor<4xf32>
  %zero = arith.constant dense<0.0> : tensor<2x4xf32>
  %s = decoda.residual_add %h, %zero : tensor<2x4xf32>
  %n = decoda.rms_norm %s, %w {eps = 1.0e-05 : f64} : tensor<2x4xf32>, tensor<4xf32>
  return %n : tensor<2x4xf32>
}
