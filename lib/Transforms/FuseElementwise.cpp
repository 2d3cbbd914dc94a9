//===- FuseElementwise.cpp - elementwise fusion that spares contractions --===//
//
// The upstream `linalg-fuse-elementwise-ops` pattern set with a control function: fusing an
// elementwise producer into a contraction (or folding a reshape into one) turns the projection
// generics into bodies and maps that decoda-cpu-contraction-codegen cannot tile, and recomputes
// the producer N times. Everything else fuses as upstream.
//
//===----------------------------------------------------------------------===//

#include "decoda/Transforms/Passes.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tensor/Transforms/Transforms.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::decoda {
#define GEN_PASS_DEF_FUSEELEMENTWISEPASS
#include "decoda/Transforms/Passes.h.inc"
} // namespace mlir::decoda

using namespace mlir;

namespace {
bool hasReduction(Operation *op) {
  auto linalgOp = dyn_cast_or_null<linalg::LinalgOp>(op);
  return linalgOp && linalgOp.getNumReductionLoops() > 0;
}

struct FuseElementwisePass
    : public mlir::decoda::impl::FuseElementwisePassBase<FuseElementwisePass> {
  using Base::Base;

  void runOnOperation() override {
    MLIRContext *context = &getContext();
    Operation *op = getOperation();

    // Elementwise producer into consumer: as upstream (single-use producers), except into a
    // reduction that would re-read the producer across loops its map leaves out.
    linalg::ControlFusionFn fuseControl = [this](OpOperand *fused) {
      Operation *producer = fused->get().getDefiningOp();
      if (!producer || !producer->hasOneUse())
        return false;
      auto consumer = dyn_cast<linalg::LinalgOp>(fused->getOwner());
      if (consumer && consumer.getNumReductionLoops() > 0) {
        AffineMap map = consumer.getMatchingIndexingMap(fused);
        if (!map.isPermutation()) {
          ++numRefused;
          return false;
        }
      }
      return true;
    };
    // Reshapes: never through a generic with a reduction loop.
    linalg::ControlFusionFn reshapeControl = [this](OpOperand *fused) {
      Operation *producer = fused->get().getDefiningOp();
      if (!producer || !producer->hasOneUse())
        return false;
      if (hasReduction(producer) || hasReduction(fused->getOwner())) {
        ++numRefused;
        return false;
      }
      return true;
    };

    RewritePatternSet patterns(context);
    linalg::populateElementwiseOpsFusionPatterns(patterns, fuseControl);
    linalg::populateFoldReshapeOpsByExpansionPatterns(patterns, reshapeControl);
    tensor::populateBubbleUpExpandShapePatterns(patterns);
    affine::AffineApplyOp::getCanonicalizationPatterns(patterns, context);
    linalg::GenericOp::getCanonicalizationPatterns(patterns, context);
    tensor::ExpandShapeOp::getCanonicalizationPatterns(patterns, context);
    tensor::CollapseShapeOp::getCanonicalizationPatterns(patterns, context);
    context->getLoadedDialect<linalg::LinalgDialect>()->getCanonicalizationPatterns(patterns);
    linalg::populateConstantFoldLinalgOperations(patterns, fuseControl);

    GreedyRewriteConfig config;
    config.setUseTopDownTraversal(true);
    if (failed(applyPatternsGreedily(op, std::move(patterns), config)))
      return signalPassFailure();
  }
};
} // namespace
