//===- GPUDependentLaunch.cpp - kernels that may start before the one before ends ---===//
//
// decoda-gpu-dependent-launch (GPUPasses.td): programmatic dependent launch (sm_90 and
// later). A kernel launched with the driver's programmatic-stream-serialization attribute may
// start while the kernel before it on the stream still runs; it must not touch memory that
// kernel writes or reads until `griddepcontrol.wait` returns (the wait ends when the grids it
// depends on have completed and their memory operations are visible). So every kernel gets the
// wait before its first operation that may access memory (address arithmetic and L2
// prefetches of its weights, which no kernel writes, may run before it), then
// `griddepcontrol.launch_dependents` (the kernel after it may be scheduled once every block of
// this one got there), and its gpu.module a global `decoda_dependent_launch` that tells the
// runtime (lib/Runtime/CUDARuntime.cpp, cuModuleGetGlobal) the kernels may be launched so. A
// kernel without the marker is launched as before, so artifacts built without this pass keep
// the plain stream order.
//
//===----------------------------------------------------------------------===//

#include "decoda/Transforms/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mlir::decoda {
#define GEN_PASS_DEF_GPUDEPENDENTLAUNCHPASS
#include "decoda/Transforms/Passes.h.inc"
} // namespace mlir::decoda

using namespace mlir;

namespace {
constexpr llvm::StringLiteral kMarker = "decoda_dependent_launch";

/// Whether `op` may run before the wait: an L2 prefetch (a hint that reads nothing into the
/// kernel), an op without memory effects, or one whose regions hold only such ops.
bool mayRunBeforeWait(Operation *op) {
  if (isa<NVVM::CpAsyncBulkPrefetchOp>(op))
    return true;
  if (op->getNumRegions() == 0)
    return isMemoryEffectFree(op);
  if (!op->hasTrait<OpTrait::HasRecursiveMemoryEffects>())
    return false;
  for (Region &region : op->getRegions())
    for (Block &block : region)
      for (Operation &nested : block)
        if (!mayRunBeforeWait(&nested))
          return false;
  return true;
}

/// Inserts the wait, then launch_dependents, before the first op of `block` that may access
/// memory (or its terminator). When that op is an scf.if with both branches (the merged
/// kernels of decoda-gpu-merge-launches dispatch on the block id so), each branch gets its own
/// wait, after its ops that may run first (a merged GEMV kernel's prefetch): every path then
/// waits before its first access.
void placeWait(Block &block, Location loc) {
  for (Operation &op : block) {
    if (!op.hasTrait<OpTrait::IsTerminator>() && mayRunBeforeWait(&op))
      continue;
    auto ifOp = dyn_cast<scf::IfOp>(&op);
    if (ifOp && !ifOp.getElseRegion().empty()) {
      placeWait(ifOp.getThenRegion().front(), loc);
      placeWait(ifOp.getElseRegion().front(), loc);
      return;
    }
    OpBuilder b(&op);
    NVVM::GriddepcontrolOp::create(b, loc, NVVM::GridDepActionKind::wait);
    NVVM::GriddepcontrolOp::create(b, loc, NVVM::GridDepActionKind::launch_dependents);
    return;
  }
}

/// The arch a gpu.module's NVVM target names, or "" when it has none yet.
StringRef targetChip(gpu::GPUModuleOp module) {
  if (ArrayAttr targets = module.getTargetsAttr())
    for (Attribute t : targets)
      if (auto nvvm = dyn_cast<NVVM::NVVMTargetAttr>(t))
        return nvvm.getChip();
  return "";
}

struct GPUDependentLaunchPass
    : public mlir::decoda::impl::GPUDependentLaunchPassBase<GPUDependentLaunchPass> {
  using Base::Base;

  void runOnOperation() override {
    bool failed = false;
    getOperation().walk([&](gpu::GPUModuleOp module) {
      SmallVector<gpu::GPUFuncOp> kernels;
      for (auto fn : module.getOps<gpu::GPUFuncOp>())
        if (fn.isKernel())
          kernels.push_back(fn);
      if (kernels.empty())
        return;
      StringRef chip = targetChip(module);
      unsigned sm = 0;
      if (!chip.empty() && (!chip.consume_front("sm_") || chip.take_while(llvm::isDigit)
                                                               .getAsInteger(10, sm) || sm < 90)) {
        module.emitError() << "decoda-gpu-dependent-launch: gpu.module @" << module.getName()
                           << " targets " << targetChip(module)
                           << "; griddepcontrol needs sm_90 or later";
        failed = true;
        return;
      }
      if (SymbolTable::lookupSymbolIn(module, kMarker)) {
        module.emitError() << "decoda-gpu-dependent-launch: gpu.module @" << module.getName()
                           << " already defines the symbol @" << kMarker;
        failed = true;
        return;
      }
      for (gpu::GPUFuncOp kernel : kernels) {
        // A kernel that already waits keeps its own placement.
        bool waits = false;
        kernel.walk([&](NVVM::GriddepcontrolOp g) {
          waits |= g.getKind() == NVVM::GridDepActionKind::wait;
        });
        if (waits)
          continue;
        placeWait(kernel.getBody().front(), kernel.getLoc());
        ++numKernels;
      }
      OpBuilder b = OpBuilder::atBlockBegin(module.getBody());
      LLVM::GlobalOp::create(b, module.getLoc(), b.getI32Type(), /*isConstant=*/true,
                             LLVM::Linkage::External, kMarker, b.getI32IntegerAttr(1),
                             /*alignment=*/4, /*addrSpace=*/1);
    });
    if (failed)
      signalPassFailure();
  }
};
} // namespace
