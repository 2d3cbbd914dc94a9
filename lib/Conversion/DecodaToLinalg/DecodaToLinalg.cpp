//===- DecodaToLinalg.cpp - the decoda-convert-to-linalg pass -------------===//

#include "decoda/Conversion/DecodaToLinalg/DecodaToLinalg.h"
#include "decoda/Conversion/Passes.h"
#include "decoda/Dialect/Decoda/IR/DecodaOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::decoda {
#define GEN_PASS_DEF_DECODATOLINALGPASS
#include "decoda/Conversion/Passes.h.inc"
} // namespace mlir::decoda

using namespace mlir;
using namespace mlir::decoda;

void mlir::decoda::populateDecodaToLinalgPatterns(RewritePatternSet &patterns,
                                                  const DecodaToLinalgOptions &options) {
  populateNormLoweringPatterns(patterns, options.gpuKernelCalls);
  populateResidualLoweringPatterns(patterns);
  populateProjectionLoweringPatterns(patterns);
  populateActivationLoweringPatterns(patterns);
  populateRopeLoweringPatterns(patterns, options.gpuKernelCalls);
  populateAttentionLoweringPatterns(patterns, options);
  populateMoELoweringPatterns(patterns);
  populateQuantLoweringPatterns(patterns);
  populateAggregateLoweringPatterns(patterns);
}

namespace {
struct DecodaToLinalgPass
    : public mlir::decoda::impl::DecodaToLinalgPassBase<DecodaToLinalgPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (attentionKeyTile <= 0 || attentionDecodeKeyTile < 0) {
      module.emitError() << "decoda-convert-to-linalg: attention-key-tile must be positive and "
                            "attention-decode-key-tile non-negative (got "
                         << static_cast<int64_t>(attentionKeyTile) << ", "
                         << static_cast<int64_t>(attentionDecodeKeyTile) << ")";
      return signalPassFailure();
    }
    int64_t before = 0;
    module.walk([&](Operation *op) {
      if (isa<DecodaDialect>(op->getDialect()) && !isa<YieldOp>(op))
        ++before;
    });

    DecodaToLinalgOptions options;
    options.attentionKeyTile = attentionKeyTile;
    options.int8AttentionCalls = int8AttentionCalls;
    options.attentionDecodeKeyTile = attentionDecodeKeyTile;
    options.gpuKernelCalls = gpuKernelCalls;
    RewritePatternSet patterns(&getContext());
    populateDecodaToLinalgPatterns(patterns, options);
    // Lowering patterns only create upstream ops; no folding is needed to reach a fixed point.
    GreedyRewriteConfig config;
    config.enableFolding(false);
    (void)applyPatternsGreedily(module, std::move(patterns), config);

    // Contract: no decoda op survives. Name every one that did.
    bool failedAny = false;
    int64_t left = 0;
    module.walk([&](Operation *op) {
      if (!isa<DecodaDialect>(op->getDialect()))
        return;
      ++left;
      if (isa<YieldOp>(op))
        return;
      op->emitError() << "'" << op->getName() << "' could not be lowered to linalg";
      failedAny = true;
    });
    numLowered += before - left;
    if (failedAny)
      signalPassFailure();
  }
};
} // namespace
