//===- decoda-compile.cpp - the Decoda driver -----------------------------===//
//
// decoda-compile INPUT.mlir -o OUT.so [--target=cpu|cuda] [--gpu-arch=sm_90a]
//                [--emit=mlir|llvm|obj|so|ptx]
//                [--dump-ir-after-each=DIR] [--print-ir-after=PASS,...]
//                [--report[=FILE]] [--verify-numerics]
//
// Parses flags, loads the input, runs the same named pipelines as decoda-opt
// (decoda-graph-opt, then decoda-lower-to-cpu), and writes the requested artifact. What it
// reports and checks about the graph passes lives in lib/Driver.
//
//===----------------------------------------------------------------------===//

#include "TestPasses.h"

#include "decoda/Conversion/Passes.h"
#include "decoda/Dialect/Decoda/IR/DecodaOps.h"
#include "decoda/Frontend/ONNX/Importer.h"
#include "decoda/Driver/Calibration.h"
#include "decoda/Driver/GraphPassTracker.h"
#include "decoda/Driver/MemoryLedger.h"
#include "decoda/Driver/NumericsCheck.h"
#include "decoda/Driver/Precision.h"
#include "decoda/Pipelines/Pipelines.h"
#include "decoda/Pipelines/GPUPipeline.h"
#include "decoda/Target/CPU/CPUTarget.h"
#include "decoda/Target/CUDA/CUDATarget.h"
#include "decoda/Transforms/Donation.h"
#include "decoda/Transforms/Passes.h"
#include "decoda/Transforms/SpecializeDims.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Transforms/Passes.h"

#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/WithColor.h"

#include <cmath>

using namespace mlir;
using namespace mlir::decoda;
namespace cl = llvm::cl;

namespace {
enum class Emit { MLIR, LLVM, Obj, SO, PTX };
enum class Target { CPU, CUDA };

cl::OptionCategory category("decoda-compile options");
cl::opt<std::string> inputPath(cl::Positional, cl::desc("<input .mlir>"), cl::Required,
                               cl::cat(category));
cl::opt<std::string> outputPath("o", cl::desc("Output file"), cl::value_desc("path"),
                                cl::Required, cl::cat(category));
cl::opt<Target> target("target", cl::desc("Code generation target"), cl::init(Target::CPU),
                       cl::values(clEnumValN(Target::CPU, "cpu", "x86-64 CPUs through LLVM"),
                                  clEnumValN(Target::CUDA, "cuda", "NVIDIA GPUs (decoda-lower-to-cuda)")),
                       cl::cat(category));
cl::opt<Emit> emit("emit", cl::desc("Stop after producing this artifact"), cl::init(Emit::SO),
                   cl::values(clEnumValN(Emit::MLIR, "mlir", "the LLVM-dialect MLIR"),
                              clEnumValN(Emit::LLVM, "llvm", "optimised LLVM IR"),
                              clEnumValN(Emit::Obj, "obj", "an object file"),
                              clEnumValN(Emit::SO, "so", "a loadable shared library + header"),
                              clEnumValN(Emit::PTX, "ptx", "the kernels' PTX (--target=cuda)")),
                   cl::cat(category));
cl::opt<std::string> gpuArch("gpu-arch",
                            cl::desc("NVIDIA architecture for --target=cuda (default sm_90a)"),
                            cl::value_desc("sm_XX"), cl::init("sm_90a"), cl::cat(category));
cl::opt<bool> gpuTma("gpu-tma",
                     cl::desc("sm_90a: fill the wgmma kernels' shared-memory stages by TMA "
                              "(tensor maps, 128-byte swizzle, mbarriers); false: cp.async"),
                     cl::init(true), cl::cat(category));
cl::opt<bool> gpuWarpSpecialize(
    "gpu-warp-specialize",
    cl::desc("sm_90a with --gpu-tma: a producer warpgroup loads the wgmma kernels' stages, the "
             "MMA warpgroups release them through mbarriers"),
    cl::init(false), cl::cat(category));
cl::opt<bool> gpuGateUp(
    "gpu-gate-up",
    cl::desc("sm_90a with --gpu-tma: a GLU's gate and up projections as one wgmma kernel of two "
             "weights; false: a kernel each, the f32 gate through memory"),
    cl::init(true), cl::cat(category));
cl::opt<bool> gpuGemvMma(
    "gpu-gemv-mma",
    cl::desc("sm_80 and later: decode-sized projections on tensor cores (mma.sync): over "
             "4-bit block-quantised weights (MatMulNBits) with bf16/f16 activations, the "
             "codes dequantised in registers, and over bf16/f16 weights with 2 to 16 rows; "
             "false: the SIMT GEMV kernel"),
    cl::init(true), cl::cat(category));
cl::opt<bool> gpuAttentionWgmma(
    "gpu-attention-wgmma",
    cl::desc("sm_90a: bf16/f16 attention (head dims that are multiples of 16 up to 256) on "
             "warpgroup MMA; false: the mma.sync kernel (up to 128; SIMT beyond)"),
    cl::init(true), cl::cat(category));
cl::opt<int64_t> gpuAttentionRows(
    "gpu-attention-rows",
    cl::desc("sm_90a, wgmma attention: rows per block of the one-pass kernel, 64 (one "
             "warpgroup, the default: faster on the H200) or 128 (two warpgroups sharing each "
             "K/V tile)"),
    cl::init(64), cl::cat(category));
cl::opt<int64_t> gpuAttentionKeys(
    "gpu-attention-keys",
    cl::desc("sm_90a, wgmma attention: keys per K/V tile, 64 (the default) or 128 (half the "
             "tiles, each with twice the tensor-core work)"),
    cl::init(64), cl::cat(category));
cl::opt<bool> gpuFoldNorms(
    "gpu-fold-norms",
    cl::desc("--target=cuda: a norm (RMSNorm, LayerNorm) read only by GEMV kernels (a decode step's q/k/v or "
             "gate/up projections) computed in their prologue instead of a kernel of its own "
             "(default true)"),
    cl::init(true), cl::cat(category));
cl::opt<bool> gpuDependentLaunch(
    "gpu-dependent-launch",
    cl::desc("--target=cuda, sm_90 and later: programmatic dependent launch (each kernel "
             "waits for the one before with griddepcontrol.wait before touching memory, and "
             "the runtime starts it while that one still runs; default true)"),
    cl::init(true), cl::cat(category));
cl::opt<int64_t> gpuMatmulTileN(
    "gpu-matmul-tile-n",
    cl::desc("sm_90a with --gpu-tma: columns of C per block of the TMA wgmma projection "
             "kernel, 128 (the default) or 256 (m64n256k16; a GLU's gate and up kernel keeps "
             "128 of each weight)"),
    cl::init(128), cl::cat(category));
cl::opt<bool> gpuAttentionTma(
    "gpu-attention-tma",
    cl::desc("sm_90a, wgmma attention: K/V tiles loaded by TMA from a producer warp, handed "
             "over by mbarriers per stage instead of a block barrier per tile"),
    cl::init(false), cl::cat(category));
cl::opt<bool> gpuAttentionPingPong(
    "gpu-attention-pingpong",
    cl::desc("sm_90a, wgmma attention with --gpu-attention-tma and --gpu-attention-rows=128: "
             "the two warpgroups issue their wgmma in turn (FlashAttention-3's ping-pong on "
             "named barriers; default true, false to let them overlap freely)"),
    cl::init(true), cl::cat(category));
cl::opt<std::string> dumpDir("dump-ir-after-each",
                             cl::desc("Write the IR after every pass to DIR/NN-<pass>.mlir"),
                             cl::value_desc("DIR"), cl::cat(category));
cl::list<std::string> printIRAfter(
    "print-ir-after",
    cl::desc("Print the IR to stderr after every run of the named passes (pass arguments, e.g. "
             "decoda-fuse-residual-norm; repeat the flag or separate names with commas)"),
    cl::value_desc("pass"), cl::CommaSeparated, cl::cat(category));
cl::opt<bool> noGraphOpt("no-graph-opt",
                         cl::desc("Skip decoda-graph-opt: compile the program exactly as written "
                                  "(for before/after comparisons of the graph passes)"),
                         cl::init(false), cl::cat(category));
cl::opt<std::string> graphOptOptions(
    "graph-opt-options",
    cl::desc("Options of decoda-graph-opt, as in its textual pipeline form, e.g. "
             "'fuse-projections=false absorb-mla=true'"),
    cl::value_desc("options"), cl::cat(category));
cl::opt<std::string> targetCpu("target-cpu", cl::desc("LLVM CPU name (default: this host)"),
                               cl::init("host"), cl::cat(category));
cl::opt<std::string> targetFeatures(
    "target-features",
    cl::desc("LLVM target features added to the CPU's, comma separated, e.g. "
             "'-avx512vnni' or '+avx2,+fma' (the code forms follow them: no avx512vnni, no "
             "vpdpbusd)"),
    cl::value_desc("+f,-g"), cl::cat(category));
cl::opt<int64_t> attentionKeyTile("attention-key-tile",
                                  cl::desc("Keys per step of the online-softmax attention loop"),
                                  cl::init(64), cl::cat(category));

cl::opt<bool> donateCaches(
    "donate-caches",
    cl::desc("Donate every KV-cache argument of a cached_attention whose updated cache is "
             "returned (decoda.donate, docs/ABI.md): the update is written into the caller's "
             "buffer instead of a copy"),
    cl::init(true), cl::cat(category));

cl::opt<bool> sharedKVBuffers(
    "shared-kv-buffers",
    cl::desc("ONNX GroupQueryAttention: the past is a buffer of at least the total length shared "
             "with present (onnxruntime-genai's past_present_share_buffer): present is the past "
             "with the new tokens written in, donated with --donate-caches"),
    cl::init(false), cl::cat(category));

enum class Weights { Embed, File };
cl::opt<Weights> weightsMode(
    "weights", cl::desc("Where constant weights go"), cl::init(Weights::Embed),
    cl::values(clEnumValN(Weights::Embed, "embed", "inside the shared library"),
               clEnumValN(Weights::File, "file",
                          "in OUT.weights next to OUT.so, mapped read-only at load")),
    cl::cat(category));
cl::opt<uint64_t> weightsMinBytes(
    "weights-min-bytes",
    cl::desc("With --weights=file: constants of at least this many bytes go to the file"),
    cl::init(4096), cl::cat(category));

cl::opt<std::string> staticDims(
    "static-dims",
    cl::desc("Specialise dynamic dims of the entry points: NAME=N (dims named by decoda.dims, "
             "e.g. the ONNX dim_params) or ARG:DIM=N (input name or index, dim index), comma "
             "separated; the runtime then rejects other sizes"),
    cl::value_desc("spec,..."), cl::cat(category));
cl::opt<bool> decodeEntries(
    "decode-entries",
    cl::desc("For each entry point using cached_attention with a dynamic query length, also "
             "emit <name>_decode specialised to one token (docs/ABI.md)"),
    cl::init(true), cl::cat(category));

cl::opt<std::string> report(
    "report",
    cl::desc("Report what each graph pass changed (op counts, constants) and the memory ledger "
             "(parameters, activations at T, KV cache per token) to stderr, or to FILE"),
    cl::value_desc("FILE"), cl::ValueOptional, cl::cat(category));
cl::opt<int64_t> reportSeqLen("report-seq-len",
                              cl::desc("T for the report's activation bytes: the size of every "
                                       "dynamic dimension"),
                              cl::init(128), cl::cat(category));

cl::opt<bool> verifyNumerics(
    "verify-numerics",
    cl::desc("Run the program on random inputs before the graph passes and after each one (JIT, "
             "plain CPU lowering) and fail naming the first pass and op whose values drift"),
    cl::init(false), cl::cat(category));
cl::opt<double> verifyTolerance(
    "verify-numerics-tol",
    cl::desc("A value drifts when |new - ref| > tol * max(1, |ref|) (default: by element type, "
             "f32/f64 1e-4, f16 1e-2, bf16 5e-2)"),
    cl::cat(category));
cl::opt<int64_t> verifyDimSize("verify-numerics-dim",
                               cl::desc("Size of every dynamic dimension of the random inputs"),
                               cl::init(8), cl::cat(category));
cl::opt<uint64_t> verifySeed("verify-numerics-seed", cl::desc("Seed of the random inputs"),
                             cl::init(1), cl::cat(category));

// INT8 W8A8 (SmoothQuant): lib/Driver/Calibration.cpp, the passes in QuantPasses.td.
enum class Quantize { None, Int8 };
cl::opt<Quantize> quantize(
    "quantize", cl::desc("Quantise the projections and attention BMMs (W8A8, SmoothQuant)"),
    cl::init(Quantize::None),
    cl::values(clEnumValN(Quantize::None, "none", "float as written"),
               clEnumValN(Quantize::Int8, "int8", "INT8 projections and attention BMMs")),
    cl::cat(category));
enum class StorageFloat { Keep, BF16, F16 };
cl::opt<StorageFloat> floatType(
    "float-type",
    cl::desc("Store and compute the model's f32 tensors in a 16-bit float type "
             "(decoda-convert-float-type after the graph passes; inputs and outputs stay f32 "
             "unless --float-type-io)"),
    cl::init(StorageFloat::Keep),
    cl::values(clEnumValN(StorageFloat::Keep, "f32", "as written (the default)"),
               clEnumValN(StorageFloat::BF16, "bf16", "bfloat16 (the GPU's tensor cores)"),
               clEnumValN(StorageFloat::F16, "f16", "IEEE half")),
    cl::cat(category));
cl::opt<bool> floatTypeIO(
    "float-type-io",
    cl::desc("With --float-type: the entry points' f32 inputs and outputs take the 16-bit type "
             "too (no conversion at the boundary; KV caches passed in are stored in 16 bits)"),
    cl::init(false), cl::cat(category));
cl::opt<std::string> calibration(
    "calibration",
    cl::desc("Calibration inputs (.npz: one array per input name, samples stacked along the "
             "first axis) or saved statistics (.json from --save-calibration)"),
    cl::value_desc("FILE"), cl::cat(category));
cl::opt<std::string> saveCalibrationPath(
    "save-calibration", cl::desc("Write the calibration statistics to FILE (JSON) for reuse"),
    cl::value_desc("FILE.json"), cl::cat(category));
cl::opt<double> smoothAlpha("smooth-alpha",
                            cl::desc("SmoothQuant migration strength alpha in [0, 1]"),
                            cl::init(0.5), cl::cat(category));
cl::opt<bool> noSmooth("no-smooth", cl::desc("Plain W8A8: no SmoothQuant smoothing"),
                       cl::init(false), cl::cat(category));
cl::opt<std::string> quantActivations(
    "quant-activations", cl::desc("Activation scales per-token (default) or per-tensor"),
    cl::init("per-token"), cl::cat(category));
cl::opt<std::string> quantScales(
    "quant-scales",
    cl::desc("Activation scales dynamic (computed at run time, default) or static (from "
             "calibration; needs --quant-activations=per-tensor)"),
    cl::init("dynamic"), cl::cat(category));
cl::opt<bool> quantAttention("quant-attention",
                             cl::desc("INT8 attention BMMs (QK^T, PV) with static scales"),
                             cl::init(true), cl::cat(category));
cl::list<std::string> quantKeepFloat(
    "quant-keep-float",
    cl::desc("Ops that stay float: op names (linear, attention) or location substrings"),
    cl::value_desc("name"), cl::CommaSeparated, cl::cat(category));
cl::opt<std::string> precisionGraph(
    "emit-precision-graph",
    cl::desc("Draw the ops coloured by precision (INT8, boundaries, float) to FILE.dot or "
             "FILE.svg"),
    cl::value_desc("FILE"), cl::cat(category));

// Test only: a way to put a deliberately wrong pass (decoda-test-break-numerics) among the graph
// passes, so the tests can check that --verify-numerics and --report name it. Never used by a
// named pipeline.
cl::opt<std::string> testGraphPasses(
    "test-insert-pass-after-graph-opt", cl::Hidden,
    cl::desc("Test only: a textual pass pipeline appended to the graph passes"),
    cl::value_desc("pipeline"), cl::cat(category));

/// Writes the IR after each pass to DIR/NN-<pass-argument>.mlir.
/// One counter serves both pass managers of a compile (raising, then the rest), so the files
/// number the passes in the order they ran.
struct DumpAfterEach : public PassInstrumentation {
  DumpAfterEach(std::string dir, std::shared_ptr<int> counter)
      : dir(std::move(dir)), counter(std::move(counter)) {}
  void runAfterPass(Pass *pass, Operation *op) override {
    if (!isa<ModuleOp>(op))
      return; // nested pass managers: the enclosing module pass dump covers them
    std::string arg = pass->getArgument().str();
    if (arg.empty())
      arg = pass->getName().str();
    SmallString<256> path(dir);
    llvm::sys::path::append(path, llvm::formatv("{0:02}-{1}.mlir", ++*counter, arg).str());
    std::error_code ec;
    llvm::raw_fd_ostream os(path, ec);
    if (ec) {
      op->emitWarning() << "cannot write '" << path << "': " << ec.message();
      return;
    }
    op->print(os);
  }
  std::string dir;
  std::shared_ptr<int> counter;
};

int fail(Location loc, const Twine &msg) {
  emitError(loc) << msg;
  return 1;
}

/// Reads the program into a module in the decoda dialect: `.mlir` is parsed; `.onnx` goes
/// through the ONNX importer. Errors are reported through `context`'s diagnostic handler; null on
/// failure.
OwningOpRef<ModuleOp> loadInput(MLIRContext &context, llvm::SourceMgr &sourceMgr,
                                StringRef path) {
  Location unknown = UnknownLoc::get(&context);
  if (llvm::sys::path::extension(path) == ".onnx") {
    onnx_import::ImportOptions options;
    options.sharedKVBuffers = sharedKVBuffers;
    options.donateSharedKVBuffers = donateCaches;
    return onnx_import::importONNXFile(path, &context, options);
  }
  std::string errorMessage;
  std::unique_ptr<llvm::MemoryBuffer> file = openInputFile(path, &errorMessage);
  if (!file) {
    emitError(unknown) << "cannot open '" << path << "': " << errorMessage;
    return nullptr;
  }
  sourceMgr.AddNewSourceBuffer(std::move(file), SMLoc());
  return parseSourceFile<ModuleOp>(sourceMgr, ParserConfig(&context));
}

/// `--print-ir-after` names must be passes of this compile: a typo would otherwise print
/// nothing and look like success.
LogicalResult checkPrintIRAfterNames(ArrayRef<OpPassManager *> pms, Location loc) {
  std::vector<std::string> ran;
  for (OpPassManager *pm : pms)
    llvm::append_range(ran, passArgumentsOf(*pm));
  llvm::SetVector<StringRef> known(ran.begin(), ran.end());
  for (const std::string &name : printIRAfter) {
    if (known.contains(name))
      continue;
    InFlightDiagnostic diag = emitError(loc) << "--print-ir-after=" << name << ": no pass '"
                                             << name << "' runs in this compile; the passes "
                                             << "that run, in order: ";
    llvm::interleaveComma(known, diag);
    return failure();
  }
  return success();
}

void printReport(llvm::raw_ostream &os, ArrayRef<GraphPassRecord> records, ModuleOp written,
                 ModuleOp afterGraph) {
  os << "decoda-compile report: " << inputPath << "\n";
  os << "graph passes (op count changes; LLVM statistics are compiled out of this LLVM):\n";
  printGraphPassChanges(records, os);
  std::vector<MemoryLedger> before = computeMemoryLedgers(written, reportSeqLen);
  std::vector<MemoryLedger> after = computeMemoryLedgers(afterGraph, reportSeqLen);
  printMemoryLedgers(before, after, os);
}

/// Re-reads the entry points' element types into the artifact's signature once
/// decoda-convert-float-type{io} changed them (--float-type-io); the lowering after it does not
/// change the types an entry point takes and returns.
struct RefreshSignaturePass
    : public PassWrapper<RefreshSignaturePass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(RefreshSignaturePass)
  explicit RefreshSignaturePass(std::vector<EntrySignature> *signature) : signature(signature) {}
  StringRef getArgument() const override { return "decoda-compile-refresh-signature"; }
  StringRef getDescription() const override {
    return "Read the entry points' element types again after the float conversion";
  }
  void runOnOperation() override {
    if (failed(refreshSignatureTypes(getOperation(), *signature)))
      signalPassFailure();
  }
  std::vector<EntrySignature> *signature;
};
} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM y(argc, argv);
  cl::HideUnrelatedOptions(category);
  // The pipelines name upstream passes textually; they must be registered.
  registerAllPasses();
  registerDecodaConversionPasses();
  registerDecodaTransformsPasses();
  test::registerTestPasses();
  registerMLIRContextCLOptions();
  registerPassManagerCLOptions();
  registerAsmPrinterCLOptions();
  cl::ParseCommandLineOptions(argc, argv, "Decoda ahead-of-time compiler\n");

  DialectRegistry registry;
  registerAllDialects(registry);
  registerAllExtensions(registry);
  registry.insert<DecodaDialect>();
  MLIRContext context(registry);
  context.loadAllAvailableDialects();
  Location unknown = UnknownLoc::get(&context);
  llvm::SourceMgr sourceMgr;
  SourceMgrDiagnosticHandler diagHandler(sourceMgr, &context);
  // Diagnostics with no place in a file (the command line's flags, a file that cannot be
  // opened) read "decoda-compile: error: ..." rather than "<unknown>:0: error: ...".
  ScopedDiagnosticHandler unplaced(&context, [](Diagnostic &d) -> LogicalResult {
    if (!isa<UnknownLoc>(d.getLocation()))
      return failure();
    auto print = [](DiagnosticSeverity severity, const std::string &text) {
      llvm::raw_ostream &err = llvm::errs();
      StringRef tool = "decoda-compile";
      switch (severity) {
      case DiagnosticSeverity::Error:
        llvm::WithColor::error(err, tool) << text << "\n";
        break;
      case DiagnosticSeverity::Warning:
        llvm::WithColor::warning(err, tool) << text << "\n";
        break;
      case DiagnosticSeverity::Remark:
        llvm::WithColor::remark(err, tool) << text << "\n";
        break;
      case DiagnosticSeverity::Note:
        llvm::WithColor::note(err, tool) << text << "\n";
        break;
      }
    };
    print(d.getSeverity(), d.str());
    for (Diagnostic &note : d.getNotes())
      print(DiagnosticSeverity::Note, note.str());
    return success();
  });

  bool cuda = target == Target::CUDA;
  if (cuda && cudaArchFeatures(gpuArch).empty())
    return fail(unknown, "--gpu-arch=" + gpuArch + ": unknown NVIDIA architecture (known: " +
                             cudaKnownArchs().str() + ")");
  if (!cuda && gpuArch.getNumOccurrences())
    return fail(unknown, "--gpu-arch needs --target=cuda");
  if (!cuda && gpuTma.getNumOccurrences())
    return fail(unknown, "--gpu-tma needs --target=cuda");
  if (!cuda && gpuWarpSpecialize.getNumOccurrences())
    return fail(unknown, "--gpu-warp-specialize needs --target=cuda");
  // TMA and warpgroup MMA are sm_90a's: elsewhere the flags would do nothing.
  if (cuda && gpuArch != "sm_90a" && gpuTma.getNumOccurrences() && gpuTma)
    return fail(unknown, "--gpu-tma needs --gpu-arch=sm_90a (TMA-fed wgmma kernels; --gpu-arch=" +
                             gpuArch + " has none)");
  if (!cuda && gpuAttentionWgmma.getNumOccurrences())
    return fail(unknown, "--gpu-attention-wgmma needs --target=cuda");
  if (cuda && gpuArch != "sm_90a" && gpuAttentionWgmma.getNumOccurrences() && gpuAttentionWgmma)
    return fail(unknown, "--gpu-attention-wgmma needs --gpu-arch=sm_90a (--gpu-arch=" + gpuArch +
                             " has no warpgroup MMA)");
  // The wgmma attention kernel's shape flags: 64 or 128, and only for that kernel.
  for (cl::opt<int64_t> *shape : {&gpuAttentionRows, &gpuAttentionKeys}) {
    if (!shape->getNumOccurrences())
      continue;
    std::string flag = "--" + shape->ArgStr.str();
    if (!cuda || gpuArch != "sm_90a" || !gpuAttentionWgmma)
      return fail(unknown, flag + " needs --target=cuda --gpu-arch=sm_90a and the wgmma "
                                  "attention kernel (--gpu-attention-wgmma, on by default "
                                  "there); elsewhere it would change nothing");
    if (*shape != 64 && *shape != 128)
      return fail(unknown, flag + "=" + std::to_string(*shape) + ": expected 64 or 128");
  }
  if (gpuFoldNorms.getNumOccurrences() && !cuda)
    return fail(unknown, "--gpu-fold-norms needs --target=cuda");
  if (gpuDependentLaunch.getNumOccurrences() && gpuDependentLaunch &&
      (!cuda || !cudaArchHasDependentLaunch(gpuArch)))
    return fail(unknown, "--gpu-dependent-launch needs --target=cuda and --gpu-arch=sm_90 or "
                         "later (griddepcontrol)" +
                             (cuda ? " (--gpu-arch=" + gpuArch + ")" : std::string()));
  if (gpuMatmulTileN.getNumOccurrences()) {
    if (!cuda || gpuArch != "sm_90a" || !gpuTma)
      return fail(unknown, "--gpu-matmul-tile-n needs --target=cuda --gpu-arch=sm_90a and "
                           "--gpu-tma (the TMA wgmma projection kernel)");
    if (gpuMatmulTileN != 128 && gpuMatmulTileN != 256)
      return fail(unknown, "--gpu-matmul-tile-n=" + std::to_string(gpuMatmulTileN) +
                               ": expected 128 or 256");
  }
  if (gpuAttentionTma.getNumOccurrences() && (!cuda || gpuArch != "sm_90a" || !gpuAttentionWgmma))
    return fail(unknown, "--gpu-attention-tma needs --target=cuda --gpu-arch=sm_90a and the "
                         "wgmma attention kernel (--gpu-attention-wgmma, on by default there); "
                         "elsewhere it would change nothing");
  if (gpuAttentionPingPong.getNumOccurrences() &&
      (!cuda || gpuArch != "sm_90a" || !gpuAttentionWgmma || !gpuAttentionTma ||
       gpuAttentionRows != 128))
    return fail(unknown, "--gpu-attention-pingpong needs --target=cuda --gpu-arch=sm_90a "
                         "--gpu-attention-tma --gpu-attention-rows=128 (it schedules the two "
                         "consumer warpgroups of the TMA attention kernel; elsewhere, on or "
                         "off, it would change nothing)");
  if (cuda && gpuWarpSpecialize && (gpuArch != "sm_90a" || !gpuTma))
    return fail(unknown, "--gpu-warp-specialize needs --gpu-arch=sm_90a and --gpu-tma (it "
                         "specialises the TMA wgmma kernel)");
  if (gpuGateUp.getNumOccurrences() && (!cuda || gpuArch != "sm_90a" || !gpuTma))
    return fail(unknown, "--gpu-gate-up needs --target=cuda --gpu-arch=sm_90a and --gpu-tma (it "
                         "is a form of the TMA wgmma kernel; elsewhere, on or off, it would "
                         "change nothing)");
  if (gpuGemvMma.getNumOccurrences() && !cuda)
    return fail(unknown, "--gpu-gemv-mma needs --target=cuda (it picks a CUDA GEMV kernel)");
  if (!cuda && emit == Emit::PTX)
    return fail(unknown, "--emit=ptx needs --target=cuda");
  if (attentionKeyTile < 1)
    return fail(unknown, "--attention-key-tile must be positive");
  if (reportSeqLen < 1)
    return fail(unknown, "--report-seq-len must be positive");
  if (verifyDimSize < 1)
    return fail(unknown, "--verify-numerics-dim must be positive");
  if (verifyTolerance.getNumOccurrences() &&
      (!(verifyTolerance > 0) || !std::isfinite(verifyTolerance)))
    return fail(unknown, "--verify-numerics-tol must be a positive finite number");

  // The target CPU first: a bad name is an error before any work, and the CPU lowering picks
  // instruction forms by its features (no vpdpbusd without avx512vnni).
  CPUTargetOptions targetOptions;
  targetOptions.cpu = targetCpu;
  targetOptions.features = targetFeatures;
  FailureOr<ResolvedCPUTarget> resolvedTarget = resolveCPUTarget(targetOptions, unknown);
  if (failed(resolvedTarget))
    return 1;

  bool int8 = quantize == Quantize::Int8;
  if (int8 && floatType != StorageFloat::Keep)
    return fail(unknown, "--float-type needs --quantize=none (the INT8 stage calibrates the f32 "
                         "model)");
  if (floatTypeIO && floatType == StorageFloat::Keep)
    return fail(unknown, "--float-type-io needs --float-type=bf16 or f16");
  QuantizeOptions quantOptions;
  quantOptions.smooth = !noSmooth;
  quantOptions.alpha = smoothAlpha;
  quantOptions.activations = quantActivations;
  quantOptions.scales = quantScales;
  quantOptions.attention = quantAttention;
  quantOptions.keepFloat.assign(quantKeepFloat.begin(), quantKeepFloat.end());
  cl::Option *quantFlags[] = {&calibration,      &saveCalibrationPath, &smoothAlpha,
                              &noSmooth,         &quantActivations,    &quantScales,
                              &quantAttention,   std::addressof(quantKeepFloat)};
  for (cl::Option *o : quantFlags)
    if (o->getNumOccurrences() && !int8)
      return fail(unknown, "--" + o->ArgStr + " needs --quantize=int8");
  if (!(smoothAlpha >= 0.0 && smoothAlpha <= 1.0))
    return fail(unknown, llvm::formatv("--smooth-alpha must be in [0, 1], got {0}",
                                       double(smoothAlpha)).str());
  if (quantActivations != "per-token" && quantActivations != "per-tensor")
    return fail(unknown, "--quant-activations must be per-token or per-tensor, got '" +
                             quantActivations + "'");
  if (quantScales != "dynamic" && quantScales != "static")
    return fail(unknown, "--quant-scales must be dynamic or static, got '" + quantScales + "'");
  if (quantScales == "static" && quantActivations == "per-token")
    return fail(unknown, "--quant-scales=static needs --quant-activations=per-tensor (per-token "
                         "scales are computed at run time)");
  if (int8 && calibration.empty() && quantizationNeedsCalibration(quantOptions))
    return fail(unknown, "--quantize=int8 needs --calibration=FILE.npz (or saved statistics, "
                         ".json): smoothing, static scales and INT8 attention use calibration "
                         "statistics; without them use --no-smooth --quant-attention=false "
                         "(dynamic per-token scales only)");
  if (!saveCalibrationPath.empty() && llvm::sys::path::extension(calibration) != ".npz")
    return fail(unknown, "--save-calibration needs --calibration=FILE.npz (statistics are "
                         "recorded by running the model on it)");
  if (!calibration.empty() && !llvm::sys::fs::exists(calibration))
    return fail(unknown, "--calibration: cannot read '" + calibration + "': no such file");
  if (!precisionGraph.empty()) {
    StringRef ext = llvm::sys::path::extension(precisionGraph);
    if (ext != ".dot" && ext != ".svg")
      return fail(unknown, "--emit-precision-graph=" + precisionGraph +
                               ": the file must end in .dot (Graphviz) or .svg");
  }

  // Open the report file first: a bad path should not cost a compile.
  bool wantReport = report.getNumOccurrences() > 0;
  std::unique_ptr<llvm::ToolOutputFile> reportFile;
  std::string errorMessage;
  if (wantReport && !report.empty()) {
    reportFile = openOutputFile(report, &errorMessage);
    if (!reportFile)
      return fail(unknown, "--report: cannot write '" + report + "': " + errorMessage);
  }

  std::unique_ptr<GraphOptPipelineOptions> graphOptions;
  if (!noGraphOpt) {
    graphOptions = GraphOptPipelineOptions::createFromString(graphOptOptions);
    if (!graphOptions)
      return fail(unknown, "--graph-opt-options: cannot parse '" + graphOptOptions +
                               "' (options: raise-onnx, fuse-projections, fuse-gated-mlp, absorb-mla)");
  }
  SmallVector<DimSpec> dimSpecs;
  if (staticDims.getNumOccurrences()) {
    std::string error;
    if (!parseDimSpecs(staticDims, dimSpecs, error))
      return fail(unknown, "--static-dims: " + error);
  }
  if (!dumpDir.empty())
    if (std::error_code ec = llvm::sys::fs::create_directories(dumpDir))
      return fail(unknown, "cannot create '" + dumpDir + "': " + ec.message());

  OwningOpRef<ModuleOp> module = loadInput(context, sourceMgr, inputPath);
  if (!module)
    return 1;

  // The report and the numerics check look at the program as written and after each graph pass.
  bool trackGraphPasses = wantReport || verifyNumerics;
  std::vector<GraphPassRecord> records;
  OwningOpRef<ModuleOp> written;
  if (trackGraphPasses)
    written = cast<ModuleOp>((*module)->clone());

  // Instrumentation common to both pass managers.
  auto dumpCounter = std::make_shared<int>(0);
  auto instrument = [&](PassManager &p) -> LogicalResult {
    if (failed(applyPassManagerCLOptions(p)))
      return failure();
    if (!dumpDir.empty())
      p.addInstrumentation(std::make_unique<DumpAfterEach>(dumpDir, dumpCounter));
    return success();
  };
  auto printIRAfterSelected = [&](PassManager &p) {
    llvm::StringSet<> names;
    for (const std::string &name : printIRAfter)
      names.insert(name);
    // Module scope off: a nested pass prints the function it ran on, so no threading limits.
    p.enableIRPrinting([](Pass *, Operation *) { return false; },
                       [names](Pass *pass, Operation *) {
                         return names.contains(pass->getArgument());
                       },
                       /*printModuleScope=*/false, /*printAfterOnlyOnChange=*/false,
                       /*printAfterOnlyOnFailure=*/false, llvm::errs());
  };

  // decoda-raise-onnx first, on the graph as imported: its patterns read the exporter's
  // dynamic-shaped chains, which static dims (folded into the linalg ops) would rewrite before
  // it; the raised decoda ops then take the static sizes (decoda-refine-shapes). The other
  // graph passes run after the entry shapes, in the second pass manager.
  PassManager raisePM(&context);
  bool raiseFirst = graphOptions && graphOptions->raiseONNX;
  if (raiseFirst) {
    if (failed(instrument(raisePM)))
      return 1;
    raisePM.addPass(createRaiseONNXPass());
    graphOptions->raiseONNX = false;
  }

  // Entry-point shapes: static dims first, then the one-token decode copies, then donation
  // (the copies donate their caches too); the signature is read after all three.
  auto shapeEntries = [&](ModuleOp m) -> LogicalResult {
    if (!dimSpecs.empty() && failed(specializeDims(m, dimSpecs, "--static-dims")))
      return failure();
    if (decodeEntries && failed(addDecodeEntries(m)))
      return failure();
    if (donateCaches)
      markDonatedCaches(m);
    return success();
  };

  if (raiseFirst) {
    if (!printIRAfter.empty())
      printIRAfterSelected(raisePM);
    if (trackGraphPasses)
      raisePM.addInstrumentation(std::make_unique<GraphPassTracker>(
          topLevelPasses(raisePM, 0, raisePM.size()), /*keepSnapshots=*/true, records));
    if (failed(raisePM.run(*module)))
      return 1;
  }
  if (failed(shapeEntries(*module)))
    return 1;
  // The versions the numerics check runs share one signature: the program as written and after
  // raising get the same entry shapes (they succeed where the raised module's did).
  if (trackGraphPasses) {
    if (failed(shapeEntries(*written)))
      return 1;
    for (GraphPassRecord &r : records)
      if (failed(shapeEntries(*r.snapshot)))
        return 1;
  }
  FailureOr<std::vector<EntrySignature>> signature = extractSignature(*module);
  if (failed(signature))
    return 1;
  stripSignatureAttributes(*module);
  if (trackGraphPasses) {
    stripSignatureAttributes(*written);
    for (GraphPassRecord &r : records)
      stripSignatureAttributes(*r.snapshot);
  }

  PassManager pm(&context);
  if (failed(instrument(pm)))
    return 1;
  if (graphOptions) {
    // A gated MLP converted to 16 bits stays one op (its GLU in the projection's kernel); the
    // f32 split would leave the GLU a kernel of its own.
    if (floatType != StorageFloat::Keep && !graphOptions->fuseGatedMLP.hasValue())
      graphOptions->fuseGatedMLP = false;
    buildGraphOptPassPipeline(pm, *graphOptions);
  }
  if (!testGraphPasses.empty()) {
    std::string message;
    llvm::raw_string_ostream os(message);
    if (failed(parsePassPipeline(testGraphPasses, pm, os)))
      return fail(unknown, "--test-insert-pass-after-graph-opt: " + message);
  }
  size_t numGraphPasses = pm.size();
  // A 16-bit float type changes the numerics on purpose: after the graph passes, outside what
  // --verify-numerics compares.
  size_t floatBegin = pm.size();
  if (floatType != StorageFloat::Keep) {
    ConvertFloatTypePassOptions convert;
    convert.to = floatType == StorageFloat::BF16 ? "bf16" : "f16";
    convert.io = floatTypeIO;
    pm.addNestedPass<func::FuncOp>(createConvertFloatTypePass(convert));
    pm.addPass(createCanonicalizerPass());
    if (floatTypeIO)
      pm.addPass(std::make_unique<RefreshSignaturePass>(&*signature));
  }
  size_t floatEnd = pm.size();
  // The INT8 stage (calibration + INT8 passes) follows the graph passes; it changes the numerics
  // on purpose, so --verify-numerics does not compare it.
  OwningOpRef<ModuleOp> afterInt8;
  if (int8 || !precisionGraph.empty()) {
    QuantizeStageConfig stage;
    stage.quantize = int8;
    stage.options = quantOptions;
    stage.signature = *signature;
    stage.calibration = calibration;
    stage.saveCalibration = saveCalibrationPath;
    stage.snapshot = &afterInt8;
    pm.addPass(createQuantizeStagePass(std::move(stage)));
  }
  if (cuda) {
    CUDALoweringPipelineOptions cudaOptions;
    cudaOptions.gpuArch = gpuArch;
    cudaOptions.format = emit == Emit::PTX ? "isa" : "bin";
    cudaOptions.attentionKeyTile = attentionKeyTile;
    cudaOptions.donateInputs = donateCaches;
    cudaOptions.tma = gpuTma;
    cudaOptions.warpSpecialize = gpuWarpSpecialize;
    cudaOptions.gateUp = gpuGateUp;
    cudaOptions.gemvMma = gpuGemvMma;
    cudaOptions.attentionWgmma = gpuAttentionWgmma;
    cudaOptions.attentionRows = gpuAttentionRows;
    cudaOptions.attentionKeys = gpuAttentionKeys;
    cudaOptions.attentionTma = gpuAttentionTma;
    cudaOptions.matmulTileN = gpuMatmulTileN;
    cudaOptions.foldNorms = gpuFoldNorms;
    cudaOptions.dependentLaunch = gpuDependentLaunch;
    cudaOptions.attentionPingPong = gpuAttentionPingPong;
    buildCUDALoweringPassPipeline(pm, cudaOptions);
  } else {
    CPULoweringPipelineOptions cpuOptions;
    cpuOptions.attentionKeyTile = attentionKeyTile;
    cpuOptions.vnni = resolvedTarget->avx512vnni;
    buildCPULoweringPassPipeline(pm, cpuOptions);
  }

  if (!printIRAfter.empty()) {
    if (failed(checkPrintIRAfterNames({&raisePM, &pm}, unknown)))
      return 1;
    printIRAfterSelected(pm);
  }

  if (trackGraphPasses)
    pm.addInstrumentation(std::make_unique<GraphPassTracker>(
        topLevelPasses(pm, 0, numGraphPasses), /*keepSnapshots=*/true, records));
  // The report's precision section shows the program after the float conversion.
  std::vector<GraphPassRecord> floatRecords;
  if (wantReport && floatEnd > floatBegin)
    pm.addInstrumentation(std::make_unique<GraphPassTracker>(
        topLevelPasses(pm, floatBegin, floatEnd), /*keepSnapshots=*/true, floatRecords));

  if (failed(pm.run(*module)))
    return 1;

  if (wantReport) {
    ModuleOp afterGraph = records.empty() ? *written : *records.back().snapshot;
    printReport(reportFile ? reportFile->os() : llvm::errs(), records, *written, afterGraph);
    if (!floatRecords.empty())
      printPrecisionReport(*floatRecords.back().snapshot,
                           reportFile ? reportFile->os() : llvm::errs(),
                           "decoda-convert-float-type");
    else
      printPrecisionReport(afterInt8 ? *afterInt8 : afterGraph,
                           reportFile ? reportFile->os() : llvm::errs());
    if (reportFile)
      reportFile->keep();
  }

  if (!precisionGraph.empty() && failed(writePrecisionGraph(*afterInt8, precisionGraph, unknown)))
    return 1;

  if (verifyNumerics) {
    std::vector<ProgramVersion> versions = {{"", *written, true}};
    for (GraphPassRecord &r : records)
      versions.push_back({r.pass, *r.snapshot, r.changed});
    NumericsCheckOptions options;
    options.tolerance = verifyTolerance.getNumOccurrences() ? double(verifyTolerance) : 0.0;
    options.dynamicDimSize = verifyDimSize;
    options.seed = verifySeed;
    if (failed(checkNumerics(versions, options, llvm::errs())))
      return 1; // nothing written: the compiled program may be wrong
  }

  // --weights=file: large constants move to OUT.weights (docs/ABI.md).
  std::optional<WeightsFile> weightsFile;
  if (weightsMode == Weights::File) {
    SmallString<256> weightsPath(outputPath);
    llvm::sys::path::replace_extension(weightsPath, "weights");
    FailureOr<WeightsFile> w = externalizeWeights(*module, weightsPath, weightsMinBytes);
    if (failed(w))
      return 1;
    weightsFile = *w;
  }

  if (emit == Emit::MLIR) {
    std::unique_ptr<llvm::ToolOutputFile> out = openOutputFile(outputPath, &errorMessage);
    if (!out)
      return fail(unknown, "cannot write '" + outputPath + "': " + errorMessage);
    module->print(out->os());
    out->keep();
    return 0;
  }

  if (emit == Emit::PTX) {
    std::unique_ptr<llvm::ToolOutputFile> out = openOutputFile(outputPath, &errorMessage);
    if (!out)
      return fail(unknown, "cannot write '" + outputPath + "': " + errorMessage);
    if (failed(writeKernelPTX(*module, out->os())))
      return 1;
    out->keep();
    return 0;
  }
  if (cuda)
    registerCUDAHostTranslation(*module); // gpu.binary + gpu.launch_func to LLVM IR

  llvm::LLVMContext llvmContext;
  FailureOr<std::unique_ptr<llvm::Module>> llvmModule =
      translateToOptimizedLLVMIR(*module, llvmContext, targetOptions);
  if (failed(llvmModule))
    return 1;
  if (emit == Emit::LLVM) {
    std::unique_ptr<llvm::ToolOutputFile> out = openOutputFile(outputPath, &errorMessage);
    if (!out)
      return fail(unknown, "cannot write '" + outputPath + "': " + errorMessage);
    (*llvmModule)->print(out->os(), nullptr);
    out->keep();
    return 0;
  }
  if (emit == Emit::Obj)
    return failed(emitObjectFile(**llvmModule, targetOptions, outputPath, unknown)) ? 1 : 0;

  // Shared library: object + generated support source, linked by the C compiler; plus a header.
  SmallString<128> objPath, srcPath;
  if (llvm::sys::fs::createTemporaryFile("decoda-model", "o", objPath) ||
      llvm::sys::fs::createTemporaryFile("decoda-support", "c", srcPath))
    return fail(unknown, "cannot create temporary files");
  llvm::FileRemover removeObj(objPath), removeSrc(srcPath);
  if (failed(emitObjectFile(**llvmModule, targetOptions, objPath, unknown)))
    return 1;
  {
    std::error_code ec;
    llvm::raw_fd_ostream src(srcPath, ec);
    if (ec)
      return fail(unknown, "cannot write '" + srcPath + "': " + ec.message());
    writeSupportSource(*signature, src, weightsFile ? &*weightsFile : nullptr);
    if (cuda)
      writeCUDASupportSource(src);
  }
  if (failed(linkSharedLibrary(objPath, srcPath, outputPath, unknown)))
    return 1;
  SmallString<256> headerPath(outputPath);
  llvm::sys::path::replace_extension(headerPath, "h");
  std::error_code ec;
  llvm::raw_fd_ostream header(headerPath, ec);
  if (ec)
    return fail(unknown, "cannot write '" + headerPath + "': " + ec.message());
  writeHeader(*signature, header);
  return 0;
}
