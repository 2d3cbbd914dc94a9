//===- CPUCopiesToLinalg.cpp - strided memref.copy to linalg.copy ---------===//

#include "decoda/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Builders.h"

namespace mlir::decoda {
#define GEN_PASS_DEF_CPUCOPIESTOLINALGPASS
#include "decoda/Transforms/Passes.h.inc"
} // namespace mlir::decoda

using namespace mlir;

namespace {
/// What finalize-memref-to-llvm turns into memcpy: identity layouts (or static strides that
/// are the row-major ones, e.g. a full-width subview with an offset).
bool isContiguous(Type type) {
  auto memref = dyn_cast<MemRefType>(type);
  if (!memref)
    return false;
  if (memref.getLayout().isIdentity())
    return true;
  return memref.areTrailingDimsContiguous(memref.getRank());
}

struct CPUCopiesToLinalgPass
    : public mlir::decoda::impl::CPUCopiesToLinalgPassBase<CPUCopiesToLinalgPass> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<memref::CopyOp> copies;
    getOperation().walk([&](memref::CopyOp op) { copies.push_back(op); });
    for (memref::CopyOp copy : copies) {
      if (isContiguous(copy.getSource().getType()) && isContiguous(copy.getTarget().getType()))
        continue;
      if (!isa<MemRefType>(copy.getSource().getType()) ||
          !isa<MemRefType>(copy.getTarget().getType()))
        continue;
      OpBuilder b(copy);
      linalg::CopyOp::create(b, copy.getLoc(), copy.getSource(), copy.getTarget());
      copy.erase();
      ++numCopies;
    }
  }
};
} // namespace
