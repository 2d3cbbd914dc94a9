//===- CUDATarget.h - from decoda-lower-to-cuda's output to a model ---*- C++ -*-===//
//
// The steps of `decoda-compile --target=cuda` after the MLIR pipeline: the PTX of the kernels
// (--emit=ptx), host LLVM IR with the kernel images embedded (gpu.binary), and the C support
// code that routes the upstream `mgpu*` launch calls to the runtime's CUDA driver table
// (docs/ABI.md, "GPU models").
//
//===----------------------------------------------------------------------===//

#ifndef DECODA_TARGET_CUDA_CUDATARGET_H
#define DECODA_TARGET_CUDA_CUDATARGET_H

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/raw_ostream.h"

namespace mlir::decoda {

/// Writes the text of every kernel object (PTX when the pipeline ran with format=isa) of the
/// module's gpu.binary ops, one after the other, each preceded by a `// gpu.binary @name`
/// comment. Fails when there is no gpu.binary or an object is not PTX text.
LogicalResult writeKernelPTX(ModuleOp module, llvm::raw_ostream &os);

/// Registers the LLVM IR translations of the GPU dialect (gpu.binary, gpu.launch_func) with
/// the module's context, so that the CPU target's translation handles a CUDA host module.
void registerCUDAHostTranslation(ModuleOp module);

/// C source appended to the support source of a CUDA model: `decoda_target`, the
/// `decoda_cuda` driver table the runtime fills in, and the `mgpu*` functions the host code
/// calls, which forward to that table and report failures through decoda_check_failed.
void writeCUDASupportSource(llvm::raw_ostream &os);

} // namespace mlir::decoda

#endif // DECODA_TARGET_CUDA_CUDATARGET_H
