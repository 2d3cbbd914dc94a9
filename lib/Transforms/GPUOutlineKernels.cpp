//===- GPUOutlineKernels.cpp - outlining that keeps the kernel attributes --===//
//
// decoda-gpu-outline-kernels (GPUPasses.td): upstream gpu-kernel-outlining, then the
// `decoda.kernel_attrs` a launch carried (what its generator knows of the kernel, such as
// the register budget `nvvm.maxnreg`) set on the kernel it became. Outlining drops a launch's
// attributes; it replaces each launch by a gpu.launch_func in place, so launches and the new
// launch_func ops pair up in walk order. An i1 operand of an outlined kernel (a flag computed
// on the host) becomes an i64 parameter: zero-extended at the launch, truncated at the kernel's
// entry, so that every kernel parameter is a whole 8-byte value (a 1-byte one would leave the
// bytes above it in a runtime's 8-byte slot undefined).
//
//===----------------------------------------------------------------------===//

#include "decoda/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/DLTI/DLTI.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/DenseSet.h"

namespace mlir::decoda {
#define GEN_PASS_DEF_GPUOUTLINEKERNELSPASS
#include "decoda/Transforms/Passes.h.inc"
} // namespace mlir::decoda

using namespace mlir;

namespace {
constexpr llvm::StringLiteral kKernelAttrs = "decoda.kernel_attrs";

/// Checks what a launch asks of its kernel; the attributes whose values this pass knows.
LogicalResult verifyKernelAttrs(gpu::LaunchOp launch, DictionaryAttr attrs) {
  for (NamedAttribute a : attrs) {
    if (a.getName() == "nvvm.maxnreg") {
      auto n = dyn_cast<IntegerAttr>(a.getValue());
      if (!n || !n.getType().isInteger(32) || n.getInt() < 16 || n.getInt() > 255)
        return launch.emitError() << kKernelAttrs << ": nvvm.maxnreg must be an i32 in 16..255, got "
                                  << a.getValue();
    }
  }
  return success();
}

struct GPUOutlineKernelsPass
    : public mlir::decoda::impl::GPUOutlineKernelsPassBase<GPUOutlineKernelsPass> {
  using Base::Base;

  /// The i1 parameters of the kernels `launches` outlined as i64 (the file comment).
  void widenFlags(ArrayRef<gpu::LaunchFuncOp> launches) {
    for (gpu::LaunchFuncOp launch : launches) {
      auto kernel =
          SymbolTable::lookupNearestSymbolFrom<gpu::GPUFuncOp>(launch, launch.getKernel());
      if (!kernel || kernel.getNumArguments() != launch.getNumKernelOperands())
        continue;
      Type i1 = IntegerType::get(&getContext(), 1), i64 = IntegerType::get(&getContext(), 64);
      SmallVector<Type> inputs(kernel.getArgumentTypes());
      Block &entry = kernel.getBody().front();
      OpBuilder kb(&entry, entry.begin());
      OpBuilder hb(launch);
      bool changed = false;
      for (unsigned i = 0; i < inputs.size(); ++i) {
        if (inputs[i] != i1)
          continue;
        BlockArgument arg = kernel.getArgument(i);
        arg.setType(i64);
        auto flag = arith::TruncIOp::create(kb, launch.getLoc(), i1, arg);
        arg.replaceAllUsesExcept(flag, flag);
        inputs[i] = i64;
        Value wide = arith::ExtUIOp::create(hb, launch.getLoc(), i64, launch.getKernelOperand(i));
        launch.getKernelOperandsMutable()[i].set(wide);
        changed = true;
        ++numWidenedFlags;
      }
      if (changed)
        kernel.setFunctionType(FunctionType::get(&getContext(), inputs, {}));
    }
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    // Per launch in walk order: what it asks of its kernel (null: nothing) and where it is.
    SmallVector<DictionaryAttr> wanted;
    SmallVector<Location> where;
    llvm::DenseSet<Operation *> existing; // launch_func ops from before
    bool any = false, bad = false;
    module.walk([&](Operation *op) {
      if (auto launch = dyn_cast<gpu::LaunchOp>(op)) {
        Attribute raw = launch->getAttr(kKernelAttrs);
        auto dict = dyn_cast_or_null<DictionaryAttr>(raw);
        if (raw && !dict) {
          launch.emitError() << kKernelAttrs << " must be a dictionary of attributes, got " << raw;
          bad = true;
        } else if (dict && failed(verifyKernelAttrs(launch, dict))) {
          bad = true;
        }
        any |= static_cast<bool>(dict);
        wanted.push_back(dict);
        where.push_back(launch.getLoc());
      } else if (isa<gpu::LaunchFuncOp>(op)) {
        existing.insert(op);
      }
    });
    if (bad)
      return signalPassFailure();

    OpPassManager pm(ModuleOp::getOperationName());
    pm.addPass(createGpuKernelOutliningPass());
    if (failed(runPipeline(pm, module)))
      return signalPassFailure();

    SmallVector<gpu::LaunchFuncOp> launches;
    module.walk([&](gpu::LaunchFuncOp l) {
      if (!existing.contains(l))
        launches.push_back(l);
    });
    widenFlags(launches);
    if (!any)
      return;
    if (launches.size() != wanted.size()) {
      module.emitError() << "decoda-gpu-outline-kernels: " << wanted.size()
                         << " gpu.launch ops became " << launches.size()
                         << " gpu.launch_func ops; cannot tell which kernel each "
                         << kKernelAttrs << " is for";
      return signalPassFailure();
    }
    for (auto [launch, dict, loc] : llvm::zip_equal(launches, wanted, where)) {
      if (!dict)
        continue;
      auto kernel =
          SymbolTable::lookupNearestSymbolFrom<gpu::GPUFuncOp>(launch, launch.getKernel());
      if (!kernel) {
        emitError(loc) << "decoda-gpu-outline-kernels: the kernel " << launch.getKernel()
                       << " of this launch is not a gpu.func";
        return signalPassFailure();
      }
      for (NamedAttribute a : dict) {
        Attribute old = kernel->getAttr(a.getName());
        if (old && old != a.getValue()) {
          emitError(loc) << kKernelAttrs << ": kernel " << kernel.getName() << " already has "
                         << a.getName().getValue() << " = " << old << ", this launch asks for "
                         << a.getValue();
          return signalPassFailure();
        }
        kernel->setAttr(a.getName(), a.getValue());
        ++numKernelAttrs;
      }
    }
  }
};
} // namespace
