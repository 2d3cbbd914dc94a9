//===- DecodaOps.h - operations of the decoda dialect -----------*- C++ -*-===//

#ifndef DECODA_DIALECT_DECODA_IR_DECODAOPS_H
#define DECODA_DIALECT_DECODA_IR_DECODAOPS_H

#include "decoda/Dialect/Decoda/IR/DecodaAttrs.h"
#include "decoda/Dialect/Decoda/IR/DecodaDialect.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mlir::decoda {
class NormOpInterface;
namespace detail {
LogicalResult verifyNormOp(Operation *op);
} // namespace detail
} // namespace mlir::decoda

#include "Decoda/DecodaInterfaces.h.inc"

#define GET_OP_CLASSES
#include "Decoda/DecodaOps.h.inc"

#endif // DECODA_DIALECT_DECODA_IR_DECODAOPS_H
