//===- DecodaInterfaces.td - interfaces of decoda ops ------*- tablegen -*-===//

#ifndef DECODA_INTERFACES_TD
#define DECODA_INTERFACES_TD

include "mlir/IR/OpBase.td"

def Decoda_NormOpInterface : OpInterface<"NormOpInterface"> {
  let cppNamespace = "::mlir::decoda";
  let description = [{
    Implemented by every op that normalises over the last axis (`rms_norm`, `layer_norm` and the
    fused `add_*_norm` forms). Gives passes one view of the norm's kind, input, affine parameters
    and epsilon, and checks once, for all of them, that the affine parameters fit the input.
  }];
  let methods = [
    InterfaceMethod<"Whether the norm centres its input (LayerNorm) or not (RMSNorm).",
      "bool", "isCentered">,
    InterfaceMethod<"An operand with the type of what is normalised (fused forms: the residual stream).",
      "::mlir::Value", "getNormInput">,
    InterfaceMethod<"The per-feature scale γ.", "::mlir::Value", "getNormWeight">,
    InterfaceMethod<"The per-feature shift β, or null.", "::mlir::Value", "getNormBias">,
    InterfaceMethod<"The ε added to the variance or mean square.", "double", "getEpsValue">
  ];
  let verify = [{ return ::mlir::decoda::detail::verifyNormOp($_op); }];
}

#endif // DECODA_INTERFACES_TD
