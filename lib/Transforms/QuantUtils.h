//===- QuantUtils.h - helpers shared by the INT8 graph passes ---*- C++ -*-===//
//
// Constants read as f32 host vectors and written back; calibration statistics read from ops.
//
//===----------------------------------------------------------------------===//

#ifndef DECODA_LIB_TRANSFORMS_QUANTUTILS_H
#define DECODA_LIB_TRANSFORMS_QUANTUTILS_H

#include "decoda/Transforms/Quantization.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"

#include <optional>
#include <vector>

namespace mlir::decoda::quant {

/// The values of an f32 `arith.constant` with a static shape (`dense`, splat or not, or a
/// `dense_resource` with its data), row-major; nullopt for anything else.
inline std::optional<std::vector<float>> readF32Constant(Value v) {
  auto cst = v.getDefiningOp<arith::ConstantOp>();
  auto type = dyn_cast<RankedTensorType>(v.getType());
  if (!cst || !type || !type.hasStaticShape() || !type.getElementType().isF32())
    return std::nullopt;
  std::vector<float> out(type.getNumElements());
  if (auto dense = dyn_cast<DenseElementsAttr>(cst.getValue())) {
    if (dense.isSplat()) {
      std::fill(out.begin(), out.end(), dense.getSplatValue<float>());
      return out;
    }
    auto values = dense.getValues<float>();
    std::copy(values.begin(), values.end(), out.begin());
    return out;
  }
  if (auto resource = dyn_cast<DenseResourceElementsAttr>(cst.getValue())) {
    ArrayRef<char> raw = resource.getData();
    if (raw.size() != out.size() * sizeof(float))
      return std::nullopt; // elided or not loaded
    std::memcpy(out.data(), raw.data(), raw.size());
    return out;
  }
  return std::nullopt;
}

/// A new constant of `type` (f32 or i8 elements) holding `values` (row-major).
template <typename T>
Value makeConstant(OpBuilder &b, Location loc, RankedTensorType type, ArrayRef<T> values) {
  auto attr = DenseElementsAttr::get(type, values);
  return arith::ConstantOp::create(b, loc, type, attr);
}

/// The absmax statistics on `op` (`decoda.calib_absmax`), or nullopt.
inline std::optional<std::vector<float>> calibAbsmax(Operation *op) {
  auto attr = op->getAttrOfType<DenseF32ArrayAttr>(kCalibAbsmax);
  if (!attr)
    return std::nullopt;
  return std::vector<float>(attr.asArrayRef().begin(), attr.asArrayRef().end());
}

} // namespace mlir::decoda::quant

#endif // DECODA_LIB_TRANSFORMS_QUANTUTILS_H
