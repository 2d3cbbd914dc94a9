//===- DecodaAttrs.td - enums and attributes of decoda -----*- tablegen -*-===//

#ifndef DECODA_ATTRS_TD
#define DECODA_ATTRS_TD

include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"
include "DecodaDialect.td"

//===----------------------------------------------------------------------===//
// Enums
//===----------------------------------------------------------------------===//

def Decoda_Activation : I32EnumAttr<"Activation",
    "pointwise activation of a plain MLP", [
      I32EnumAttrCase<"gelu_erf", 0>,
      I32EnumAttrCase<"gelu_tanh", 1>,
      I32EnumAttrCase<"relu", 2>,
      I32EnumAttrCase<"silu", 3>
    ]> {
  let cppNamespace = "::mlir::decoda";
  let genSpecializedAttr = 0;
}
def Decoda_ActivationAttr
    : EnumAttr<Decoda_Dialect, Decoda_Activation, "activation"> {
  let assemblyFormat = "`<` $value `>`";
}

def Decoda_GluKind : I32EnumAttr<"GluKind", "gated linear unit variant", [
      I32EnumAttrCase<"swiglu", 0>,
      I32EnumAttrCase<"geglu", 1>,
      I32EnumAttrCase<"geglu_tanh", 2>,
      I32EnumAttrCase<"situ", 3>,
      I32EnumAttrCase<"clamped_swiglu", 4>
    ]> {
  let cppNamespace = "::mlir::decoda";
  let genSpecializedAttr = 0;
}

def Decoda_WeightLayout : I32EnumAttr<"WeightLayout",
    "layout of a projection weight", [
      I32EnumAttrCase<"out_in", 0>,
      I32EnumAttrCase<"in_out", 1>
    ]> {
  let cppNamespace = "::mlir::decoda";
  let genSpecializedAttr = 0;
}
def Decoda_WeightLayoutAttr
    : EnumAttr<Decoda_Dialect, Decoda_WeightLayout, "weight_layout"> {
  let assemblyFormat = "`<` $value `>`";
}

def Decoda_RopeLayout : I32EnumAttr<"RopeLayout",
    "how rotary pairs are laid out in a head", [
      I32EnumAttrCase<"half_split", 0>,
      I32EnumAttrCase<"interleaved", 1>
    ]> {
  let cppNamespace = "::mlir::decoda";
  let genSpecializedAttr = 0;
}
def Decoda_RopeLayoutAttr
    : EnumAttr<Decoda_Dialect, Decoda_RopeLayout, "rope_layout"> {
  let assemblyFormat = "`<` $value `>`";
}

def Decoda_RopeScalingKind : I32EnumAttr<"RopeScalingKind",
    "context-extension scaling of rotary frequencies", [
      I32EnumAttrCase<"linear", 0>,
      I32EnumAttrCase<"yarn", 1>,
      I32EnumAttrCase<"llama3", 2>
    ]> {
  let cppNamespace = "::mlir::decoda";
  let genSpecializedAttr = 0;
}

def Decoda_RouterScoring : I32EnumAttr<"RouterScoring",
    "how a MoE router turns logits into affinities", [
      I32EnumAttrCase<"softmax", 0>,
      I32EnumAttrCase<"sigmoid", 1>
    ]> {
  let cppNamespace = "::mlir::decoda";
  let genSpecializedAttr = 0;
}
def Decoda_RouterScoringAttr
    : EnumAttr<Decoda_Dialect, Decoda_RouterScoring, "scoring"> {
  let assemblyFormat = "`<` $value `>`";
}

//===----------------------------------------------------------------------===//
// Parameterised attributes
//===----------------------------------------------------------------------===//

def Decoda_GluAttr : AttrDef<Decoda_Dialect, "Glu"> {
  let mnemonic = "glu";
  let summary = "a gated linear unit: kind and its constants";
  let description = [{
    Describes `h = act(g) ⊙ lin(u)` for a gate pre-activation `g` and an up pre-activation `u`:

    | kind             | h                                                    | parameters        |
    |------------------|------------------------------------------------------|-------------------|
    | `swiglu`         | `silu(g) * u`                                        |                   |
    | `geglu`          | `gelu_erf(g) * u`                                    |                   |
    | `geglu_tanh`     | `gelu_tanh(g) * u`                                   |                   |
    | `situ`           | `β1·tanh(g/β1) · σ(g) · β2·tanh(u/β2)`, `|h| < β1β2`  | `beta1`, `beta2`  |
    | `clamped_swiglu` | `silu(min(g, L)) * clamp(u, -L, L)`                  | `limit` (L)       |

    SiTU-GLU is the Kimi K3 form; clamped SwiGLU the DeepSeek-V4 form (linear branch clamped to
    [-L, L], gate bounded above by L). A parameter may be `inf` (written `0x7FF0000000000000`), in
    which case that cap disappears; canonicalization rewrites fully uncapped forms to `swiglu`.

    ```mlir
    #decoda.glu<swiglu>
    #decoda.glu<situ, beta1 = 4.0, beta2 = 25.0>
    #decoda.glu<clamped_swiglu, limit = 10.0>
    ```
  }];
  let parameters = (ins
    "::mlir::decoda::GluKind":$kind,
    OptionalParameter<"std::optional<::llvm::APFloat>">:$beta1,
    OptionalParameter<"std::optional<::llvm::APFloat>">:$beta2,
    OptionalParameter<"std::optional<::llvm::APFloat>">:$limit
  );
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// Upper bound of |h| over all inputs (+inf when the kind is unbounded).
    double getOutputBound() const;
  }];
}

def Decoda_RopeScalingAttr : AttrDef<Decoda_Dialect, "RopeScaling"> {
  let mnemonic = "rope_scaling";
  let summary = "context-extension scaling of rotary frequencies";
  let description = [{
    Absent scaling means plain RoPE, `inv_freq[k] = theta^(-2k/rotary_dim)` (ABF is just a larger
    `theta`). The kinds follow the Hugging Face `rope_scaling` definitions:

    - `linear` (position interpolation): `inv_freq / factor`.
    - `yarn`: per-frequency blend of interpolation (`inv_freq / factor`) and extrapolation
      (`inv_freq`) with a linear ramp between the correction dims of `beta_fast` (default 32) and
      `beta_slow` (default 1) rotations over `original_max_position`; cos/sin are multiplied by
      `attention_factor` (default `0.1·ln(factor) + 1`).
    - `llama3`: wavelengths longer than `original_max_position / low_freq_factor` are divided by
      `factor`, shorter than `original_max_position / high_freq_factor` kept, smooth in between
      (defaults 1 and 4).

    ```mlir
    #decoda.rope_scaling<linear, factor = 2.0>
    #decoda.rope_scaling<yarn, factor = 4.0, original_max_position = 4096>
    #decoda.rope_scaling<llama3, factor = 32.0, original_max_position = 8192,
                         low_freq_factor = 1.0, high_freq_factor = 4.0>
    ```
  }];
  let parameters = (ins
    "::mlir::decoda::RopeScalingKind":$kind,
    APFloatParameter<"scaling factor">:$factor,
    OptionalParameter<"std::optional<int64_t>">:$original_max_position,
    OptionalParameter<"std::optional<::llvm::APFloat>">:$beta_fast,
    OptionalParameter<"std::optional<::llvm::APFloat>">:$beta_slow,
    OptionalParameter<"std::optional<::llvm::APFloat>">:$attention_factor,
    OptionalParameter<"std::optional<::llvm::APFloat>">:$low_freq_factor,
    OptionalParameter<"std::optional<::llvm::APFloat>">:$high_freq_factor
  );
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
}

#endif // DECODA_ATTRS_TD
