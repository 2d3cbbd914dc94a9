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
  /// Keys per step of cached_attention for static query lengths <= 4 (0: attentionKeyTile).
  int64_t attentionDecodeKeyTile = 0;
};

/// rms_norm, layer_norm, add_rms_norm, add_layer_norm.
void populateNormLoweringPatterns(RewritePatternSet &patterns);
/// residual_add, hyper_connection.
void populateResidualLoweringPatterns(RewritePatternSet &patterns);
/// linear, embedding, mlp, gated_mlp.
void populateProjectionLoweringPatterns(RewritePatternSet &patterns);
/// glu, softcap.
void populateActivationLoweringPatterns(RewritePatternSet &patterns);
/// rope.
void populateRopeLoweringPatterns(RewritePatternSet &patterns);
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
