//===- UnshareFills.cpp - a fill of its own for every destination ---------===//
//
// decoda-unshare-fills (Passes.td): CSE merges equal fills of empty tensors (the zero
// accumulators of projections of one shape), and one-shot bufferization then serves all but
// one of their writers from a copy of a shared buffer. Each writer gets its own fill back.
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
    // The same for the weights of decoda.dequantize_blocks generics written into one
    // tensor.empty: one-shot bufferization would give them one buffer, written in turn, and
    // decoda-gpu-gemv reads the codes of a weight only when its buffer has one writer.
    SmallVector<OpOperand *> dequantInits;
    getOperation()->walk([&](linalg::GenericOp g) {
      if (!g->hasAttr(decoda::kDequantizeBlocksAttr) || !g.hasPureTensorSemantics())
        return;
      for (OpOperand &init : g.getDpsInitsMutable())
        if (auto empty = init.get().getDefiningOp<tensor::EmptyOp>();
            empty && !empty->hasOneUse())
          dequantInits.push_back(&init);
    });
    for (OpOperand *use : dequantInits) {
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
