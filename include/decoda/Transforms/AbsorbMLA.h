//===- AbsorbMLA.h - decoda-absorb-mla as a library and its KV figures -*- C++ -*-===//
//
// The rewrite behind decoda-absorb-mla, callable without a pass manager, and the KV-cache
// figures of a decoda.mla op, so a driver report can print what absorption saves.
//
//===----------------------------------------------------------------------===//

#ifndef DECODA_TRANSFORMS_ABSORBMLA_H
#define DECODA_TRANSFORMS_ABSORBMLA_H

#include "decoda/Dialect/Decoda/IR/DecodaOps.h"
#include "decoda/Transforms/Passes.h"

#include "mlir/IR/PatternMatch.h"

#include <string>

namespace mlir::decoda {

/// Per token and per layer: the numbers a KV cache of one decoda.mla holds.
struct MLACacheFigures {
  int64_t latentDim = 0;      ///< Dc
  int64_t ropeDim = 0;        ///< Dr (the decoupled RoPE key, shared by all heads)
  int64_t numHeads = 0;       ///< H
  int64_t nopeDim = 0;        ///< Dn
  int64_t valueDim = 0;       ///< Dv
  int64_t bytesPerNumber = 0; ///< storage type width in bytes

  /// Absorbed: the latent and the RoPE key, Dc + Dr.
  int64_t absorbedPerToken() const { return latentDim + ropeDim; }
  /// Not absorbed: decompressed per-head keys and values, H·(Dn + Dr) + H·Dv (the 2·n_h·d_h of
  /// MHA when Dn + Dr = Dv = d_h).
  int64_t decompressedPerToken() const { return numHeads * (nopeDim + ropeDim + valueDim); }
  /// "KV cache per token and layer: ..." (the remark of `report`).
  std::string describe() const;
};

/// The figures of `op`, from its static dims (the verifier makes H, Dn, Dr, Dc static; Dv is
/// dim 1 of w_uv and may be dynamic, then it counts as 0 and the result says so).
MLACacheFigures computeMLACacheFigures(MLAOp op);

/// What decoda-absorb-mla did; every field counts up.
struct AbsorbMLACounts {
  int64_t absorbed = 0;                ///< decoda.mla ops rewritten
  int64_t foldedOutputProjections = 0; ///< W_UV folded into a constant output projection
};

/// Adds the absorption pattern configured by `options` (`fold-output-projection` must be valid);
/// it counts into `counts`, which must outlive the pattern set.
void populateAbsorbMLAPatterns(RewritePatternSet &patterns, const AbsorbMLAPassOptions &options,
                               AbsorbMLACounts &counts);

/// Runs the rewrite on `root` and adds what it did to `counts` (with `options.report`, emits the
/// KV-cache remark on every decoda.mla first). Fails on an invalid option (the error is emitted on
/// `root`) or when the rewrite does not converge.
LogicalResult absorbMLA(Operation *root, const AbsorbMLAPassOptions &options,
                        AbsorbMLACounts &counts);

} // namespace mlir::decoda

#endif // DECODA_TRANSFORMS_ABSORBMLA_H
