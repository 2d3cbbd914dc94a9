//===- DecodaDialect.h - the decoda dialect ---------------------*- C++ -*-===//

#ifndef DECODA_DIALECT_DECODA_IR_DECODADIALECT_H
#define DECODA_DIALECT_DECODA_IR_DECODADIALECT_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpImplementation.h"

#include "Decoda/DecodaDialect.h.inc"

#endif // DECODA_DIALECT_DECODA_IR_DECODADIALECT_H
