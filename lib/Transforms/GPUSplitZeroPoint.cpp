//===- GPUSplitZeroPoint.cpp - the activation zero point out of INT8 matmuls -===//
//
// decoda-gpu-split-zero-point (GPUPasses.td): a decoda.qlinear_acc contraction with an
// activation zero point, acc = Σ_k (x - zp) w, becomes acc0 = Σ_k x w (the symmetric
// contraction the s8 tensor-core and dp4a kernels take), the column sums colsum[n] = Σ_k w[n,
// k] (folded when w is a constant) and the elementwise correction acc0 - zp · colsum, which
// decoda-fuse-elementwise joins to the dequantising epilogue. i32 arithmetic wraps, and
// (Σ (x - zp) w) mod 2^32 = (Σ x w - zp Σ w) mod 2^32, so the result is the same bit for bit.
//
//===----------------------------------------------------------------------===//

#include "decoda/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::decoda {
#define GEN_PASS_DEF_GPUSPLITZEROPOINTPASS
#include "decoda/Transforms/Passes.h.inc"
} // namespace mlir::decoda

using namespace mlir;

namespace {
constexpr llvm::StringLiteral kAccAttr = "decoda.qlinear_acc";

/// Whether `v` is extsi of block argument `arg` to i32.
bool isExtOf(Value v, Block &body, unsigned arg) {
  auto ext = v.getDefiningOp<arith::ExtSIOp>();
  return ext && ext.getIn() == body.getArgument(arg) && ext.getType().isInteger(32);
}

/// Whether `op` is the zero-point contraction decoda-convert-to-linalg writes for
/// decoda.qlinear: inputs x, w, zp; a zero-filled i32 output; body out + (extsi(x) -
/// extsi(zp)) * extsi(w) (either order of the product and the sum); the last loop the only
/// reduction, w read as (n, k), zp through a map that does not use k.
bool isZeroPointContraction(linalg::GenericOp op) {
  if (!op->hasAttr(kAccAttr) || !op.hasPureTensorSemantics() || op.getNumDpsInputs() != 3 ||
      op.getNumDpsInits() != 1 || op.getNumResults() != 1)
    return false;
  unsigned loops = op.getNumLoops();
  if (loops < 2)
    return false;
  auto iters = op.getIteratorTypesArray();
  for (unsigned i = 0; i + 1 < loops; ++i)
    if (iters[i] != utils::IteratorType::parallel)
      return false;
  if (iters.back() != utils::IteratorType::reduction)
    return false;
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  MLIRContext *ctx = op.getContext();
  AffineExpr n = getAffineDimExpr(loops - 2, ctx), k = getAffineDimExpr(loops - 1, ctx);
  if (maps[1] != AffineMap::get(loops, 0, {n, k}, ctx) || maps[2].isFunctionOfDim(loops - 1) ||
      maps[3].isFunctionOfDim(loops - 1))
    return false;
  for (unsigned i = 0; i < 3; ++i)
    if (!cast<ShapedType>(op.getDpsInputs()[i].getType()).getElementType().isInteger(8))
      return false;
  auto outType = cast<ShapedType>(op.getDpsInits()[0].getType());
  if (!outType.getElementType().isInteger(32))
    return false;

  Block &body = op.getRegion().front();
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  auto add = yield.getOperand(0).getDefiningOp<arith::AddIOp>();
  if (!add)
    return false;
  Value out = body.getArgument(3);
  Value prod = add.getLhs() == out ? add.getRhs() : add.getRhs() == out ? add.getLhs() : Value();
  auto mul = prod ? prod.getDefiningOp<arith::MulIOp>() : arith::MulIOp();
  if (!mul)
    return false;
  auto isCentred = [&](Value v) {
    auto sub = v.getDefiningOp<arith::SubIOp>();
    return sub && isExtOf(sub.getLhs(), body, 0) && isExtOf(sub.getRhs(), body, 2);
  };
  return (isCentred(mul.getLhs()) && isExtOf(mul.getRhs(), body, 1)) ||
         (isCentred(mul.getRhs()) && isExtOf(mul.getLhs(), body, 1));
}

/// The column sums of a constant i8 weight [N, K], or a null attribute.
DenseElementsAttr foldColumnSums(Value w) {
  DenseIntElementsAttr attr;
  if (!matchPattern(w, m_Constant(&attr)))
    return {};
  auto type = cast<RankedTensorType>(attr.getType());
  if (!type.hasStaticShape() || type.getRank() != 2)
    return {};
  int64_t n = type.getDimSize(0), kk = type.getDimSize(1);
  std::vector<int32_t> sums(n, 0);
  int64_t i = 0;
  for (const APInt &v : attr.getValues<APInt>()) {
    // Wrapping, as the i32 reduction would (|sum| <= 128 K never wraps for K < 2^24).
    sums[i / kk] = static_cast<int32_t>(static_cast<uint32_t>(sums[i / kk]) +
                                        static_cast<uint32_t>(v.getSExtValue()));
    ++i;
  }
  auto sumType = RankedTensorType::get({n}, IntegerType::get(w.getContext(), 32));
  return DenseElementsAttr::get(sumType, ArrayRef<int32_t>(sums));
}

struct GPUSplitZeroPointPass
    : public mlir::decoda::impl::GPUSplitZeroPointPassBase<GPUSplitZeroPointPass> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<linalg::GenericOp> ops;
    getOperation().walk([&](linalg::GenericOp op) {
      if (isZeroPointContraction(op))
        ops.push_back(op);
    });
    for (linalg::GenericOp op : ops)
      split(op);
  }

  void split(linalg::GenericOp op) {
    MLIRContext *ctx = op.getContext();
    OpBuilder b(op);
    Location loc = op.getLoc();
    Type i32 = b.getI32Type();
    Value x = op.getDpsInputs()[0], w = op.getDpsInputs()[1], zp = op.getDpsInputs()[2];
    Value init = op.getDpsInits()[0];
    SmallVector<AffineMap> maps = op.getIndexingMapsArray();
    unsigned loops = op.getNumLoops(), rank = loops - 1; // the output's rank

    // colsum[n] = Σ_k extsi(w[n, k]), first: the contraction's kernel fuses the epilogue only
    // when that is the next op to touch memory after it.
    Value colsum;
    if (DenseElementsAttr sums = foldColumnSums(w)) {
      colsum = arith::ConstantOp::create(b, loc, sums.getType(), sums);
      ++numFolded;
    } else {
      OpFoldResult nDim = tensor::getMixedSize(b, loc, w, 0);
      Value empty = tensor::EmptyOp::create(b, loc, ArrayRef<OpFoldResult>{nDim}, i32);
      Value zero = arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(0));
      Value filled = linalg::FillOp::create(b, loc, zero, empty).getResult(0);
      AffineExpr d0 = getAffineDimExpr(0, ctx), d1 = getAffineDimExpr(1, ctx);
      colsum = linalg::GenericOp::create(
                   b, loc, filled.getType(), ValueRange{w}, ValueRange{filled},
                   ArrayRef<AffineMap>{AffineMap::get(2, 0, {d0, d1}, ctx),
                                       AffineMap::get(2, 0, {d0}, ctx)},
                   ArrayRef<utils::IteratorType>{utils::IteratorType::parallel,
                                                 utils::IteratorType::reduction},
                   [&](OpBuilder &nb, Location l, ValueRange args) {
                     Value wv = arith::ExtSIOp::create(nb, l, i32, args[0]);
                     linalg::YieldOp::create(nb, l,
                                             ValueRange{arith::AddIOp::create(nb, l, args[1], wv)});
                   })
                   .getResult(0);
    }

    // acc0 = Σ_k extsi(x) extsi(w), into the same (zero-filled) init.
    auto acc0 = linalg::GenericOp::create(
        b, loc, init.getType(), ValueRange{x, w}, ValueRange{init},
        ArrayRef<AffineMap>{maps[0], maps[1], maps[3]}, op.getIteratorTypesArray(),
        [&](OpBuilder &nb, Location l, ValueRange args) {
          Value xv = arith::ExtSIOp::create(nb, l, i32, args[0]);
          Value wv = arith::ExtSIOp::create(nb, l, i32, args[1]);
          Value p = arith::MulIOp::create(nb, l, xv, wv);
          linalg::YieldOp::create(nb, l, ValueRange{arith::AddIOp::create(nb, l, args[2], p)});
        });
    acc0->setAttr(kAccAttr, b.getUnitAttr());

    // acc = acc0 - extsi(zp) * colsum, over (lead..., n).
    AffineMap id = b.getMultiDimIdentityMap(rank);
    AffineMap zpMap = AffineMap::get(rank, 0, maps[2].getResults(), ctx);
    AffineMap nMap = AffineMap::get(rank, 0, {getAffineDimExpr(rank - 1, ctx)}, ctx);
    SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, acc0.getResult(0));
    Value empty = tensor::EmptyOp::create(b, loc, sizes, i32);
    auto corrected = linalg::GenericOp::create(
        b, loc, empty.getType(), ValueRange{acc0.getResult(0), zp, colsum}, ValueRange{empty},
        ArrayRef<AffineMap>{id, zpMap, nMap, id},
        SmallVector<utils::IteratorType>(rank, utils::IteratorType::parallel),
        [&](OpBuilder &nb, Location l, ValueRange args) {
          Value z = arith::ExtSIOp::create(nb, l, i32, args[1]);
          Value c = arith::MulIOp::create(nb, l, z, args[2]);
          linalg::YieldOp::create(nb, l, ValueRange{arith::SubIOp::create(nb, l, args[0], c)});
        });
    op.getResult(0).replaceAllUsesWith(corrected.getResult(0));
    op.erase();
    ++numSplit;
  }
};
} // namespace
