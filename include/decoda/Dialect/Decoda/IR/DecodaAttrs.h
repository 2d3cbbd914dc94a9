//===- DecodaAttrs.h - enums and attributes of decoda -----------*- C++ -*-===//

#ifndef DECODA_DIALECT_DECODA_IR_DECODAATTRS_H
#define DECODA_DIALECT_DECODA_IR_DECODAATTRS_H

#include "mlir/IR/Attributes.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectImplementation.h"
#include <optional>

#include "Decoda/DecodaEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "Decoda/DecodaAttrs.h.inc"

namespace mlir::decoda {
/// Attribute parameters hold reals as APFloat (hashable and bit-exact); most users want doubles.
inline std::optional<double> toDouble(const std::optional<llvm::APFloat> &v) {
  if (!v)
    return std::nullopt;
  return v->convertToDouble();
}
inline std::optional<llvm::APFloat> toAPFloat(std::optional<double> v) {
  if (!v)
    return std::nullopt;
  return llvm::APFloat(*v);
}
} // namespace mlir::decoda

#endif // DECODA_DIALECT_DECODA_IR_DECODAATTRS_H
