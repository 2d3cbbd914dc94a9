//===- GPUPipeline.cpp - the NVIDIA GPU lowering pipeline -----------------===//
//
// decoda-lower-to-cuda and its three passes:
//  - decoda-gpu-copies-to-linalg: every memref.copy becomes a linalg.copy (a device kernel);
//  - decoda-gpu-map-parallel-loops: each outermost scf.parallel is tiled, its innermost two
//    dimensions by (block-y, block-x) threads, and mapped: innermost dimension to x (so
//    consecutive threads of a warp touch consecutive elements), then y, then z; further
//    dimensions and the threads' unit dimensions run sequentially in the kernel;
//  - decoda-gpu-device-buffers: arguments and constants are copied to device buffers, host
//    temporaries become device buffers, results are copied back to host buffers (the C ABI of
//    docs/ABI.md speaks of host memory), every device buffer is freed; host code that reads or
//    writes memory outside a kernel is refused.
//
//===----------------------------------------------------------------------===//

#include "decoda/Pipelines/GPUPipeline.h"

#include "decoda/Conversion/Passes.h"
#include "decoda/Transforms/Passes.h"

#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/ParallelLoopMapper.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/Transforms.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/GPU/GPUToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/NVVM/NVVMToLLVMIRTranslation.h"
#include "mlir/Transforms/Passes.h"

#include <cstdlib>

using namespace mlir;
using namespace mlir::decoda;

namespace {
void addTextual(OpPassManager &pm, StringRef pipeline) {
  if (failed(parsePassPipeline(pipeline, pm, llvm::errs())))
    llvm::report_fatal_error(llvm::Twine("invalid built-in pipeline: ") + pipeline);
}

//===----------------------------------------------------------------------===//
// decoda-gpu-copies-to-linalg
//===----------------------------------------------------------------------===//

struct GPUCopiesToLinalgPass
    : public PassWrapper<GPUCopiesToLinalgPass, OperationPass<func::FuncOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(GPUCopiesToLinalgPass)
  StringRef getArgument() const final { return "decoda-gpu-copies-to-linalg"; }
  StringRef getDescription() const final {
    return "Turn every memref.copy into a linalg.copy, so that it becomes a device kernel";
  }
  void getDependentDialects(DialectRegistry &registry) const override {
    registry.insert<linalg::LinalgDialect>();
  }
  void runOnOperation() override {
    SmallVector<memref::CopyOp> copies;
    getOperation().walk([&](memref::CopyOp op) { copies.push_back(op); });
    for (memref::CopyOp copy : copies) {
      OpBuilder b(copy);
      linalg::CopyOp::create(b, copy.getLoc(), copy.getSource(), copy.getTarget());
      copy.erase();
    }
  }
};

//===----------------------------------------------------------------------===//
// decoda-gpu-map-parallel-loops
//===----------------------------------------------------------------------===//

struct GPUMapParallelLoopsPass
    : public PassWrapper<GPUMapParallelLoopsPass, OperationPass<func::FuncOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(GPUMapParallelLoopsPass)
  GPUMapParallelLoopsPass() = default;
  GPUMapParallelLoopsPass(const GPUMapParallelLoopsPass &other) : PassWrapper(other) {}
  GPUMapParallelLoopsPass(int64_t x, int64_t y) {
    blockX = x;
    blockY = y;
  }
  StringRef getArgument() const final { return "decoda-gpu-map-parallel-loops"; }
  StringRef getDescription() const final {
    return "Tile outermost scf.parallel nests to (block-y, block-x) threads and map them to "
           "GPU blocks and threads, innermost dimension to x";
  }
  void getDependentDialects(DialectRegistry &registry) const override {
    registry.insert<gpu::GPUDialect, scf::SCFDialect>();
  }
  Option<int64_t> blockX{*this, "block-x", llvm::cl::desc("Threads along the innermost dim"),
                         llvm::cl::init(32)};
  Option<int64_t> blockY{*this, "block-y",
                         llvm::cl::desc("Threads along the second-innermost dim"),
                         llvm::cl::init(8)};

  static SmallVector<gpu::ParallelLoopDimMappingAttr>
  mapping(MLIRContext *ctx, unsigned rank, ArrayRef<gpu::Processor> innerToOuter) {
    AffineMap id = AffineMap::getMultiDimIdentityMap(1, ctx);
    SmallVector<gpu::ParallelLoopDimMappingAttr> attrs;
    for (unsigned d = 0; d < rank; ++d) {
      unsigned fromInner = rank - 1 - d;
      gpu::Processor p = fromInner < innerToOuter.size() ? innerToOuter[fromInner]
                                                         : gpu::Processor::Sequential;
      attrs.push_back(gpu::ParallelLoopDimMappingAttr::get(ctx, p, id, id));
    }
    return attrs;
  }

  void runOnOperation() override {
    if (blockX < 1 || blockY < 1 || blockX * blockY > 1024) {
      getOperation().emitError() << "decoda-gpu-map-parallel-loops: block-x (" << blockX
                                 << ") times block-y (" << blockY
                                 << ") must be between 1 and 1024 threads";
      return signalPassFailure();
    }
    SmallVector<scf::ParallelOp> roots;
    getOperation().walk([&](scf::ParallelOp op) {
      if (!op->getParentOfType<scf::ParallelOp>() && !op->getParentOfType<gpu::LaunchOp>())
        roots.push_back(op);
    });
    MLIRContext *ctx = &getContext();
    for (scf::ParallelOp op : roots) {
      if (op.getNumReductions() != 0) {
        op.emitError() << "decoda-gpu-map-parallel-loops: a parallel loop with reductions "
                          "cannot be mapped to GPU threads yet";
        return signalPassFailure();
      }
      unsigned rank = op.getNumLoops();
      SmallVector<int64_t> tiles(rank, 1);
      tiles[rank - 1] = blockX;
      if (rank >= 2)
        tiles[rank - 2] = blockY;
      auto [outer, inner] = scf::tileParallelLoop(op, tiles, /*noMinMaxBounds=*/true);
      if (failed(gpu::setMappingAttr(
              outer, mapping(ctx, rank,
                             {gpu::Processor::BlockX, gpu::Processor::BlockY,
                              gpu::Processor::BlockZ}))) ||
          failed(gpu::setMappingAttr(
              inner, mapping(ctx, rank, {gpu::Processor::ThreadX, gpu::Processor::ThreadY})))) {
        op.emitError() << "decoda-gpu-map-parallel-loops: invalid mapping";
        return signalPassFailure();
      }
    }
  }
};

//===----------------------------------------------------------------------===//
// decoda-gpu-device-buffers
//===----------------------------------------------------------------------===//

/// Dynamic sizes of a buffer shaped like `v` (memref.dim of each dynamic extent).
SmallVector<Value> dynamicSizes(OpBuilder &b, Location loc, Value v) {
  auto type = cast<MemRefType>(v.getType());
  SmallVector<Value> sizes;
  for (int64_t d = 0; d < type.getRank(); ++d)
    if (type.isDynamicDim(d))
      sizes.push_back(memref::DimOp::create(b, loc, v, d));
  return sizes;
}

/// gpu-to-llvm lowers gpu.alloc/memcpy/dealloc only in their async form: each one gets its
/// own stream (`gpu.wait async`) and is waited for right away, so they stay synchronous.
struct SyncGPU {
  OpBuilder &b;
  Location loc;
  Value start() {
    return gpu::WaitOp::create(b, loc, gpu::AsyncTokenType::get(b.getContext()), ValueRange{})
        .getAsyncToken();
  }
  void finish(Value token) { gpu::WaitOp::create(b, loc, Type(), ValueRange{token}); }
  Value alloc(MemRefType type, ValueRange sizes) {
    auto op = gpu::AllocOp::create(b, loc, type, gpu::AsyncTokenType::get(b.getContext()),
                                   ValueRange{start()}, sizes, ValueRange{});
    finish(op.getAsyncToken());
    return op.getMemref();
  }
  void memcpy(Value dst, Value src) {
    auto op = gpu::MemcpyOp::create(b, loc, gpu::AsyncTokenType::get(b.getContext()),
                                    ValueRange{start()}, dst, src);
    finish(op.getAsyncToken());
  }
  void dealloc(Value buffer) {
    auto op = gpu::DeallocOp::create(b, loc, gpu::AsyncTokenType::get(b.getContext()),
                                     ValueRange{start()}, buffer);
    finish(op.getAsyncToken());
  }
};

/// True when `v` or a view of it is yielded or passed out of its block by a terminator.
bool escapesBlock(Value v) {
  SmallVector<Value> work = {v};
  while (!work.empty()) {
    Value cur = work.pop_back_val();
    for (OpOperand &use : cur.getUses()) {
      Operation *user = use.getOwner();
      if (user->hasTrait<OpTrait::IsTerminator>())
        return true;
      if (auto view = dyn_cast<ViewLikeOpInterface>(user))
        if (view.getViewSource() == cur)
          for (Value r : user->getResults())
            work.push_back(r);
    }
  }
  return false;
}

struct GPUDeviceBuffersPass
    : public PassWrapper<GPUDeviceBuffersPass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(GPUDeviceBuffersPass)
  StringRef getArgument() const final { return "decoda-gpu-device-buffers"; }
  StringRef getDescription() const final {
    return "Give kernels device buffers: copy arguments and constants in, results out, "
           "allocate temporaries on the device, free them; refuse host memory accesses";
  }
  void getDependentDialects(DialectRegistry &registry) const override {
    registry.insert<gpu::GPUDialect, memref::MemRefDialect>();
    // gpu-module-to-binary (later in the pipeline) translates the kernels to LLVM IR.
    registerBuiltinDialectTranslation(registry);
    registerLLVMDialectTranslation(registry);
    registerGPUDialectTranslation(registry);
    registerNVVMDialectTranslation(registry);
  }

  LogicalResult runOnFunction(func::FuncOp fn) {
    Block &entry = fn.getBody().front();
    SmallVector<Value> deviceBuffers;
    auto toDevice = [&](OpBuilder &b, Location loc, Value host) -> Value {
      SyncGPU gpu{b, loc};
      Value dev = gpu.alloc(cast<MemRefType>(host.getType()), dynamicSizes(b, loc, host));
      gpu.memcpy(dev, host);
      deviceBuffers.push_back(dev);
      return dev;
    };
    auto checkLayout = [&](Operation *where, Type type, StringRef what) -> LogicalResult {
      auto m = dyn_cast<MemRefType>(type);
      if (m && !m.getLayout().isIdentity())
        return where->emitError() << "decoda-gpu-device-buffers: " << what << " of type " << type
                                  << " has a non-identity layout; only row-major buffers are "
                                     "copied between host and device";
      return success();
    };

    // Arguments: a device copy at the start, used everywhere instead.
    OpBuilder b(fn.getContext());
    b.setInsertionPointToStart(&entry);
    for (BlockArgument arg : entry.getArguments()) {
      if (!isa<MemRefType>(arg.getType()))
        continue;
      if (failed(checkLayout(fn, arg.getType(), "argument")))
        return failure();
      if (arg.use_empty())
        continue;
      Operation *before = b.getInsertionBlock()->empty() ? nullptr : &*b.getInsertionPoint();
      Value dev = toDevice(b, fn.getLoc(), arg);
      // Every use after the copy reads the device buffer; the copy's own ops (dims, memcpy)
      // keep the argument.
      arg.replaceUsesWithIf(dev, [&](OpOperand &use) {
        Operation *user = use.getOwner();
        return user->getBlock() != &entry || !before || !user->isBeforeInBlock(before);
      });
    }

    // Constants (weights): copied to the device on every call (docs/ABI.md, GPU section).
    SmallVector<Operation *> hostOps;
    fn.walk([&](Operation *op) {
      if (op->getParentOfType<gpu::LaunchOp>())
        return;
      if (isa<memref::GetGlobalOp, memref::AllocOp, memref::AllocaOp, memref::DeallocOp>(op))
        hostOps.push_back(op);
    });
    for (Operation *op : hostOps) {
      b.setInsertionPointAfter(op);
      if (auto global = dyn_cast<memref::GetGlobalOp>(op)) {
        if (failed(checkLayout(op, global.getType(), "constant")))
          return failure();
        Operation *next = op->getNextNode();
        Value dev = toDevice(b, op->getLoc(), global.getResult());
        global.getResult().replaceUsesWithIf(dev, [&](OpOperand &use) {
          Operation *user = use.getOwner();
          return user->getBlock() != op->getBlock() || !user->isBeforeInBlock(next);
        });
        continue;
      }
      if (isa<memref::DeallocOp>(op)) {
        op->erase(); // every device buffer is freed below
        continue;
      }
      Value host = op->getResult(0);
      SyncGPU gpu{b, op->getLoc()};
      Value dev = gpu.alloc(cast<MemRefType>(host.getType()), op->getOperands());
      host.replaceAllUsesWith(dev);
      op->erase();
      deviceBuffers.push_back(dev);
    }

    // Results: copied into host buffers the caller owns (freed with free(), docs/ABI.md).
    SmallVector<func::ReturnOp> returns;
    fn.walk([&](func::ReturnOp r) { returns.push_back(r); });
    for (func::ReturnOp ret : returns) {
      b.setInsertionPoint(ret);
      for (OpOperand &operand : ret->getOpOperands()) {
        Value v = operand.get();
        if (!isa<MemRefType>(v.getType()))
          continue;
        if (failed(checkLayout(ret, v.getType(), "result")))
          return failure();
        Value host = memref::AllocOp::create(b, ret.getLoc(), cast<MemRefType>(v.getType()),
                                             dynamicSizes(b, ret.getLoc(), v))
                         .getResult();
        SyncGPU{b, ret.getLoc()}.memcpy(host, v);
        operand.set(host);
      }
    }

    // Frees: a buffer of the entry block before every return, one made inside a loop or branch
    // at the end of its block (refused when it leaves the block).
    for (Value dev : deviceBuffers) {
      Block *block = dev.getParentBlock();
      if (block == &entry) {
        for (func::ReturnOp ret : returns) {
          b.setInsertionPoint(ret);
          SyncGPU{b, ret.getLoc()}.dealloc(dev);
        }
        continue;
      }
      if (escapesBlock(dev))
        return dev.getDefiningOp()->emitError()
               << "decoda-gpu-device-buffers: a buffer allocated inside a loop or branch "
                  "leaves it; the GPU pipeline cannot free it yet";
      b.setInsertionPoint(block->getTerminator());
      SyncGPU{b, dev.getLoc()}.dealloc(dev);
    }

    // What is left on the host must not touch memory: everything else is a kernel's job.
    WalkResult walk = fn.walk([&](Operation *op) {
      if (isa<gpu::GPUDialect>(op->getDialect()) || op->getParentOfType<gpu::LaunchOp>())
        return WalkResult::skip();
      auto effects = dyn_cast<MemoryEffectOpInterface>(op);
      if (!effects)
        return WalkResult::advance();
      SmallVector<MemoryEffects::EffectInstance> list;
      effects.getEffects(list);
      for (auto &e : list)
        if (isa<MemoryEffects::Read, MemoryEffects::Write>(e.getEffect()) && e.getValue() &&
            isa<MemRefType>(e.getValue().getType())) {
          op->emitError() << "decoda-gpu-device-buffers: '" << op->getName()
                          << "' reads or writes a buffer in host code; the GPU pipeline maps "
                             "only parallel loop nests (linalg ops) to kernels";
          return WalkResult::interrupt();
        }
      return WalkResult::advance();
    });
    return failure(walk.wasInterrupted());
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    WalkResult kernelChecks = module.walk([&](cf::AssertOp op) {
      if (op->getParentOfType<gpu::GPUModuleOp>() || op->getParentOfType<gpu::LaunchOp>()) {
        op.emitError() << "decoda-gpu-device-buffers: run-time checks inside GPU kernels are "
                          "not supported yet ('"
                       << op.getMsg() << "')";
        return WalkResult::interrupt();
      }
      return WalkResult::advance();
    });
    if (kernelChecks.wasInterrupted())
      return signalPassFailure();
    for (auto fn : module.getOps<func::FuncOp>())
      if (!fn.isExternal() && failed(runOnFunction(fn)))
        return signalPassFailure();
  }
};
//===----------------------------------------------------------------------===//
// decoda-gpu-check-host-contract
//===----------------------------------------------------------------------===//

/// After decoda-check-backend-contract{dialects=llvm,gpu}: of the gpu dialect only the
/// kernel images (gpu.binary) and their launches (gpu.launch_func) may remain; anything else
/// (a gpu.alloc the host lowering left, a gpu.module not compiled) has no LLVM translation.
struct GPUCheckHostContractPass
    : public PassWrapper<GPUCheckHostContractPass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(GPUCheckHostContractPass)
  StringRef getArgument() const final { return "decoda-gpu-check-host-contract"; }
  StringRef getDescription() const final {
    return "Check that only gpu.binary and gpu.launch_func remain of the gpu dialect";
  }
  void runOnOperation() override {
    WalkResult r = getOperation().walk([&](Operation *op) {
      if (isa<gpu::GPUDialect>(op->getDialect()) && !isa<gpu::BinaryOp, gpu::LaunchFuncOp>(op)) {
        op->emitError() << "'" << op->getName()
                        << "' is outside the GPU backend contract (of the gpu dialect only "
                           "gpu.binary and gpu.launch_func may remain)";
        return WalkResult::interrupt();
      }
      return WalkResult::advance();
    });
    if (r.wasInterrupted())
      signalPassFailure();
  }
};
} // namespace

std::string mlir::decoda::cudaArchFeatures(StringRef arch) {
  // The lowest PTX ISA that knows the architecture (PTX ISA release notes); LLVM aborts when
  // the PTX version is too old for the chip.
  return llvm::StringSwitch<std::string>(arch)
      .Cases({"sm_70", "sm_75"}, "+ptx64")
      .Case("sm_80", "+ptx70")
      .Case("sm_86", "+ptx71")
      .Cases({"sm_89", "sm_90"}, "+ptx78")
      .Case("sm_90a", "+ptx80")
      .Cases({"sm_100", "sm_100a", "sm_120", "sm_120a"}, "+ptx87")
      .Default("");
}

StringRef mlir::decoda::cudaKnownArchs() {
  return "sm_70 sm_75 sm_80 sm_86 sm_89 sm_90 sm_90a sm_100 sm_100a sm_120 sm_120a";
}

void mlir::decoda::buildCUDALoweringPassPipeline(OpPassManager &pm,
                                                 const CUDALoweringPipelineOptions &options) {
  std::string features = cudaArchFeatures(options.gpuArch);
  if (features.empty())
    llvm::report_fatal_error(llvm::Twine("decoda-lower-to-cuda: unknown gpu-arch '") +
                             options.gpuArch + "' (known: " + cudaKnownArchs() + ")");
  if (options.format != "bin" && options.format != "isa")
    llvm::report_fatal_error("decoda-lower-to-cuda: format must be bin or isa");

  // gpu-module-to-binary finds libdevice (math functions) and ptxas through these variables
  // only; without them the kernels' __nv_* calls stay unresolved.
  if (!std::getenv("CUDA_ROOT") && !std::getenv("CUDA_HOME") && !std::getenv("CUDA_PATH"))
    ::setenv("CUDA_HOME", options.cudaPath.getValue().c_str(), /*overwrite=*/0);

  DecodaToLinalgPassOptions toLinalg;
  toLinalg.attentionKeyTile = options.attentionKeyTile;
  pm.addPass(createDecodaToLinalgPass(toLinalg));
  addTextual(pm, "func.func(convert-elementwise-to-linalg)"); // arith/math on tensors
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  pm.addNestedPass<func::FuncOp>(createFuseElementwisePass());
  pm.addPass(createCanonicalizerPass());

  // Inputs stay read-only (the kernels read device copies of them anyway).
  pm.addPass(createMarkReadOnlyInputsPass());
  addTextual(pm, "one-shot-bufferize{bufferize-function-boundaries "
                 "function-boundary-type-conversion=identity-layout-map}");
  pm.addPass(createCanonicalizerPass());

  // Every linalg op (and copy) is a parallel loop nest; each nest is one kernel.
  pm.addNestedPass<func::FuncOp>(std::make_unique<GPUCopiesToLinalgPass>());
  addTextual(pm, "func.func(convert-linalg-to-parallel-loops)");
  pm.addPass(createCanonicalizerPass());
  pm.addNestedPass<func::FuncOp>(
      std::make_unique<GPUMapParallelLoopsPass>(options.blockX, options.blockY));
  addTextual(pm, "func.func(convert-parallel-loops-to-gpu)");
  addTextual(pm, "gpu-kernel-outlining");
  pm.addPass(std::make_unique<GPUDeviceBuffersPass>());
  addTextual(pm, "lower-affine");
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  pm.addPass(createLowerRuntimeChecksPass()); // host checks only (kernels have none)
  addTextual(pm, "func.func(llvm-request-c-wrappers)");
  addTextual(pm, ("gpu-lower-to-nvvm-pipeline{cubin-chip=" + options.gpuArch.getValue() +
                  " cubin-features=" + features + " cubin-format=" + options.format.getValue() +
                  "}"));
  addTextual(pm, "reconcile-unrealized-casts");
  pm.addPass(createCanonicalizerPass());

  CheckBackendContractPassOptions contract;
  contract.dialects = {"llvm", "gpu"}; // gpu: the gpu.binary and its gpu.launch_func calls
  pm.addPass(createCheckBackendContractPass(contract));
  pm.addPass(std::make_unique<GPUCheckHostContractPass>());
}

void mlir::decoda::registerDecodaGPUPipeline() {
  PassRegistration<GPUCopiesToLinalgPass>();
  PassRegistration<GPUMapParallelLoopsPass>();
  PassRegistration<GPUDeviceBuffersPass>();
  PassRegistration<GPUCheckHostContractPass>();
  PassPipelineRegistration<CUDALoweringPipelineOptions>(
      "decoda-lower-to-cuda",
      "Lower decoda (after decoda-graph-opt) to host LLVM dialect code launching NVVM kernels "
      "compiled into a gpu.binary (cubin or PTX), ending with a check that only LLVM and "
      "gpu.binary/gpu.launch_func remain",
      buildCUDALoweringPassPipeline);
}
