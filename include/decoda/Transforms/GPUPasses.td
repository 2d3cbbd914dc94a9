//===- GPUPasses.td - passes of the NVIDIA GPU pipeline -------*- tablegen -*-===//
//
// Included by Passes.td. decoda-lower-to-cuda (lib/Pipelines/GPUPipeline.cpp, docs/GPU.md)
// runs them in this order:
//   decoda-gpu-tensorcore-matmul -> decoda-gpu-copies-to-linalg -> (linalg to parallel loops)
//   -> decoda-gpu-map-parallel-loops -> (parallel loops to gpu.launch, outlining)
//   -> decoda-gpu-device-buffers -> decoda-gpu-lower-bf16-mma -> (NVVM, ptxas, host LLVM)
//   -> decoda-check-backend-contract -> decoda-gpu-check-host-contract
//
//===----------------------------------------------------------------------===//

#ifndef DECODA_TRANSFORMS_GPUPASSES_TD
#define DECODA_TRANSFORMS_GPUPASSES_TD

def GPUCopiesToLinalgPass : Pass<"decoda-gpu-copies-to-linalg", "func::FuncOp"> {
  let summary = "Turn every memref.copy into a linalg.copy, so that it becomes a device kernel";
  let description = [{
    In the GPU pipeline every buffer lives on the device, so a copy is a kernel like any other
    linalg op (`convert-linalg-to-parallel-loops` then maps it to threads).
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect"];
  let statistics = [
    Statistic<"numCopies", "num-copies", "copies turned into linalg.copy">
  ];
}

def GPUMapParallelLoopsPass : Pass<"decoda-gpu-map-parallel-loops", "func::FuncOp"> {
  let summary = "Tile outermost scf.parallel nests to (block-y, block-x) threads and map them "
                "to GPU blocks and threads, innermost dimension to x";
  let description = [{
    Each outermost `scf.parallel` (not inside a `gpu.launch`) is tiled, its innermost two
    dimensions by `(block-y, block-x)` threads, and mapped: innermost dimension to x (so
    consecutive threads of a warp touch consecutive elements), then y, then z; further
    dimensions and the threads' unit dimensions run sequentially in the kernel. A parallel
    loop with reductions is refused.
  }];
  let dependentDialects = ["::mlir::gpu::GPUDialect", "::mlir::scf::SCFDialect"];
  let options = [
    Option<"blockX", "block-x", "int64_t", /*default=*/"32", "Threads along the innermost dim">,
    Option<"blockY", "block-y", "int64_t", /*default=*/"8",
           "Threads along the second-innermost dim">
  ];
  let statistics = [
    Statistic<"numMapped", "num-mapped", "loop nests mapped to blocks and threads">
  ];
}

def GPUDeviceBuffersPass : Pass<"decoda-gpu-device-buffers", "ModuleOp"> {
  let summary = "Give kernels device buffers: arguments copied in, results out, constants "
                "resident on the device, temporaries allocated there; refuse host memory "
                "accesses";
  let description = [{
    After `gpu-kernel-outlining`, in every function with a body:

    * each memref argument gets a device copy at entry (`gpu.alloc` + `gpu.memcpy`), used
      everywhere instead;
    * each `memref.get_global` of a **constant** global (a weight) becomes the model's device
      copy of it: `llvm.call @decoda_cuda_constant(slot, host address, bytes)` returns a
      device pointer, wrapped into a memref descriptor (an `unrealized_conversion_cast` that
      the LLVM lowering folds). The model's support code uploads each constant on its first
      use and frees it when the runtime unloads the model (`decoda_cuda_release`, docs/ABI.md
      "GPU models"), so weights cross the bus once per load, not per call. One slot per
      global symbol. A non-constant global is still copied in per call;
    * host temporaries (`memref.alloc`/`alloca`) become `gpu.alloc`;
    * results are copied into `malloc`ed host buffers (the C ABI of docs/ABI.md);
    * every per-call device buffer is freed before the return (one allocated inside a loop or
      branch at the end of its block; refused when it leaves the block).

    Every gpu op is async with its own stream and waited for (the form `gpu-to-llvm` lowers).
    Host code that still reads or writes a buffer and run-time checks inside kernels are
    refused with an error naming the op; so are non-identity layouts at the boundaries and
    constants of element types without a byte size.
  }];
  let dependentDialects = ["::mlir::gpu::GPUDialect", "::mlir::memref::MemRefDialect",
                           "::mlir::LLVM::LLVMDialect", "::mlir::arith::ArithDialect"];
  let statistics = [
    Statistic<"numArguments", "num-arguments", "arguments copied to the device per call">,
    Statistic<"numConstants", "num-constants",
              "constant globals read from the model's resident device copies">,
    Statistic<"numResults", "num-results", "results copied back per call">
  ];
}

def GPUCheckHostContractPass : Pass<"decoda-gpu-check-host-contract", "ModuleOp"> {
  let summary = "Check that only gpu.binary and gpu.launch_func remain of the gpu dialect";
  let description = [{
    Runs after `decoda-check-backend-contract{dialects=llvm,gpu}`: of the gpu dialect only the
    kernel images (`gpu.binary`) and their launches (`gpu.launch_func`) may remain; anything
    else (a `gpu.alloc` the host lowering left, a `gpu.module` not compiled) has no LLVM
    translation.
  }];
}

#endif // DECODA_TRANSFORMS_GPUPASSES_TD
