//===- fuzz-onnx.cpp - libFuzzer target: the ONNX importer -----------------===//
//
// Input: the bytes of an .onnx file. They go through importONNXBuffer (protobuf parse, graph
// checks, shape inference and constant folding, IR construction) and, when the import succeeds,
// the module is verified and run through decoda-raise-onnx and verified again. Diagnostics are
// expected and swallowed; a crash, a sanitizer report, a leak, a hang or an out-of-memory is a
// finding. External data is off: the input alone is the model.
//
//===----------------------------------------------------------------------===//

#include "decoda/Dialect/Decoda/IR/DecodaDialect.h"
#include "decoda/Frontend/ONNX/Importer.h"
#include "decoda/Transforms/Passes.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/InitAllDialects.h"
#include "mlir/Pass/PassManager.h"

#include <cstddef>
#include <cstdint>
#include <memory>

using namespace mlir;

static const DialectRegistry &registry() {
  static DialectRegistry *r = [] {
    auto *reg = new DialectRegistry;
    registerAllDialects(*reg);
    reg->insert<decoda::DecodaDialect>();
    decoda::registerDecodaTransformsPasses();
    return reg;
  }();
  return *r;
}

/// One context for 256 inputs at a time: loading the dialects costs about 100 ms, and a fresh
/// context now and then bounds what uniqued types and attributes accumulate.
static MLIRContext &freshContext() {
  static std::unique_ptr<MLIRContext> context;
  static unsigned uses = 0;
  if (!context || ++uses % 256 == 0) {
    context = std::make_unique<MLIRContext>(registry(), MLIRContext::Threading::DISABLED);
    context->loadAllAvailableDialects();
  }
  return *context;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  MLIRContext &context = freshContext();
  ScopedDiagnosticHandler quiet(&context, [](Diagnostic &) { return success(); });
  decoda::onnx_import::ImportOptions options;
  options.allowExternalData = false;
  OwningOpRef<ModuleOp> module = decoda::onnx_import::importONNXBuffer(
      llvm::StringRef(reinterpret_cast<const char *>(data), size), "fuzz.onnx", &context,
      options);
  if (!module)
    return 0;
  if (failed(verify(*module)))
    __builtin_trap(); // the importer must build valid IR or fail with a diagnostic
  PassManager pm(&context);
  if (failed(parsePassPipeline("builtin.module(decoda-raise-onnx)", pm)))
    __builtin_trap();
  (void)pm.run(*module); // runs the verifier after the pass
  return 0;
}
