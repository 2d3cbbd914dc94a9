//===- Importer.h - ONNX model to MLIR (decoda + linalg/tensor/arith) ------===//
//
// The ONNX front end: reads a ModelProto with Debian's libonnx protobuf classes and builds one
// `func.func @main` whose arguments and results are the graph's inputs and outputs. It only
// builds IR: decomposed subgraphs are raised to `decoda` ops by `decoda-raise-onnx` afterwards.
//
//===----------------------------------------------------------------------===//

#ifndef DECODA_FRONTEND_ONNX_IMPORTER_H
#define DECODA_FRONTEND_ONNX_IMPORTER_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

#include <string>

namespace mlir::decoda::onnx_import {

struct ImportOptions {
  /// Name of the entry function.
  std::string entryName = "main";
  /// Initializers with at most this many elements become `dense<...>` (readable, foldable);
  /// larger ones become `dense_resource` blobs that share the model's bytes.
  int64_t inlineConstantLimit = 64;
  /// Read external data files next to the model (checked, see ExternalData.cpp).
  bool allowExternalData = true;
  /// GroupQueryAttention's past is a buffer at least total_sequence_length long shared with
  /// present (onnxruntime-genai's past_present_share_buffer): present is the past with the new
  /// tokens written in (its length, entries after a row's tokens kept), checked at run time.
  bool sharedKVBuffers = false;
  /// With sharedKVBuffers, each past donated to its present (`decoda.donate`) when present is
  /// a graph output of the past's type: a donating caller's buffer is updated in place.
  bool donateSharedKVBuffers = true;
};

/// Imports the model at `path` (external data locations resolve against its directory).
/// Failures are reported as diagnostics on `context`; returns null then.
OwningOpRef<ModuleOp> importONNXFile(llvm::StringRef path, MLIRContext *context,
                                     const ImportOptions &options = {});

/// Imports a serialised model held in memory; `path` names it in diagnostics and anchors
/// external data.
OwningOpRef<ModuleOp> importONNXBuffer(llvm::StringRef bytes, llvm::StringRef path,
                                       MLIRContext *context, const ImportOptions &options = {});

/// Registers `--import-onnx` with mlir-translate's registry.
void registerONNXImportTranslation();

/// The ONNX ops the importer knows: "domain:OpType" per line, for documentation and tests.
std::vector<std::string> supportedOps();

} // namespace mlir::decoda::onnx_import

#endif // DECODA_FRONTEND_ONNX_IMPORTER_H
