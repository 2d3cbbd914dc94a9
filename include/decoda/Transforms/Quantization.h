//===- Quantization.h - names shared by the INT8 passes and the driver -*- C++ -*-===//
//
// Calibration statistics reach decoda-smooth-quant and decoda-insert-qdq as op attributes, so
// each pass can be tested on its own and the driver's calibration only has to write them.
//
//===----------------------------------------------------------------------===//

#ifndef DECODA_TRANSFORMS_QUANTIZATION_H
#define DECODA_TRANSFORMS_QUANTIZATION_H

namespace mlir::decoda::quant {

/// `array<f32: ...>`: on `decoda.linear`, max |input| per input channel (length K) over the
/// calibration tokens; on `decoda.attention`, max |q|, |k|, |v| (length 3).
inline constexpr const char *kCalibAbsmax = "decoda.calib_absmax";
/// A unit attribute: the op stays in float.
inline constexpr const char *kKeepFloat = "decoda.float";
/// Unit attribute set by decoda-smooth-quant on the linears it smoothed.
inline constexpr const char *kSmoothed = "decoda.smoothed";
/// f64 attribute set by decoda-insert-qdq on a linear whose static activation scale comes
/// from the output bound of the GLU feeding it (SiTU-GLU: beta1 * beta2), not calibration.
inline constexpr const char *kScaleFromGluBound = "decoda.scale_from_glu_bound";
/// Unit attribute on the linalg ops decoda-insert-qdq creates to compute a dynamic activation
/// scale (for the precision report).
inline constexpr const char *kDynamicScale = "decoda.dynamic_scale";

} // namespace mlir::decoda::quant

#endif // DECODA_TRANSFORMS_QUANTIZATION_H
