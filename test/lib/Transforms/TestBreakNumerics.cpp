//===- TestBreakNumerics.cpp - test only: a pass that miscomputes a norm --===//

#include "TestPasses.h"

#include "decoda/Dialect/Decoda/IR/DecodaOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir::decoda::test {
#define GEN_PASS_DECL
#define GEN_PASS_DEF_TESTBREAKNUMERICSPASS
#define GEN_PASS_REGISTRATION
#include "TestPasses.h.inc"
} // namespace mlir::decoda::test

using namespace mlir;
using namespace mlir::decoda;

namespace {
struct TestBreakNumericsPass
    : public test::impl::TestBreakNumericsPassBase<TestBreakNumericsPass> {
  using Base::Base;

  void runOnOperation() override {
    FloatAttr eps = Builder(&getContext()).getF64FloatAttr(this->eps);
    for (auto fn : getOperation().getOps<func::FuncOp>()) {
      if (fn.isExternal())
        continue;
      // Only the first norm: a single wrong op, so a test can say which one must be named.
      for (Operation &op : fn.getBody().getOps()) {
        if (!isa<NormOpInterface>(op))
          continue;
        op.setAttr("eps", eps);
        break;
      }
    }
  }
};
} // namespace

namespace mlir::decoda::test {
void registerTestPasses() { registerDecodaTestPasses(); }
} // namespace mlir::decoda::test
