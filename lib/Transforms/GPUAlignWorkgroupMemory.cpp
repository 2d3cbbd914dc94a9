//===- GPUAlignWorkgroupMemory.cpp - explicit alignment of shared memory --===//

#include "decoda/Transforms/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/Builders.h"

namespace mlir::decoda {
#define GEN_PASS_DEF_GPUALIGNWORKGROUPMEMORYPASS
#include "decoda/Transforms/Passes.h.inc"
} // namespace mlir::decoda

using namespace mlir;

namespace {
struct GPUAlignWorkgroupMemoryPass
    : public mlir::decoda::impl::GPUAlignWorkgroupMemoryPassBase<GPUAlignWorkgroupMemoryPass> {
  using Base::Base;

  void runOnOperation() override {
    if (alignment < 1 || (alignment & (alignment - 1)) != 0) {
      getOperation().emitError() << "decoda-gpu-align-workgroup-memory: alignment " << static_cast<int64_t>(alignment)
                                 << " is not a power of two";
      return signalPassFailure();
    }
    StringRef name = LLVM::LLVMDialect::getAlignAttrName();
    Builder b(&getContext());
    getOperation().walk([&](gpu::GPUFuncOp fn) {
      for (unsigned i = 0, e = fn.getNumWorkgroupAttributions(); i < e; ++i) {
        auto current = dyn_cast_or_null<IntegerAttr>(fn.getWorkgroupAttributionAttr(i, name));
        if (current && current.getInt() >= alignment)
          continue;
        fn.setWorkgroupAttributionAttr(i, b.getStringAttr(name), b.getI64IntegerAttr(alignment));
        ++numAligned;
      }
    });
  }
};
} // namespace
