//===- GraphPassTracker.h - what each graph pass of a compile changed -*- C++ -*-===//
//
// LLVM statistics are compiled out of Debian's LLVM 22, so `--mlir-pass-statistics` cannot say
// what a pass did. The driver measures it instead: a pass instrumentation takes a census of the
// module (ops by name, constant tensors) before and after every graph pass and keeps, on
// request, a copy of the module after each one for `--verify-numerics`.
//
//===----------------------------------------------------------------------===//

#ifndef DECODA_DRIVER_GRAPHPASSTRACKER_H
#define DECODA_DRIVER_GRAPHPASSTRACKER_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "mlir/Pass/PassInstrumentation.h"
#include "mlir/Pass/PassManager.h"

#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/Support/raw_ostream.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace mlir::decoda {

/// What a module holds: ops by name (nested regions included) and its constant tensors.
struct IRCensus {
  std::map<std::string, int64_t> ops; // ordered, so reports are stable
  int64_t constantTensors = 0;        // tensor-typed constants that are not splats
  int64_t constantBytes = 0;          // their storage, in bytes
};
IRCensus takeCensus(Operation *root);

/// The name a report gives `pass`: its pass argument, or for an adaptor of nested passes its
/// textual pipeline (e.g. `func.func(decoda-fuse-elementwise)`).
std::string passLabel(Pass &pass);

/// One run of a graph pass.
struct GraphPassRecord {
  std::string pass;
  IRCensus before, after;
  bool changed = false;           // the IR differs (fingerprint), whatever the census says
  OwningOpRef<ModuleOp> snapshot; // the module after the pass, when snapshots are kept
};

/// Records every top-level pass in `graphPasses` when it runs on the module. The records live
/// in `records`, owned by the caller (the pass manager owns the instrumentation).
class GraphPassTracker : public PassInstrumentation {
public:
  GraphPassTracker(llvm::SmallPtrSet<Pass *, 8> graphPasses, bool keepSnapshots,
                   std::vector<GraphPassRecord> &records)
      : graphPasses(std::move(graphPasses)), keepSnapshots(keepSnapshots), records(records) {}

  void runBeforePass(Pass *pass, Operation *op) override;
  void runAfterPass(Pass *pass, Operation *op) override;

private:
  llvm::SmallPtrSet<Pass *, 8> graphPasses;
  bool keepSnapshots;
  std::vector<GraphPassRecord> &records;
  IRCensus pendingCensus;
  std::optional<OperationFingerPrint> pendingFingerPrint;
};

/// The top-level passes of `pm` with index in [begin, end) (to tell the graph passes of a
/// compile from the lowering that follows them in the same pass manager).
llvm::SmallPtrSet<Pass *, 8> topLevelPasses(OpPassManager &pm, size_t begin, size_t end);

/// One line per graph pass: "decoda-fuse-residual-norm: -1 decoda.residual_add,
/// -1 decoda.rms_norm, +1 decoda.add_rms_norm", with constant tensors folded or created.
void printGraphPassChanges(ArrayRef<GraphPassRecord> records, llvm::raw_ostream &os);

/// The pass arguments of a pipeline in the order they run, nested passes included (read from
/// its textual form), for checking the names a user asks `--print-ir-after` for.
std::vector<std::string> passArgumentsOf(OpPassManager &pm);

} // namespace mlir::decoda

#endif // DECODA_DRIVER_GRAPHPASSTRACKER_H
