//===- GPUCheckHostContract.cpp - only gpu.binary/launch_func remain ------===//

#include "decoda/Transforms/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/BuiltinOps.h"

namespace mlir::decoda {
#define GEN_PASS_DEF_GPUCHECKHOSTCONTRACTPASS
#include "decoda/Transforms/Passes.h.inc"
} // namespace mlir::decoda

using namespace mlir;

namespace {
struct GPUCheckHostContractPass
    : public mlir::decoda::impl::GPUCheckHostContractPassBase<GPUCheckHostContractPass> {
  using Base::Base;

  void runOnOperation() override {
    WalkResult r = getOperation().walk([&](Operation *op) {
      if (isa<gpu::GPUDialect>(op->getDialect()) && !isa<gpu::BinaryOp, gpu::LaunchFuncOp>(op)) {
        op->emitError() << "'" << op->getName()
                        << "' is outside the GPU backend contract (of the gpu dialect only "
                           "gpu.binary and gpu.launch_func may remain)";
        return WalkResult::interrupt();
      }
      return WalkResult::advance();
    });
    if (r.wasInterrupted())
      signalPassFailure();
  }
};
} // namespace
