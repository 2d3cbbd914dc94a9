//===- ConstantData.h - the stored bytes of constant tensors -----*- C++ -*-===//
//
// Shared by the passes that rewrite constant weights at compile time (decoda-fuse-projections
// concatenates them, decoda-transpose-constant-weights transposes them, decoda-raise-onnx
// splits a fused gate_up projection's).
//
//===----------------------------------------------------------------------===//

#ifndef DECODA_LIB_TRANSFORMS_CONSTANTDATA_H
#define DECODA_LIB_TRANSFORMS_CONSTANTDATA_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/AsmState.h"
#include "mlir/IR/Builders.h"
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

/// A constant of `type` holding `bytes` (row-major, whole elements): a new dense_resource named
/// `name` (uniqued) when `asResource` (large weights stay resources), else dense.
inline TypedAttr constantFromBytes(RankedTensorType type, ArrayRef<char> bytes, bool asResource,
                                   StringRef name) {
  if (asResource)
    return DenseResourceElementsAttr::get(
        type, name,
        HeapAsmResourceBlob::allocateAndCopyWithAlign(bytes, alignof(std::max_align_t)));
  return DenseElementsAttr::getFromRawBuffer(type, bytes);
}

/// Elements [offset, offset + size) along `axis` of the constant `v` (constantView's
/// conditions) as a new arith.constant at `b`'s insertion point (a splat stays a splat, a
/// resource becomes a new resource named `name`); null when `v` has no data here.
inline Value sliceConstant(OpBuilder &b, Location loc, Value v, int64_t axis, int64_t offset,
                           int64_t size, StringRef name) {
  std::optional<ConstantView> view = constantView(v);
  if (!view)
    return nullptr;
  auto type = cast<RankedTensorType>(v.getType());
  SmallVector<int64_t> shape(type.getShape());
  if (axis < 0 || axis >= type.getRank() || offset < 0 || size <= 0 ||
      offset + size > shape[axis])
    return nullptr;
  int64_t full = shape[axis];
  shape[axis] = size;
  auto newType = RankedTensorType::get(shape, type.getElementType());
  TypedAttr value;
  if (view->splat) {
    value = cast<DenseElementsAttr>(v.getDefiningOp<arith::ConstantOp>().getValue())
                .resizeSplat(newType);
  } else {
    // Row-major: `outer` blocks of `full * inner` elements, each giving `size * inner`.
    size_t e = type.getElementTypeBitWidth() / 8;
    int64_t inner = 1, outer = 1;
    for (int64_t i = axis + 1; i < type.getRank(); ++i)
      inner *= shape[i];
    for (int64_t i = 0; i < axis; ++i)
      outer *= shape[i];
    SmallVector<char> bytes;
    bytes.reserve(outer * size * inner * e);
    for (int64_t o = 0; o < outer; ++o) {
      const char *src = view->raw.data() + ((o * full + offset) * inner) * e;
      bytes.append(src, src + size * inner * e);
    }
    value = constantFromBytes(newType, bytes, view->isResource, name);
  }
  return arith::ConstantOp::create(b, loc, newType, value);
}

} // namespace mlir::decoda

#endif // DECODA_LIB_TRANSFORMS_CONSTANTDATA_H
