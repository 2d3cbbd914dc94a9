//===- Projections.cpp - lowering of decoda ops to linalg (stub) ----------------===//

#include "decoda/Conversion/DecodaToLinalg/DecodaToLinalg.h"

using namespace mlir;

void mlir::decoda::populateProjectionLoweringPatterns(RewritePatternSet &patterns) {}

