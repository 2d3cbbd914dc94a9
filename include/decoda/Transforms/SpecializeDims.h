//===- SpecializeDims.h - static specialisation of dynamic dims -*- C++ -*-===//
//
// decoda-compile --static-dims and the decode entry points (docs/ABI.md, "Static dimensions and
// decode entries"); also the pass decoda-specialize-dims.
//
//===----------------------------------------------------------------------===//

#ifndef DECODA_TRANSFORMS_SPECIALIZEDIMS_H
#define DECODA_TRANSFORMS_SPECIALIZEDIMS_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"

#include <string>

namespace mlir::decoda {

/// Argument attribute naming the dims of an entry-point argument: an array with one string per
/// dim, "" for an unnamed one (e.g. ["batch", "seq", ""]).
inline constexpr llvm::StringLiteral kDimNamesAttrName = "decoda.dims";

/// One `NAME=N` (every argument dim named NAME) or `ARG:D=N` (dim D of the argument whose
/// decoda.name, or index, is ARG).
struct DimSpec {
  std::string text; // as the user wrote it, for messages
  std::string name; // NAME form
  std::string arg;  // ARG:D form
  int64_t dim = -1;
  int64_t size = 0;
};

/// Parses a comma-separated list of specs; false with `error` naming the bad item.
bool parseDimSpecs(llvm::StringRef text, llvm::SmallVectorImpl<DimSpec> &specs,
                   std::string &error);

/// Makes the named dims static in every public function's argument types (a `tensor.cast` back
/// to the dynamic type at entry lets the pipeline's folds propagate the sizes). Fails naming the
/// spec that matches no dynamic dim, names a dim that is static with another size, or is out of
/// range. `what` prefixes the messages (e.g. "--static-dims").
LogicalResult specializeDims(ModuleOp module, llvm::ArrayRef<DimSpec> specs,
                             llvm::StringRef what);

/// For each public function that uses `decoda.cached_attention` with a dynamic query length,
/// adds a public copy `<name>_decode` whose query length is 1: the dims named `seq` when the
/// function names any (decoda.dims), else dim 1 of every argument of rank >= 2 whose dim 1 is
/// dynamic and which is not a cache operand. Returns the number of entries added; fails when
/// `<name>_decode` exists already.
FailureOr<unsigned> addDecodeEntries(ModuleOp module);

/// Carries static sizes from tensor.casts through the decoda ops under `root` (with the
/// canonicalization patterns): a decoda op reading a cast that dropped static sizes reads its
/// source, its results re-inferred and cast back for their old uses (decoda-refine-shapes).
/// Run on the functions specializeDims and addDecodeEntries retype, so the lowering sees static
/// shapes from the start. Failure only when the rewrites did not converge (the IR stays valid).
LogicalResult refineShapes(Operation *root);

} // namespace mlir::decoda

#endif // DECODA_TRANSFORMS_SPECIALIZEDIMS_H
