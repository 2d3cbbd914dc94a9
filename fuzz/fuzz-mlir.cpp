//===- fuzz-mlir.cpp - libFuzzer target: the .mlir parser + decoda verifiers ===//
//
// MLIR's parser fuzzing pattern (mlir/tools/mlir-parser-fuzzer): the input is parsed as .mlir
// source in a context with `decoda` and the upstream dialects its graph IR uses; parsing runs every op verifier
// (decoda's included). A module that parses is printed and parsed again (round trip). Errors are
// expected and swallowed; a crash, sanitizer report, leak, hang or out-of-memory is a finding.
//
//===----------------------------------------------------------------------===//

#include "decoda/Dialect/Decoda/IR/DecodaDialect.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Parser/Parser.h"

#include "llvm/Support/raw_ostream.h"

#include <cstddef>
#include <cstdint>
#include <string>

using namespace mlir;

static const DialectRegistry &registry() {
  static DialectRegistry *r = [] {
    auto *reg = new DialectRegistry;
    // The dialects of Decoda's graph-level IR (what decoda-translate and decoda-compile read).
    reg->insert<decoda::DecodaDialect, arith::ArithDialect, func::FuncDialect,
                linalg::LinalgDialect, math::MathDialect, scf::SCFDialect,
                tensor::TensorDialect>();
    return reg;
  }();
  return *r;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  MLIRContext context(registry(), MLIRContext::Threading::DISABLED);
  ScopedDiagnosticHandler quiet(&context, [](Diagnostic &) { return success(); });
  ParserConfig config(&context);
  // MLIR's lexer reads up to a terminating NUL, as every file the tools read through
  // llvm::MemoryBuffer has; the raw fuzz bytes have none, so they go through a std::string.
  std::string source(reinterpret_cast<const char *>(data), size);
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(source, config, "fuzz.mlir");
  if (!module)
    return 0;
  std::string text;
  llvm::raw_string_ostream os(text);
  module->print(os);
  (void)parseSourceString<ModuleOp>(text, config, "fuzz-roundtrip.mlir");
  return 0;
}
