//===- CheckBackendContract.cpp - only legal dialects remain --------------===//

#include "decoda/Transforms/Passes.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"

namespace mlir::decoda {
#define GEN_PASS_DEF_CHECKBACKENDCONTRACTPASS
#include "decoda/Transforms/Passes.h.inc"
} // namespace mlir::decoda

using namespace mlir;

namespace {
struct CheckBackendContractPass
    : public mlir::decoda::impl::CheckBackendContractPassBase<CheckBackendContractPass> {
  using Base::Base;

  void runOnOperation() override {
    llvm::StringSet<> allowed;
    allowed.insert("builtin");
    for (const std::string &d : dialects)
      allowed.insert(d);
    llvm::StringSet<> reported;
    getOperation().walk([&](Operation *op) {
      StringRef ns = op->getName().getDialectNamespace();
      if (allowed.contains(ns))
        return;
      ++numIllegal;
      if (reported.insert(op->getName().getStringRef()).second)
        op->emitError() << "'" << op->getName()
                        << "' is outside the backend contract (allowed dialects: "
                        << llvm::join(dialects, ", ") << ")";
    });
    if (numIllegal > 0)
      signalPassFailure();
  }
};
} // namespace
