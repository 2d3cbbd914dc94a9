//===- OpsControlFlow.cpp - ONNX Loop and If, resolved at import ----------===//
//
// Exporters emit `Loop` for Python loops whose trip count is a constant (or folds to one from
// shapes) and `If` on conditions that fold. Both are inlined at import: a Loop is unrolled, its
// body imported once per iteration with the loop-carried values bound to the body's inputs, its
// scan outputs stacked; an If imports the branch its constant condition selects. A trip count or
// condition known only at run time is refused with an error naming the node.
//
//===----------------------------------------------------------------------===//

#include "ImporterImpl.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

#include <onnx/onnx_pb.h>

using namespace mlir;
using namespace mlir::decoda;
using namespace mlir::decoda::onnx_import;

namespace {

constexpr int64_t kMaxUnroll = 4096;

/// A boolean (or integer) scalar known at import.
std::optional<bool> constBoolValue(OnnxValue &v) {
  if (v.isConst())
    if (auto d = dyn_cast<DenseElementsAttr>(v.cst); d && d.getNumElements() == 1) {
      if (isa<IntegerType>(d.getElementType()))
        return !(*d.getValues<APInt>().begin()).isZero();
      return !(*d.getValues<APFloat>().begin()).isZero();
    }
  if (auto e = shapeElements(v); e && e->size() == 1)
    if (std::optional<int64_t> c = getConstantIntValue((*e)[0]))
      return *c != 0;
  return std::nullopt;
}

std::optional<bool> constBool(NodeContext &n, unsigned i) {
  if (!n.hasInput(i))
    return std::nullopt;
  return constBoolValue(n.input(i));
}

OnnxValue scalarConstant(MLIRContext *ctx, Type t, int64_t v) {
  return OnnxValue::constant(DenseElementsAttr::get(
      RankedTensorType::get({}, t), t.isInteger(1) ? Attribute(BoolAttr::get(ctx, v != 0))
                                                   : Attribute(IntegerAttr::get(t, v))));
}

/// Stacks per-iteration values along a new leading axis.
FailureOr<OnnxValue> stack(NodeContext &n, SmallVectorImpl<OnnxValue> &parts) {
  SmallVector<Value> vals;
  SmallVector<OpFoldResult> dims;
  for (OnnxValue &p : parts) {
    SmallVector<OpFoldResult> d = n.importer.dimsOf(p, n.loc);
    SmallVector<OpFoldResult> withUnit = {n.b.getIndexAttr(1)};
    withUnit.append(d.begin(), d.end());
    FailureOr<OnnxValue> r = emitReshape(n, p, withUnit);
    if (failed(r))
      return failure();
    vals.push_back(n.importer.materialize(*r, n.loc));
    if (dims.empty())
      dims = withUnit;
  }
  if (vals.size() == 1)
    return OnnxValue::tensor(vals[0], dims);
  // Pieces must agree in type to be concatenated; the first one's type rules.
  for (Value &v : vals)
    if (v.getType() != vals[0].getType())
      v = tensor::CastOp::create(n.b, n.loc, vals[0].getType(), v);
  Value r = tensor::ConcatOp::create(n.b, n.loc, 0, vals);
  dims[0] = n.b.getIndexAttr(vals.size());
  return OnnxValue::tensor(r, dims);
}

LogicalResult importLoop(NodeContext &n) {
  const onnx::AttributeProto *bodyAttr = n.attr("body");
  if (!bodyAttr || !bodyAttr->has_g())
    return n.error() << "has no body graph";
  const onnx::GraphProto &body = bodyAttr->g();
  int64_t carried = (int64_t)n.numInputs() - 2;
  if (carried < 0 || body.input_size() != carried + 2 || body.output_size() < carried + 1)
    return n.error() << "the body's inputs/outputs do not match the loop-carried values";
  int64_t scans = body.output_size() - 1 - carried;
  std::optional<int64_t> trips;
  if (n.hasInput(0)) {
    auto m = n.constInts(0);
    if (!m || m->size() != 1)
      return n.error() << "the trip count must be known at compile time (a constant or shape "
                          "arithmetic); loops with run-time trip counts are not supported";
    trips = (*m)[0];
  }
  if (n.hasInput(1)) {
    std::optional<bool> c = constBool(n, 1);
    if (!c)
      return n.error() << "the loop condition must be known at compile time";
    if (!*c)
      trips = 0;
  }
  if (!trips)
    return n.error() << "a loop without a trip count runs until a run-time condition; not "
                        "supported";
  if (*trips > kMaxUnroll)
    return n.error() << "trip count " << *trips << " is above the unrolling limit " << kMaxUnroll;
  SmallVector<OnnxValue> state;
  for (int64_t k = 0; k < carried; ++k)
    state.push_back(n.input(2 + k));
  SmallVector<SmallVector<OnnxValue>> scanParts(scans);
  MLIRContext *ctx = n.b.getContext();
  Importer &imp = n.importer;
  for (int64_t it = 0; it < *trips; ++it) {
    imp.values[body.input(0).name()] = scalarConstant(ctx, n.b.getI64Type(), it);
    imp.values[body.input(1).name()] = scalarConstant(ctx, n.b.getI1Type(), 1);
    for (int64_t k = 0; k < carried; ++k)
      imp.values[body.input(2 + k).name()] = state[k];
    if (failed(imp.importNodes(body)))
      return n.error() << "in iteration " << it << " of the loop body";
    auto get = [&](int i) -> FailureOr<OnnxValue> {
      auto f = imp.values.find(body.output(i).name());
      if (f == imp.values.end())
        return n.error() << "body output '" << body.output(i).name() << "' is not produced",
               failure();
      return f->second;
    };
    FailureOr<OnnxValue> cond = get(0);
    if (failed(cond))
      return failure();
    std::optional<bool> keepGoing = constBoolValue(*cond);
    if (!keepGoing)
      return n.error() << "the body's condition output is known only at run time";
    for (int64_t k = 0; k < carried; ++k) {
      FailureOr<OnnxValue> v = get(1 + k);
      if (failed(v))
        return failure();
      state[k] = *v;
    }
    for (int64_t j = 0; j < scans; ++j) {
      FailureOr<OnnxValue> v = get(1 + carried + j);
      if (failed(v))
        return failure();
      if (v->isSequence())
        return n.error() << "scan output " << j << " is a sequence; not supported";
      scanParts[j].push_back(*v);
    }
    if (!*keepGoing)
      break;
  }
  for (int64_t k = 0; k < carried; ++k)
    n.setOutput(k, state[k]);
  for (int64_t j = 0; j < scans; ++j) {
    if (!n.outputUsed(carried + j))
      continue;
    if (scanParts[j].empty())
      return n.error() << "scan output " << j << " of a loop that runs no iteration is empty "
                       << "(its shape is unknown)";
    FailureOr<OnnxValue> s = stack(n, scanParts[j]);
    if (failed(s))
      return failure();
    n.setOutput(carried + j, *s);
  }
  return success();
}

LogicalResult importIf(NodeContext &n) {
  std::optional<bool> c = constBool(n, 0);
  if (!c)
    return n.error() << "the condition must be known at compile time (a constant or shape "
                        "arithmetic); run-time branching is not supported";
  const onnx::AttributeProto *branch = n.attr(*c ? "then_branch" : "else_branch");
  if (!branch || !branch->has_g())
    return n.error() << "has no " << (*c ? "then_branch" : "else_branch") << " graph";
  const onnx::GraphProto &g = branch->g();
  if (g.output_size() != (int)n.numOutputs())
    return n.error() << "the branch has " << g.output_size() << " outputs, the node "
                     << n.numOutputs();
  if (failed(n.importer.importNodes(g)))
    return n.error() << "in the " << (*c ? "then" : "else") << " branch";
  for (int i = 0; i < g.output_size(); ++i) {
    auto f = n.importer.values.find(g.output(i).name());
    if (f == n.importer.values.end())
      return n.error() << "branch output '" << g.output(i).name() << "' is not produced";
    n.setOutput(i, f->second);
  }
  return success();
}

} // namespace

void onnx_import::registerControlFlowOps(std::vector<OpEntry> &t) {
  addOp(t, "", "Loop", 13, importLoop);
  addOp(t, "", "If", 13, importIf);
}
