//===- Semantics.h - numeric definitions shared by all targets --*- C++ -*-===//
//
// The constants behind decoda ops (rotary frequencies, GLU bounds, KV-cache sizes), computed once
// here so that lowerings, folders, reports and the runtime agree on them.
//
//===----------------------------------------------------------------------===//

#ifndef DECODA_DIALECT_DECODA_IR_SEMANTICS_H
#define DECODA_DIALECT_DECODA_IR_SEMANTICS_H

#include "decoda/Dialect/Decoda/IR/DecodaAttrs.h"
#include <cstdint>
#include <vector>

namespace mlir::decoda {

/// Rotary inverse frequencies `inv_freq[k]`, `k < rotaryDim / 2`, for base `theta`, with the
/// context-extension `scaling` applied (null: plain RoPE). Follows the Hugging Face definitions.
std::vector<double> computeRopeInvFreq(double theta, int64_t rotaryDim,
                                       RopeScalingAttr scaling);

/// Factor that multiplies cos and sin: YaRN's attention factor (explicit or
/// `0.1 ln(factor) + 1`), 1 for every other scaling.
double computeRopeAttentionFactor(RopeScalingAttr scaling);

/// Upper bound of |glu(g, u)| over all inputs; +inf for unbounded kinds. SiTU-GLU: β1·β2.
double computeGluOutputBound(GluKind kind, std::optional<double> beta1,
                             std::optional<double> beta2, std::optional<double> limit);

/// KV-cache bytes per token of one layer: `2 * bytes * numKvHeads * headDim` for attention,
/// `bytes * (latentDim + ropeDim)` for absorbed MLA.
int64_t kvCacheBytesPerToken(int64_t bytesPerElement, int64_t numKvHeads, int64_t headDim);
int64_t mlaCacheBytesPerToken(int64_t bytesPerElement, int64_t latentDim, int64_t ropeDim);

} // namespace mlir::decoda

#endif // DECODA_DIALECT_DECODA_IR_SEMANTICS_H
