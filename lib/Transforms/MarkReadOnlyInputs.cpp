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
        // Donated arguments are made writable by decoda-donate-inputs, which runs first.
        if (!isa<TensorType>(fn.getArgument(i).getType()) ||
            (fn.getArgAttr(i, "decoda.donate") && fn.getArgAttr(i, "bufferization.writable")))
          continue;
        fn.setArgAttr(i, "bufferization.writable", b.getBoolAttr(false));
        ++numMarked;
      }
    }
  }
};
} // namespace
