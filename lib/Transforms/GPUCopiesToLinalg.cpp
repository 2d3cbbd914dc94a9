//===- GPUCopiesToLinalg.cpp - every memref.copy becomes a device kernel --===//

#include "decoda/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Builders.h"

namespace mlir::decoda {
#define GEN_PASS_DEF_GPUCOPIESTOLINALGPASS
#include "decoda/Transforms/Passes.h.inc"
} // namespace mlir::decoda

using namespace mlir;

namespace {
struct GPUCopiesToLinalgPass
    : public mlir::decoda::impl::GPUCopiesToLinalgPassBase<GPUCopiesToLinalgPass> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<memref::CopyOp> copies;
    getOperation().walk([&](memref::CopyOp op) { copies.push_back(op); });
    for (memref::CopyOp copy : copies) {
      OpBuilder b(copy);
      linalg::CopyOp::create(b, copy.getLoc(), copy.getSource(), copy.getTarget());
      copy.erase();
      ++numCopies;
    }
  }
};
} // namespace
