//===- UnshareFills.cpp - a fill of its own for every destination ---------===//
//
// decoda-unshare-fills (Passes.td): CSE merges equal fills of empty tensors (the zero
// accumulators of projections of one shape), and one-shot bufferization then serves all but
// one of their writers from a copy of a shared buffer. Each writer gets its own fill back, and
// each linalg op writing into a shared tensor.empty its own empty.
//
//===----------------------------------------------------------------------===//

#include "decoda/Transforms/Passes.h"

#include "decoda/Conversion/DecodaToLinalg/DecodaToLinalg.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/DestinationStyleOpInterface.h"

namespace mlir::decoda {
#define GEN_PASS_DEF_UNSHAREFILLSPASS
#include "decoda/Transforms/Passes.h.inc"
} // namespace mlir::decoda

using namespace mlir;

namespace {
struct UnshareFillsPass : public mlir::decoda::impl::UnshareFillsPassBase<UnshareFillsPass> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<linalg::FillOp> fills;
    getOperation()->walk([&](linalg::FillOp fill) {
      if (fill.hasPureTensorSemantics() && !fill->getResult(0).hasOneUse() &&
          fill.getOutputs()[0].getDefiningOp<tensor::EmptyOp>())
        fills.push_back(fill);
    });
    for (linalg::FillOp fill : fills) {
      auto empty = fill.getOutputs()[0].getDefiningOp<tensor::EmptyOp>();
      SmallVector<OpOperand *> destinations;
      for (OpOperand &use : fill->getResult(0).getUses()) {
        auto dps = dyn_cast<DestinationStyleOpInterface>(use.getOwner());
        if (dps && dps.isDpsInit(&use))
          destinations.push_back(&use);
      }
      for (OpOperand *use : destinations) {
        OpBuilder b(use->getOwner());
        IRMapping map;
        Operation *ownEmpty = b.clone(*empty);
        map.map(empty.getResult(), ownEmpty->getResult(0));
        use->set(b.clone(*fill, map)->getResult(0));
        ++numUnshared;
      }
      if (fill->use_empty())
        fill->erase();
      if (empty->use_empty())
        empty->erase();
    }
    // The same for linalg ops written into one tensor.empty (CSE merges the empties of
    // results of one shape): each gets its own, so that decoda-concats-in-place can compute a
    // concatenated part in its slice of the result (an exported graph's transposed keys and
    // values, each inserted into its present), and so that the weights of
    // decoda.dequantize_blocks generics get a buffer each (one-shot bufferization would give
    // them one, written in turn, and decoda-gpu-gemv reads the codes of a weight only when its
    // buffer has one writer).
    SmallVector<OpOperand *> sharedInits;
    getOperation()->walk([&](linalg::LinalgOp op) {
      if (!op.hasPureTensorSemantics() || isa<linalg::FillOp>(op.getOperation()))
        return;
      for (OpOperand &init : op.getDpsInitsMutable())
        if (auto empty = init.get().getDefiningOp<tensor::EmptyOp>();
            empty && !empty->hasOneUse())
          sharedInits.push_back(&init);
    });
    for (OpOperand *use : sharedInits) {
      auto empty = use->get().getDefiningOp<tensor::EmptyOp>();
      OpBuilder b(use->getOwner());
      use->set(b.clone(*empty)->getResult(0));
      ++numUnshared;
      if (empty->use_empty())
        empty->erase();
    }
  }
};
} // namespace
