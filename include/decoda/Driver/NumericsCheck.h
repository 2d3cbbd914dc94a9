//===- NumericsCheck.h - run every graph-pass version of a program -*- C++ -*-===//
//
// `decoda-compile --verify-numerics`: the program before the graph passes and after each of
// them is lowered with the plain (optimize=false) CPU pipeline, JIT-compiled with MLIR's
// ExecutionEngine and run on the same random inputs; outputs are compared with the program as
// written. The first pass whose outputs drift beyond the tolerance is named, with the first op
// whose values drift.
//
// How ops are compared: in every version, each result of a top-level op of an entry point that
// is a float tensor and comes from the decoda, linalg, arith or math dialect (constants
// excepted) becomes an extra function result. A result of a later version is compared with the
// result of the program as written that has the same location, op name, result number and type
// (an op the pass left alone); keys that occur twice in one version are not compared. Ops a
// pass created or rewrote (new name or location) have no counterpart: they are listed as
// suspects when they precede the first drifting op, or when no surviving op drifts.
//
// Inputs: floats uniform in [-1, 1) from a seeded generator, rounded to the storage type; i8
// and i1 uniform over their range; i32/i64 zero (token ids, positions, offsets and segment ids
// are then valid for any table, cache and mask). Every dynamic dimension takes one size. A
// value drifts when |new - reference| > tolerance * max(1, |reference|) for some element, or
// when NaN appears or disappears. The default tolerance depends on the storage type of the
// value (f32/f64 1e-4, f16 1e-2, bf16 5e-2): a correct pass may reassociate a sum or round at a
// new op boundary, which moves f32 results by ~1e-5 relative with these random inputs; a wrong
// one moves them by far more.
//
//===----------------------------------------------------------------------===//

#ifndef DECODA_DRIVER_NUMERICSCHECK_H
#define DECODA_DRIVER_NUMERICSCHECK_H

#include "mlir/IR/BuiltinOps.h"

#include "llvm/Support/raw_ostream.h"

#include <string>

namespace mlir::decoda {

struct NumericsCheckOptions {
  double tolerance = 0; // 0: by element type (see above)
  int64_t dynamicDimSize = 8;
  uint64_t seed = 1;
};

/// One version of the program: the input (`pass` empty) or the module after `pass`.
struct ProgramVersion {
  std::string pass;
  ModuleOp module;      // not modified; the check works on clones
  bool changed = true;  // false: the pass left the IR as it was (the previous run is reused)
};

/// Runs every public function of every version and compares with `versions[0]`. Prints a line
/// per pass to `log`; on drift, emits an error naming the pass and a note at the first op that
/// drifts, and fails. Also fails, with an error, when a version cannot be lowered or run (a
/// failed run-time check on the random inputs).
LogicalResult checkNumerics(ArrayRef<ProgramVersion> versions,
                            const NumericsCheckOptions &options, llvm::raw_ostream &log);

} // namespace mlir::decoda

#endif // DECODA_DRIVER_NUMERICSCHECK_H
