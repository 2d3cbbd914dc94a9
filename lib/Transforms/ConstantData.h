//===- ConstantData.h - the stored bytes of constant tensors -----*- C++ -*-===//
//
// Shared by the passes that rewrite constant weights at compile time (decoda-fuse-projections
// concatenates them, decoda-transpose-constant-weights transposes them).
//
//===----------------------------------------------------------------------===//

#ifndef DECODA_LIB_TRANSFORMS_CONSTANTDATA_H
#define DECODA_LIB_TRANSFORMS_CONSTANTDATA_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/DialectResourceBlobManager.h"

#include <optional>

namespace mlir::decoda {

/// The data of a constant tensor as stored, when `v` is an arith.constant whose data is in
/// memory (`dense`, splat or not, or a `dense_resource` with its blob): row-major bytes, or one
/// element when `splat`. Elements must be whole bytes (every decoda float type is). A view, so
/// asking whether a large weight folds copies nothing.
struct ConstantView {
  ArrayRef<char> raw;
  bool splat = false;
  bool isResource = false;
};

inline std::optional<ConstantView> constantView(Value v) {
  auto cst = v.getDefiningOp<arith::ConstantOp>();
  auto type = dyn_cast<RankedTensorType>(v.getType());
  if (!cst || !type || !type.hasStaticShape() || type.getElementTypeBitWidth() % 8 != 0)
    return std::nullopt;
  size_t elemBytes = type.getElementTypeBitWidth() / 8;
  ConstantView view;
  if (auto dense = dyn_cast<DenseElementsAttr>(cst.getValue())) {
    view.raw = dense.getRawData();
    view.splat = dense.isSplat();
  } else if (auto resource = dyn_cast<DenseResourceElementsAttr>(cst.getValue())) {
    // An elided or not yet loaded blob has no data: then the weight is not foldable.
    view.raw = resource.getData();
    view.isResource = true;
  } else {
    return std::nullopt;
  }
  size_t expected = view.splat ? elemBytes : type.getNumElements() * elemBytes;
  if (view.raw.size() != expected)
    return std::nullopt;
  return view;
}

} // namespace mlir::decoda

#endif // DECODA_LIB_TRANSFORMS_CONSTANTDATA_H
