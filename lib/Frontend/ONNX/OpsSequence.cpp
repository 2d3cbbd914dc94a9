//===- OpsSequence.cpp - ONNX sequence ops, resolved at import ------------===//
//
// Exporters emit sequences for Python lists of tensors (torch.split/chunk/unbind results,
// lists built in a loop and stacked): SequenceConstruct, SequenceEmpty, SequenceAt,
// SequenceInsert, SequenceErase, SequenceLength, ConcatFromSequence, SplitToSequence. A
// sequence exists only at import, as a list of values whose length is known; every position
// must be known at import, and SplitToSequence needs a static split. Concatenation and
// splitting are imported as the Concat, Unsqueeze, Split and Squeeze nodes they amount to.
// Anything that would need a run-time length is refused naming the node.
//
//===----------------------------------------------------------------------===//

#include "ImporterImpl.h"

#include "mlir/Dialect/Utils/StaticValueUtils.h"

#include <onnx/onnx_pb.h>

using namespace mlir;
using namespace mlir::decoda;
using namespace mlir::decoda::onnx_import;

namespace {

FailureOr<OnnxValue *> sequenceInput(NodeContext &n, unsigned i) {
  if (!n.hasInput(i) || !n.input(i).isSequence())
    return n.error() << "input " << i << " must be a sequence", failure();
  return &n.input(i);
}

Type elementTypeOf(NodeContext &n, unsigned i) { return n.inputType(i).getElementType(); }

/// A position input known at import, normalised against `len` (`allowEnd`: `len` itself is a
/// valid position, as for SequenceInsert). Absent: `dflt`.
FailureOr<int64_t> position(NodeContext &n, unsigned i, int64_t len, bool allowEnd,
                            int64_t dflt) {
  if (!n.hasInput(i))
    return dflt;
  auto p = n.constInts(i);
  if (!p || p->size() != 1)
    return n.error() << "the position must be known at compile time (sequences are resolved "
                        "at import)",
           failure();
  int64_t v = (*p)[0];
  int64_t r = v < 0 ? v + len : v;
  if (r < 0 || r > len || (r == len && !allowEnd))
    return n.error() << "position " << v << " is out of range for a sequence of length " << len,
           failure();
  return r;
}

/// Registers `v` under a fresh internal name (inputs of the synthetic nodes).
std::string stash(NodeContext &n, const OnnxValue &v, const Twine &tag) {
  std::string name = ("\x01seq." + n.name() + "." + tag).str();
  n.importer.values[name] = v;
  return name;
}

onnx::NodeProto synthetic(NodeContext &n, StringRef opType) {
  onnx::NodeProto node;
  node.set_op_type(opType.str());
  node.set_name(n.name().str());
  return node;
}

void intAttr(onnx::NodeProto &node, StringRef name, int64_t v) {
  onnx::AttributeProto *a = node.add_attribute();
  a->set_name(name.str());
  a->set_type(onnx::AttributeProto::INT);
  a->set_i(v);
}

OnnxValue i64Vector(MLIRContext *ctx, ArrayRef<int64_t> v) {
  auto type = RankedTensorType::get({(int64_t)v.size()}, IntegerType::get(ctx, 64));
  return OnnxValue::constant(DenseElementsAttr::get(type, v));
}

LogicalResult sequenceConstruct(NodeContext &n) {
  std::vector<OnnxValue> elems;
  Type et;
  for (unsigned i = 0; i < n.numInputs(); ++i) {
    if (!n.hasInput(i))
      return n.error() << "input " << i << " is empty";
    Type t = elementTypeOf(n, i);
    if (et && t != et)
      return n.error() << "input " << i << " is " << t << ", the others " << et;
    et = t;
    elems.push_back(n.input(i));
  }
  if (elems.empty())
    return n.error() << "needs at least one input";
  n.setOutput(0, OnnxValue::sequence(std::move(elems), et));
  return success();
}

LogicalResult sequenceEmpty(NodeContext &n) {
  FailureOr<Type> et =
      n.importer.convertElementType(n.intAttr("dtype", onnx::TensorProto::FLOAT), n.loc);
  if (failed(et))
    return n.error() << "unsupported dtype";
  n.setOutput(0, OnnxValue::sequence({}, *et));
  return success();
}

LogicalResult sequenceAt(NodeContext &n) {
  FailureOr<OnnxValue *> s = sequenceInput(n, 0);
  if (failed(s))
    return failure();
  std::vector<OnnxValue> &elems = *(*s)->seq;
  FailureOr<int64_t> p = position(n, 1, elems.size(), false, 0);
  if (failed(p))
    return failure();
  n.setOutput(0, elems[*p]);
  return success();
}

LogicalResult sequenceInsert(NodeContext &n) {
  FailureOr<OnnxValue *> s = sequenceInput(n, 0);
  if (failed(s))
    return failure();
  std::vector<OnnxValue> elems = *(*s)->seq; // a copy: sequences are values
  Type et = (*s)->elementType;
  if (!n.hasInput(1) || n.input(1).isSequence())
    return n.error() << "input 1 must be a tensor";
  if (elementTypeOf(n, 1) != et)
    return n.error() << "inserts a " << elementTypeOf(n, 1) << " tensor into a sequence of "
                     << et;
  FailureOr<int64_t> p = position(n, 2, elems.size(), true, elems.size());
  if (failed(p))
    return failure();
  elems.insert(elems.begin() + *p, n.input(1));
  n.setOutput(0, OnnxValue::sequence(std::move(elems), et));
  return success();
}

LogicalResult sequenceErase(NodeContext &n) {
  FailureOr<OnnxValue *> s = sequenceInput(n, 0);
  if (failed(s))
    return failure();
  std::vector<OnnxValue> elems = *(*s)->seq;
  if (elems.empty())
    return n.error() << "erases from an empty sequence";
  FailureOr<int64_t> p = position(n, 1, elems.size(), false, elems.size() - 1);
  if (failed(p))
    return failure();
  elems.erase(elems.begin() + *p);
  n.setOutput(0, OnnxValue::sequence(std::move(elems), (*s)->elementType));
  return success();
}

LogicalResult sequenceLength(NodeContext &n) {
  FailureOr<OnnxValue *> s = sequenceInput(n, 0);
  if (failed(s))
    return failure();
  int64_t len = (*s)->seq->size();
  auto type = RankedTensorType::get({}, n.b.getI64Type());
  n.setOutput(0, OnnxValue::constant(DenseElementsAttr::get(type, ArrayRef<int64_t>{len})));
  return success();
}

LogicalResult concatFromSequence(NodeContext &n) {
  FailureOr<OnnxValue *> s = sequenceInput(n, 0);
  if (failed(s))
    return failure();
  std::vector<OnnxValue> elems = *(*s)->seq;
  if (elems.empty())
    return n.error() << "concatenates an empty sequence (its shape is unknown)";
  bool newAxis = n.intAttr("new_axis", 0) != 0;
  if (!n.hasAttr("axis"))
    return n.error() << "the 'axis' attribute is required";
  int64_t axis = n.intAttr("axis", 0);
  OpBuilder &b = n.b;
  MLIRContext *ctx = b.getContext();
  onnx::NodeProto concat = synthetic(n, "Concat");
  for (auto [i, e] : llvm::enumerate(elems)) {
    std::string name = stash(n, e, "in" + Twine(i));
    if (newAxis) {
      // np.stack: every element gets a unit dim at `axis` (counted in the output's rank).
      int64_t rank = cast<ShapedType>(e.isConst() ? e.cst.getType()
                                                  : n.importer.materialize(e, n.loc).getType())
                         .getRank();
      int64_t a = axis < 0 ? axis + rank + 1 : axis;
      if (a < 0 || a > rank)
        return n.error() << "axis " << axis << " is out of range for stacking rank-" << rank
                         << " tensors";
      onnx::NodeProto un = synthetic(n, "Unsqueeze");
      un.add_input(name);
      un.add_input(stash(n, i64Vector(ctx, {a}), "axes" + Twine(i)));
      std::string out = name + ".u";
      un.add_output(out);
      if (failed(n.importer.importSyntheticNode(un, n.loc)))
        return failure();
      name = out;
    }
    concat.add_input(name);
  }
  std::string out = stash(n, OnnxValue(), "out");
  concat.add_output(out);
  intAttr(concat, "axis", axis);
  if (failed(n.importer.importSyntheticNode(concat, n.loc)))
    return failure();
  n.setOutput(0, n.importer.values[out]);
  return success();
}

LogicalResult splitToSequence(NodeContext &n) {
  if (n.input(0).isSequence())
    return n.error() << "input 0 must be a tensor";
  int64_t rank = n.inputRank(0);
  FailureOr<int64_t> ax = n.axis(n.intAttr("axis", 0), rank);
  if (failed(ax))
    return failure();
  SmallVector<OpFoldResult> dims = n.importer.dimsOf(n.input(0), n.loc);
  std::optional<int64_t> len = getConstantIntValue(dims[*ax]);
  if (!len)
    return n.error() << "splits a dynamic axis: the sequence length would be known only at run "
                        "time, which is not supported";
  SmallVector<int64_t> sizes;
  bool squeeze = false;
  if (!n.hasInput(1)) {
    sizes.assign(*len, 1);
    squeeze = n.intAttr("keepdims", 1) == 0;
  } else {
    auto sp = n.constInts(1);
    if (!sp)
      return n.error() << "the split must be known at compile time";
    if (n.inputRank(1) == 0) {
      int64_t chunk = (*sp)[0];
      if (chunk <= 0)
        return n.error() << "split size " << chunk << " is not positive";
      for (int64_t off = 0; off < *len; off += chunk)
        sizes.push_back(std::min(chunk, *len - off));
    } else {
      sizes.assign(sp->begin(), sp->end());
      int64_t sum = 0;
      for (int64_t s : sizes) {
        if (s < 0)
          return n.error() << "split size " << s << " is negative";
        sum += s;
      }
      if (sum != *len)
        return n.error() << "split sizes add up to " << sum << ", the axis is " << *len;
    }
  }
  std::vector<OnnxValue> elems;
  Type et = elementTypeOf(n, 0);
  if (!sizes.empty()) {
    MLIRContext *ctx = n.b.getContext();
    onnx::NodeProto split = synthetic(n, "Split");
    split.add_input(stash(n, n.input(0), "in"));
    split.add_input(stash(n, i64Vector(ctx, sizes), "split"));
    intAttr(split, "axis", *ax);
    SmallVector<std::string> outs;
    for (size_t i = 0; i < sizes.size(); ++i) {
      outs.push_back(stash(n, OnnxValue(), "part" + Twine(i)));
      split.add_output(outs.back());
    }
    if (failed(n.importer.importSyntheticNode(split, n.loc)))
      return failure();
    for (auto [i, name] : llvm::enumerate(outs)) {
      if (squeeze) {
        onnx::NodeProto sq = synthetic(n, "Squeeze");
        sq.add_input(name);
        sq.add_input(stash(n, i64Vector(ctx, {*ax}), "axes" + Twine(i)));
        std::string out = name + ".s";
        sq.add_output(out);
        if (failed(n.importer.importSyntheticNode(sq, n.loc)))
          return failure();
        elems.push_back(n.importer.values[out]);
      } else {
        elems.push_back(n.importer.values[name]);
      }
    }
  }
  n.setOutput(0, OnnxValue::sequence(std::move(elems), et));
  return success();
}

} // namespace

void onnx_import::registerSequenceOps(std::vector<OpEntry> &t) {
  addOp(t, "", "SequenceConstruct", 11, sequenceConstruct);
  addOp(t, "", "SequenceEmpty", 11, sequenceEmpty);
  addOp(t, "", "SequenceAt", 11, sequenceAt);
  addOp(t, "", "SequenceInsert", 11, sequenceInsert);
  addOp(t, "", "SequenceErase", 11, sequenceErase);
  addOp(t, "", "SequenceLength", 11, sequenceLength);
  addOp(t, "", "ConcatFromSequence", 11, concatFromSequence);
  addOp(t, "", "SplitToSequence", 11, splitToSequence);
}
