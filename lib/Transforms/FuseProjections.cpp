//===- FuseProjections.cpp - linears sharing an input -> one wider linear -===//

#include "decoda/Transforms/FuseProjections.h"

#include "ConstantData.h"

#include "decoda/Dialect/Decoda/IR/DecodaOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/AsmState.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Dominance.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include "llvm/ADT/SetVector.h"

namespace mlir::decoda {
#define GEN_PASS_DEF_FUSEPROJECTIONSPASS
#include "decoda/Transforms/Passes.h.inc"
} // namespace mlir::decoda

using namespace mlir;
using namespace mlir::decoda;

namespace {
//===----------------------------------------------------------------------===//
// Weights: folding constant concatenations, or tensor.concat
//===----------------------------------------------------------------------===//

bool isFoldableConstant(Value v) { return constantView(v).has_value(); }

/// A block-quantised constant weight: a decoda.dequantize_blocks of constants (MatMulNBits).
DequantizeBlocksOp quantizedConstant(Value v) {
  auto dq = v.getDefiningOp<DequantizeBlocksOp>();
  if (!dq || !llvm::all_of(dq->getOperands(), isFoldableConstant))
    return nullptr;
  return dq;
}

/// A weight whose concatenation folds at compile time: a constant or a block-quantised one.
bool isFoldableWeight(Value v) { return isFoldableConstant(v) || quantizedConstant(v); }

/// `parts` (static rank-1 or rank-2 tensors of one element type) concatenated along `axis`:
/// one new arith.constant when every part folds, else a tensor.concat (parts that are
/// arith.constants not available at the insertion point `at` are cloned there).
Value concatenate(PatternRewriter &rewriter, Location loc, Operation *at, ArrayRef<Value> parts,
                  int64_t axis, FuseProjectionsCounts &counts) {
  auto first = cast<RankedTensorType>(parts.front().getType());
  SmallVector<int64_t> shape(first.getShape());
  shape[axis] = 0;
  for (Value p : parts)
    shape[axis] += cast<RankedTensorType>(p.getType()).getDimSize(axis);
  auto type = RankedTensorType::get(shape, first.getElementType());

  SmallVector<ConstantView> views;
  for (Value p : parts) {
    std::optional<ConstantView> view = constantView(p);
    if (!view)
      break;
    views.push_back(*view);
  }
  if (views.size() == parts.size()) {
    size_t elemBytes = first.getElementTypeBitWidth() / 8;
    SmallVector<char> bytes;
    bytes.reserve(static_cast<size_t>(type.getNumElements()) * elemBytes);
    // Row-major: along axis 0 the parts follow each other; along the last axis of a matrix
    // every row is the parts' rows side by side.
    int64_t rows = axis == 0 ? 1 : shape[0];
    for (int64_t r = 0; r < rows; ++r) {
      for (auto [p, view] : llvm::zip_equal(parts, views)) {
        size_t rowBytes = cast<RankedTensorType>(p.getType()).getNumElements() / rows * elemBytes;
        if (view.splat)
          for (size_t i = 0; i < rowBytes; i += elemBytes)
            bytes.append(view.raw.begin(), view.raw.end());
        else
          bytes.append(view.raw.begin() + r * rowBytes, view.raw.begin() + (r + 1) * rowBytes);
      }
    }
    bool asResource = llvm::any_of(views, [](const ConstantView &v) { return v.isResource; });
    TypedAttr value = constantFromBytes(type, bytes, asResource, "decoda_fused");
    ++counts.foldedConcats;
    return arith::ConstantOp::create(rewriter, loc, type, value);
  }

  SmallVector<Value> operands;
  DominanceInfo dominance;
  for (Value p : parts) {
    if (auto cst = p.getDefiningOp<arith::ConstantOp>(); cst && !dominance.properlyDominates(p, at))
      p = rewriter.clone(*cst)->getResult(0);
    operands.push_back(p);
  }
  ++counts.runtimeConcats;
  return tensor::ConcatOp::create(rewriter, loc, axis, operands);
}

/// Slices of `v` along its last axis, `widths` wide one after the other:
/// `tensor.extract_slice %v[0, ..., offset] [d0, ..., width] [1, ...]`.
SmallVector<Value> splitLastAxis(PatternRewriter &rewriter, ArrayRef<Location> locs, Value v,
                                 ArrayRef<int64_t> widths) {
  int64_t rank = cast<RankedTensorType>(v.getType()).getRank();
  SmallVector<OpFoldResult> offsets(rank, rewriter.getIndexAttr(0));
  SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(rewriter, v.getLoc(), v);
  SmallVector<OpFoldResult> strides(rank, rewriter.getIndexAttr(1));
  SmallVector<Value> slices;
  int64_t offset = 0;
  for (auto [loc, width] : llvm::zip_equal(locs, widths)) {
    offsets.back() = rewriter.getIndexAttr(offset);
    sizes.back() = rewriter.getIndexAttr(width);
    slices.push_back(tensor::ExtractSliceOp::create(rewriter, loc, v, offsets, sizes, strides));
    offset += width;
  }
  return slices;
}

/// The weight's N (output width) under `layout`, or nullopt for a weight that cannot join a
/// group: not rank 2, not static.
std::optional<int64_t> outWidth(Value weight, WeightLayout layout) {
  auto type = dyn_cast<RankedTensorType>(weight.getType());
  if (!type || type.getRank() != 2 || !type.hasStaticShape())
    return std::nullopt;
  return layout == WeightLayout::out_in ? type.getDimSize(0) : type.getDimSize(1);
}

/// Axis of the weight along which N runs.
int64_t outAxis(WeightLayout layout) { return layout == WeightLayout::out_in ? 0 : 1; }

//===----------------------------------------------------------------------===//
// Groups of linears
//===----------------------------------------------------------------------===//

/// What must agree for two linears to share one fused weight.
struct Signature {
  WeightLayout layout;
  Type weightElement;
  int64_t inWidth;  // K
  Type biasElement; // null without bias
  // Block-quantised weights (decoda.dequantize_blocks, out_in): bits, block size and whether
  // zero points are given must agree; bits 0 for float weights.
  int64_t bits = 0, blockSize = 0;
  bool zeroPoints = false;
  bool operator==(const Signature &o) const {
    return layout == o.layout && weightElement == o.weightElement && inWidth == o.inWidth &&
           biasElement == o.biasElement && bits == o.bits && blockSize == o.blockSize &&
           zeroPoints == o.zeroPoints;
  }
};

std::optional<Signature> signatureOf(LinearOp op) {
  WeightLayout layout = op.getWeightLayout();
  if (!outWidth(op.getWeight(), layout))
    return std::nullopt;
  auto w = cast<RankedTensorType>(op.getWeight().getType());
  Signature s{layout, w.getElementType(),
              layout == WeightLayout::out_in ? w.getDimSize(1) : w.getDimSize(0), Type()};
  if (auto dq = op.getWeight().getDefiningOp<DequantizeBlocksOp>()) {
    if (layout != WeightLayout::out_in)
      return std::nullopt;
    s.bits = dq.getBits();
    s.blockSize = dq.getBlockSize();
    s.zeroPoints = static_cast<bool>(dq.getZeroPoints());
  }
  if (Value bias = op.getBias()) {
    auto b = dyn_cast<RankedTensorType>(bias.getType());
    if (!b || b.getRank() != 1 || !b.hasStaticShape())
      return std::nullopt;
    s.biasElement = b.getElementType();
  }
  return s;
}

struct FuseLinearGroup : public OpRewritePattern<LinearOp> {
  FuseLinearGroup(MLIRContext *ctx, const FuseProjectionsPassOptions &options,
                  FuseProjectionsCounts &counts)
      : OpRewritePattern(ctx), options(options), counts(counts) {}

  /// The group `anchor` belongs to, in program order, or empty.
  SmallVector<LinearOp> collectGroup(LinearOp anchor) const {
    std::optional<Signature> sig = signatureOf(anchor);
    if (!sig)
      return {};
    Value input = anchor.getInput();
    llvm::SetVector<Operation *> members;
    for (Operation *user : input.getUsers()) {
      auto lin = dyn_cast<LinearOp>(user);
      if (!lin || lin.getInput() != input || lin->getBlock() != anchor->getBlock() ||
          !(signatureOf(lin) == sig))
        continue;
      if (options.weights == "constant" && !isFoldableWeight(lin.getWeight()))
        continue;
      members.insert(user);
    }
    SmallVector<LinearOp> group;
    for (Operation *op : members)
      group.push_back(cast<LinearOp>(op));
    llvm::sort(group, [](LinearOp a, LinearOp b) { return a->isBeforeInBlock(b); });
    if (group.empty())
      return {};
    // The fused linear takes the first member's place: every weight and bias must exist there
    // (or be a constant, folded or cloned there).
    DominanceInfo dominance;
    Operation *at = group.front();
    auto available = [&](Value v) {
      return !v || v.getDefiningOp<arith::ConstantOp>() || quantizedConstant(v) ||
             dominance.properlyDominates(v, at);
    };
    llvm::erase_if(group, [&](LinearOp lin) {
      return lin != at && !(available(lin.getWeight()) && available(lin.getBias()));
    });
    if (static_cast<int64_t>(group.size()) < options.minGroup || !llvm::is_contained(group, anchor))
      return {};
    return group;
  }

  LogicalResult matchAndRewrite(LinearOp anchor, PatternRewriter &rewriter) const override {
    SmallVector<LinearOp> group = collectGroup(anchor);
    if (group.empty())
      return rewriter.notifyMatchFailure(anchor, "no group of linears to fuse with");
    WeightLayout layout = anchor.getWeightLayout();
    SmallVector<Value> weights, biases;
    SmallVector<Location> locs;
    for (LinearOp lin : group) {
      weights.push_back(lin.getWeight());
      if (lin.getBias())
        biases.push_back(lin.getBias());
      locs.push_back(lin.getLoc());
    }
    Location loc = rewriter.getFusedLoc(locs);
    rewriter.setInsertionPoint(group.front());
    Value weight;
    if (auto first = weights.front().getDefiningOp<DequantizeBlocksOp>()) {
      // Block-quantised weights: their codes, scales and zero points concatenated along N,
      // one dequantize_blocks of them.
      SmallVector<Value> codes, scales, zeroPoints;
      int64_t n = 0;
      for (Value w : weights) {
        auto dq = w.getDefiningOp<DequantizeBlocksOp>();
        codes.push_back(dq.getCodes());
        scales.push_back(dq.getScales());
        if (dq.getZeroPoints())
          zeroPoints.push_back(dq.getZeroPoints());
        n += dq.getResult().getType().getDimSize(0);
      }
      RankedTensorType t = first.getResult().getType();
      // One concatenation a statement (codes, scales, zero points): a fixed order of ops.
      Value allCodes = concatenate(rewriter, loc, group.front(), codes, 0, counts);
      Value allScales = concatenate(rewriter, loc, group.front(), scales, 0, counts);
      Value zp = zeroPoints.empty()
                     ? Value()
                     : concatenate(rewriter, loc, group.front(), zeroPoints, 0, counts);
      weight = DequantizeBlocksOp::create(
          rewriter, loc, RankedTensorType::get({n, t.getDimSize(1)}, t.getElementType()),
          allCodes, allScales, zp, first.getBitsAttr(), first.getBlockSizeAttr());
    } else {
      weight = concatenate(rewriter, loc, group.front(), weights, outAxis(layout), counts);
    }
    Value bias =
        biases.empty() ? Value() : concatenate(rewriter, loc, group.front(), biases, 0, counts);
    auto fused = LinearOp::create(rewriter, loc, anchor.getInput(), weight, bias,
                                  anchor.getWeightLayoutAttr());
    SmallVector<int64_t> widths;
    for (LinearOp lin : group)
      widths.push_back(*outWidth(lin.getWeight(), layout));
    SmallVector<Value> slices = splitLastAxis(rewriter, locs, fused, widths);
    llvm::SetVector<Operation *> deadConstants, deadDequantized;
    for (auto [lin, slice] : llvm::zip_equal(group, slices)) {
      for (Value v : {lin.getWeight(), lin.getBias()})
        if (Operation *def = v ? v.getDefiningOp<arith::ConstantOp>() : nullptr)
          deadConstants.insert(def);
      if (auto dq = lin.getWeight().getDefiningOp<DequantizeBlocksOp>()) {
        deadDequantized.insert(dq);
        for (Value v : dq->getOperands())
          deadConstants.insert(v.getDefiningOp());
      }
      rewriter.replaceOp(lin, slice);
    }
    for (Operation *dq : deadDequantized)
      if (dq->use_empty())
        rewriter.eraseOp(dq);
    for (Operation *cst : deadConstants)
      if (cst->use_empty())
        rewriter.eraseOp(cst);
    ++counts.fusedGroups;
    counts.fusedLinears += group.size();
    return success();
  }

  FuseProjectionsPassOptions options;
  FuseProjectionsCounts &counts;
};

//===----------------------------------------------------------------------===//
// Groups of qlinears (hand-written INT8 programs; --quantize=int8 quantizes after fusion)
//===----------------------------------------------------------------------===//

/// What must agree for two qlinears to share one fused weight: the same activation
/// quantisation (x_scale, zero point: the same values) and epilogue kind (requantisation
/// scale, result type), weights [N, K] with one K, biases on all or none, and weight scales
/// either all per channel ([N]) or one and the same per-tensor value.
struct QSignature {
  Value input, xScale, zeroPoint, outScale;
  int64_t inWidth;
  Type resultElement, biasElement;
  Value tensorWScale; // the shared rank-0 w_scale, null when per channel
  bool operator==(const QSignature &o) const {
    return input == o.input && xScale == o.xScale && zeroPoint == o.zeroPoint &&
           outScale == o.outScale && inWidth == o.inWidth && resultElement == o.resultElement &&
           biasElement == o.biasElement && tensorWScale == o.tensorWScale;
  }
};

std::optional<QSignature> qsignatureOf(QLinearOp op) {
  if (!outWidth(op.getWeight(), WeightLayout::out_in))
    return std::nullopt;
  auto w = cast<RankedTensorType>(op.getWeight().getType());
  auto ws = dyn_cast<RankedTensorType>(op.getWScale().getType());
  if (!ws || (ws.getRank() == 1 && ws.getDimSize(0) != w.getDimSize(0)) || ws.getRank() > 1)
    return std::nullopt;
  QSignature s{op.getInput(), op.getXScale(), op.getXZeroPoint(), op.getOutScale(),
               w.getDimSize(1), op.getResult().getType().getElementType(), Type(),
               ws.getRank() == 0 ? op.getWScale() : Value()};
  if (Value bias = op.getBias()) {
    auto b = dyn_cast<RankedTensorType>(bias.getType());
    if (!b || b.getRank() != 1 || !b.hasStaticShape())
      return std::nullopt;
    s.biasElement = b.getElementType();
  }
  return s;
}

struct FuseQLinearGroup : public OpRewritePattern<QLinearOp> {
  FuseQLinearGroup(MLIRContext *ctx, const FuseProjectionsPassOptions &options,
                   FuseProjectionsCounts &counts)
      : OpRewritePattern(ctx), options(options), counts(counts) {}

  LogicalResult matchAndRewrite(QLinearOp anchor, PatternRewriter &rewriter) const override {
    std::optional<QSignature> sig = qsignatureOf(anchor);
    if (!sig)
      return rewriter.notifyMatchFailure(anchor, "not a static [N, K] qlinear");
    llvm::SetVector<Operation *> members;
    for (Operation *user : anchor.getInput().getUsers()) {
      auto q = dyn_cast<QLinearOp>(user);
      if (!q || q.getInput() != anchor.getInput() || q->getBlock() != anchor->getBlock() ||
          !(qsignatureOf(q) == sig))
        continue;
      if (options.weights == "constant" && !isFoldableConstant(q.getWeight()))
        continue;
      members.insert(user);
    }
    SmallVector<QLinearOp> group;
    for (Operation *op : members)
      group.push_back(cast<QLinearOp>(op));
    llvm::sort(group, [](QLinearOp a, QLinearOp b) { return a->isBeforeInBlock(b); });
    if (group.empty())
      return rewriter.notifyMatchFailure(anchor, "no group");
    DominanceInfo dominance;
    Operation *at = group.front();
    auto available = [&](Value v) {
      return !v || v.getDefiningOp<arith::ConstantOp>() || dominance.properlyDominates(v, at);
    };
    llvm::erase_if(group, [&](QLinearOp q) {
      return q != at && !(available(q.getWeight()) && available(q.getBias()) &&
                          (sig->tensorWScale || available(q.getWScale())));
    });
    if (static_cast<int64_t>(group.size()) < options.minGroup ||
        !llvm::is_contained(group, anchor))
      return rewriter.notifyMatchFailure(anchor, "no group of qlinears to fuse with");

    SmallVector<Value> weights, wScales, biases;
    SmallVector<Location> locs;
    SmallVector<int64_t> widths;
    for (QLinearOp q : group) {
      weights.push_back(q.getWeight());
      wScales.push_back(q.getWScale());
      if (q.getBias())
        biases.push_back(q.getBias());
      locs.push_back(q.getLoc());
      widths.push_back(*outWidth(q.getWeight(), WeightLayout::out_in));
    }
    Location loc = rewriter.getFusedLoc(locs);
    rewriter.setInsertionPoint(group.front());
    Value weight = concatenate(rewriter, loc, group.front(), weights, 0, counts);
    Value wScale = sig->tensorWScale
                       ? sig->tensorWScale
                       : concatenate(rewriter, loc, group.front(), wScales, 0, counts);
    Value bias =
        biases.empty() ? Value() : concatenate(rewriter, loc, group.front(), biases, 0, counts);
    auto resultType = cast<RankedTensorType>(anchor.getResult().getType());
    SmallVector<int64_t> shape(resultType.getShape());
    shape.back() = 0;
    for (int64_t w : widths)
      shape.back() += w;
    auto fused = QLinearOp::create(rewriter, loc, resultType.clone(shape), anchor.getInput(),
                                   weight, anchor.getXScale(), wScale, anchor.getXZeroPoint(),
                                   bias, anchor.getOutScale());
    SmallVector<Value> slices = splitLastAxis(rewriter, locs, fused, widths);
    llvm::SetVector<Operation *> deadConstants;
    for (auto [q, slice] : llvm::zip_equal(group, slices)) {
      for (Value v : {q.getWeight(), q.getWScale(), q.getBias()})
        if (Operation *def = v ? v.getDefiningOp<arith::ConstantOp>() : nullptr)
          deadConstants.insert(def);
      rewriter.replaceOp(q, slice);
    }
    for (Operation *cst : deadConstants)
      if (cst->use_empty())
        rewriter.eraseOp(cst);
    ++counts.fusedQLinearGroups;
    counts.fusedQLinears += group.size();
    return success();
  }

  FuseProjectionsPassOptions options;
  FuseProjectionsCounts &counts;
};

//===----------------------------------------------------------------------===//
// Gated MLPs
//===----------------------------------------------------------------------===//

struct SplitGatedMLP : public OpRewritePattern<GatedMLPOp> {
  SplitGatedMLP(MLIRContext *ctx, const FuseProjectionsPassOptions &options,
                FuseProjectionsCounts &counts)
      : OpRewritePattern(ctx), options(options), counts(counts) {}

  LogicalResult matchAndRewrite(GatedMLPOp op, PatternRewriter &rewriter) const override {
    RankedTensorType type = op.getResult().getType();
    // f32 only: there the linear's epilogue (bias add and rounding to f32) is exactly the f32
    // hidden pre-activation gated_mlp computes; in f16/bf16 the split form would round gate
    // and up before the GLU.
    if (!type.getElementType().isF32())
      return rewriter.notifyMatchFailure(op, "storage type is not f32");
    WeightLayout layout = op.getWeightLayout();
    std::optional<int64_t> f = outWidth(op.getWGate(), layout);
    if (!f || !outWidth(op.getWUp(), layout) || op.getWGate().getType() != op.getWUp().getType())
      return rewriter.notifyMatchFailure(op, "gate/up weights are not equal static matrices");
    if (op.getBGate() && (op.getBGate().getType() != op.getBUp().getType() ||
                          !cast<RankedTensorType>(op.getBGate().getType()).hasStaticShape()))
      return rewriter.notifyMatchFailure(op, "gate/up biases differ in type");
    if (options.weights == "constant" &&
        !(isFoldableConstant(op.getWGate()) && isFoldableConstant(op.getWUp())))
      return rewriter.notifyMatchFailure(op, "weights are not constants (weights=constant)");

    Location loc = op.getLoc();
    Value weight =
        concatenate(rewriter, loc, op, {op.getWGate(), op.getWUp()}, outAxis(layout), counts);
    Value bias = op.getBGate()
                     ? concatenate(rewriter, loc, op, {op.getBGate(), op.getBUp()}, 0, counts)
                     : Value();
    auto gateUp =
        LinearOp::create(rewriter, loc, op.getInput(), weight, bias, op.getWeightLayoutAttr());
    SmallVector<Value> halves = splitLastAxis(rewriter, {loc, loc}, gateUp, {*f, *f});
    Value gate = halves[0], up = halves[1];
    Value hidden = GluOp::create(rewriter, loc, gate.getType(), gate, up, op.getKindAttr());
    auto down = LinearOp::create(rewriter, loc, hidden, op.getWDown(), op.getBDown(),
                                 op.getWeightLayoutAttr());
    llvm::SetVector<Operation *> constants;
    for (Value v : {op.getWGate(), op.getWUp(), op.getBGate(), op.getBUp()})
      if (Operation *def = v ? v.getDefiningOp<arith::ConstantOp>() : nullptr)
        constants.insert(def);
    rewriter.replaceOp(op, down.getResult());
    for (Operation *cst : constants)
      if (cst->use_empty())
        rewriter.eraseOp(cst);
    ++counts.fusedGatedMLPs;
    return success();
  }

  FuseProjectionsPassOptions options;
  FuseProjectionsCounts &counts;
};

struct FuseProjectionsPass
    : public mlir::decoda::impl::FuseProjectionsPassBase<FuseProjectionsPass> {
  using Base::Base;

  void runOnOperation() override {
    FuseProjectionsPassOptions options{minGroup, fuseGatedMLP, weights};
    FuseProjectionsCounts counts;
    if (failed(fuseProjections(getOperation(), options, counts)))
      return signalPassFailure();
    numFusedGroups += counts.fusedGroups;
    numFusedLinears += counts.fusedLinears;
    numFusedGatedMLPs += counts.fusedGatedMLPs;
    numFusedQLinearGroups += counts.fusedQLinearGroups;
    numFusedQLinears += counts.fusedQLinears;
    numFoldedConcats += counts.foldedConcats;
    numRuntimeConcats += counts.runtimeConcats;
  }
};
} // namespace

void mlir::decoda::populateFuseProjectionsPatterns(RewritePatternSet &patterns,
                                                   const FuseProjectionsPassOptions &options,
                                                   FuseProjectionsCounts &counts) {
  patterns.add<FuseLinearGroup, FuseQLinearGroup>(patterns.getContext(), options, counts);
  // The gate/up linear a split gated MLP produces joins any other group on the same input
  // (a parallel block's Q/K/V) when the group pattern visits it, in either order.
  if (options.fuseGatedMLP)
    patterns.add<SplitGatedMLP>(patterns.getContext(), options, counts);
}

LogicalResult mlir::decoda::fuseProjections(Operation *root,
                                            const FuseProjectionsPassOptions &options,
                                            FuseProjectionsCounts &counts) {
  if (options.weights != "any" && options.weights != "constant")
    return root->emitError() << "decoda-fuse-projections: weights must be 'any' or 'constant', "
                                "found '"
                             << options.weights << "'";
  if (options.minGroup < 2)
    return root->emitError() << "decoda-fuse-projections: min-group must be at least 2, found "
                             << options.minGroup;
  RewritePatternSet patterns(root->getContext());
  populateFuseProjectionsPatterns(patterns, options, counts);
  GreedyRewriteConfig config;
  config.enableFolding(false);
  if (failed(applyPatternsGreedily(root, std::move(patterns), config)))
    return root->emitError() << "decoda-fuse-projections did not converge";
  return success();
}
