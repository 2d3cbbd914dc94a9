//===- Semantics.cpp - numeric definitions shared by all targets ----------===//

#include "decoda/Dialect/Decoda/IR/Semantics.h"

#include <algorithm>
#include <cmath>
#include <limits>

using namespace mlir;
using namespace mlir::decoda;

namespace {
constexpr double kPi = 3.14159265358979323846;

// YaRN: the rotary dim whose wavelength completes `numRotations` turns over `maxPos`.
double yarnCorrectionDim(double numRotations, double dim, double base, double maxPos) {
  return dim * std::log(maxPos / (numRotations * 2.0 * kPi)) / (2.0 * std::log(base));
}
} // namespace

std::vector<double> mlir::decoda::computeRopeInvFreq(double theta, int64_t rotaryDim,
                                                     RopeScalingAttr scaling) {
  int64_t half = rotaryDim / 2;
  std::vector<double> invFreq(half);
  for (int64_t k = 0; k < half; ++k)
    invFreq[k] = 1.0 / std::pow(theta, static_cast<double>(2 * k) / rotaryDim);
  if (!scaling)
    return invFreq;

  double factor = scaling.getFactor().convertToDouble();
  switch (scaling.getKind()) {
  case RopeScalingKind::linear:
    for (double &f : invFreq)
      f /= factor;
    break;
  case RopeScalingKind::yarn: {
    double maxPos = static_cast<double>(*scaling.getOriginalMaxPosition());
    double dim = static_cast<double>(rotaryDim);
    double low = std::floor(
        yarnCorrectionDim(toDouble(scaling.getBetaFast()).value_or(32.0), dim, theta, maxPos));
    double high = std::ceil(
        yarnCorrectionDim(toDouble(scaling.getBetaSlow()).value_or(1.0), dim, theta, maxPos));
    low = std::max(low, 0.0);
    high = std::min(high, dim - 1.0);
    if (low == high)
      high += 0.001;
    for (int64_t k = 0; k < half; ++k) {
      double ramp = std::clamp((static_cast<double>(k) - low) / (high - low), 0.0, 1.0);
      double extrapolation = 1.0 - ramp; // weight of the unscaled frequency
      double interp = invFreq[k] / factor;
      invFreq[k] = interp * (1.0 - extrapolation) + invFreq[k] * extrapolation;
    }
    break;
  }
  case RopeScalingKind::llama3: {
    double oldContext = static_cast<double>(*scaling.getOriginalMaxPosition());
    double lowFreqFactor = toDouble(scaling.getLowFreqFactor()).value_or(1.0);
    double highFreqFactor = toDouble(scaling.getHighFreqFactor()).value_or(4.0);
    double lowFreqWavelen = oldContext / lowFreqFactor;
    double highFreqWavelen = oldContext / highFreqFactor;
    for (double &f : invFreq) {
      double wavelen = 2.0 * kPi / f;
      if (wavelen > lowFreqWavelen) {
        f /= factor;
      } else if (wavelen >= highFreqWavelen) {
        double smooth =
            (oldContext / wavelen - lowFreqFactor) / (highFreqFactor - lowFreqFactor);
        f = (1.0 - smooth) * f / factor + smooth * f;
      }
    }
    break;
  }
  }
  return invFreq;
}

double mlir::decoda::computeRopeAttentionFactor(RopeScalingAttr scaling) {
  if (!scaling || scaling.getKind() != RopeScalingKind::yarn)
    return 1.0;
  if (std::optional<double> explicitFactor = toDouble(scaling.getAttentionFactor()))
    return *explicitFactor;
  double factor = scaling.getFactor().convertToDouble();
  return factor <= 1.0 ? 1.0 : 0.1 * std::log(factor) + 1.0;
}

double mlir::decoda::computeGluOutputBound(GluKind kind, std::optional<double> beta1,
                                           std::optional<double> beta2,
                                           std::optional<double> limit) {
  constexpr double inf = std::numeric_limits<double>::infinity();
  switch (kind) {
  case GluKind::situ:
    // |β1 tanh(g/β1)| < β1, 0 < σ(g) < 1, |β2 tanh(u/β2)| < β2.
    return beta1 && beta2 ? *beta1 * *beta2 : inf;
  case GluKind::clamped_swiglu: {
    // silu(min(g, L)) lies in [silu_min, silu(L)] with silu_min ≈ -0.2785 (at g ≈ -1.2785), and
    // |clamp(u)| <= L.
    if (!limit)
      return inf;
    double l = *limit;
    double siluMax = l / (1.0 + std::exp(-l));
    return std::max(siluMax, 0.27846454276107380) * l;
  }
  case GluKind::swiglu:
  case GluKind::geglu:
  case GluKind::geglu_tanh:
    return inf;
  }
  return inf;
}

int64_t mlir::decoda::kvCacheBytesPerToken(int64_t bytesPerElement, int64_t numKvHeads,
                                           int64_t headDim) {
  return 2 * bytesPerElement * numKvHeads * headDim;
}

int64_t mlir::decoda::mlaCacheBytesPerToken(int64_t bytesPerElement, int64_t latentDim,
                                            int64_t ropeDim) {
  return bytesPerElement * (latentDim + ropeDim);
}
