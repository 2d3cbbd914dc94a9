//===- CPUPrivateAllocas.cpp - per-thread scratch, no alloca_scope --------===//
//
// convert-scf-to-openmp wraps each parallel loop body in memref.alloca_scope so that allocas of
// the body are released every iteration. The scope is a single-block op, so scf.for loops in
// it cannot be lowered to cf by convert-scf-to-cf. This pass hoists static allocas of such
// scopes to the start of the enclosing omp.parallel region (one buffer per thread, allocated
// once) and then removes the scopes: inlined when no alloca is left in them, else bracketed by
// llvm.intr.stacksave / llvm.intr.stackrestore.
//
//===----------------------------------------------------------------------===//

#include "decoda/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/OpenMP/OpenMPDialect.h"
#include "mlir/IR/Builders.h"

namespace mlir::decoda {
#define GEN_PASS_DEF_CPUPRIVATEALLOCASPASS
#include "decoda/Transforms/Passes.h.inc"
} // namespace mlir::decoda

using namespace mlir;

namespace {
/// The allocas whose automatic allocation scope is `scope`.
SmallVector<memref::AllocaOp> scopeAllocas(memref::AllocaScopeOp scope) {
  SmallVector<memref::AllocaOp> allocas;
  scope.walk([&](memref::AllocaOp op) {
    if (op->getParentWithTrait<OpTrait::AutomaticAllocationScope>() == scope.getOperation())
      allocas.push_back(op);
  });
  return allocas;
}

struct CPUPrivateAllocasPass
    : public mlir::decoda::impl::CPUPrivateAllocasPassBase<CPUPrivateAllocasPass> {
  using Base::Base;

  void runOnOperation() override {
    // Static allocas inside an omp.parallel (loop bodies, alloca scopes) move to the start of
    // the parallel region: one buffer per thread, reused by its iterations; others move to the
    // function entry. Only
    // allocas whose buffer cannot outlive an iteration (never yielded or returned).
    SmallVector<memref::AllocaOp> allocas;
    getOperation().walk([&](memref::AllocaOp op) { allocas.push_back(op); });
    for (memref::AllocaOp alloca : allocas) {
      if (!alloca.getDynamicSizes().empty() || !alloca.getSymbolOperands().empty())
        continue;
      if (llvm::any_of(alloca->getUsers(), [](Operation *user) {
            return user->hasTrait<OpTrait::IsTerminator>();
          }))
        continue;
      // Outside parallel regions (sequential loops) the function entry is the place.
      auto parallel = alloca->getParentOfType<omp::ParallelOp>();
      Block &entry = parallel ? parallel.getRegion().front()
                              : getOperation().getFunctionBody().front();
      if (alloca->getBlock() == &entry)
        continue;
      alloca->moveBefore(&entry, entry.begin());
      ++numHoisted;
    }

    SmallVector<memref::AllocaScopeOp> scopes;
    getOperation().walk([&](memref::AllocaScopeOp op) { scopes.push_back(op); });
    for (memref::AllocaScopeOp scope : scopes) {
      bool keepsAllocas = !scopeAllocas(scope).empty();
      OpBuilder b(scope);
      Value saved;
      if (keepsAllocas) {
        saved = LLVM::StackSaveOp::create(b, scope.getLoc(),
                                          LLVM::LLVMPointerType::get(&getContext()));
        ++numStackSaves;
      } else {
        ++numInlined;
      }
      Block &body = scope.getBodyRegion().front();
      auto ret = cast<memref::AllocaScopeReturnOp>(body.getTerminator());
      SmallVector<Value> results(ret.getResults());
      ret.erase();
      scope->getBlock()->getOperations().splice(Block::iterator(scope), body.getOperations());
      if (keepsAllocas)
        LLVM::StackRestoreOp::create(b, scope.getLoc(), saved);
      scope->replaceAllUsesWith(results);
      scope.erase();
    }
  }
};
} // namespace
