//===- TestPasses.td - test-only passes of Decoda ----------*- tablegen -*-===//
//
// Passes that exist to test the tools (e.g. that `decoda-compile --verify-numerics` catches a
// pass that miscomputes). They are never part of a named pipeline.
//
//===----------------------------------------------------------------------===//

#ifndef DECODA_TEST_PASSES_TD
#define DECODA_TEST_PASSES_TD

include "mlir/Pass/PassBase.td"

def TestBreakNumericsPass : Pass<"decoda-test-break-numerics", "ModuleOp"> {
  let summary = "Test only: silently miscompute one norm per function";
  let description = [{
    Sets `eps` of the first `decoda.rms_norm`, `layer_norm`, `add_rms_norm` or `add_layer_norm`
    of every function body (in program order, top level only) to `eps`, keeping the op, its
    location and its types: the kind of wrong answer a buggy graph pass gives without any
    verifier noticing. It lets `decoda-compile --verify-numerics` be tested on a pass that is
    known to be wrong and on the op that is known to drift.
  }];
  let dependentDialects = ["::mlir::decoda::DecodaDialect"];
  let options = [
    Option<"eps", "eps", "double", /*default=*/"0.5", "The wrong epsilon">
  ];
}

#endif // DECODA_TEST_PASSES_TD
