//===- ImporterImpl.h - internal state of the ONNX importer ---------------===//
//
// Values the importer tracks per ONNX tensor name, the per-node context handed to each op
// handler, the op table, and the IR builders the handlers share. Shape arithmetic (Shape,
// Gather, Concat, ... on shapes) is evaluated here at import time on `OpFoldResult`s, so that
// symbolic dims (batch, sequence, past length) stay dynamic while head counts and head dims fold.
//
//===----------------------------------------------------------------------===//

#ifndef DECODA_LIB_FRONTEND_ONNX_IMPORTERIMPL_H
#define DECODA_LIB_FRONTEND_ONNX_IMPORTERIMPL_H

#include "decoda/Frontend/ONNX/Importer.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Diagnostics.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"

#include <functional>
#include <map>
#include <memory>
#include <vector>
#include <optional>

namespace onnx {
class GraphProto;
class NodeProto;
class AttributeProto;
class TensorProto;
} // namespace onnx

namespace mlir::decoda::onnx_import {

/// What the importer knows about one ONNX value.
///  - Tensor: a run-time tensor `value` with its dims (constants or index values, so equal
///    symbolic dims are recognised as equal by identity).
///  - Const:  a compile-time tensor `cst`; materialised as `arith.constant` on first run-time use.
///  - Shape:  a rank-0/1 integer tensor whose elements are known symbolically (`elems`), the
///    result of shape arithmetic; materialised with `tensor.from_elements` only if data needs it.
///  - Sequence: an ONNX sequence whose length is known at import (`seq`, element type in
///    `elementType`); it exists only at import and is never materialised.
struct OnnxValue {
  enum class Kind { None, Tensor, Const, Shape, Sequence };
  Kind kind = Kind::None;
  Value value;
  SmallVector<OpFoldResult> dims;  // Tensor: dims; Shape: elements
  ElementsAttr cst;                // Const
  bool scalar = false;             // Shape: rank 0
  Type elementType;                // Shape: the integer type (i64 or i32); Sequence: elements'
  std::shared_ptr<std::vector<OnnxValue>> seq; // Sequence: the elements

  bool present() const { return kind != Kind::None; }
  bool isConst() const { return kind == Kind::Const; }
  bool isShape() const { return kind == Kind::Shape; }
  bool isTensor() const { return kind == Kind::Tensor; }
  bool isSequence() const { return kind == Kind::Sequence; }

  static OnnxValue tensor(Value v, ArrayRef<OpFoldResult> dims) {
    OnnxValue r;
    r.kind = Kind::Tensor;
    r.value = v;
    r.dims.assign(dims.begin(), dims.end());
    return r;
  }
  static OnnxValue constant(ElementsAttr attr) {
    OnnxValue r;
    r.kind = Kind::Const;
    r.cst = attr;
    return r;
  }
  static OnnxValue sequence(std::vector<OnnxValue> elems, Type elementType) {
    OnnxValue r;
    r.kind = Kind::Sequence;
    r.seq = std::make_shared<std::vector<OnnxValue>>(std::move(elems));
    r.elementType = elementType;
    return r;
  }
};

class Importer;

/// Everything an op handler sees of one node.
class NodeContext {
public:
  NodeContext(Importer &imp, const onnx::NodeProto &node, int64_t opset, Location loc);

  Importer &importer;
  const onnx::NodeProto &node;
  int64_t opset;
  Location loc;
  OpBuilder &b;

  StringRef opType() const;
  StringRef domain() const;
  StringRef name() const;

  unsigned numInputs() const;
  unsigned numOutputs() const;
  bool hasInput(unsigned i) const;
  bool hasOutput(unsigned i) const;
  /// Whether output `i` is read by a later node or is a graph output.
  bool outputUsed(unsigned i) const;
  /// Input `i`, or an absent value when the node omits it.
  OnnxValue &input(unsigned i);
  /// The input as a run-time tensor (materialising constants and shapes).
  Value tensorInput(unsigned i);
  RankedTensorType inputType(unsigned i);
  int64_t inputRank(unsigned i);
  void setOutput(unsigned i, OnnxValue v);
  void setOutput(unsigned i, Value v);

  // Attributes.
  const onnx::AttributeProto *attr(StringRef name) const;
  bool hasAttr(StringRef name) const { return attr(name) != nullptr; }
  int64_t intAttr(StringRef name, int64_t dflt) const;
  double floatAttr(StringRef name, double dflt) const;
  std::string stringAttr(StringRef name, StringRef dflt) const;
  SmallVector<int64_t> intsAttr(StringRef name) const;

  /// An integer vector known at import time, from a constant or a folded shape input.
  std::optional<SmallVector<int64_t>> constInts(unsigned i);
  /// A scalar float known at import time.
  std::optional<double> constFloat(unsigned i);

  /// `error() << ...` names node, op type, domain and opset.
  InFlightDiagnostic error();

  /// Normalises an axis against `rank` (negative counts from the end); reports out-of-range.
  FailureOr<int64_t> axis(int64_t a, int64_t rank);
};

using OpHandler = std::function<LogicalResult(NodeContext &)>;

struct OpEntry {
  const char *domain;  // "" for the default domain
  const char *opType;
  int64_t sinceVersion; // lowest opset handled
  OpHandler handler;
};

/// Fails, naming the input, when the node omits an input its operator's ONNX schema requires
/// (RequiredInputs.cpp); operators libonnx has no schema for pass.
LogicalResult checkRequiredInputs(NodeContext &n);

/// Adds one table entry.
inline void addOp(std::vector<OpEntry> &table, const char *domain, const char *opType,
                  int64_t sinceVersion, OpHandler handler) {
  table.push_back(OpEntry{domain, opType, sinceVersion, std::move(handler)});
}

void registerElementwiseOps(std::vector<OpEntry> &table);
void registerShapeOps(std::vector<OpEntry> &table);
void registerNNOps(std::vector<OpEntry> &table);
void registerAttentionOps(std::vector<OpEntry> &table);
void registerControlFlowOps(std::vector<OpEntry> &table);
void registerScatterOps(std::vector<OpEntry> &table);
void registerSequenceOps(std::vector<OpEntry> &table);

class Importer {
public:
  Importer(MLIRContext *ctx, const ImportOptions &options, StringRef modelPath);

  MLIRContext *ctx;
  const ImportOptions &options;
  std::string modelPath;
  std::string modelDir;
  OpBuilder b;
  ModuleOp module;
  llvm::StringMap<OnnxValue> values;
  llvm::StringMap<int64_t> opsets; // domain -> version
  llvm::StringSet<> usedNames;     // values read by some node or returned
  /// Run-time checks already emitted, by what they check (GroupQueryAttention's row lengths:
  /// every layer of a model reads the same seqlens_k), so that a model checks them once; with
  /// the values a later node reuses (whether every row is full; the least and greatest past_b
  /// of the rows).
  std::map<std::vector<const void *>, SmallVector<Value>> emittedChecks;
  /// (graph input, the value that is it updated in place): the input is donated to the graph
  /// output that returns the value (`decoda.donate`).
  SmallVector<std::pair<Value, Value>> donations;

  // Run-time materialisation.
  Value materialize(OnnxValue &v, Location loc);
  SmallVector<OpFoldResult> dimsOf(OnnxValue &v, Location loc);

  /// Converts a TensorProto (inline or external) into an elements attribute; reports on `loc`.
  FailureOr<ElementsAttr> convertTensor(const onnx::TensorProto &t, Location loc, bool forceInline);

  FailureOr<Type> convertElementType(int32_t onnxType, Location loc);

  /// Imports `graph`'s nodes in order into the current insertion point (the main graph, or a
  /// Loop body / If branch being inlined). Values are looked up by name, outer ones included.
  LogicalResult importNodes(const onnx::GraphProto &graph);
  /// Runs the default-domain handler of a node the importer made up (sequence ops expressed as
  /// Concat/Split/Unsqueeze/Squeeze); its outputs count as used.
  LogicalResult importSyntheticNode(const onnx::NodeProto &node, Location loc);
  Location fileLoc();
  Location nodeLoc(const onnx::NodeProto &node, int index);

  std::vector<std::shared_ptr<std::string>> ownedBlobs; // keeps raw_data alive for resources
};

//===----------------------------------------------------------------------===//
// IR helpers shared by handlers (Builders.cpp)
//===----------------------------------------------------------------------===//

RankedTensorType tensorType(ArrayRef<OpFoldResult> dims, Type elementType);
Value indexValue(OpBuilder &b, Location loc, OpFoldResult ofr);
OpFoldResult foldIndexBinary(OpBuilder &b, Location loc, char op, OpFoldResult lhs,
                             OpFoldResult rhs);
bool sameDim(OpFoldResult a, OpFoldResult b);

using ScalarBody = std::function<Value(OpBuilder &, Location, ValueRange)>;

/// Numpy-broadcasting elementwise map over run-time tensors, one `linalg.generic`. Dynamic
/// dims that must agree are asserted equal at run time (broadcasting a dynamic 1 is refused).
FailureOr<OnnxValue> emitElementwise(NodeContext &n, ArrayRef<OnnxValue> inputs,
                                     Type resultElementType, const ScalarBody &body);
/// Same, with explicit target dims (Expand).
FailureOr<OnnxValue> emitBroadcastTo(NodeContext &n, OnnxValue input,
                                     ArrayRef<OpFoldResult> dims);

enum class ReduceKind { Sum, Max, Min, Mean, Prod };
FailureOr<OnnxValue> emitReduce(NodeContext &n, OnnxValue input, ArrayRef<int64_t> axes,
                                bool keepDims, ReduceKind kind);

/// Reshape to dims (no 0/-1 left), by expand/collapse_shape when possible, else tensor.reshape.
FailureOr<OnnxValue> emitReshape(NodeContext &n, OnnxValue input, ArrayRef<OpFoldResult> dims);
OnnxValue emitTranspose(NodeContext &n, OnnxValue input, ArrayRef<int64_t> perm);
/// Generic batched matmul with numpy batch broadcasting ([..., M, K] x [..., K, N]).
FailureOr<OnnxValue> emitMatMul(NodeContext &n, OnnxValue a, OnnxValue bv);

/// Converts a scalar between element types the way ONNX Cast does.
Value castScalar(OpBuilder &b, Location loc, Value v, Type to);
/// A scalar constant of element type `t`.
Value scalarConst(OpBuilder &b, Location loc, Type t, double v);

/// Elements of a rank-0/1 integer value known at import (Const or Shape), as OpFoldResults.
std::optional<SmallVector<OpFoldResult>> shapeElements(OnnxValue &v);
/// Builds a Shape value (or an i64 Const when every element is constant).
OnnxValue makeShapeValue(MLIRContext *ctx, ArrayRef<OpFoldResult> elems, bool scalar,
                         Type intType);

} // namespace mlir::decoda::onnx_import

#endif // DECODA_LIB_FRONTEND_ONNX_IMPORTERIMPL_H
