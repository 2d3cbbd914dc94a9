//===- MemoryLedger.h - parameter, activation and KV-cache bytes -*- C++ -*-===//
//
// The memory a compiled entry point needs, read off its tensor types (no execution), for
// `decoda-compile --report`. Every dynamic dimension is taken as the given sequence length T.
//
// What counts as what:
//  - parameters: tensor constants that are not splats (splats become fills), plus every
//    function argument with a fully static shape that reaches, through reshapes, slices, casts
//    and concatenations only, a parameter operand of a decoda op (a norm's weight/bias, a
//    linear's or MLP's weights/biases, an embedding table, MLA's W_UK/W_UV, attention sinks,
//    MoE router and expert weights, quantisation scales/zero points, qlinear weights). Static
//    activations (decode, T = 1) are not parameters because they feed no such operand;
//  - KV-cache inputs: arguments that reach a `cached_attention` cache operand;
//  - activation inputs: every other argument;
//  - intermediates: every result of a top-level op of the function that is a tensor, except
//    constants, `tensor.empty`, reshapes/slices/casts (views of their source) and the updated
//    caches of `cached_attention` (written in place). Function outputs are included;
//  - peak live: the largest sum, over the ops in program order, of the activation inputs and
//    intermediates that are live there (defined at or before the op, used at or after it; a
//    view keeps its source live; outputs stay live to the end). An estimate of what a
//    schedule in program order with no buffer reuse inside an op holds at once; parameters
//    and caches are not in it;
//  - KV cache per token: per attention layer (every attention, cached_attention and mla op),
//    `2 × bytes × n_kv × d_h` (precisely `bytes × n_kv × (d_k + d_v)`); for `decoda.mla` the
//    latent `bytes × (d_c + d_rope)`, with the decompressed per-head figure
//    `bytes × H × (d_nope + d_rope + d_v)` beside it; for an attention whose value is a slice
//    or reshape of part of its key (absorbed MLA: key `[c ; k_rope]`, value `c`) the key alone,
//    with the K + V formula beside it. The total per token sums the first figure of every layer.
//
//===----------------------------------------------------------------------===//

#ifndef DECODA_DRIVER_MEMORYLEDGER_H
#define DECODA_DRIVER_MEMORYLEDGER_H

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include "llvm/Support/raw_ostream.h"

#include <optional>
#include <string>
#include <vector>

namespace mlir::decoda {

struct KVCacheLayer {
  std::string opName;            // decoda.attention, decoda.cached_attention, decoda.mla
  Location loc;
  int64_t bytesPerToken = 0;     // what this layer's cache holds per token
  std::string formula;           // how bytesPerToken was computed, e.g. "2 x 4 B x 2 KV heads x 32"
  std::optional<int64_t> otherBytesPerToken; // MLA decompressed / shared latent counted twice
  std::string otherFormula;
};

struct MemoryLedger {
  std::string function;
  int64_t seqLen = 0;
  int64_t weightArgCount = 0, weightArgBytes = 0;
  int64_t constantCount = 0, constantBytes = 0;
  int64_t cacheInputCount = 0, cacheInputBytes = 0;
  int64_t activationInputCount = 0, activationInputBytes = 0;
  int64_t outputBytes = 0;
  int64_t intermediateCount = 0, intermediateBytes = 0;
  int64_t peakLiveBytes = 0;
  std::vector<KVCacheLayer> kvLayers;

  int64_t parameterBytes() const { return weightArgBytes + constantBytes; }
  int64_t kvBytesPerToken() const;
};

/// The ledger of one function, every dynamic dimension taken as `seqLen`.
MemoryLedger computeMemoryLedger(func::FuncOp fn, int64_t seqLen);

/// The ledgers of every public function with a body.
std::vector<MemoryLedger> computeMemoryLedgers(ModuleOp module, int64_t seqLen);

/// Prints the ledgers of the program as written and after the graph passes side by side
/// (`before` and `after` hold the same functions in the same order).
void printMemoryLedgers(ArrayRef<MemoryLedger> before, ArrayRef<MemoryLedger> after,
                        llvm::raw_ostream &os);

} // namespace mlir::decoda

#endif // DECODA_DRIVER_MEMORYLEDGER_H
