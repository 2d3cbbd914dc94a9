//===- FuseProjections.h - decoda-fuse-projections as a library -*- C++ -*-===//
//
// The rewrite behind decoda-fuse-projections, callable without a pass manager, with counters of
// what it changed (LLVM statistics are compiled out of Debian's LLVM 22, so a driver report
// cannot read the pass statistics).
//
//===----------------------------------------------------------------------===//

#ifndef DECODA_TRANSFORMS_FUSEPROJECTIONS_H
#define DECODA_TRANSFORMS_FUSEPROJECTIONS_H

#include "decoda/Transforms/Passes.h"

#include "mlir/IR/PatternMatch.h"

namespace mlir::decoda {

/// What decoda-fuse-projections did; every field counts up.
struct FuseProjectionsCounts {
  int64_t fusedGroups = 0;    ///< groups of linears fused into one linear
  int64_t fusedLinears = 0;   ///< linears replaced by a slice of a fused linear
  int64_t fusedGatedMLPs = 0; ///< gated MLPs split into gate/up linear, glu, down linear
  int64_t fusedQLinearGroups = 0; ///< groups of qlinears fused into one qlinear
  int64_t fusedQLinears = 0;      ///< qlinears replaced by a slice of a fused qlinear
  int64_t foldedConcats = 0;  ///< weight/bias concatenations folded into a constant
  int64_t runtimeConcats = 0; ///< weight/bias concatenations emitted as tensor.concat
};

/// Adds the two patterns (projection groups, gated MLPs) configured by `options` (which
/// `fuseProjections` validates: `weights` is "constant" or "any", `min-group` >= 2); they count
/// into `counts`, which must outlive the pattern set.
void populateFuseProjectionsPatterns(RewritePatternSet &patterns,
                                     const FuseProjectionsPassOptions &options,
                                     FuseProjectionsCounts &counts);

/// Runs the rewrite on `root` (greedily, without folding other ops) and adds what it did to
/// `counts`. Fails on an invalid option (the error is emitted on `root`) or when the rewrite
/// does not converge.
LogicalResult fuseProjections(Operation *root, const FuseProjectionsPassOptions &options,
                              FuseProjectionsCounts &counts);

} // namespace mlir::decoda

#endif // DECODA_TRANSFORMS_FUSEPROJECTIONS_H
