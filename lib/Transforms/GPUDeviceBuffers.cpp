//===- GPUDeviceBuffers.cpp - device buffers for the kernels of a function ===//
//
// Arguments in device memory (the caller's device-resident tensors, docs/ABI.md "Device-resident
// tensors") are used in place; arguments in host memory are copied to the device at entry and,
// when the program writes them (donated, decoda.written), back at the end. Results are copied
// to host buffers (the C ABI of docs/ABI.md); constants (weights) are read from device copies
// the model owns, uploaded once (docs/ABI.md, "GPU models"); host temporaries become device
// buffers; every per-call device buffer is freed; host code that reads or writes memory
// outside a kernel is refused.
//
//===----------------------------------------------------------------------===//

#include "decoda/Transforms/Donation.h"
#include "decoda/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/GPU/GPUToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/NVVM/NVVMToLLVMIRTranslation.h"

namespace mlir::decoda {
#define GEN_PASS_DEF_GPUDEVICEBUFFERSPASS
#include "decoda/Transforms/Passes.h.inc"
} // namespace mlir::decoda

using namespace mlir;

namespace {
/// The support-code function that returns the model's device copy of a constant (uploading
/// it on first use): `void *decoda_cuda_constant(int64_t slot, const void *host, int64_t
/// bytes)` (lib/Target/CUDA/CUDATarget.cpp).
constexpr StringLiteral kConstantFn = "decoda_cuda_constant";
/// `int32_t decoda_cuda_is_device(const void *ptr)`: 1 when `ptr` is device memory.
constexpr StringLiteral kIsDeviceFn = "decoda_cuda_is_device";
/// `void decoda_cuda_finish(void)`: waits for the call's work still queued on the thread's
/// stream (a call whose results all stay on the device copies nothing back to wait for).
constexpr StringLiteral kFinishFn = "decoda_cuda_finish";

/// Host temporaries up to this size (a cache offset read by host code) live on the stack.
constexpr int64_t kMaxStackBytes = 4096;

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

/// `scf.if cond -> type { then() } else { otherwise() }`, each branch yielding the value its
/// callback builds.
scf::IfOp ifElse(OpBuilder &b, Location loc, Type type, Value cond,
                 llvm::function_ref<Value(OpBuilder &)> then,
                 llvm::function_ref<Value(OpBuilder &)> otherwise) {
  auto op = scf::IfOp::create(b, loc, TypeRange{type}, cond, /*addThenBlock=*/false,
                              /*addElseBlock=*/false);
  OpBuilder::InsertionGuard guard(b);
  b.createBlock(&op.getThenRegion());
  scf::YieldOp::create(b, loc, then(b));
  b.createBlock(&op.getElseRegion());
  scf::YieldOp::create(b, loc, otherwise(b));
  return op;
}

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

/// `v` without the memref.casts around it (a cast changes the type, not the buffer).
Value throughCasts(Value v) {
  while (auto cast = v.getDefiningOp<memref::CastOp>())
    v = cast.getSource();
  return v;
}

/// Whether `v` holds a buffer allocated for it alone: one of `fresh` (maybe through casts), or
/// an scf.if result that every branch yields as such a value made in that branch (nested ifs
/// included).
bool ownsBuffer(Value v, const DenseSet<Value> &fresh) {
  v = throughCasts(v);
  if (fresh.contains(v))
    return true;
  auto ifOp = v.getDefiningOp<scf::IfOp>();
  if (!ifOp || ifOp.getElseRegion().empty())
    return false;
  unsigned i = cast<OpResult>(v).getResultNumber();
  Value then = throughCasts(ifOp.thenYield().getOperand(i)),
        other = throughCasts(ifOp.elseYield().getOperand(i));
  return then != other && then.getParentBlock() == ifOp.thenBlock() &&
         other.getParentBlock() == ifOp.elseBlock() && ownsBuffer(then, fresh) &&
         ownsBuffer(other, fresh);
}

/// The scf.if result that owns `dev`, a buffer leaving its block: `dev` (or a memref.cast of
/// it, as a static-dims build yields its static result as the if's dynamic type) is yielded by
/// a branch of an scf.if whose result there owns its buffer (ownsBuffer), and no other view of
/// it leaves the block. Then the result is a buffer of the if's block that nothing else frees.
FailureOr<Value> branchResultOwning(Value dev, const DenseSet<Value> &fresh) {
  std::optional<unsigned> index;
  scf::IfOp ifOp;
  SmallVector<Value> same = {dev}; // dev and its casts
  for (size_t i = 0; i < same.size(); ++i) {
    for (OpOperand &use : same[i].getUses()) {
      Operation *user = use.getOwner();
      if (auto cast = dyn_cast<memref::CastOp>(user)) {
        same.push_back(cast.getResult());
        continue;
      }
      if (auto view = dyn_cast<ViewLikeOpInterface>(user);
          view && view.getViewSource() == same[i])
        if (escapesBlock(user->getResult(0)))
          return failure(); // a view leaves the block
      if (!user->hasTrait<OpTrait::IsTerminator>())
        continue;
      auto yield = dyn_cast<scf::YieldOp>(user);
      auto parent = yield ? dyn_cast<scf::IfOp>(yield->getParentOp()) : scf::IfOp();
      if (!parent || index || yield->getBlock() != dev.getParentBlock())
        return failure();
      index = use.getOperandNumber();
      ifOp = parent;
    }
  }
  if (!ifOp || !ownsBuffer(ifOp.getResult(*index), fresh))
    return failure();
  return ifOp.getResult(*index);
}

/// The op of `block` after which nothing reads `buffer` any more: the last op of the block
/// that holds a use of the buffer or of anything derived from it (a view, a pointer or an
/// address computed from it, a tensor map made from it, a result of a loop or branch that
/// yields it), or null when something derived from it leaves the block (its terminator's
/// operand) or is used outside it. Sizes read from it (memref.dim, extract_strided_metadata's
/// sizes, strides and offset) do not hold it.
Operation *lastUseInBlock(Value buffer, Block *block) {
  SmallVector<Value> work = {buffer};
  DenseSet<Value> seen = {buffer};
  Operation *last = nullptr;
  auto follow = [&](Value v) {
    if (seen.insert(v).second)
      work.push_back(v);
  };
  while (!work.empty()) {
    Value cur = work.pop_back_val();
    for (OpOperand &use : cur.getUses()) {
      Operation *user = use.getOwner();
      Operation *anchor = block->findAncestorOpInBlock(*user);
      if (!anchor || user == block->getTerminator())
        return nullptr;
      if (!last || last->isBeforeInBlock(anchor))
        last = anchor;
      if (isa<memref::DimOp>(user))
        continue;
      if (auto meta = dyn_cast<memref::ExtractStridedMetadataOp>(user)) {
        follow(meta.getBaseBuffer());
        continue;
      }
      // A terminator of a nested block (an scf.yield): the results of the ops around it, up
      // to the one in `block`, may be the buffer.
      if (user->hasTrait<OpTrait::IsTerminator>()) {
        for (Operation *op = user->getParentOp(); op; op = op->getParentOp()) {
          for (Value r : op->getResults())
            follow(r);
          if (op == anchor)
            break;
        }
        continue;
      }
      for (Value r : user->getResults())
        follow(r);
    }
  }
  return last;
}

/// Bytes of one element as the host and device lay it out, or 0 when unknown.
int64_t elementBytes(Type t) {
  if (t.isIndex())
    return 8;
  if (t.isIntOrFloat())
    return (t.getIntOrFloatBitWidth() + 7) / 8;
  return 0;
}

/// The memref descriptor (the LLVM lowering's {allocated, aligned, offset, sizes, strides})
/// of a row-major buffer of static `type` at `ptr`, as a value of `type`: the cast is folded
/// away by reconcile-unrealized-casts once the users are lowered to LLVM.
Value memrefAt(OpBuilder &b, Location loc, Value ptr, MemRefType type) {
  MLIRContext *ctx = b.getContext();
  Type i64 = b.getI64Type();
  SmallVector<Type> fields = {ptr.getType(), ptr.getType(), i64};
  int64_t rank = type.getRank();
  if (rank > 0) {
    fields.push_back(LLVM::LLVMArrayType::get(i64, rank));
    fields.push_back(LLVM::LLVMArrayType::get(i64, rank));
  }
  auto structType = LLVM::LLVMStructType::getLiteral(ctx, fields);
  Value desc = LLVM::PoisonOp::create(b, loc, structType);
  auto i64c = [&](int64_t v) {
    return LLVM::ConstantOp::create(b, loc, i64, b.getI64IntegerAttr(v)).getResult();
  };
  desc = LLVM::InsertValueOp::create(b, loc, desc, ptr, ArrayRef<int64_t>{0});
  desc = LLVM::InsertValueOp::create(b, loc, desc, ptr, ArrayRef<int64_t>{1});
  desc = LLVM::InsertValueOp::create(b, loc, desc, i64c(0), ArrayRef<int64_t>{2});
  SmallVector<int64_t> strides = type.getStridesAndOffset().first;
  for (int64_t d = 0; d < rank; ++d) {
    desc = LLVM::InsertValueOp::create(b, loc, desc, i64c(type.getDimSize(d)),
                                       ArrayRef<int64_t>{3, d});
    desc = LLVM::InsertValueOp::create(b, loc, desc, i64c(strides[d]), ArrayRef<int64_t>{4, d});
  }
  return UnrealizedConversionCastOp::create(b, loc, TypeRange{type}, ValueRange{desc})
      .getResult(0);
}

struct GPUDeviceBuffersPass
    : public mlir::decoda::impl::GPUDeviceBuffersPassBase<GPUDeviceBuffersPass> {
  using Base::Base;

  void getDependentDialects(DialectRegistry &registry) const override {
    Base::getDependentDialects(registry);
    // gpu-module-to-binary (later in the pipeline) translates the kernels to LLVM IR.
    registerBuiltinDialectTranslation(registry);
    registerLLVMDialectTranslation(registry);
    registerGPUDialectTranslation(registry);
    registerNVVMDialectTranslation(registry);
  }

  /// Slot of each constant global (one device copy per symbol, shared by all functions).
  llvm::StringMap<int64_t> constantSlots;

  /// The declaration of support-code function `name` (lib/Target/CUDA/CUDATarget.cpp).
  LLVM::LLVMFuncOp supportFn(ModuleOp module, StringRef name, LLVM::LLVMFunctionType type) {
    if (auto fn = module.lookupSymbol<LLVM::LLVMFuncOp>(name))
      return fn;
    OpBuilder b = OpBuilder::atBlockEnd(module.getBody());
    return LLVM::LLVMFuncOp::create(b, module.getLoc(), name, type);
  }

  LLVM::LLVMFuncOp constantFn(ModuleOp module) {
    MLIRContext *ctx = module.getContext();
    auto ptr = LLVM::LLVMPointerType::get(ctx);
    auto i64 = IntegerType::get(ctx, 64);
    return supportFn(module, kConstantFn, LLVM::LLVMFunctionType::get(ptr, {i64, ptr, i64}));
  }

  /// The address of `buffer`'s data as an `!llvm.ptr`.
  static Value dataPointer(OpBuilder &b, Location loc, Value buffer) {
    Value base = memref::ExtractAlignedPointerAsIndexOp::create(b, loc, buffer);
    Value i64 = arith::IndexCastOp::create(b, loc, b.getI64Type(), base);
    return LLVM::IntToPtrOp::create(b, loc, LLVM::LLVMPointerType::get(b.getContext()), i64);
  }

  /// The model's device copy of the constant read by `global`.
  FailureOr<Value> deviceConstant(OpBuilder &b, memref::GetGlobalOp global) {
    Location loc = global.getLoc();
    MemRefType type = global.getType();
    int64_t bytes = elementBytes(type.getElementType());
    if (bytes == 0)
      return global.emitError() << "decoda-gpu-device-buffers: constant of type " << type
                                << " has no byte size on the device";
    bytes *= type.getNumElements();
    auto [it, inserted] =
        constantSlots.try_emplace(global.getName(), int64_t(constantSlots.size()));
    (void)inserted;
    ModuleOp module = global->getParentOfType<ModuleOp>();
    LLVM::LLVMFuncOp fn = constantFn(module);
    Type i64 = b.getI64Type();
    Value host = dataPointer(b, loc, global.getResult());
    Value slot = LLVM::ConstantOp::create(b, loc, i64, b.getI64IntegerAttr(it->second));
    Value size = LLVM::ConstantOp::create(b, loc, i64, b.getI64IntegerAttr(bytes));
    Value dev = LLVM::CallOp::create(b, loc, fn, ValueRange{slot, host, size}).getResult();
    ++numConstants;
    return memrefAt(b, loc, dev, type);
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

    // Arguments: the caller's buffer itself when it is device memory, else a device copy made
    // at the start (scf.if on decoda_cuda_is_device); used everywhere instead.
    ModuleOp module = fn->getParentOfType<ModuleOp>();
    MLIRContext *ctx = fn.getContext();
    auto ptrType = LLVM::LLVMPointerType::get(ctx);
    LLVM::LLVMFuncOp isDeviceFn = supportFn(
        module, kIsDeviceFn, LLVM::LLVMFunctionType::get(IntegerType::get(ctx, 32), {ptrType}));
    LLVM::LLVMFuncOp finishFn =
        supportFn(module, kFinishFn, LLVM::LLVMFunctionType::get(LLVM::LLVMVoidType::get(ctx), {}));
    struct ArgumentBuffer {
      BlockArgument arg;
      Value isHost; // i1: the caller passed host memory
      Value dev;    // the buffer the kernels use
      bool written; // donated: copied back into a host caller's buffer
    };
    SmallVector<ArgumentBuffer> argBuffers;
    DenseMap<Value, size_t> argOfDevice;
    OpBuilder b(ctx);
    b.setInsertionPointToStart(&entry);
    for (BlockArgument arg : entry.getArguments()) {
      bool written = fn.getArgAttr(arg.getArgNumber(), decoda::kWrittenAttrName) != nullptr;
      fn.removeArgAttr(arg.getArgNumber(), decoda::kWrittenAttrName);
      if (!isa<MemRefType>(arg.getType()))
        continue;
      if (failed(checkLayout(fn, arg.getType(), "argument")))
        return failure();
      if (arg.use_empty())
        continue;
      SmallVector<OpOperand *> uses =
          llvm::map_to_vector(arg.getUses(), [](OpOperand &use) { return &use; });
      Location loc = fn.getLoc();
      auto type = cast<MemRefType>(arg.getType());
      Value flag = LLVM::CallOp::create(b, loc, isDeviceFn, ValueRange{dataPointer(b, loc, arg)})
                       .getResult();
      Value zero = arith::ConstantIntOp::create(b, loc, 0, 32);
      Value isHost = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, flag, zero);
      scf::IfOp copy = ifElse(b, loc, type, isHost, [&](OpBuilder &tb) {
        SyncGPU gpu{tb, loc};
        Value dev = gpu.alloc(type, dynamicSizes(tb, loc, arg));
        gpu.memcpy(dev, arg);
        return dev;
      }, [&](OpBuilder &) { return Value(arg); });
      Value dev = copy.getResult(0);
      for (OpOperand *use : uses)
        use->set(dev);
      argOfDevice[dev] = argBuffers.size();
      argBuffers.push_back({arg, isHost, dev, written});
      ++numArguments;
    }

    // Host code may read scalars of an argument (a decode step's cache offset): from the
    // caller's buffer when it is host memory, else from a host copy made at the start. An
    // argument the kernels write (donated) is not read by host code.
    struct HostView {
      Value view;
      Value isHost;
      bool heap; // memref.alloc (freed at the end) rather than memref.alloca
    };
    SmallVector<HostView> hostViews;
    DenseSet<Operation *> keepOnHost; // the host views' buffers
    DenseMap<Value, Value> hostViewOf; // device buffer of an argument -> its host view
    SmallVector<memref::LoadOp> hostLoads;
    fn.walk([&](memref::LoadOp load) {
      if (!load->getParentOfType<gpu::LaunchOp>() && argOfDevice.count(load.getMemref()))
        hostLoads.push_back(load);
    });
    for (memref::LoadOp load : hostLoads) {
      const ArgumentBuffer &a = argBuffers[argOfDevice.lookup(load.getMemref())];
      if (a.written)
        return load.emitError() << "decoda-gpu-device-buffers: host code reads argument #"
                                << a.arg.getArgNumber()
                                << ", which the kernels write (donated); only read-only "
                                   "arguments are read on the host";
      Value &view = hostViewOf[a.dev];
      if (!view) {
        Location loc = a.arg.getLoc();
        auto type = cast<MemRefType>(a.arg.getType());
        int64_t bytes = elementBytes(type.getElementType());
        bool heap = !type.hasStaticShape() || bytes == 0 ||
                    bytes * type.getNumElements() > kMaxStackBytes;
        b.setInsertionPointAfter(a.dev.getDefiningOp());
        Value host;
        scf::IfOp copy = ifElse(b, loc, type, a.isHost, [&](OpBuilder &) { return Value(a.arg); },
                                [&](OpBuilder &eb) {
          host = heap ? memref::AllocOp::create(eb, loc, type, dynamicSizes(eb, loc, a.arg))
                            .getResult()
                      : memref::AllocaOp::create(eb, loc, type).getResult();
          SyncGPU{eb, loc}.memcpy(host, a.arg);
          return host;
        });
        view = copy.getResult(0);
        hostViews.push_back({view, a.isHost, heap});
        keepOnHost.insert(host.getDefiningOp());
      }
      load.getMemrefMutable().assign(view);
    }
    DenseSet<Value> hostReadable(llvm::from_range,
                                 llvm::map_range(hostViews, [](const HostView &v) { return v.view; }));

    SmallVector<Operation *> hostOps;
    DenseSet<Value> temporaries; // device buffers of host temporaries
    fn.walk([&](Operation *op) {
      if (op->getParentOfType<gpu::LaunchOp>())
        return;
      if (isa<memref::GetGlobalOp, memref::AllocOp, memref::AllocaOp, memref::DeallocOp>(op) &&
          !keepOnHost.contains(op))
        hostOps.push_back(op);
    });
    SymbolTableCollection symbols;
    for (Operation *op : hostOps) {
      b.setInsertionPointAfter(op);
      if (auto global = dyn_cast<memref::GetGlobalOp>(op)) {
        if (failed(checkLayout(op, global.getType(), "constant")))
          return failure();
        auto def = symbols.lookupNearestSymbolFrom<memref::GlobalOp>(op, global.getNameAttr());
        Operation *next = op->getNextNode();
        Value dev;
        if (def && def.getConstant()) {
          // Weights: the model's resident device copy (docs/ABI.md, "GPU models").
          FailureOr<Value> resident = deviceConstant(b, global);
          if (failed(resident))
            return failure();
          dev = *resident;
        } else {
          dev = toDevice(b, op->getLoc(), global.getResult()); // mutable: per call
        }
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
      temporaries.insert(dev);
    }

    // Host code may read scalars of a temporary the kernels computed (GroupQueryAttention's row
    // checks when the model computes seqlens_k): the reads use a host copy of the buffer made
    // right before the outermost op of the buffer's block that holds them, so after the
    // kernels before that op (the copy waits for them: one synchronisation), freed at the end of
    // that block. Kernels inside that op writing the buffer would run after the copy: refused.
    SmallVector<memref::LoadOp> tempLoads;
    fn.walk([&](memref::LoadOp load) {
      if (!load->getParentOfType<gpu::LaunchOp>() && temporaries.contains(load.getMemref()))
        tempLoads.push_back(load);
    });
    DenseMap<std::pair<Value, Operation *>, Value> tempViews;
    for (memref::LoadOp load : tempLoads) {
      Value dev = load.getMemref();
      Block *block = dev.getParentBlock();
      Operation *anchor = block->findAncestorOpInBlock(*load);
      if (!anchor)
        return load.emitError() << "decoda-gpu-device-buffers: host code reads a device buffer "
                                   "outside the block that allocates it";
      if (anchor != load.getOperation()) {
        // A kernel's operand that is `dev` or a view of it.
        auto viewsDev = [&](Value v) {
          while (v != dev) {
            auto view = v.getDefiningOp<ViewLikeOpInterface>();
            if (!view)
              return false;
            v = view.getViewSource();
          }
          return true;
        };
        WalkResult inner = anchor->walk([&](gpu::LaunchOp launch) {
          bool uses = false;
          launch.walk([&](Operation *op) { uses |= llvm::any_of(op->getOperands(), viewsDev); });
          return uses ? WalkResult::interrupt() : WalkResult::advance();
        });
        if (inner.wasInterrupted())
          return load.emitError() << "decoda-gpu-device-buffers: host code reads a device "
                                     "buffer that kernels of the same loop or branch write";
      }
      Value &view = tempViews[{dev, anchor}];
      if (!view) {
        Location loc = load.getLoc();
        auto type = cast<MemRefType>(dev.getType());
        int64_t bytes = elementBytes(type.getElementType());
        bool heap = !type.hasStaticShape() || bytes == 0 ||
                    bytes * type.getNumElements() > kMaxStackBytes;
        b.setInsertionPoint(anchor);
        view = heap ? memref::AllocOp::create(b, loc, type, dynamicSizes(b, loc, dev)).getResult()
                    : memref::AllocaOp::create(b, loc, type).getResult();
        SyncGPU{b, loc}.memcpy(view, dev);
        if (heap) {
          b.setInsertionPoint(block->getTerminator());
          memref::DeallocOp::create(b, loc, view);
        }
        hostReadable.insert(view);
        ++numHostReads;
      }
      load.getMemrefMutable().assign(view);
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
        ++numResults;
      }
    }

    // Arguments in host memory: a written (donated) one is copied back into the caller's
    // buffer, then the device copy is freed; a read-only one's device copy is freed after its
    // last use (lastUseInBlock), or at the end; host copies of device arguments are freed.
    SmallVector<const ArgumentBuffer *> freedEarly;
    for (ArgumentBuffer &a : argBuffers) {
      Operation *last = a.written || returns.size() != 1 || a.dev.getParentBlock() != &entry
                            ? nullptr
                            : lastUseInBlock(a.dev, &entry);
      if (!last)
        continue;
      b.setInsertionPointAfter(last);
      scf::IfOp::create(b, a.dev.getLoc(), a.isHost, [&](OpBuilder &tb, Location l) {
        SyncGPU{tb, l}.dealloc(a.dev);
        scf::YieldOp::create(tb, l);
      });
      freedEarly.push_back(&a);
      ++numEarlyFrees;
    }
    for (func::ReturnOp ret : returns) {
      b.setInsertionPoint(ret);
      Location loc = ret.getLoc();
      for (const ArgumentBuffer &a : argBuffers) {
        if (llvm::is_contained(freedEarly, &a))
          continue;
        scf::IfOp::create(b, loc, a.isHost, [&](OpBuilder &tb, Location l) {
          SyncGPU gpu{tb, l};
          if (a.written)
            gpu.memcpy(a.arg, a.dev);
          gpu.dealloc(a.dev);
          scf::YieldOp::create(tb, l);
        });
      }
      for (const HostView &v : hostViews) {
        if (!v.heap)
          continue;
        Value isDevice = arith::XOrIOp::create(
            b, loc, v.isHost, arith::ConstantIntOp::create(b, loc, 1, 1).getResult());
        scf::IfOp::create(b, loc, isDevice, [&](OpBuilder &tb, Location l) {
          memref::DeallocOp::create(tb, l, v.view);
          scf::YieldOp::create(tb, l);
        });
      }
    }

    // Frees: each buffer right after the last op of its block that reads it (lastUseInBlock:
    // in stream order, so after the kernels before it; the memory goes back to the pool for
    // the kernels after it), else (it leaves the block) a buffer of the entry block before
    // every return, one made inside a loop or branch at the end of its block. So a call holds
    // the temporaries live at once, not all it makes: a whole model's layers reuse one
    // layer's memory. A buffer that leaves its block is freed where it is dropped:
    // an scf.if result that every branch yields as a buffer of its own (a fresh device buffer
    // of that branch, as bufferization makes for a tensor each branch computes) is freed as a
    // buffer of the if's block; any other escape (a loop's result, a view yielded) is refused.
    DenseSet<Value> fresh(llvm::from_range, deviceBuffers);
    SmallVector<Value> toFree(deviceBuffers);
    DenseSet<Value> freed;
    for (size_t i = 0; i < toFree.size(); ++i) {
      Value dev = toFree[i];
      Block *block = dev.getParentBlock();
      if (Operation *last = lastUseInBlock(dev, block)) {
        b.setInsertionPointAfter(last);
        SyncGPU{b, dev.getLoc()}.dealloc(dev);
        ++numEarlyFrees;
        continue;
      }
      if (block == &entry) {
        for (func::ReturnOp ret : returns) {
          b.setInsertionPoint(ret);
          SyncGPU{b, ret.getLoc()}.dealloc(dev);
        }
        continue;
      }
      if (escapesBlock(dev)) {
        FailureOr<Value> owner = branchResultOwning(dev, fresh);
        if (failed(owner))
          return (dev.getDefiningOp() ? dev.getDefiningOp() : dev.getParentBlock()->getParentOp())
                     ->emitError()
                 << "decoda-gpu-device-buffers: a buffer allocated inside a loop or branch "
                    "leaves it other than as an scf.if result that every branch allocates; "
                    "the GPU pipeline cannot free it";
        if (freed.insert(*owner).second) {
          toFree.push_back(*owner);
          ++numBranchResults;
        }
        continue;
      }
      b.setInsertionPoint(block->getTerminator());
      SyncGPU{b, dev.getLoc()}.dealloc(dev);
    }

    // The call returns when its work is done: a call whose results all stay in device memory
    // (donated caches) has copied nothing back that would have waited.
    for (func::ReturnOp ret : returns) {
      b.setInsertionPoint(ret);
      LLVM::CallOp::create(b, ret.getLoc(), finishFn, ValueRange{});
    }

    // What is left on the host must not touch memory: everything else is a kernel's job.
    WalkResult walk = fn.walk([&](Operation *op) {
      if (isa<gpu::GPUDialect>(op->getDialect()) || op->getParentOfType<gpu::LaunchOp>())
        return WalkResult::skip();
      if (auto load = dyn_cast<memref::LoadOp>(op))
        if (hostReadable.contains(load.getMemref()))
          return WalkResult::advance(); // a scalar of an argument, in host memory
      if (isa<memref::AllocOp, memref::AllocaOp, memref::DeallocOp>(op))
        return WalkResult::advance(); // host buffers: results and host views of arguments
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
    constantSlots.clear();
    for (auto fn : llvm::to_vector(module.getOps<func::FuncOp>()))
      if (!fn.isExternal() && failed(runOnFunction(fn)))
        return signalPassFailure();
  }
};
} // namespace
