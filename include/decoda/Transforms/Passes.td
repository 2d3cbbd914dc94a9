//===- Passes.td - graph and lowering-support passes of Decoda -*- tablegen -*-===//

#ifndef DECODA_TRANSFORMS_PASSES_TD
#define DECODA_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def CheckBackendContractPass : Pass<"decoda-check-backend-contract", "ModuleOp"> {
  let summary = "Verify that only the dialects a backend accepts remain";
  let description = [{
    The last pass of every lowering pipeline: fails, naming the first offending op of each
    kind, when an op of a dialect outside `dialects` survives, so a pipeline never hands an
    illegal program downstream.
  }];
  let options = [
    ListOption<"dialects", "dialects", "std::string",
               "Dialects allowed to remain (builtin is always allowed)">
  ];
  let statistics = [
    Statistic<"numIllegal", "num-illegal", "ops outside the backend contract">
  ];
}

def LowerRuntimeChecksPass : Pass<"decoda-lower-runtime-checks", "ModuleOp"> {
  let summary = "Turn cf.assert into calls of the model's failure hook";
  let description = [{
    A failed `cf.assert` must reach the runtime as an error, not abort the process. Each assert
    becomes a conditional branch to a block that calls `decoda_check_failed(message)` (provided
    by the model's support code; it calls the runtime's `decoda_fail_handler`, which never
    returns) followed by `llvm.unreachable`. See docs/ABI.md.
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect", "::mlir::cf::ControlFlowDialect",
                           "::mlir::func::FuncDialect"];
  let statistics = [
    Statistic<"numChecks", "num-checks", "run-time checks lowered">
  ];
}

#endif // DECODA_TRANSFORMS_PASSES_TD
