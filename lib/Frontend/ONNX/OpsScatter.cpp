//===- OpsScatter.cpp - ONNX TopK, ScatterND, ScatterElements -------------===//
//
// The data-dependent indexing ops of MoE routing and KV-cache updates:
//
//  - TopK (K known at import): K rounds of a masked arg-max (arg-min for largest = 0) along the
//    axis in an `scf.for`, ties to the lower index, so the output is always sorted;
//  - ScatterND: one `scf.for` over the index tuples, each writing (or reducing into) one slice
//    of the output with `tensor.insert_slice`; every index is range-checked at run time;
//  - ScatterElements: one `scf.for` over the elements of `indices`, each a scalar
//    `tensor.insert` (or a reduction into the element), indices range-checked.
//
// The loops carry the output tensor, so bufferization updates one buffer in place.
//
//===----------------------------------------------------------------------===//

#include "ImporterImpl.h"

#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

#include <onnx/onnx_pb.h>

using namespace mlir;
using namespace mlir::decoda;
using namespace mlir::decoda::onnx_import;

namespace {

Value cIdx(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIndexOp::create(b, loc, v);
}

Value filled(OpBuilder &b, Location loc, ArrayRef<OpFoldResult> dims, Type et, TypedAttr v) {
  Value e = tensor::EmptyOp::create(b, loc, dims, et);
  Value c = arith::ConstantOp::create(b, loc, v);
  return linalg::FillOp::create(b, loc, c, e).getResult(0);
}

/// `a > b` (or `a < b` with `!greater`) for floats or signed integers.
Value compare(OpBuilder &b, Location loc, Value a, Value c, bool greater) {
  if (isa<FloatType>(a.getType()))
    return arith::CmpFOp::create(b, loc,
                                 greater ? arith::CmpFPredicate::OGT : arith::CmpFPredicate::OLT,
                                 a, c);
  return arith::CmpIOp::create(b, loc,
                               greater ? arith::CmpIPredicate::sgt : arith::CmpIPredicate::slt, a,
                               c);
}

/// The scatter reduction of `cur` and `upd` ("none" returns `upd`).
Value reduceScalar(OpBuilder &b, Location loc, StringRef kind, Value cur, Value upd) {
  bool f = isa<FloatType>(upd.getType());
  if (kind == "add")
    return f ? arith::AddFOp::create(b, loc, cur, upd).getResult()
             : arith::AddIOp::create(b, loc, cur, upd).getResult();
  if (kind == "mul")
    return f ? arith::MulFOp::create(b, loc, cur, upd).getResult()
             : arith::MulIOp::create(b, loc, cur, upd).getResult();
  if (kind == "max")
    return f ? arith::MaximumFOp::create(b, loc, cur, upd).getResult()
             : arith::MaxSIOp::create(b, loc, cur, upd).getResult();
  if (kind == "min")
    return f ? arith::MinimumFOp::create(b, loc, cur, upd).getResult()
             : arith::MinSIOp::create(b, loc, cur, upd).getResult();
  return upd;
}

FailureOr<std::string> reductionOf(NodeContext &n) {
  std::string r = n.stringAttr("reduction", "none");
  if (r != "none" && r != "add" && r != "mul" && r != "max" && r != "min")
    return n.error() << "unknown reduction '" << r << "' (known: none, add, mul, max, min)",
           failure();
  return r;
}

/// An integer index scalar as `index`, negative ones counting from `size`, asserted in range.
Value checkedIndex(OpBuilder &b, Location loc, Value i, Value size, const std::string &what) {
  Value v = arith::IndexCastOp::create(b, loc, b.getIndexType(), i);
  Value zero = cIdx(b, loc, 0);
  Value neg = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, v, zero);
  v = arith::SelectOp::create(b, loc, neg, arith::AddIOp::create(b, loc, v, size), v);
  Value ok = arith::AndIOp::create(
      b, loc, arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, v, zero),
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, v, size));
  cf::AssertOp::create(b, loc, ok, what);
  return v;
}

LogicalResult importTopK(NodeContext &n) {
  OnnxValue x = n.input(0);
  int64_t rank = n.inputRank(0);
  if (rank == 0)
    return n.error() << "the input must have rank 1 or more";
  FailureOr<int64_t> ax = n.axis(n.intAttr("axis", -1), rank);
  if (failed(ax))
    return failure();
  auto kv = n.constInts(1);
  if (!kv || kv->size() != 1)
    return n.error() << "K must be a one-element constant known at compile time";
  int64_t k = (*kv)[0];
  if (k < 0)
    return n.error() << "K = " << k << " is negative";
  bool largest = n.intAttr("largest", 1) != 0;
  Type et = n.inputType(0).getElementType();
  OpBuilder &b = n.b;
  Location loc = n.loc;
  Type i64 = b.getI64Type();

  // The axis goes last.
  SmallVector<int64_t> perm;
  for (int64_t d = 0; d < rank; ++d)
    if (d != *ax)
      perm.push_back(d);
  perm.push_back(*ax);
  bool moved = *ax != rank - 1;
  OnnxValue xl = moved ? emitTranspose(n, x, perm) : x;
  SmallVector<OpFoldResult> dims = n.importer.dimsOf(xl, loc);
  OpFoldResult axisSize = dims.back();
  if (std::optional<int64_t> c = getConstantIntValue(axisSize)) {
    if (k > *c)
      return n.error() << "K = " << k << " is larger than the axis (" << *c << ")";
  } else {
    Value ok = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sle, cIdx(b, loc, k),
                                     indexValue(b, loc, axisSize));
    cf::AssertOp::create(b, loc, ok,
                         ("ONNX node '" + n.name() + "' (TopK): K is larger than the axis").str());
  }
  Value xv = n.importer.materialize(xl, loc);
  int64_t lead = rank - 1;
  SmallVector<OpFoldResult> rows(dims.begin(), dims.end() - 1);
  SmallVector<OpFoldResult> outDims(rows);
  outDims.push_back(b.getIndexAttr(k));

  MLIRContext *ctx = b.getContext();
  AffineMap id = AffineMap::getMultiDimIdentityMap(rank, ctx);
  AffineMap rowMap = AffineMap::getMultiDimIdentityMap(rank, ctx).getMajorSubMap(lead);
  Value mask0 = filled(b, loc, dims, b.getI1Type(), b.getBoolAttr(false));
  Value vals0 = filled(b, loc, outDims, et, cast<TypedAttr>(b.getZeroAttr(et)));
  Value idx0 = filled(b, loc, outDims, i64, b.getI64IntegerAttr(0));
  SmallVector<utils::IteratorType> reduceIters(rank, utils::IteratorType::parallel);
  reduceIters.back() = utils::IteratorType::reduction;
  SmallVector<utils::IteratorType> parIters(rank, utils::IteratorType::parallel);

  auto loop = scf::ForOp::create(
      b, loc, cIdx(b, loc, 0), cIdx(b, loc, k), cIdx(b, loc, 1), ValueRange{mask0, vals0, idx0},
      [&](OpBuilder &lb, Location l, Value slot, ValueRange iter) {
        // The best element not yet taken, per row (index -1: none seen yet).
        Value bestV = filled(lb, l, rows, et, cast<TypedAttr>(lb.getZeroAttr(et)));
        Value bestI = filled(lb, l, rows, i64, lb.getI64IntegerAttr(-1));
        auto arg = linalg::GenericOp::create(
            lb, l, TypeRange{bestV.getType(), bestI.getType()}, ValueRange{xv, iter[0]},
            ValueRange{bestV, bestI}, ArrayRef<AffineMap>{id, id, rowMap, rowMap}, reduceIters,
            [&](OpBuilder &nb, Location nl, ValueRange a) {
              Value v = a[0], taken = a[1], curV = a[2], curI = a[3];
              Value e = arith::IndexCastOp::create(nb, nl, i64, linalg::IndexOp::create(nb, nl, lead));
              Value none = arith::CmpIOp::create(
                  nb, nl, arith::CmpIPredicate::eq, curI,
                  arith::ConstantOp::create(nb, nl, nb.getI64IntegerAttr(-1)));
              // Strictly better wins; equal values keep the lower index (seen first).
              Value better = arith::OrIOp::create(nb, nl, none, compare(nb, nl, v, curV, largest));
              Value free = arith::XOrIOp::create(
                  nb, nl, taken, arith::ConstantOp::create(nb, nl, nb.getBoolAttr(true)));
              better = arith::AndIOp::create(nb, nl, better, free);
              linalg::YieldOp::create(
                  nb, nl,
                  ValueRange{arith::SelectOp::create(nb, nl, better, v, curV),
                             arith::SelectOp::create(nb, nl, better, e, curI)});
            });
        Value winV = arg.getResult(0), winI = arg.getResult(1);
        // Take the winner out of later rounds; write it to output slot `slot`.
        auto mask = linalg::GenericOp::create(
            lb, l, TypeRange{iter[0].getType()}, ValueRange{winI}, ValueRange{iter[0]},
            ArrayRef<AffineMap>{rowMap, id}, parIters,
            [&](OpBuilder &nb, Location nl, ValueRange a) {
              Value e = arith::IndexCastOp::create(nb, nl, i64, linalg::IndexOp::create(nb, nl, lead));
              Value hit = arith::CmpIOp::create(nb, nl, arith::CmpIPredicate::eq, e, a[0]);
              linalg::YieldOp::create(nb, nl,
                                      arith::OrIOp::create(nb, nl, a[1], hit).getResult());
            });
        auto write = linalg::GenericOp::create(
            lb, l, TypeRange{iter[1].getType(), iter[2].getType()}, ValueRange{winV, winI},
            ValueRange{iter[1], iter[2]}, ArrayRef<AffineMap>{rowMap, rowMap, id, id}, parIters,
            [&](OpBuilder &nb, Location nl, ValueRange a) {
              Value hit = arith::CmpIOp::create(nb, nl, arith::CmpIPredicate::eq,
                                                linalg::IndexOp::create(nb, nl, lead), slot);
              linalg::YieldOp::create(nb, nl,
                                      ValueRange{arith::SelectOp::create(nb, nl, hit, a[0], a[2]),
                                                 arith::SelectOp::create(nb, nl, hit, a[1], a[3])});
            });
        scf::YieldOp::create(lb, l,
                             ValueRange{mask.getResult(0), write.getResult(0), write.getResult(1)});
      });
  OnnxValue vals = OnnxValue::tensor(loop.getResult(1), outDims);
  OnnxValue idxs = OnnxValue::tensor(loop.getResult(2), outDims);
  if (moved) {
    SmallVector<int64_t> inv(rank);
    for (int64_t d = 0; d < rank; ++d)
      inv[perm[d]] = d;
    vals = emitTranspose(n, vals, inv);
    idxs = emitTranspose(n, idxs, inv);
  }
  n.setOutput(0, vals);
  n.setOutput(1, idxs);
  return success();
}

/// What both scatters read: the reduction and the dims of data, indices and updates.
struct ScatterOperands {
  std::string kind;
  SmallVector<OpFoldResult> dd, id, ud;
};

FailureOr<ScatterOperands> scatterOperands(NodeContext &n) {
  FailureOr<std::string> red = reductionOf(n);
  if (failed(red))
    return failure();
  if (!isa<IntegerType>(n.inputType(1).getElementType()))
    return n.error() << "indices must be integers", failure();
  ScatterOperands r;
  r.kind = *red;
  r.dd = n.importer.dimsOf(n.input(0), n.loc);
  r.id = n.importer.dimsOf(n.input(1), n.loc);
  r.ud = n.importer.dimsOf(n.input(2), n.loc);
  return r;
}

LogicalResult importScatterND(NodeContext &n) {
  FailureOr<ScatterOperands> ops = scatterOperands(n);
  if (failed(ops))
    return failure();
  OnnxValue idx = n.input(1), upd = n.input(2);
  OpBuilder &b = n.b;
  Location loc = n.loc;
  SmallVector<OpFoldResult> &dd = ops->dd, &id = ops->id, &ud = ops->ud;
  std::string kind = ops->kind;
  int64_t r = dd.size(), qr = id.size();
  if (qr == 0)
    return n.error() << "indices must have rank 1 or more";
  std::optional<int64_t> qc = getConstantIntValue(id.back());
  if (!qc)
    return n.error() << "the last dim of indices (the index depth) must be static";
  int64_t q = *qc;
  if (q < 1 || q > r)
    return n.error() << "index depth " << q << " is outside [1, data rank " << r << "]";
  // updates: indices.shape[:-1] + data.shape[q:].
  int64_t wantRank = qr - 1 + r - q;
  if ((int64_t)ud.size() != wantRank)
    return n.error() << "updates have rank " << ud.size() << ", expected " << wantRank
                     << " (indices rank - 1 + data rank - index depth)";
  std::string where = ("ONNX node '" + n.name() + "' (ScatterND): ").str();
  auto checkDim = [&](OpFoldResult a, OpFoldResult c, int64_t d) -> LogicalResult {
    std::optional<int64_t> ac = getConstantIntValue(a), cc = getConstantIntValue(c);
    if (ac && cc) {
      if (*ac != *cc)
        return n.error() << "updates dim " << d << " is " << *ac << ", expected " << *cc;
      return success();
    }
    if (sameDim(a, c))
      return success();
    Value eq = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, indexValue(b, loc, a),
                                     indexValue(b, loc, c));
    cf::AssertOp::create(b, loc, eq, where + "updates dim " + std::to_string(d) +
                                         " does not match");
    return success();
  };
  for (int64_t d = 0; d < qr - 1; ++d)
    if (failed(checkDim(ud[d], id[d], d)))
      return failure();
  for (int64_t d = q; d < r; ++d)
    if (failed(checkDim(ud[qr - 1 + d - q], dd[d], qr - 1 + d - q)))
      return failure();

  // Indices as [M, q], updates as [M, slice...].
  OpFoldResult m = b.getIndexAttr(1);
  for (int64_t d = 0; d < qr - 1; ++d)
    m = foldIndexBinary(b, loc, '*', m, id[d]);
  SmallVector<OpFoldResult> sliceDims(dd.begin() + q, dd.end());
  SmallVector<OpFoldResult> idxFlat = {m, b.getIndexAttr(q)};
  SmallVector<OpFoldResult> updFlat = {m};
  updFlat.append(sliceDims);
  FailureOr<OnnxValue> idx2 = emitReshape(n, idx, idxFlat);
  FailureOr<OnnxValue> upd2 = emitReshape(n, upd, updFlat);
  if (failed(idx2) || failed(upd2))
    return failure();
  Value idxV = n.importer.materialize(*idx2, loc), updV = n.importer.materialize(*upd2, loc);
  Value dataV = n.tensorInput(0);
  SmallVector<Value> sizes;
  for (OpFoldResult d : dd)
    sizes.push_back(indexValue(b, loc, d));
  auto loop = scf::ForOp::create(
      b, loc, cIdx(b, loc, 0), indexValue(b, loc, m), cIdx(b, loc, 1), ValueRange{dataV},
      [&](OpBuilder &lb, Location l, Value i, ValueRange iter) {
        SmallVector<OpFoldResult> at;
        for (int64_t j = 0; j < q; ++j) {
          Value raw = tensor::ExtractOp::create(lb, l, idxV, ValueRange{i, cIdx(lb, l, j)});
          at.push_back(checkedIndex(lb, l, raw, sizes[j],
                                    where + "an index is out of range for data dim " +
                                        std::to_string(j)));
        }
        Value out = iter[0];
        if (q == r) {
          Value u = tensor::ExtractOp::create(lb, l, updV, ValueRange{i});
          SmallVector<Value> atv;
          for (OpFoldResult a : at)
            atv.push_back(cast<Value>(a));
          if (kind != "none")
            u = reduceScalar(lb, l, kind, tensor::ExtractOp::create(lb, l, out, atv), u);
          scf::YieldOp::create(lb, l, tensor::InsertOp::create(lb, l, u, out, atv).getResult());
          return;
        }
        auto sliceType = tensorType(sliceDims, cast<ShapedType>(out.getType()).getElementType());
        SmallVector<OpFoldResult> uOff = {i}, uSizes = {lb.getIndexAttr(1)};
        uOff.append(sliceDims.size(), lb.getIndexAttr(0));
        uSizes.append(sliceDims);
        SmallVector<OpFoldResult> uStrides(uOff.size(), lb.getIndexAttr(1));
        Value u = tensor::ExtractSliceOp::create(lb, l, sliceType, updV, uOff, uSizes, uStrides);
        SmallVector<OpFoldResult> oOff(at), oSizes(q, lb.getIndexAttr(1));
        oOff.append(sliceDims.size(), lb.getIndexAttr(0));
        oSizes.append(sliceDims);
        SmallVector<OpFoldResult> oStrides(r, lb.getIndexAttr(1));
        if (kind != "none") {
          Value cur = tensor::ExtractSliceOp::create(lb, l, sliceType, out, oOff, oSizes, oStrides);
          int64_t sr = sliceDims.size();
          AffineMap sid = AffineMap::getMultiDimIdentityMap(sr, lb.getContext());
          u = linalg::GenericOp::create(
                  lb, l, TypeRange{sliceType}, ValueRange{u}, ValueRange{cur},
                  ArrayRef<AffineMap>{sid, sid},
                  SmallVector<utils::IteratorType>(sr, utils::IteratorType::parallel),
                  [&](OpBuilder &nb, Location nl, ValueRange a) {
                    linalg::YieldOp::create(nb, nl, reduceScalar(nb, nl, kind, a[1], a[0]));
                  })
                  .getResult(0);
        }
        Value w = tensor::InsertSliceOp::create(lb, l, u, out, oOff, oSizes, oStrides);
        scf::YieldOp::create(lb, l, w);
      });
  n.setOutput(0, OnnxValue::tensor(loop.getResult(0), dd));
  return success();
}

LogicalResult importScatterElements(NodeContext &n) {
  FailureOr<ScatterOperands> ops = scatterOperands(n);
  if (failed(ops))
    return failure();
  OpBuilder &b = n.b;
  Location loc = n.loc;
  SmallVector<OpFoldResult> &dd = ops->dd, &id = ops->id, &ud = ops->ud;
  std::string kind = ops->kind;
  int64_t r = dd.size();
  if (r == 0)
    return n.error() << "data must have rank 1 or more";
  if ((int64_t)id.size() != r || (int64_t)ud.size() != r)
    return n.error() << "data, indices and updates must have the same rank (" << r << ", "
                     << id.size() << ", " << ud.size() << ")";
  FailureOr<int64_t> ax = n.axis(n.intAttr("axis", 0), r);
  if (failed(ax))
    return failure();
  std::string where = ("ONNX node '" + n.name() + "' (ScatterElements): ").str();
  for (int64_t d = 0; d < r; ++d) {
    std::optional<int64_t> ic = getConstantIntValue(id[d]), uc = getConstantIntValue(ud[d]);
    if (ic && uc && *ic != *uc)
      return n.error() << "indices dim " << d << " (" << *ic << ") differs from updates' ("
                       << *uc << ")";
    if (!(ic && uc) && !sameDim(id[d], ud[d]))
      cf::AssertOp::create(b, loc,
                           arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                                 indexValue(b, loc, id[d]),
                                                 indexValue(b, loc, ud[d])),
                           where + "indices and updates differ in dim " + std::to_string(d));
    if (d == *ax)
      continue;
    // Off the axis, indices may not reach past data.
    std::optional<int64_t> dc = getConstantIntValue(dd[d]);
    if (ic && dc && *ic > *dc)
      return n.error() << "indices dim " << d << " (" << *ic << ") is larger than data's ("
                       << *dc << ")";
    if (!(ic && dc))
      cf::AssertOp::create(b, loc,
                           arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sle,
                                                 indexValue(b, loc, id[d]),
                                                 indexValue(b, loc, dd[d])),
                           where + "indices are larger than data in dim " + std::to_string(d));
  }
  Value dataV = n.tensorInput(0), idxV = n.tensorInput(1), updV = n.tensorInput(2);
  OpFoldResult total = b.getIndexAttr(1);
  for (OpFoldResult d : id)
    total = foldIndexBinary(b, loc, '*', total, d);
  SmallVector<Value> idSizes;
  for (OpFoldResult d : id)
    idSizes.push_back(indexValue(b, loc, d));
  Value axisSize = indexValue(b, loc, dd[*ax]);
  auto loop = scf::ForOp::create(
      b, loc, cIdx(b, loc, 0), indexValue(b, loc, total), cIdx(b, loc, 1), ValueRange{dataV},
      [&](OpBuilder &lb, Location l, Value flat, ValueRange iter) {
        // Row-major coordinates of element `flat` of indices.
        SmallVector<Value> c(r);
        Value rest = flat;
        for (int64_t d = r - 1; d >= 0; --d) {
          c[d] = arith::RemUIOp::create(lb, l, rest, idSizes[d]);
          rest = arith::DivUIOp::create(lb, l, rest, idSizes[d]);
        }
        Value raw = tensor::ExtractOp::create(lb, l, idxV, c);
        Value u = tensor::ExtractOp::create(lb, l, updV, c);
        SmallVector<Value> at(c);
        at[*ax] = checkedIndex(lb, l, raw, axisSize, where + "an index is out of range");
        Value out = iter[0];
        if (kind != "none")
          u = reduceScalar(lb, l, kind, tensor::ExtractOp::create(lb, l, out, at), u);
        scf::YieldOp::create(lb, l, tensor::InsertOp::create(lb, l, u, out, at).getResult());
      });
  n.setOutput(0, OnnxValue::tensor(loop.getResult(0), dd));
  return success();
}

} // namespace

void onnx_import::registerScatterOps(std::vector<OpEntry> &t) {
  addOp(t, "", "TopK", 11, importTopK);
  addOp(t, "", "ScatterND", 11, importScatterND);
  addOp(t, "", "ScatterElements", 11, importScatterElements);
}
