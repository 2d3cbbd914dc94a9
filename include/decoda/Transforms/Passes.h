//===- Passes.h - graph and lowering-support passes of Decoda ---*- C++ -*-===//

#ifndef DECODA_TRANSFORMS_PASSES_H
#define DECODA_TRANSFORMS_PASSES_H

#include "mlir/Pass/Pass.h"

namespace mlir::decoda {

#define GEN_PASS_DECL
#include "decoda/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "decoda/Transforms/Passes.h.inc"

} // namespace mlir::decoda

#endif // DECODA_TRANSFORMS_PASSES_H
