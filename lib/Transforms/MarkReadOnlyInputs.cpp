//===- MarkReadOnlyInputs.cpp - entry-point tensors are read-only ---------===//

#include "decoda/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"

namespace mlir::decoda {
#define GEN_PASS_DEF_MARKREADONLYINPUTSPASS
#include "decoda/Transforms/Passes.h.inc"
} // namespace mlir::decoda

using namespace mlir;

namespace {
struct MarkReadOnlyInputsPass
    : public mlir::decoda::impl::MarkReadOnlyInputsPassBase<MarkReadOnlyInputsPass> {
  using Base::Base;

  void runOnOperation() override {
    Builder b(&getContext());
    for (auto fn : getOperation().getOps<func::FuncOp>()) {
      if (!fn.isPublic() || fn.isExternal())
        continue;
      for (unsigned i = 0; i < fn.getNumArguments(); ++i) {
        if (!isa<TensorType>(fn.getArgument(i).getType()))
          continue;
        fn.setArgAttr(i, "bufferization.writable", b.getBoolAttr(false));
        ++numMarked;
      }
    }
  }
};
} // namespace
