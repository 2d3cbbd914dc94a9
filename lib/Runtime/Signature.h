//===- Signature.h - the decoda_signature text of a compiled model --------===//
//
// Internal to libdecoda_runtime: the parsed form of a model's `decoda_signature` (docs/ABI.md)
// and its strict parser.
//
//===----------------------------------------------------------------------===//

#ifndef DECODA_LIB_RUNTIME_SIGNATURE_H
#define DECODA_LIB_RUNTIME_SIGNATURE_H

#include "decoda-c/runtime.h"

#include <cstdint>
#include <string>
#include <vector>

namespace decoda::runtime {

/// One input or output of an entry point; `shape[i] == -1` is a dynamic extent.
struct TensorSpec {
  std::string name;
  decoda_dtype dtype = DECODA_F32;
  std::vector<int64_t> shape;
  /// Inputs: the output this input is donated to; outputs: the input donated to it; else -1.
  int donation = -1;
  int32_t rank() const { return static_cast<int32_t>(shape.size()); }
};

struct EntrySpec {
  std::string name;
  std::vector<TensorSpec> inputs;
  std::vector<TensorSpec> outputs;
};

/// Parses the text of `decoda_signature`. Grammar (one item per line, tokens separated by spaces
/// or tabs, empty lines ignored):
///
///   decoda-signature 1|2
///   ( entry <name>
///     ( input <name> <dtype> <rank> <dim>{rank} )*
///     ( output <name> <dtype> <rank> <dim>{rank} )*
///     ( donate <input-name> <output-name> )*        (version 2 only)
///     end )*
///
/// Returns false and sets `error` (naming the line number and its text) on any deviation:
/// unknown keyword, wrong token count, unknown dtype, rank outside [0, DECODA_MAX_RANK], a
/// dimension below -1, an input after an output, a duplicate entry / input / output name, a
/// missing `end`, or text after the last block that is not an `entry`; a `donate` line naming
/// an unknown input or output, one of another dtype or shape, or a tensor already donated.
/// `version` receives the signature version.
bool parseSignature(const char *text, std::vector<EntrySpec> &entries, std::string &error,
                    int *version = nullptr);

/// `f32` ... `i1` -> dtype; false for anything else.
bool parseDtype(const std::string &text, decoda_dtype &dtype);

/// "[?, 4]" style rendering of a shape (-1 printed as `?`).
std::string formatShape(const int64_t *shape, int32_t rank);

} // namespace decoda::runtime

#endif // DECODA_LIB_RUNTIME_SIGNATURE_H
