//===- Projections.cpp - lowering of projections and MLPs to linalg -------===//
//
// linear: one contraction generic (f32 accumulator) and an epilogue that adds the bias and rounds
// to the storage type (buildProjection; both weight layouts, per-head rank-3 weights).
//
// embedding: a gather generic over ids.shape + [D] that reads table[clamp(id, 0, V-1), d] with
// tensor.extract, so no id ever reads outside the table, preceded by an all-ids-in-range loop
// nest (scf.for carrying the condition: scalar reads, which GPU host code may make) and a
// `cf.assert` that fails at run time, naming the op, on an id outside [0, V).
//
// mlp / gated_mlp: f32 accumulators of the up (gate and up) projections, then one elementwise
// generic that adds the biases, applies the activation (GLU) in f32 and rounds the hidden
// activation to the storage type, then the down projection with its bias.
//
//===----------------------------------------------------------------------===//

#include "decoda/Conversion/DecodaToLinalg/DecodaToLinalg.h"

#include "Utils.h"

#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::decoda;
using namespace mlir::decoda::lowering;

namespace {
struct LowerLinear : public OpRewritePattern<LinearOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(LinearOp op, PatternRewriter &rewriter) const override {
    RankedTensorType type = op.getResult().getType();
    Value y = buildProjection(rewriter, op.getLoc(), op.getInput(), op.getWeight(), op.getBias(),
                              op.getWeightLayout(), type.getElementType());
    rewriter.replaceOp(op, castIfNeeded(rewriter, op.getLoc(), y, type));
    return success();
  }
};

struct LowerEmbedding : public OpRewritePattern<EmbeddingOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(EmbeddingOp op, PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value ids = op.getIds(), table = op.getTable();
    auto idsType = cast<RankedTensorType>(ids.getType());
    RankedTensorType type = op.getResult().getType();
    int64_t idsRank = idsType.getRank();
    Type idType = idsType.getElementType();

    // V, as an index and in the id type.
    Value vocab = tensor::DimOp::create(rewriter, loc, table, 0);
    Value vocabId = arith::IndexCastOp::create(rewriter, loc, idType, vocab);
    Value zeroId = arith::ConstantOp::create(rewriter, loc, rewriter.getIntegerAttr(idType, 0));

    // Run-time check: every id in [0, V), as a loop nest over the ids carrying the and-ed
    // condition (scalar reads only: on the GPU this is host code reading the ids, which a
    // reduction into a buffer could not be), then one assert.
    {
      Value trueCst = arith::ConstantOp::create(rewriter, loc, rewriter.getBoolAttr(true));
      Value zeroIdx = arith::ConstantIndexOp::create(rewriter, loc, 0);
      Value oneIdx = arith::ConstantIndexOp::create(rewriter, loc, 1);
      SmallVector<Value> lbs(idsRank, zeroIdx), steps(idsRank, oneIdx), ubs;
      for (int64_t d = 0; d < idsRank; ++d)
        ubs.push_back(tensor::DimOp::create(rewriter, loc, ids, d));
      scf::LoopNest nest = scf::buildLoopNest(
          rewriter, loc, lbs, ubs, steps, ValueRange{trueCst},
          [&](OpBuilder &b, Location l, ValueRange ivs, ValueRange acc) -> scf::ValueVector {
            Value id = tensor::ExtractOp::create(b, l, ids, ivs);
            Value ge = arith::CmpIOp::create(b, l, arith::CmpIPredicate::sge, id, zeroId);
            Value lt = arith::CmpIOp::create(b, l, arith::CmpIPredicate::slt, id, vocabId);
            return {arith::AndIOp::create(b, l, acc[0], arith::AndIOp::create(b, l, ge, lt))};
          });
      Value flag = nest.results.front();
      cf::AssertOp::create(rewriter, loc, flag,
                           "decoda.embedding: token id outside [0, V) of the embedding table");
    }

    // Gather, reading only clamped rows.
    SmallVector<OpFoldResult> sizes = getDims(rewriter, loc, ids);
    sizes.push_back(tensor::getMixedSize(rewriter, loc, table, 1));
    Value out = emptyTensor(rewriter, loc, sizes, type.getElementType());
    AffineMap idsMap = rewriter.getMultiDimIdentityMap(idsRank + 1).dropResult(idsRank);
    Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
    Value one = arith::ConstantIndexOp::create(rewriter, loc, 1);
    Value last = arith::SubIOp::create(rewriter, loc, vocab, one);
    Value y = buildMap(rewriter, loc, ValueRange{ids}, {idsMap}, out,
                       [&](OpBuilder &b, Location l, ValueRange args) -> Value {
                         Value row = arith::IndexCastOp::create(b, l, b.getIndexType(), args[0]);
                         row = arith::MaxSIOp::create(b, l, row, zero);
                         row = arith::MinSIOp::create(b, l, row, last);
                         Value col = linalg::IndexOp::create(b, l, idsRank);
                         return tensor::ExtractOp::create(b, l, table, ValueRange{row, col});
                       });
    rewriter.replaceOp(op, castIfNeeded(rewriter, loc, y, type));
    return success();
  }
};

/// round(act(acc + bias)) over the accumulator's shape, `act` applied to f32 scalars; `acc2`
/// (with `bias2`) is the second operand of a GLU.
Value hiddenActivation(OpBuilder &b, Location loc, Value acc, Value bias, Value acc2, Value bias2,
                       Type elem,
                       function_ref<Value(OpBuilder &, Location, Value, Value)> act) {
  int64_t rank = cast<RankedTensorType>(acc.getType()).getRank();
  AffineMap id = b.getMultiDimIdentityMap(rank), feat = lastDimMap(b, rank);
  SmallVector<Value> ins{acc};
  SmallVector<AffineMap> maps{id};
  if (bias) {
    ins.push_back(bias);
    maps.push_back(feat);
  }
  if (acc2) {
    ins.push_back(acc2);
    maps.push_back(id);
    if (bias2) {
      ins.push_back(bias2);
      maps.push_back(feat);
    }
  }
  return buildMap(b, loc, ins, maps, emptyLike(b, loc, acc, elem),
                  [&](OpBuilder &nb, Location nl, ValueRange args) {
                    unsigned next = 0;
                    Value g = args[next++];
                    if (bias)
                      g = arith::AddFOp::create(nb, nl, g, toF32(nb, nl, args[next++]));
                    Value u;
                    if (acc2) {
                      u = args[next++];
                      if (bias2)
                        u = arith::AddFOp::create(nb, nl, u, toF32(nb, nl, args[next++]));
                    }
                    return fromF32(nb, nl, act(nb, nl, g, u), elem);
                  });
}

struct LowerMLP : public OpRewritePattern<MLPOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(MLPOp op, PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType type = op.getResult().getType();
    Type elem = type.getElementType();
    WeightLayout layout = op.getWeightLayout();
    Activation act = op.getActivation();
    Value acc = buildProjectionAccumulator(rewriter, loc, op.getInput(), op.getWUp(), layout);
    Value h = hiddenActivation(rewriter, loc, acc, op.getBUp(), {}, {}, elem,
                               [&](OpBuilder &b, Location l, Value g, Value) {
                                 return applyActivation(b, l, act, g);
                               });
    Value y = buildProjection(rewriter, loc, h, op.getWDown(), op.getBDown(), layout, elem);
    rewriter.replaceOp(op, castIfNeeded(rewriter, loc, y, type));
    return success();
  }
};

struct LowerGatedMLP : public OpRewritePattern<GatedMLPOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(GatedMLPOp op, PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType type = op.getResult().getType();
    Type elem = type.getElementType();
    WeightLayout layout = op.getWeightLayout();
    GluAttr kind = op.getKind();
    Value gate = buildProjectionAccumulator(rewriter, loc, op.getInput(), op.getWGate(), layout);
    Value up = buildProjectionAccumulator(rewriter, loc, op.getInput(), op.getWUp(), layout);
    Value h = hiddenActivation(rewriter, loc, gate, op.getBGate(), up, op.getBUp(), elem,
                               [&](OpBuilder &b, Location l, Value g, Value u) {
                                 return applyGlu(b, l, kind, g, u);
                               });
    Value y = buildProjection(rewriter, loc, h, op.getWDown(), op.getBDown(), layout, elem);
    rewriter.replaceOp(op, castIfNeeded(rewriter, loc, y, type));
    return success();
  }
};
} // namespace

void mlir::decoda::populateProjectionLoweringPatterns(RewritePatternSet &patterns) {
  patterns.add<LowerLinear, LowerEmbedding, LowerMLP, LowerGatedMLP>(patterns.getContext());
}
