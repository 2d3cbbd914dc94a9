//===- RequiredInputs.cpp - inputs an ONNX operator cannot do without -----===//
//
// Every node is checked against its operator's schema (ONNX's own registry, libonnx) before its
// handler runs: a required input that the node omits (an empty name, or a node with too few
// inputs) is an error naming the node, the input and its formal name. Handlers read required
// inputs without checking; before this check an omitted one reached them as a null value and
// crashed the importer (found by fuzzing: RMSNormalization with no input, and the same for
// MatMul, Gemm, Reshape, LayerNormalization, Concat, ...; docs/Reliability.md). Operators without
// a schema in libonnx (com.microsoft, or newer than the library) need input 0; their handlers
// check the others.
//
//===----------------------------------------------------------------------===//

#include "ImporterImpl.h"

#include <onnx/defs/schema.h>

using namespace mlir;
using namespace mlir::decoda::onnx_import;

LogicalResult mlir::decoda::onnx_import::checkRequiredInputs(NodeContext &n) {
  std::string domain = n.domain() == "ai.onnx" ? "" : n.domain().str();
  const onnx::OpSchema *schema =
      onnx::OpSchemaRegistry::Schema(n.opType().str(), static_cast<int>(n.opset), domain);
  if (!schema) {
    // No schema in this libonnx (com.microsoft operators, operators newer than the library such
    // as RMSNormalization-23): every such operator the importer handles needs its first input;
    // handlers check the others.
    if (!n.hasInput(0))
      return n.error() << "input 0 is required and the node omits it", failure();
    return success();
  }
  const std::vector<onnx::OpSchema::FormalParameter> &formal = schema->inputs();
  for (size_t i = 0; i < formal.size(); ++i) {
    onnx::OpSchema::FormalParameterOption option = formal[i].GetOption();
    if (option == onnx::OpSchema::Optional)
      continue;
    if (option == onnx::OpSchema::Variadic) {
      // The last formal input: at least min_arity values (from position i on).
      int arity = formal[i].GetMinArity();
      for (int k = 0; k < arity; ++k)
        if (!n.hasInput(static_cast<unsigned>(i + k)))
          return n.error() << "input " << i + k << " ('" << formal[i].GetName()
                           << "', variadic, at least " << arity
                           << ") is required and the node omits it",
                 failure();
      break;
    }
    if (!n.hasInput(static_cast<unsigned>(i)))
      return n.error() << "input " << i << " ('" << formal[i].GetName()
                       << "') is required and the node omits it",
             failure();
  }
  return success();
}
