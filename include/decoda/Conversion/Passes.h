//===- Passes.h - conversion passes of Decoda -------------------*- C++ -*-===//

#ifndef DECODA_CONVERSION_PASSES_H
#define DECODA_CONVERSION_PASSES_H

#include "mlir/Pass/Pass.h"

namespace mlir::decoda {

#define GEN_PASS_DECL
#include "decoda/Conversion/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "decoda/Conversion/Passes.h.inc"

} // namespace mlir::decoda

#endif // DECODA_CONVERSION_PASSES_H
