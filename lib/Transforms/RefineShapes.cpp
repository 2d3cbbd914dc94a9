//===- RefineShapes.cpp - static shapes carried through decoda ops ---------===//
//
// decoda-refine-shapes (Passes.td) and refineShapes (SpecializeDims.h): after `--static-dims`
// or a `<name>_decode` entry gave arguments static sizes, their uses see the old dynamic type
// through a tensor.cast. Upstream folds carry the sizes through tensor and linalg ops, but
// nothing carries them through decoda ops, so every decoda op kept its dynamic types until the
// lowering had inlined everything (too late for the GPU pipeline's decisions that need static
// rows, such as a norm folded into the GEMV kernels that read it). Here a decoda op reading a
// tensor.cast that drops static sizes reads the cast's source instead; its result types are
// inferred again (InferTypeOpInterface) or, for the ops whose results have the type of an
// operand (norms, RoPE, MLPs), taken from that operand; the new op must verify, else the old
// one stays. Results whose type changed reach their old uses through a tensor.cast back, which
// the next decoda op (or upstream's folds) takes in turn. Run with the canonicalization
// patterns, so tensor.dim / expand_shape / extract_slice of the refined values fold on the way.
//
//===----------------------------------------------------------------------===//

#include "decoda/Transforms/Passes.h"
#include "decoda/Transforms/SpecializeDims.h"

#include "decoda/Dialect/Decoda/IR/DecodaDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::decoda {
#define GEN_PASS_DEF_REFINESHAPESPASS
#include "decoda/Transforms/Passes.h.inc"
} // namespace mlir::decoda

using namespace mlir;

namespace {
/// A decoda op whose operand is a tensor.cast that lost static sizes: the same op on the cast's
/// source, its results cast back to their old types.
struct RefineFromCasts : public RewritePattern {
  explicit RefineFromCasts(MLIRContext *ctx)
      : RewritePattern(MatchAnyOpTypeTag(), /*benefit=*/1, ctx) {}

  LogicalResult matchAndRewrite(Operation *op, PatternRewriter &rewriter) const override {
    if (!isa_and_nonnull<decoda::DecodaDialect>(op->getDialect()) || op->getNumRegions() != 0 ||
        op->getNumResults() == 0)
      return failure();
    SmallVector<Value> operands(op->getOperands());
    bool refined = false;
    for (Value &v : operands) {
      auto cast = v.getDefiningOp<tensor::CastOp>();
      if (cast && tensor::preservesStaticInformation(cast.getType(), cast.getSource().getType()) &&
          cast.getType() != cast.getSource().getType()) {
        v = cast.getSource();
        refined = true;
      }
    }
    if (!refined)
      return rewriter.notifyMatchFailure(op, "no operand is a cast that lost static sizes");
    SmallVector<Type> results;
    if (auto infer = dyn_cast<InferTypeOpInterface>(op)) {
      if (failed(infer.inferReturnTypes(op->getContext(), op->getLoc(), operands,
                                        op->getAttrDictionary(), op->getPropertiesStorage(),
                                        op->getRegions(), results)))
        return rewriter.notifyMatchFailure(op, "result types not inferred");
    } else {
      // A result with the type of an operand takes that operand's refined type.
      for (Value r : op->getResults()) {
        Type t = r.getType();
        for (auto [old, fresh] : llvm::zip(op->getOperands(), operands))
          if (old.getType() == r.getType() && fresh.getType() != old.getType()) {
            t = fresh.getType();
            break;
          }
        results.push_back(t);
      }
    }
    // Values of one type before (the operands and results an op requires to match) must keep
    // one type: a trait such as SameOperandsAndResultType accepts a static and a dynamic
    // operand as compatible, but the op would no longer print as it parses. (Conservative for
    // ops whose operands merely happened to share a type, e.g. attention's q and k: refined
    // to different lengths they keep their dynamic types.)
    {
      DenseMap<Type, Type> now;
      auto consistent = [&](Type before, Type after) {
        auto [it, inserted] = now.try_emplace(before, after);
        return inserted || it->second == after;
      };
      for (auto [old, fresh] : llvm::zip(op->getOperands(), operands))
        if (!consistent(old.getType(), fresh.getType()))
          return rewriter.notifyMatchFailure(op, "operands of one type would differ");
      for (auto [r, t] : llvm::zip(op->getResults(), results))
        if (!consistent(r.getType(), t))
          return rewriter.notifyMatchFailure(op, "results would differ from their operands");
    }
    // Never less static than before.
    for (auto [r, t] : llvm::zip(op->getResults(), results))
      if (r.getType() != t && !tensor::preservesStaticInformation(r.getType(), t))
        return rewriter.notifyMatchFailure(op, "a result would lose static sizes");
    Operation *fresh = rewriter.clone(*op);
    fresh->setOperands(operands);
    for (auto [r, t] : llvm::zip(fresh->getResults(), results))
      r.setType(t);
    if (failed(verify(fresh, /*verifyRecursively=*/false))) {
      rewriter.eraseOp(fresh);
      return rewriter.notifyMatchFailure(op, "the refined op does not verify");
    }
    SmallVector<Value> replacements;
    for (auto [old, now] : llvm::zip(op->getResults(), fresh->getResults()))
      replacements.push_back(old.getType() == now.getType()
                                 ? Value(now)
                                 : tensor::CastOp::create(rewriter, op->getLoc(), old.getType(),
                                                          now)
                                       .getResult());
    rewriter.replaceOp(op, replacements);
    return success();
  }
};
} // namespace

LogicalResult mlir::decoda::refineShapes(Operation *root) {
  MLIRContext *ctx = root->getContext();
  RewritePatternSet patterns(ctx);
  for (Dialect *dialect : ctx->getLoadedDialects())
    dialect->getCanonicalizationPatterns(patterns);
  for (RegisteredOperationName op : ctx->getRegisteredOperations())
    op.getCanonicalizationPatterns(patterns, ctx);
  patterns.add<RefineFromCasts>(ctx);
  return applyPatternsGreedily(root, std::move(patterns));
}

namespace {
struct RefineShapesPass : public mlir::decoda::impl::RefineShapesPassBase<RefineShapesPass> {
  using Base::Base;
  void runOnOperation() override {
    if (failed(mlir::decoda::refineShapes(getOperation())))
      getOperation()->emitWarning() << "decoda-refine-shapes: the rewrites did not converge";
  }
};
} // namespace
