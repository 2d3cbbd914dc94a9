//===- TransposeConstantWeights.cpp - in_out constant weights as out_in ----===//
//
// decoda-transpose-constant-weights (Passes.td): ONNX MatMul/Gemm initializers (PyTorch exports
// nn.Linear so) are `[K, N]` weights, imported as `decoda.linear {weight_layout = in_out}`. The
// GPU's GEMV and tensor-core kernels read `[N, K]` weights (a warp per weight row, K-major
// tiles), so an in_out linear stayed a SIMT loop nest there. A constant weight is transposed
// here once, at compile time, into a new constant (`dense` stays `dense`, `dense_resource`
// becomes a new resource) and the linear states `out_in`; argument weights are left as they
// are (a transpose would run on every call).
//
//===----------------------------------------------------------------------===//

#include "decoda/Transforms/Passes.h"

#include "ConstantData.h"

#include "decoda/Dialect/Decoda/IR/DecodaOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/AsmState.h"
#include "mlir/IR/Builders.h"

#include <cstring>

namespace mlir::decoda {
#define GEN_PASS_DEF_TRANSPOSECONSTANTWEIGHTSPASS
#include "decoda/Transforms/Passes.h.inc"
} // namespace mlir::decoda

using namespace mlir;
using namespace mlir::decoda;

namespace {
/// The constant `[..., K, N]` weight `w` as a new constant `[..., N, K]` at `b`'s insertion
/// point, or null when `w` is not a constant with its data (an argument, an elided resource).
Value transposed(OpBuilder &b, Location loc, Value w) {
  std::optional<ConstantView> view = constantView(w);
  if (!view)
    return nullptr;
  auto type = cast<RankedTensorType>(w.getType());
  int64_t rank = type.getRank();
  SmallVector<int64_t> shape(type.getShape());
  std::swap(shape[rank - 2], shape[rank - 1]);
  auto newType = RankedTensorType::get(shape, type.getElementType());
  TypedAttr value;
  if (view->splat) {
    value = cast<DenseElementsAttr>(w.getDefiningOp<arith::ConstantOp>().getValue())
                .reshape(newType);
  } else {
    int64_t k = type.getDimSize(rank - 2), n = type.getDimSize(rank - 1);
    int64_t heads = type.getNumElements() / (k * n);
    size_t e = type.getElementTypeBitWidth() / 8;
    SmallVector<char> bytes(view->raw.size());
    for (int64_t h = 0; h < heads; ++h)
      for (int64_t i = 0; i < k; ++i)
        for (int64_t j = 0; j < n; ++j)
          std::memcpy(bytes.data() + ((h * n + j) * k + i) * e,
                      view->raw.data() + ((h * k + i) * n + j) * e, e);
    value = constantFromBytes(newType, bytes, view->isResource, "decoda_transposed");
  }
  return arith::ConstantOp::create(b, loc, newType, value);
}

/// The source of `w` when `w` is a linalg.transpose that swaps its last two dims and keeps
/// the others (`[..., N, K]` read as `[..., K, N]`); else null.
Value swappedLastTwo(Value w) {
  auto t = w.getDefiningOp<linalg::TransposeOp>();
  if (!t)
    return nullptr;
  ArrayRef<int64_t> perm = t.getPermutation();
  int64_t rank = perm.size();
  if (rank < 2 || perm[rank - 2] != rank - 1 || perm[rank - 1] != rank - 2)
    return nullptr;
  for (int64_t i = 0; i + 2 < rank; ++i)
    if (perm[i] != i)
      return nullptr;
  return t.getInput();
}

struct TransposeConstantWeightsPass
    : public mlir::decoda::impl::TransposeConstantWeightsPassBase<TransposeConstantWeightsPass> {
  using Base::Base;
  void runOnOperation() override {
    // One transposed copy per weight, however many ops read it.
    DenseMap<Value, Value> done;
    auto transposedOf = [&](Operation *user, Value w) -> Value {
      Value &t = done[w];
      if (!t) {
        OpBuilder b(w.getDefiningOp() ? w.getDefiningOp() : user);
        if (w.getDefiningOp())
          b.setInsertionPointAfter(w.getDefiningOp());
        t = transposed(b, user->getLoc(), w);
      }
      return t;
    };
    // An op whose weights (all of them: one layout attribute) are such constants reads their
    // transposes and states out_in.
    auto rewrite = [&](Operation *op, ArrayRef<OpOperand *> weights, auto setOutIn) {
      if (!llvm::all_of(weights, [](OpOperand *w) { return constantView(w->get()).has_value(); }))
        return;
      SmallVector<Value> ts;
      for (OpOperand *w : weights) {
        Value t = transposedOf(op, w->get());
        if (!t)
          return;
        ts.push_back(t);
      }
      for (auto [w, t] : llvm::zip_equal(weights, ts))
        w->assign(t);
      setOutIn();
      ++numTransposed;
    };
    // A weight that is the transpose of its last two dims (a tied lm_head reading the
    // embedding table through an ONNX Transpose) is read untransposed as out_in: nothing is
    // copied, constant or not.
    auto peel = [&](ArrayRef<OpOperand *> weights, auto setOutIn) {
      SmallVector<Value> sources;
      for (OpOperand *w : weights) {
        Value src = swappedLastTwo(w->get());
        if (!src)
          return false;
        sources.push_back(src);
      }
      SmallVector<Operation *> transposes;
      for (auto [w, src] : llvm::zip_equal(weights, sources)) {
        transposes.push_back(w->get().getDefiningOp());
        w->assign(src);
      }
      setOutIn();
      for (Operation *t : transposes)
        if (t->use_empty())
          t->erase();
      ++numUntransposed;
      return true;
    };
    // Per op: its weights' transposes peeled if they all are such, else constants transposed.
    auto handle = [&](Operation *op, ArrayRef<OpOperand *> weights, auto setOutIn) {
      if (!peel(weights, setOutIn))
        rewrite(op, weights, setOutIn);
    };
    getOperation()->walk([&](Operation *op) {
      if (auto linear = dyn_cast<LinearOp>(op); linear &&
                                                linear.getWeightLayout() == WeightLayout::in_out)
        handle(op, {&linear.getWeightMutable()},
               [&] { linear.setWeightLayout(WeightLayout::out_in); });
      else if (auto mlp = dyn_cast<MLPOp>(op); mlp && mlp.getWeightLayout() == WeightLayout::in_out)
        handle(op, {&mlp.getWUpMutable(), &mlp.getWDownMutable()},
               [&] { mlp.setWeightLayout(WeightLayout::out_in); });
      else if (auto gated = dyn_cast<GatedMLPOp>(op);
               gated && gated.getWeightLayout() == WeightLayout::in_out)
        handle(op, {&gated.getWGateMutable(), &gated.getWUpMutable(), &gated.getWDownMutable()},
               [&] { gated.setWeightLayout(WeightLayout::out_in); });
    });
    // The [K, N] constants no longer read.
    for (auto [w, t] : done)
      if (auto cst = w.getDefiningOp<arith::ConstantOp>(); t && cst && cst->use_empty())
        cst->erase();
  }
};
} // namespace
