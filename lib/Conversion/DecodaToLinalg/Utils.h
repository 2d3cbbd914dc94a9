//===- Utils.h - helpers shared by the decoda lowering patterns -*- C++ -*-===//

#ifndef DECODA_LIB_CONVERSION_DECODATOLINALG_UTILS_H
#define DECODA_LIB_CONVERSION_DECODATOLINALG_UTILS_H

#include "decoda/Dialect/Decoda/IR/DecodaOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"

namespace mlir::decoda::lowering {

/// Extends a float scalar to f32 (no-op for f32).
Value toF32(OpBuilder &b, Location loc, Value v);
/// Rounds an f32 scalar to `type` (no-op for f32).
Value fromF32(OpBuilder &b, Location loc, Value v, Type type);
/// An f32 constant.
Value f32Const(OpBuilder &b, Location loc, double v);

/// The sizes of `tensor`, static or `tensor.dim`.
SmallVector<OpFoldResult> getDims(OpBuilder &b, Location loc, Value tensor);
/// `tensor.empty` with the given sizes and element type.
Value emptyTensor(OpBuilder &b, Location loc, ArrayRef<OpFoldResult> sizes, Type elementType);
/// `tensor.empty` with the shape of `like` and element type `elementType` (default: like's).
Value emptyLike(OpBuilder &b, Location loc, Value like, Type elementType = {});
/// A tensor of `sizes` filled with the f32 (or `elementType`) constant `value`.
Value filledTensor(OpBuilder &b, Location loc, ArrayRef<OpFoldResult> sizes, Type elementType,
                   double value);

/// Scalar activations, all in f32.
Value silu(OpBuilder &b, Location loc, Value x);
Value sigmoid(OpBuilder &b, Location loc, Value x);
Value geluErf(OpBuilder &b, Location loc, Value x);
Value geluTanh(OpBuilder &b, Location loc, Value x);
Value softcapScalar(OpBuilder &b, Location loc, Value x, double cap);
Value applyActivation(OpBuilder &b, Location loc, Activation act, Value x);
/// h = glu(g, u) for f32 scalars, following #decoda.glu.
Value applyGlu(OpBuilder &b, Location loc, GluAttr kind, Value gate, Value up);

/// y[..., n] = sum_k x[..., k] * W[n, k] (+ bias[n]), accumulated in f32 and rounded to
/// `resultElementType`. `weight` is [N, K] (out_in) or [K, N] (in_out); `bias` may be null.
/// With `accumulateF32Result` the f32 accumulator is returned without rounding.
Value buildProjection(OpBuilder &b, Location loc, Value input, Value weight, Value bias,
                      WeightLayout layout, Type resultElementType);

/// A linalg.generic with parallel iterators over the iteration space of `init` (identity map on
/// `init`) that yields `body(args)`, where `args` are the elements of `inputs` (read through
/// `inputMaps`, defined over that space) followed by the element of `init`.
Value buildMap(OpBuilder &b, Location loc, ValueRange inputs, ArrayRef<AffineMap> inputMaps,
               Value init, function_ref<Value(OpBuilder &, Location, ValueRange)> body);

/// The f32 accumulator of a projection, `acc[..., n] = sum_k x[..., k] * W[n, k]`, without bias
/// and without rounding; `weight` as for buildProjection (2-D, or per-head 3-D).
Value buildProjectionAccumulator(OpBuilder &b, Location loc, Value input, Value weight,
                                 WeightLayout layout);

/// Affine map of a rank-`rank` iteration space onto its last dim (per-feature vectors).
AffineMap lastDimMap(OpBuilder &b, int64_t rank);

/// Casts `v` to `type` with tensor.cast when their static shapes differ.
Value castIfNeeded(OpBuilder &b, Location loc, Value v, Type type);

} // namespace mlir::decoda::lowering

#endif // DECODA_LIB_CONVERSION_DECODATOLINALG_UTILS_H
