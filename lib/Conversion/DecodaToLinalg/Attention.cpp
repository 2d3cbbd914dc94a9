//===- Attention.cpp - lowering of decoda ops to linalg (stub) ----------------===//

#include "decoda/Conversion/DecodaToLinalg/DecodaToLinalg.h"

using namespace mlir;
using namespace mlir::decoda;

void mlir::decoda::populateAttentionLoweringPatterns(RewritePatternSet &patterns, const DecodaToLinalgOptions &options) {}

