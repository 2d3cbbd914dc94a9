//===- JitRun.cpp - run a decoda program on host tensors through the JIT --===//

#include "decoda/Driver/JitRun.h"

#include "decoda/Pipelines/Pipelines.h"
#include "decoda/Target/CPU/CPUTarget.h"
#include "decoda/Target/CPU/CallMemory.h"
#include "decoda/Transforms/Donation.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"

#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ExecutionEngine/Orc/Mangling.h"
#include "llvm/ExecutionEngine/Orc/Shared/ExecutorSymbolDef.h"
#include "llvm/Support/TargetSelect.h"

#include <csetjmp>
#include <cstdlib>
#include <cstring>

using namespace mlir;
using namespace mlir::decoda;
using namespace mlir::decoda::jit;

//===----------------------------------------------------------------------===//
// Failed run-time checks
//===----------------------------------------------------------------------===//

namespace {
// A model's cf.asserts call decoda_check_failed (docs/ABI.md), which must not return. Under the
// JIT it leaves the call with longjmp, as the runtime does: only JIT-compiled C-like frames lie
// between. The program's allocations go through the call-memory hooks (CallMemory.c), so the
// blocks the call holds are freed before the jump, as in a compiled model.
thread_local std::jmp_buf *checkJump = nullptr;
thread_local std::string checkMessage;

extern "C" void decodaJitCheckFailed(const char *message) {
  checkMessage = message ? message : "";
  decoda_call_unwind();
  if (checkJump)
    std::longjmp(*checkJump, 1);
  std::abort();
}

/// Calls a packed entry; false when a run-time check failed (message in checkMessage).
bool callGuarded(void (*fn)(void **), void **args) {
  std::jmp_buf buffer;
  decoda_call call;
  checkJump = &buffer;
  decoda_call_begin(&call);
  if (setjmp(buffer)) {
    checkJump = nullptr; // decoda_call_unwind has released and left the call
    return false;
  }
  fn(args);
  decoda_call_end(&call);
  checkJump = nullptr;
  return true;
}
} // namespace

//===----------------------------------------------------------------------===//
// Values and descriptors
//===----------------------------------------------------------------------===//

namespace {
int64_t storageBytes(Type t) { return t.isInteger(1) ? 1 : (t.getIntOrFloatBitWidth() + 7) / 8; }

double readElement(Type t, const uint8_t *p) {
  if (t.isF32()) {
    float v;
    std::memcpy(&v, p, 4);
    return v;
  }
  if (t.isF64()) {
    double v;
    std::memcpy(&v, p, 8);
    return v;
  }
  if (auto ft = dyn_cast<FloatType>(t)) {
    uint64_t bits = 0;
    std::memcpy(&bits, p, storageBytes(t));
    llvm::APFloat f(ft.getFloatSemantics(), llvm::APInt(ft.getWidth(), bits));
    bool lost;
    f.convert(llvm::APFloat::IEEEdouble(), llvm::APFloat::rmNearestTiesToEven, &lost);
    return f.convertToDouble();
  }
  if (t.isInteger(1))
    return *p & 1;
  int64_t v = 0;
  switch (storageBytes(t)) {
  case 1: v = *reinterpret_cast<const int8_t *>(p); break;
  case 2: v = *reinterpret_cast<const int16_t *>(p); break;
  case 4: v = *reinterpret_cast<const int32_t *>(p); break;
  default: v = *reinterpret_cast<const int64_t *>(p); break;
  }
  return double(v);
}

void writeElement(Type t, uint8_t *p, double value) {
  if (t.isF32()) {
    float v = float(value);
    std::memcpy(p, &v, 4);
  } else if (t.isF64()) {
    std::memcpy(p, &value, 8);
  } else if (auto ft = dyn_cast<FloatType>(t)) {
    llvm::APFloat f(value);
    bool lost;
    f.convert(ft.getFloatSemantics(), llvm::APFloat::rmNearestTiesToEven, &lost);
    uint64_t bits = f.bitcastToAPInt().getZExtValue();
    std::memcpy(p, &bits, storageBytes(t));
  } else {
    int64_t v = int64_t(value);
    std::memcpy(p, &v, storageBytes(t)); // little-endian: the low bytes
  }
}

struct FreeDeleter {
  void operator()(void *p) const { std::free(p); }
};

/// A contiguous input tensor and its memref descriptor.
struct Input {
  std::unique_ptr<uint8_t, FreeDeleter> data;
  std::vector<int64_t> descriptor; // allocated, aligned, offset, sizes, strides
};

/// A contiguous copy of `t` in its storage type, with its memref descriptor.
Input makeInput(const HostTensor &t) {
  Type et = t.elementType;
  int64_t bytes = storageBytes(et);
  int64_t n = int64_t(t.values.size());
  Input in;
  size_t size = std::max<size_t>(64, llvm::alignTo(n * bytes, 64));
  in.data.reset(static_cast<uint8_t *>(std::aligned_alloc(64, size)));
  std::memset(in.data.get(), 0, size);
  for (int64_t i = 0; i < n; ++i)
    writeElement(et, in.data.get() + i * bytes, t.values[i]);
  auto ptr = reinterpret_cast<int64_t>(in.data.get());
  in.descriptor = {ptr, ptr, 0};
  in.descriptor.insert(in.descriptor.end(), t.shape.begin(), t.shape.end());
  SmallVector<int64_t> strides(t.shape.size(), 1);
  for (int64_t i = int64_t(t.shape.size()) - 2; i >= 0; --i)
    strides[i] = strides[i + 1] * t.shape[i + 1];
  in.descriptor.insert(in.descriptor.end(), strides.begin(), strides.end());
  return in;
}

/// Reads a result descriptor at `desc` (strided) into a Tensor.
HostTensor readResult(RankedTensorType type, const int64_t *desc) {
  int64_t rank = type.getRank();
  auto *aligned = reinterpret_cast<const uint8_t *>(desc[1]);
  int64_t offset = desc[2];
  HostTensor t;
  t.elementType = type.getElementType();
  t.shape.assign(desc + 3, desc + 3 + rank);
  const int64_t *strides = desc + 3 + rank;
  int64_t n = 1;
  for (int64_t d : t.shape)
    n *= d;
  Type et = type.getElementType();
  int64_t bytes = storageBytes(et);
  t.values.resize(n);
  SmallVector<int64_t> index(rank, 0);
  for (int64_t i = 0; i < n; ++i) {
    int64_t linear = offset;
    for (int64_t k = 0; k < rank; ++k)
      linear += index[k] * strides[k];
    t.values[i] = readElement(et, aligned + linear * bytes);
    for (int64_t k = rank - 1; k >= 0; --k) {
      if (++index[k] < t.shape[k])
        break;
      index[k] = 0;
    }
  }
  return t;
}

} // namespace

//===----------------------------------------------------------------------===//
// Lowering, JIT compilation and calls
//===----------------------------------------------------------------------===//

FailureOr<std::unique_ptr<JitProgram>> JitProgram::create(ModuleOp module, StringRef prefix,
                                                           StringRef what) {
  MLIRContext *ctx = module->getContext();
  Location loc = module.getLoc();
  PassManager pm(ctx);
  CPULoweringPipelineOptions lowering;
  lowering.optimize = false; // plain loops: no OpenMP runtime in the compiler process
  lowering.donateInputs = false; // every result returned, every input left as it was
  // Without donation the donated-argument marks mean nothing, and LLVM IR translation would
  // warn about them on every entry point ("Unhandled parameter attribute").
  module.walk([](func::FuncOp fn) {
    for (unsigned i = 0; i < fn.getNumArguments(); ++i)
      fn.removeArgAttr(i, kDonateAttrName);
  });
  buildCPULoweringPassPipeline(pm, lowering);
  if (failed(pm.run(module)))
    return emitError(loc) << prefix << ": cannot lower the program " << what << " for the JIT";

  DialectRegistry registry;
  registerBuiltinDialectTranslation(registry);
  registerLLVMDialectTranslation(registry);
  ctx->appendDialectRegistry(registry);
  static bool nativeTarget = [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
    return true;
  }();
  (void)nativeTarget;
  auto optimize = makeOptimizingTransformer(/*optLevel=*/2, /*sizeLevel=*/0,
                                            /*targetMachine=*/nullptr);
  // As decoda-compile does: optimise, then route allocations through the call-memory hooks.
  auto transformer = [optimize, loc](llvm::Module *m) -> llvm::Error {
    if (llvm::Error err = optimize(m))
      return err;
    if (failed(routeAllocationsThroughHooks(*m, loc)))
      return llvm::createStringError("cannot route the program's allocations through the "
                                     "call-memory hooks");
    return llvm::Error::success();
  };
  if (decoda_call_frame_size() != sizeof(decoda_call))
    llvm::report_fatal_error("CallMemory.h's decoda_call does not match CallMemory.c's");
  ExecutionEngineOptions engineOptions;
  engineOptions.transformer = transformer;
  engineOptions.enableGDBNotificationListener = false;
  engineOptions.enablePerfNotificationListener = false;
  auto engineOr = ExecutionEngine::create(module, engineOptions);
  if (!engineOr)
    return emitError(loc) << prefix << ": cannot JIT-compile the program " << what << ": "
                          << llvm::toString(engineOr.takeError());
  auto program = std::make_unique<JitProgram>();
  program->engine = std::move(*engineOr);
  program->prefix = prefix.str();
  program->engine->registerSymbols([](llvm::orc::MangleAndInterner interner) {
    llvm::orc::SymbolMap map;
    map[interner("decoda_check_failed")] = {
        llvm::orc::ExecutorAddr::fromPtr(&decodaJitCheckFailed),
        llvm::JITSymbolFlags::Exported};
    auto add = [&](const char *name, auto *fn) {
      map[interner(name)] = {llvm::orc::ExecutorAddr::fromPtr(fn),
                             llvm::JITSymbolFlags::Exported};
    };
    add("decoda_mem_malloc", &decoda_mem_malloc);
    add("decoda_mem_calloc", &decoda_mem_calloc);
    add("decoda_mem_aligned_alloc", &decoda_mem_aligned_alloc);
    add("decoda_mem_realloc", &decoda_mem_realloc);
    add("decoda_mem_free", &decoda_mem_free);
    return map;
  });
  program->engine->initialize();
  return program;
}

FailureOr<std::vector<HostTensor>> JitProgram::call(StringRef name, ArrayRef<HostTensor> inputs,
                                                    ArrayRef<RankedTensorType> resultTypes,
                                                    std::string &checkFailure, Location loc) {
  auto packed = engine->lookupPacked(("_mlir_ciface_" + name).str());
  if (!packed)
    return emitError(loc) << prefix << ": no C interface for @" << name << ": "
                          << llvm::toString(packed.takeError());
  std::vector<Input> ins;
  for (const HostTensor &t : inputs)
    ins.push_back(makeInput(t));
  // The C interface takes the results' descriptors first (one after the other), then the
  // inputs' descriptors (docs/ABI.md).
  size_t resultWords = 0;
  for (RankedTensorType t : resultTypes)
    resultWords += 3 + 2 * t.getRank();
  std::vector<int64_t> resultBuffer(std::max<size_t>(resultWords, 1), 0);
  std::vector<void *> argValues;
  if (!resultTypes.empty())
    argValues.push_back(resultBuffer.data());
  for (Input &in : ins)
    argValues.push_back(in.descriptor.data());
  std::vector<void *> args;
  for (void *&v : argValues)
    args.push_back(&v);
  if (!callGuarded(*packed, args.data())) {
    checkFailure = checkMessage;
    return failure();
  }
  std::vector<HostTensor> results;
  const int64_t *desc = resultBuffer.data();
  llvm::SmallPtrSet<void *, 8> released;
  for (Input &in : ins)
    released.insert(in.data.get());
  released.insert(reinterpret_cast<void *>(uintptr_t(0xdeadbeef))); // constant outputs
  // Every result is read before any buffer is freed: results may share one allocation (ASan:
  // heap-use-after-free in --verify-numerics on examples/llama_block.mlir, docs/Reliability.md).
  SmallVector<void *> allocations;
  for (RankedTensorType t : resultTypes) {
    results.push_back(readResult(t, desc));
    allocations.push_back(reinterpret_cast<void *>(desc[0]));
    desc += 3 + 2 * t.getRank();
  }
  for (void *allocated : allocations)
    if (released.insert(allocated).second)
      std::free(allocated);
  return results;
}
