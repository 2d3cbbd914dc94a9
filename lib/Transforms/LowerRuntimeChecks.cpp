//===- LowerRuntimeChecks.cpp - cf.assert to the model's failure hook -----===//

#include "decoda/Transforms/Passes.h"

#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/FunctionCallUtils.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"

namespace mlir::decoda {
#define GEN_PASS_DEF_LOWERRUNTIMECHECKSPASS
#include "decoda/Transforms/Passes.h.inc"
} // namespace mlir::decoda

using namespace mlir;

namespace {
constexpr StringLiteral kHook = "decoda_check_failed";

struct LowerRuntimeChecksPass
    : public mlir::decoda::impl::LowerRuntimeChecksPassBase<LowerRuntimeChecksPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<cf::AssertOp> asserts;
    module.walk([&](cf::AssertOp op) { asserts.push_back(op); });
    if (asserts.empty())
      return;

    OpBuilder b(module.getBodyRegion());
    b.setInsertionPointToStart(module.getBody());
    auto ptrType = LLVM::LLVMPointerType::get(&getContext());
    // An llvm.func, so that func-to-llvm's C-wrapper generation leaves the name alone.
    auto hook = module.lookupSymbol<LLVM::LLVMFuncOp>(kHook);
    if (!hook)
      hook = LLVM::LLVMFuncOp::create(
          b, module.getLoc(), kHook,
          LLVM::LLVMFunctionType::get(LLVM::LLVMVoidType::get(&getContext()), {ptrType}));

    llvm::StringMap<LLVM::GlobalOp> messages;
    for (cf::AssertOp op : asserts) {
      Location loc = op.getLoc();
      // One global per distinct message.
      std::string text = (op.getMsg() + Twine('\0')).str();
      LLVM::GlobalOp &global = messages[text];
      if (!global) {
        b.setInsertionPointToStart(module.getBody());
        auto arrayType = LLVM::LLVMArrayType::get(b.getI8Type(), text.size());
        global = LLVM::GlobalOp::create(
            b, loc, arrayType, /*isConstant=*/true, LLVM::Linkage::Internal,
            ("decoda_check_msg_" + Twine(messages.size() - 1)).str(), b.getStringAttr(text));
      }

      // Inside a region of one block (an scf.if or scf.for still structured: the GPU pipeline
      // lowers the host's checks before scf), `scf.if %ok {} else { call }`: the hook does not
      // return, so nothing after it runs either.
      if (op->getParentOp()->hasTrait<OpTrait::SingleBlock>()) {
        b.setInsertionPoint(op);
        auto branch = scf::IfOp::create(b, loc, op.getArg(), /*withElseRegion=*/true);
        b.setInsertionPoint(branch.elseBlock()->getTerminator());
        Value msg = LLVM::AddressOfOp::create(b, loc, global);
        LLVM::CallOp::create(b, loc, hook, ValueRange{msg});
        op.erase();
        ++numChecks;
        continue;
      }
      Block *before = op->getBlock();
      Block *after = before->splitBlock(op->getNextNode());
      Block *fail = b.createBlock(after);
      b.setInsertionPointToEnd(fail);
      Value msg = LLVM::AddressOfOp::create(b, loc, global);
      LLVM::CallOp::create(b, loc, hook, ValueRange{msg});
      LLVM::UnreachableOp::create(b, loc);

      b.setInsertionPoint(op);
      cf::CondBranchOp::create(b, loc, op.getArg(), after, ValueRange{}, fail, ValueRange{});
      op.erase();
      ++numChecks;
    }
  }
};
} // namespace
