//===- JitRun.h - run a decoda program on host tensors through the JIT -*- C++ -*-===//
//
// The machinery behind `--verify-numerics` and the INT8 calibration of decoda-compile: a module
// is lowered with the plain (optimize=false) CPU pipeline, JIT-compiled with MLIR's
// ExecutionEngine, and its entry points are called on host tensors (values as doubles,
// rounded to the storage type on the way in). A failed run-time check (`cf.assert`) returns
// an error instead of aborting.
//
//===----------------------------------------------------------------------===//

#ifndef DECODA_DRIVER_JITRUN_H
#define DECODA_DRIVER_JITRUN_H

#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/IR/BuiltinOps.h"

#include <memory>
#include <string>
#include <vector>

namespace mlir::decoda::jit {

/// A dense row-major tensor on the host; `elementType` is its storage type in the program.
struct HostTensor {
  Type elementType;
  SmallVector<int64_t> shape;
  std::vector<double> values;
};

/// A program lowered and JIT-compiled once, callable many times.
class JitProgram {
public:
  /// Lowers `module` in place (pass a clone to keep the original) and JIT-compiles it. Errors
  /// are emitted at the module, prefixed with `prefix` and naming the program as `what`.
  static FailureOr<std::unique_ptr<JitProgram>> create(ModuleOp module, StringRef prefix,
                                                        StringRef what);

  /// Calls the C interface of public function `name` on `inputs` (their types must be the
  /// function's argument types with every dynamic dimension given); returns its results, of
  /// `resultTypes`. On a failed run-time check, fails and sets `checkFailure` to its message.
  FailureOr<std::vector<HostTensor>> call(StringRef name, ArrayRef<HostTensor> inputs,
                                          ArrayRef<RankedTensorType> resultTypes,
                                          std::string &checkFailure, Location loc);

private:
  std::unique_ptr<ExecutionEngine> engine;
  std::string prefix;
};

} // namespace mlir::decoda::jit

#endif // DECODA_DRIVER_JITRUN_H
