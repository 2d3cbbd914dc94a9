//===- decoda-compile.cpp - the Decoda driver -----------------------------===//
//
// decoda-compile INPUT.mlir -o OUT.so [--target=cpu] [--emit=mlir|llvm|obj|so]
//                [--dump-ir-after-each=DIR]
//
// Parses flags, loads the input, runs the same named pipelines as decoda-opt
// (decoda-graph-opt, then decoda-lower-to-cpu), and writes the requested artifact.
//
//===----------------------------------------------------------------------===//

#include "decoda/Conversion/Passes.h"
#include "decoda/Dialect/Decoda/IR/DecodaOps.h"
#include "decoda/Pipelines/Pipelines.h"
#include "decoda/Target/CPU/CPUTarget.h"
#include "decoda/Transforms/Passes.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"

#include "llvm/IR/LLVMContext.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"

using namespace mlir;
using namespace mlir::decoda;
namespace cl = llvm::cl;

namespace {
enum class Emit { MLIR, LLVM, Obj, SO };
enum class Target { CPU, CUDA };

cl::OptionCategory category("decoda-compile options");
cl::opt<std::string> inputPath(cl::Positional, cl::desc("<input .mlir>"), cl::Required,
                               cl::cat(category));
cl::opt<std::string> outputPath("o", cl::desc("Output file"), cl::value_desc("path"),
                                cl::Required, cl::cat(category));
cl::opt<Target> target("target", cl::desc("Code generation target"), cl::init(Target::CPU),
                       cl::values(clEnumValN(Target::CPU, "cpu", "x86-64 CPUs through LLVM"),
                                  clEnumValN(Target::CUDA, "cuda", "NVIDIA GPUs (not yet)")),
                       cl::cat(category));
cl::opt<Emit> emit("emit", cl::desc("Stop after producing this artifact"), cl::init(Emit::SO),
                   cl::values(clEnumValN(Emit::MLIR, "mlir", "the LLVM-dialect MLIR"),
                              clEnumValN(Emit::LLVM, "llvm", "optimised LLVM IR"),
                              clEnumValN(Emit::Obj, "obj", "an object file"),
                              clEnumValN(Emit::SO, "so", "a loadable shared library + header")),
                   cl::cat(category));
cl::opt<std::string> dumpDir("dump-ir-after-each",
                             cl::desc("Write the IR after every pass to DIR/NN-<pass>.mlir"),
                             cl::value_desc("DIR"), cl::cat(category));
cl::opt<bool> noGraphOpt("no-graph-opt",
                         cl::desc("Skip decoda-graph-opt: compile the program exactly as written "
                                  "(for before/after comparisons of the graph passes)"),
                         cl::init(false), cl::cat(category));
cl::opt<std::string> targetCpu("target-cpu", cl::desc("LLVM CPU name (default: this host)"),
                               cl::init("host"), cl::cat(category));
cl::opt<int64_t> attentionKeyTile("attention-key-tile",
                                  cl::desc("Keys per step of the online-softmax attention loop"),
                                  cl::init(64), cl::cat(category));

/// Writes the IR after each pass to DIR/NN-<pass-argument>.mlir.
struct DumpAfterEach : public PassInstrumentation {
  explicit DumpAfterEach(std::string dir) : dir(std::move(dir)) {}
  void runAfterPass(Pass *pass, Operation *op) override {
    if (!isa<ModuleOp>(op))
      return; // nested pass managers: the enclosing module pass dump covers them
    std::string arg = pass->getArgument().str();
    if (arg.empty())
      arg = pass->getName().str();
    SmallString<256> path(dir);
    llvm::sys::path::append(path, llvm::formatv("{0:02}-{1}.mlir", ++counter, arg).str());
    std::error_code ec;
    llvm::raw_fd_ostream os(path, ec);
    if (ec) {
      op->emitWarning() << "cannot write '" << path << "': " << ec.message();
      return;
    }
    op->print(os);
  }
  std::string dir;
  int counter = 0;
};

int fail(Location loc, const Twine &msg) {
  emitError(loc) << msg;
  return 1;
}
} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM y(argc, argv);
  cl::HideUnrelatedOptions(category);
  // The pipelines name upstream passes textually; they must be registered.
  registerAllPasses();
  registerDecodaConversionPasses();
  registerDecodaTransformsPasses();
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

  if (target == Target::CUDA)
    return fail(unknown, "--target=cuda: the NVIDIA GPU target is not implemented yet; use "
                         "--target=cpu");
  StringRef ext = llvm::sys::path::extension(inputPath);
  if (ext == ".onnx")
    return fail(unknown, "'" + inputPath + "': ONNX import is not implemented yet; give a "
                         ".mlir file in the decoda dialect");
  if (attentionKeyTile < 1)
    return fail(unknown, "--attention-key-tile must be positive");

  std::string errorMessage;
  std::unique_ptr<llvm::MemoryBuffer> file = openInputFile(inputPath, &errorMessage);
  if (!file)
    return fail(unknown, "cannot open '" + inputPath + "': " + errorMessage);
  auto sourceMgr = std::make_shared<llvm::SourceMgr>();
  sourceMgr->AddNewSourceBuffer(std::move(file), SMLoc());
  SourceMgrDiagnosticHandler diagHandler(*sourceMgr, &context);
  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(sourceMgr, &context);
  if (!module)
    return 1; // the parser reported where

  FailureOr<std::vector<EntrySignature>> signature = extractSignature(*module);
  if (failed(signature))
    return 1;
  stripSignatureAttributes(*module);

  PassManager pm(&context);
  if (failed(applyPassManagerCLOptions(pm)))
    return 1;
  if (!dumpDir.empty()) {
    if (std::error_code ec = llvm::sys::fs::create_directories(dumpDir))
      return fail(unknown, "cannot create '" + dumpDir + "': " + ec.message());
    pm.addInstrumentation(std::make_unique<DumpAfterEach>(dumpDir));
  }
  if (!noGraphOpt)
    buildGraphOptPassPipeline(pm, GraphOptPipelineOptions());
  CPULoweringPipelineOptions cpuOptions;
  cpuOptions.attentionKeyTile = attentionKeyTile;
  buildCPULoweringPassPipeline(pm, cpuOptions);
  if (failed(pm.run(*module)))
    return 1;

  if (emit == Emit::MLIR) {
    std::unique_ptr<llvm::ToolOutputFile> out = openOutputFile(outputPath, &errorMessage);
    if (!out)
      return fail(unknown, "cannot write '" + outputPath + "': " + errorMessage);
    module->print(out->os());
    out->keep();
    return 0;
  }

  CPUTargetOptions targetOptions;
  targetOptions.cpu = targetCpu;
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
    writeSupportSource(*signature, src);
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
