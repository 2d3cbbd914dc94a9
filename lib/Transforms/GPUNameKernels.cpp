//===- GPUNameKernels.cpp - each kernel named after its gpu.module --------===//
//
// decoda-gpu-name-kernels (GPUPasses.td): outlined kernels all carry the name of the function
// they came from; their modules' names are unique. A profile that lists kernels by name (the
// runtime's kernel profiles, Nsight) can only tell them apart when the kernels' names are.
//
//===----------------------------------------------------------------------===//

#include "decoda/Transforms/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/DenseMap.h"

namespace mlir::decoda {
#define GEN_PASS_DEF_GPUNAMEKERNELSPASS
#include "decoda/Transforms/Passes.h.inc"
} // namespace mlir::decoda

using namespace mlir;

namespace {
struct GPUNameKernelsPass
    : public mlir::decoda::impl::GPUNameKernelsPassBase<GPUNameKernelsPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    // The old reference of every renamed kernel -> the new one.
    llvm::DenseMap<Attribute, SymbolRefAttr> renamed;
    for (auto gpuModule : module.getOps<gpu::GPUModuleOp>()) {
      SmallVector<gpu::GPUFuncOp> kernels;
      for (auto fn : gpuModule.getOps<gpu::GPUFuncOp>())
        if (fn.isKernel())
          kernels.push_back(fn);
      if (kernels.size() != 1)
        continue;
      gpu::GPUFuncOp kernel = kernels.front();
      StringAttr moduleName = gpuModule.getNameAttr();
      if (kernel.getNameAttr() == moduleName)
        continue;
      // The module's name may already name another symbol in it.
      if (SymbolTable::lookupSymbolIn(gpuModule, moduleName))
        continue;
      // A kernel is not called from device code: its launches are its only uses.
      auto oldRef = SymbolRefAttr::get(moduleName, {FlatSymbolRefAttr::get(kernel.getNameAttr())});
      SymbolTable::setSymbolName(kernel, moduleName);
      renamed[oldRef] = SymbolRefAttr::get(moduleName, {FlatSymbolRefAttr::get(moduleName)});
      ++numRenamed;
    }
    if (renamed.empty())
      return;
    module.walk([&](gpu::LaunchFuncOp launch) {
      auto it = renamed.find(launch.getKernel());
      if (it != renamed.end())
        launch.setKernelAttr(it->second);
    });
  }
};
} // namespace
