//===- Aggregates.cpp - upstream aggregate ops the importer produces ------===//
//
// The ONNX importer keeps `linalg.softmax` as one op so the raising pass can recognise attention;
// whatever survives raising is decomposed here (max, exp, sum, divide as linalg.generic ops) so
// the CPU codegen only sees plain structured ops.
//
//===----------------------------------------------------------------------===//

#include "decoda/Conversion/DecodaToLinalg/DecodaToLinalg.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;

namespace {
struct DecomposeSoftmax : public OpRewritePattern<linalg::SoftmaxOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(linalg::SoftmaxOp op, PatternRewriter &rewriter) const override {
    FailureOr<SmallVector<Value>> r = op.decomposeOperation(rewriter);
    if (failed(r))
      return rewriter.notifyMatchFailure(op, "softmax could not be decomposed");
    rewriter.replaceOp(op, *r);
    return success();
  }
};
} // namespace

void mlir::decoda::populateAggregateLoweringPatterns(RewritePatternSet &patterns) {
  patterns.add<DecomposeSoftmax>(patterns.getContext());
}
