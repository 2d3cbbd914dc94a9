//===- DecodaDialect.cpp - the decoda dialect -----------------------------===//

#include "decoda/Dialect/Decoda/IR/DecodaDialect.h"
#include "decoda/Dialect/Decoda/IR/DecodaOps.h"

using namespace mlir;
using namespace mlir::decoda;

#include "Decoda/DecodaDialect.cpp.inc"

void DecodaDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "Decoda/DecodaOps.cpp.inc"
      >();
  registerAttributes();
}
