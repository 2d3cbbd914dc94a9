//===- TaggedCalls.h - the tagged functions of dedicated kernels --*- C++ -*-===//
//
// decoda-convert-to-linalg lowers an op that has a dedicated kernel to a call of a private
// function tagged with a dictionary of the op's attributes, whose body is the target-neutral
// linalg form (decoda.gpu_attention for decoda-gpu-flash-attention, decoda.int8_attention for
// decoda-cpu-int8-attention, decoda.gpu_norm for decoda-gpu-row-norm;
// lib/Conversion/DecodaToLinalg). The kernel passes read the attention dictionary and clear
// the body with the helpers here.
//
//===----------------------------------------------------------------------===//

#ifndef DECODA_LIB_TRANSFORMS_TAGGEDCALLS_H
#define DECODA_LIB_TRANSFORMS_TAGGEDCALLS_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/Support/LLVM.h"

#include <optional>
#include <string>

namespace mlir::decoda {

/// The attention attributes of a tagged function, plus the head dims and storage type its
/// kernel fills in from the signature.
struct AttentionCallConfig {
  int64_t numHeads = 0, numKvHeads = 0, group = 0;
  double scale = 1.0;
  std::optional<double> softcap;
  std::optional<int64_t> window, chunk;
  bool causal = false, mask = false, segmentIds = false, sinks = false;
  int64_t d = 0, dv = 0;
  Type elem; // storage type of q, k, v and the result
};

/// Reads the tag's attributes into `c`; on failure `why` says what is wrong.
inline LogicalResult readAttentionCallAttrs(DictionaryAttr dict, AttentionCallConfig &c,
                                            std::string &why) {
  auto i64 = [&](StringRef name) -> std::optional<int64_t> {
    if (auto a = dict.getAs<IntegerAttr>(name))
      return a.getInt();
    return std::nullopt;
  };
  auto flag = [&](StringRef name) {
    auto a = dict.getAs<BoolAttr>(name);
    return a && a.getValue();
  };
  auto heads = i64("num_heads"), kvHeads = i64("num_kv_heads");
  auto scale = dict.getAs<FloatAttr>("scale");
  c.window = i64("window");
  c.chunk = i64("chunk_size");
  if (!heads || !kvHeads || !scale || *heads <= 0 || *kvHeads <= 0 || *heads % *kvHeads ||
      (c.window && *c.window <= 0) || (c.chunk && *c.chunk <= 0)) {
    why = "malformed configuration";
    return failure();
  }
  c.numHeads = *heads;
  c.numKvHeads = *kvHeads;
  c.group = c.numHeads / c.numKvHeads;
  c.scale = scale.getValueAsDouble();
  if (auto s = dict.getAs<FloatAttr>("softcap"))
    c.softcap = s.getValueAsDouble();
  c.causal = flag("causal");
  c.mask = flag("mask");
  c.segmentIds = flag("segment_ids");
  c.sinks = flag("sinks");
  return success();
}

/// Erases the body of a tagged function but keeps its entry block and arguments, so a kernel
/// pass can emit the replacement there; returns the entry block.
inline Block &clearTaggedBody(func::FuncOp fn) {
  Block &entry = fn.getBody().front();
  while (fn.getBody().getBlocks().size() > 1)
    fn.getBody().back().erase();
  for (Operation &op : llvm::make_early_inc_range(llvm::reverse(entry.getOperations()))) {
    op.dropAllUses();
    op.erase();
  }
  return entry;
}

} // namespace mlir::decoda

#endif // DECODA_LIB_TRANSFORMS_TAGGEDCALLS_H
