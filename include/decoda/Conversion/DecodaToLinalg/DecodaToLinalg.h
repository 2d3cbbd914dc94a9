//===- DecodaToLinalg.h - decoda to linalg patterns -------------*- C++ -*-===//
//
// One populate function per op family; each lives in its own file under
// lib/Conversion/DecodaToLinalg/.
//
//===----------------------------------------------------------------------===//

#ifndef DECODA_CONVERSION_DECODATOLINALG_DECODATOLINALG_H
#define DECODA_CONVERSION_DECODATOLINALG_DECODATOLINALG_H

#include "mlir/IR/PatternMatch.h"

namespace mlir::decoda {

struct DecodaToLinalgOptions {
  /// Keys per step of the online-softmax attention loop.
  int64_t attentionKeyTile = 64;
  /// INT8 attention (`quantize(...)` on attention / cached_attention) as a call of a private
  /// function tagged kInt8AttentionAttr, for decoda-cpu-int8-attention to replace after
  /// bufferization; inline otherwise.
  bool int8AttentionCalls = false;
  /// Keys per step of cached_attention for static query lengths <= 4 (0: attentionKeyTile).
  int64_t attentionDecodeKeyTile = 0;
  /// Non-INT8 attention / cached_attention (kGPUAttentionAttr) and the norms (kGPUNormAttr) as
  /// calls of tagged private functions whose bodies the GPU pipeline replaces by one kernel
  /// each after bufferization (decoda-gpu-flash-attention, decoda-gpu-row-norm); inline
  /// otherwise. RoPE's generics tagged for decoda-gpu-rope (kRopeTableAttr, kRopeApplyAttr).
  bool gpuKernelCalls = false;
};

/// The attribute of the functions that hold an INT8 attention (see int8AttentionCalls): a
/// dictionary with num_heads, num_kv_heads, scale (f64, the default resolved), causal, mask,
/// segment_ids, sinks (bools), and window, chunk_size, softcap when set. Arguments: query,
/// key, value (possibly caches with room for more keys), the number of keys attended to
/// (index), q_scale, k_scale, v_scale, then mask, segment_ids, sinks when present.
constexpr llvm::StringLiteral kInt8AttentionAttr = "decoda.int8_attention";

/// The attribute of the functions that hold a (non-INT8) attention for the GPU pipeline (see
/// gpuKernelCalls): op (the op name), num_heads, num_kv_heads, scale (f64, the default resolved), causal, mask,
/// segment_ids, sinks (bools), and window, chunk_size, softcap when set. Arguments: query,
/// key, value (possibly caches with room for more keys), the number of keys attended to
/// (index; query i is at position keyLen - Tq + i), then mask, segment_ids, sinks when present.
constexpr llvm::StringLiteral kGPUAttentionAttr = "decoda.gpu_attention";

/// The attribute of the functions that hold a norm for the GPU pipeline (see gpuKernelCalls):
/// op (the op name), centered (LayerNorm), add (the add_ forms), bias (bools), eps,
/// weight_offset, scale (f64). Arguments: input (or residual, branch), weight, then bias when
/// present; results: the norm (or the rounded sum residual + scale * branch, then the norm).
constexpr llvm::StringLiteral kGPUNormAttr = "decoda.gpu_norm";

/// The tags of decoda.rope's two generics for the GPU pipeline (gpuKernelCalls), read by
/// decoda-gpu-rope. The cos/sin table [T, r/2] or [B, T, r/2] (inputs inv_freq, then the
/// positions when given; outputs cos, sin): factor (f64, YaRN's attention factor folded into
/// cos and sin), positions, per_batch (bools). The rotation over [B, T, H, D] (input x, the
/// table and the pair partners read by tensor.extract): rotary (i64, rotary_dim), interleaved
/// (bool), float_ops (i64: ropeFloatOps of its body when lowered).
constexpr llvm::StringLiteral kRopeTableAttr = "decoda.rope_table";
constexpr llvm::StringLiteral kRopeApplyAttr = "decoda.rope_apply";

/// The tag of decoda.dequantize_blocks's generic (a dictionary with bits and block_size, i64):
/// inputs codes [N, P] (i8, read at (n, k · bits / 8)), scales [N, blocks] and zero points
/// (read at (n, k / block_size)) when present; output w [N, K]. decoda-gpu-gemv reads the
/// codes in its kernels instead of the generic's output.
constexpr llvm::StringLiteral kDequantizeBlocksAttr = "decoda.dequantize_blocks";

/// The ops of a RoPE rotation's body with a floating-point result, constants aside: index
/// folding (a unit dim's linalg.index) leaves the count alone, while an elementwise op fused
/// into the rotation since lowering adds to it.
inline int64_t ropeFloatOps(Block &body) {
  int64_t n = 0;
  for (Operation &op : body)
    n += !op.hasTrait<OpTrait::ConstantLike>() &&
         llvm::any_of(op.getResultTypes(), [](Type t) { return isa<FloatType>(t); });
  return n;
}

/// rms_norm, layer_norm, add_rms_norm, add_layer_norm (as kGPUNormAttr calls with `gpuCalls`).
void populateNormLoweringPatterns(RewritePatternSet &patterns, bool gpuCalls = false);
/// residual_add, hyper_connection.
void populateResidualLoweringPatterns(RewritePatternSet &patterns);
/// linear, embedding, mlp, gated_mlp.
void populateProjectionLoweringPatterns(RewritePatternSet &patterns);
/// glu, softcap.
void populateActivationLoweringPatterns(RewritePatternSet &patterns);
/// rope (the generics tagged kRopeTableAttr / kRopeApplyAttr with `gpuTags`).
void populateRopeLoweringPatterns(RewritePatternSet &patterns, bool gpuTags = false);
/// attention, cached_attention, mla.
void populateAttentionLoweringPatterns(RewritePatternSet &patterns,
                                       const DecodaToLinalgOptions &options);
/// moe.
void populateMoELoweringPatterns(RewritePatternSet &patterns);
/// quantize, dequantize, qlinear.
void populateQuantLoweringPatterns(RewritePatternSet &patterns);
/// Upstream aggregate ops left by the ONNX importer (linalg.softmax).
void populateAggregateLoweringPatterns(RewritePatternSet &patterns);

/// All of the above.
void populateDecodaToLinalgPatterns(RewritePatternSet &patterns,
                                    const DecodaToLinalgOptions &options);

} // namespace mlir::decoda

#endif // DECODA_CONVERSION_DECODATOLINALG_DECODATOLINALG_H
