//===- CPUTarget.cpp - from the LLVM dialect to a loadable model ----------===//

#include "decoda/Target/CPU/CPUTarget.h"
#include "decoda/Target/CPU/CallMemory.h"

#include "decoda/Transforms/Donation.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/OpenMP/OpenMPToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Export.h"

#include "llvm/IR/LegacyPassManager.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Target/TargetOptions.h"
#include "llvm/TargetParser/Host.h"

using namespace mlir;
using namespace mlir::decoda;

/// The text of CallMemory.c (EmbedSource.cmake).
static const char kCallMemorySource[] =
#include "CallMemory.c.inc"
    ;

//===----------------------------------------------------------------------===//
// Signature
//===----------------------------------------------------------------------===//

namespace {
std::optional<std::string> dtypeName(Type t) {
  if (t.isF32())
    return "f32";
  if (t.isF16())
    return "f16";
  if (t.isBF16())
    return "bf16";
  if (t.isF64())
    return "f64";
  if (t.isInteger(8))
    return "i8";
  if (t.isInteger(32))
    return "i32";
  if (t.isInteger(64))
    return "i64";
  if (t.isInteger(1))
    return "i1";
  return std::nullopt;
}

FailureOr<TensorSignature> tensorSignature(func::FuncOp fn, Type type, StringRef what,
                                           unsigned index, DictionaryAttr attrs) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor)
    return fn.emitError() << "entry point '" << fn.getSymName() << "': " << what << " " << index
                          << " has type " << type << "; entry points take and return ranked "
                          << "tensors";
  std::optional<std::string> dtype = dtypeName(tensor.getElementType());
  if (!dtype)
    return fn.emitError() << "entry point '" << fn.getSymName() << "': " << what << " " << index
                          << " has element type " << tensor.getElementType()
                          << "; supported: f32 f16 bf16 f64 i8 i32 i64 i1";
  if (tensor.getRank() > 8)
    return fn.emitError() << "entry point '" << fn.getSymName() << "': " << what << " " << index
                          << " has rank " << tensor.getRank() << "; at most 8 is supported";
  TensorSignature sig;
  sig.dtype = *dtype;
  for (int64_t d : tensor.getShape())
    sig.shape.push_back(ShapedType::isDynamic(d) ? -1 : d);
  StringAttr name = attrs ? attrs.getAs<StringAttr>("decoda.name") : StringAttr();
  sig.name = name ? name.str() : (what == "argument" ? "arg" : "out") + std::to_string(index);
  for (char c : sig.name)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '-'))
      return fn.emitError() << "entry point '" << fn.getSymName() << "': " << what << " name '"
                            << sig.name << "' may only use letters, digits, '_', '.' and '-'";
  return sig;
}
} // namespace

FailureOr<std::vector<EntrySignature>> mlir::decoda::extractSignature(ModuleOp module) {
  std::vector<EntrySignature> entries;
  for (auto fn : module.getOps<func::FuncOp>()) {
    if (!fn.isPublic() || fn.isExternal())
      continue;
    EntrySignature entry;
    entry.name = fn.getSymName().str();
    for (char c : entry.name)
      if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_'))
        return fn.emitError() << "entry point name '" << entry.name
                              << "' must be a C identifier (letters, digits, '_')";
    // The model's own symbols: an entry named like them would replace them inside the model
    // (-Bsymbolic binds the model's calls to its own definitions).
    if (StringRef(entry.name).starts_with("decoda_"))
      return fn.emitError() << "entry point name '" << entry.name
                            << "': names starting with 'decoda_' are reserved for the model's "
                               "support code (docs/ABI.md); rename the function";
    for (const AllocationHook &h : kAllocationHooks)
      if (entry.name == h.libc)
        return fn.emitError() << "entry point name '" << entry.name
                              << "' is the C library's allocation function, which the model "
                                 "calls itself; rename the function";
    FunctionType type = fn.getFunctionType();
    for (unsigned i = 0; i < type.getNumInputs(); ++i) {
      FailureOr<TensorSignature> s =
          tensorSignature(fn, type.getInput(i), "argument", i, fn.getArgAttrDict(i));
      if (failed(s))
        return failure();
      entry.inputs.push_back(*s);
    }
    for (unsigned i = 0; i < type.getNumResults(); ++i) {
      FailureOr<TensorSignature> s =
          tensorSignature(fn, type.getResult(i), "result", i, fn.getResultAttrDict(i));
      if (failed(s))
        return failure();
      entry.outputs.push_back(*s);
    }
    SmallVector<int64_t> donateTo;
    if (failed(verifyDonations(fn, donateTo)))
      return failure();
    for (auto [i, n] : llvm::enumerate(donateTo))
      entry.inputs[i].donateTo = n;
    entries.push_back(std::move(entry));
  }
  if (entries.empty())
    return module.emitError() << "the module has no public func.func to compile as an entry "
                                 "point";
  return entries;
}

LogicalResult mlir::decoda::refreshSignatureTypes(ModuleOp module,
                                                  std::vector<EntrySignature> &entries) {
  for (EntrySignature &entry : entries) {
    auto fn = module.lookupSymbol<func::FuncOp>(entry.name);
    if (!fn)
      return module.emitError() << "entry point '" << entry.name << "' disappeared";
    FunctionType type = fn.getFunctionType();
    if (type.getNumInputs() != entry.inputs.size() ||
        type.getNumResults() != entry.outputs.size())
      return fn.emitError() << "entry point '" << entry.name << "' changed its arity";
    auto refresh = [&](TensorSignature &sig, Type t, StringRef what,
                       unsigned index) -> LogicalResult {
      FailureOr<TensorSignature> now = tensorSignature(fn, t, what, index, DictionaryAttr());
      if (failed(now))
        return failure();
      sig.dtype = now->dtype;
      return success();
    };
    for (unsigned i = 0; i < type.getNumInputs(); ++i)
      if (failed(refresh(entry.inputs[i], type.getInput(i), "argument", i)))
        return failure();
    for (unsigned i = 0; i < type.getNumResults(); ++i)
      if (failed(refresh(entry.outputs[i], type.getResult(i), "result", i)))
        return failure();
  }
  return success();
}

void mlir::decoda::stripSignatureAttributes(ModuleOp module) {
  for (auto fn : module.getOps<func::FuncOp>()) {
    for (unsigned i = 0; i < fn.getNumArguments(); ++i) {
      fn.removeArgAttr(i, "decoda.name");
      fn.removeArgAttr(i, "decoda.dims"); // dim names (--static-dims)
    }
    for (unsigned i = 0; i < fn.getNumResults(); ++i)
      fn.removeResultAttr(i, StringAttr::get(module.getContext(), "decoda.name"));
  }
}

size_t EntrySignature::numReturnedOutputs() const {
  size_t n = outputs.size();
  for (const TensorSignature &t : inputs)
    if (t.donateTo >= 0)
      --n;
  return n;
}

int mlir::decoda::signatureVersion(const std::vector<EntrySignature> &entries) {
  for (const EntrySignature &e : entries)
    if (e.hasDonations())
      return 2;
  return 1;
}

std::string mlir::decoda::formatSignature(const std::vector<EntrySignature> &entries) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "decoda-signature " << signatureVersion(entries) << "\n";
  auto tensor = [&](StringRef kind, const TensorSignature &t) {
    os << kind << " " << t.name << " " << t.dtype << " " << t.shape.size();
    for (int64_t d : t.shape)
      os << " " << d;
    os << "\n";
  };
  for (const EntrySignature &e : entries) {
    os << "entry " << e.name << "\n";
    for (const TensorSignature &t : e.inputs)
      tensor("input", t);
    for (const TensorSignature &t : e.outputs)
      tensor("output", t);
    for (const TensorSignature &t : e.inputs)
      if (t.donateTo >= 0)
        os << "donate " << t.name << " " << e.outputs[t.donateTo].name << "\n";
    os << "end\n";
  }
  return text;
}

void mlir::decoda::writeSupportSource(const std::vector<EntrySignature> &entries,
                                      llvm::raw_ostream &os, const WeightsFile *weights) {
  os << "/* Generated by decoda-compile: the ABI of docs/ABI.md. */\n"
        "#include <stdint.h>\n#include <stdio.h>\n#include <stdlib.h>\n\n"
        "#define EXPORT __attribute__((visibility(\"default\")))\n\n"
        "EXPORT const int32_t decoda_abi_version = "
     << signatureVersion(entries)
     << ";\n"
        "EXPORT void (*decoda_fail_handler)(const char *) = 0;\n\n"
        "/* ---- CallMemory.c: the memory of one call (docs/ABI.md) ---- */\n"
     << kCallMemorySource
     << "/* ---- end of CallMemory.c ---- */\n\n"
        "/* Called by failed run-time checks (cf.assert in the IR): the call's memory is freed,\n"
        "   then the handler leaves the call. */\n"
        "void decoda_check_failed(const char *message) {\n"
        "  decoda_call_unwind();\n"
        "  if (decoda_fail_handler)\n"
        "    decoda_fail_handler(message); /* does not return */\n"
        "  fprintf(stderr, \"decoda: run-time check failed: %s\\n\", message);\n"
        "  abort();\n"
        "}\n\n"
        "EXPORT const char decoda_signature[] =\n";
  std::string sig = formatSignature(entries);
  for (StringRef line : llvm::split(StringRef(sig).rtrim('\n'), '\n'))
    os << "  \"" << line << "\\n\"\n";
  os << "  ;\n\n";
  if (weights && weights->count > 0) {
    // Weights in <model>.weights (docs/ABI.md): the runtime maps the file and fills the table.
    os << "EXPORT void *decoda_weight_table[" << weights->count << "];\n"
       << "EXPORT const uint64_t decoda_weights_info[4] = {" << kWeightsVersion << "ull, "
       << weights->count << "ull, " << weights->fileSize << "ull, " << weights->hash
       << "ull};\n"
       << "EXPORT const uint64_t decoda_weight_offsets[" << weights->count << "] = {";
    for (auto [i, o] : llvm::enumerate(weights->offsets))
      os << (i ? ", " : "") << o << "ull";
    os << "};\n\n";
  }
  for (const EntrySignature &e : entries) {
    size_t nIn = e.inputs.size();
    // Outputs written into donated inputs are not returned (docs/ABI.md).
    bool hasOut = e.numReturnedOutputs() > 0;
    os << "extern void _mlir_ciface_" << e.name << "(";
    size_t nArgs = nIn + (hasOut ? 1 : 0);
    for (size_t i = 0; i < nArgs; ++i)
      os << (i ? ", " : "") << "void *";
    if (nArgs == 0)
      os << "void";
    os << ");\n";
    // The call's allocations are tracked while it runs (CallMemory.c).
    os << "EXPORT void decoda_entry_" << e.name
       << "(void **args) {\n  struct decoda_call call;\n  decoda_call_begin(&call);\n"
       << "  _mlir_ciface_" << e.name << "(";
    // The C interface takes the result buffer first, then the inputs.
    bool first = true;
    if (hasOut) {
      os << "args[" << nIn << "]";
      first = false;
    }
    for (size_t i = 0; i < nIn; ++i) {
      os << (first ? "" : ", ") << "args[" << i << "]";
      first = false;
    }
    os << ");\n  decoda_call_end(&call);\n}\n\n";
  }
}

void mlir::decoda::writeHeader(const std::vector<EntrySignature> &entries,
                               llvm::raw_ostream &os) {
  os << "/* Generated by decoda-compile. Load this model with the Decoda runtime\n"
        "   (include/decoda-c/runtime.h) or call the entry points directly as in docs/ABI.md. */\n"
        "#ifndef DECODA_MODEL_H\n#define DECODA_MODEL_H\n#include <stdint.h>\n"
        "#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n"
        "extern const int32_t decoda_abi_version;\nextern const char decoda_signature[];\n"
        "extern void (*decoda_fail_handler)(const char *);\n\n";
  for (const EntrySignature &e : entries) {
    os << "/* entry " << e.name << "\n";
    auto line = [&](StringRef kind, size_t i, const TensorSignature &t) {
      os << " *   " << kind << " " << i << ": " << t.name << " " << t.dtype << "[";
      for (size_t k = 0; k < t.shape.size(); ++k)
        os << (k ? "x" : "") << (t.shape[k] < 0 ? std::string("?") : std::to_string(t.shape[k]));
      os << "]\n";
    };
    for (size_t i = 0; i < e.inputs.size(); ++i)
      line("input ", i, e.inputs[i]);
    for (size_t i = 0; i < e.outputs.size(); ++i)
      line("output", i, e.outputs[i]);
    for (size_t i = 0; i < e.inputs.size(); ++i)
      if (e.inputs[i].donateTo >= 0)
        os << " *   donated: input " << i << " (" << e.inputs[i].name << ") is overwritten with "
           << "output " << e.inputs[i].donateTo << ", which is not returned\n";
    os << " * args: the input descriptors, then the output descriptor buffer (returned outputs "
          "only). */\n"
       << "void decoda_entry_" << e.name << "(void **args);\n\n";
  }
  os << "#ifdef __cplusplus\n}\n#endif\n#endif\n";
}

//===----------------------------------------------------------------------===//
// LLVM IR, object, shared library
//===----------------------------------------------------------------------===//

namespace {
const llvm::Target *hostTarget(llvm::Triple &triple, Location loc) {
  static bool initialized = [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
    return true;
  }();
  (void)initialized;
  triple = llvm::Triple(llvm::sys::getProcessTriple());
  std::string error;
  const llvm::Target *target = llvm::TargetRegistry::lookupTarget(triple, error);
  if (!target)
    emitError(loc) << "no LLVM target for " << triple.str() << ": " << error;
  return target;
}
} // namespace

FailureOr<ResolvedCPUTarget> mlir::decoda::resolveCPUTarget(const CPUTargetOptions &options,
                                                            Location loc) {
  llvm::Triple triple;
  const llvm::Target *target = hostTarget(triple, loc);
  if (!target)
    return failure();
  ResolvedCPUTarget r;
  bool host = options.cpu == "host";
  r.cpu = host ? llvm::sys::getHostCPUName().str() : options.cpu;
  if (host) {
    llvm::StringMap<bool> hostFeatures = llvm::sys::getHostCPUFeatures();
    for (auto &f : hostFeatures)
      r.features += (r.features.empty() ? "" : ",") + std::string(f.second ? "+" : "-") +
                    f.first().str();
  }
  // The tables of the CPU-independent subtarget: the valid CPU and feature names.
  std::unique_ptr<llvm::MCSubtargetInfo> generic(
      target->createMCSubtargetInfo(triple, "", ""));
  if (!generic)
    return emitError(loc) << "no LLVM subtarget information for " << triple.str();
  if (!generic->isCPUStringValid(r.cpu)) {
    if (host)
      return emitError(loc) << "--target-cpu=host: LLVM does not know this machine's CPU '"
                            << r.cpu << "'; name one with --target-cpu";
    return emitError(loc) << "--target-cpu=" << options.cpu << ": not a CPU LLVM knows for "
                          << triple.getArchName()
                          << " (e.g. host, x86-64, x86-64-v3, x86-64-v4, haswell, "
                             "skylake-avx512, cascadelake, icelake-server, sapphirerapids, "
                             "znver4)";
  }
  if (!options.features.empty()) {
    ArrayRef<llvm::SubtargetFeatureKV> known = generic->getAllProcessorFeatures();
    for (StringRef item : llvm::split(options.features, ',')) {
      StringRef f = item.trim();
      if (f.size() < 2 || (f.front() != '+' && f.front() != '-'))
        return emitError(loc) << "--target-features=" << options.features << ": '" << item
                              << "' is not +FEATURE or -FEATURE";
      StringRef name = f.drop_front();
      if (!llvm::any_of(known, [&](const llvm::SubtargetFeatureKV &kv) {
            return name == kv.Key;
          }))
        return emitError(loc) << "--target-features=" << options.features << ": '" << name
                              << "' is not a feature LLVM knows for " << triple.getArchName()
                              << " (e.g. avx2, avx512f, avx512bw, avx512vnni)";
      r.features += (r.features.empty() ? "" : ",") + f.str();
    }
  }
  std::unique_ptr<llvm::MCSubtargetInfo> sti(
      target->createMCSubtargetInfo(triple, r.cpu, r.features));
  if (!sti)
    return emitError(loc) << "no LLVM subtarget information for CPU '" << r.cpu << "'";
  if (triple.isArch64Bit() && !sti->checkFeatures("+64bit"))
    return emitError(loc) << "--target-cpu=" << options.cpu << ": '" << r.cpu
                          << "' is a 32-bit CPU; Decoda builds " << triple.getArchName()
                          << " code";
  r.avx512f = sti->checkFeatures("+avx512f");
  r.avx512bw = sti->checkFeatures("+avx512bw");
  r.avx512vnni = sti->checkFeatures("+avx512vnni");
  return r;
}

namespace {
FailureOr<std::unique_ptr<llvm::TargetMachine>>
createTargetMachine(const CPUTargetOptions &options, Location loc) {
  FailureOr<ResolvedCPUTarget> resolved = resolveCPUTarget(options, loc);
  if (failed(resolved))
    return failure();
  llvm::Triple triple;
  const llvm::Target *target = hostTarget(triple, loc);
  if (!target)
    return failure();
  llvm::TargetOptions targetOptions;
  std::unique_ptr<llvm::TargetMachine> tm(target->createTargetMachine(
      triple, resolved->cpu, resolved->features, targetOptions, llvm::Reloc::PIC_, std::nullopt,
      llvm::CodeGenOptLevel::Aggressive));
  if (!tm)
    return emitError(loc) << "cannot create an LLVM target machine for CPU '" << resolved->cpu
                          << "'";
  return tm;
}
} // namespace

LogicalResult mlir::decoda::routeAllocationsThroughHooks(llvm::Module &module, Location loc) {
  // Allocation functions the hooks do not cover: a model calling one would lose its blocks to
  // a failed check again, so refuse it rather than compile a leak.
  for (const char *name : {"posix_memalign", "memalign", "valloc", "pvalloc", "strdup",
                           "strndup", "_Znwm", "_Znam"})
    if (llvm::Function *f = module.getFunction(name); f && !f->use_empty())
      return emitError(loc) << "the model's LLVM IR calls '" << name
                            << "', which the call-memory hooks (CallMemory.c) do not cover";
  for (llvm::Function &f : module)
    if (!f.isDeclaration() &&
        (f.getName().starts_with("decoda_mem_") || f.getName().starts_with("decoda_call_")))
      return emitError(loc) << "the model defines a function '" << f.getName()
                            << "'; names starting with 'decoda_mem_' and 'decoda_call_' are "
                               "reserved for the call-memory hooks (CallMemory.c)";
  for (const AllocationHook &h : kAllocationHooks) {
    llvm::Function *f = module.getFunction(h.libc);
    if (!f)
      continue;
    if (!f->isDeclaration())
      return emitError(loc) << "the model defines a function '" << h.libc
                            << "'; it would be taken for the C library's (rename it)";
    if (module.getNamedValue(h.hook))
      return emitError(loc) << "the model already has a symbol '" << h.hook
                            << "' (reserved for the call-memory hooks)";
    f->setName(h.hook); // keeps its attributes (noalias result, allocsize, ...) and every use
  }
  return success();
}

FailureOr<std::unique_ptr<llvm::Module>>
mlir::decoda::translateToOptimizedLLVMIR(ModuleOp module, llvm::LLVMContext &context,
                                         const CPUTargetOptions &options) {
  DialectRegistry registry;
  registerBuiltinDialectTranslation(registry);
  registerLLVMDialectTranslation(registry);
  registerOpenMPDialectTranslation(registry); // parallel loops of the optimised CPU pipeline
  module.getContext()->appendDialectRegistry(registry);

  std::unique_ptr<llvm::Module> llvmModule = translateModuleToLLVMIR(module, context);
  if (!llvmModule)
    return module.emitError() << "translation to LLVM IR failed";
  FailureOr<std::unique_ptr<llvm::TargetMachine>> tm =
      createTargetMachine(options, module.getLoc());
  if (failed(tm))
    return failure();
  llvmModule->setTargetTriple((*tm)->getTargetTriple());
  llvmModule->setDataLayout((*tm)->createDataLayout());
  auto optimize = makeOptimizingTransformer(options.optLevel, /*sizeLevel=*/0, tm->get());
  if (llvm::Error err = optimize(llvmModule.get())) {
    std::string msg = llvm::toString(std::move(err));
    return module.emitError() << "LLVM optimisation failed: " << msg;
  }
  // After optimisation, so that the optimiser saw libc's allocation functions as such.
  if (failed(routeAllocationsThroughHooks(*llvmModule, module.getLoc())))
    return failure();
  return llvmModule;
}

LogicalResult mlir::decoda::emitObjectFile(llvm::Module &module, const CPUTargetOptions &options,
                                           StringRef path, Location loc) {
  FailureOr<std::unique_ptr<llvm::TargetMachine>> tm = createTargetMachine(options, loc);
  if (failed(tm))
    return failure();
  std::error_code ec;
  llvm::raw_fd_ostream out(path, ec, llvm::sys::fs::OF_None);
  if (ec)
    return emitError(loc) << "cannot write '" << path << "': " << ec.message();
  llvm::legacy::PassManager pm;
  if ((*tm)->addPassesToEmitFile(pm, out, nullptr, llvm::CodeGenFileType::ObjectFile))
    return emitError(loc) << "the target cannot emit object files";
  pm.run(module);
  out.flush();
  if (out.has_error())
    return emitError(loc) << "error writing '" << path << "'";
  return success();
}

LogicalResult mlir::decoda::linkSharedLibrary(StringRef objectPath, StringRef supportSourcePath,
                                              StringRef outputPath, Location loc) {
  std::string cc = "cc";
  if (const char *env = std::getenv("CC"); env && *env)
    cc = env;
  llvm::ErrorOr<std::string> program = llvm::sys::findProgramByName(cc);
  if (!program)
    return emitError(loc) << "cannot find the C compiler '" << cc
                          << "' used to link the model (set CC)";
  // Parallel loops call the LLVM OpenMP runtime (libomp-22-dev, scripts/setup.sh).
  // -Bsymbolic: the model's own functions bind inside the model; without it an entry point
  // named like a libc function (`step`, `index`) calls libc's through the PLT.
  SmallVector<StringRef> args = {*program, "-shared", "-fPIC", "-O2", "-fvisibility=hidden",
                                 "-Wl,-Bsymbolic",
                                 "-o", outputPath, objectPath, supportSourcePath, "-lm",
                                 "-L/usr/lib/llvm-22/lib", "-lomp",
                                 "-Wl,-rpath,/usr/lib/llvm-22/lib"};
  std::string errMsg;
  int rc = llvm::sys::ExecuteAndWait(*program, args, std::nullopt, {}, 0, 0, &errMsg);
  if (rc != 0)
    return emitError(loc) << "linking '" << outputPath << "' failed (" << *program << " exited "
                          << rc << (errMsg.empty() ? "" : ": " + errMsg) << ")";
  return success();
}
