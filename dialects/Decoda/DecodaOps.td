//===- DecodaOps.td - operations of the decoda dialect -----*- tablegen -*-===//

#ifndef DECODA_OPS_TD
#define DECODA_OPS_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/CommonAttrConstraints.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "DecodaDialect.td"
include "DecodaAttrs.td"
include "DecodaInterfaces.td"

//===----------------------------------------------------------------------===//
// Norms
//===----------------------------------------------------------------------===//

def Decoda_RMSNormOp : Decoda_Op<"rms_norm", [Pure,
    AllTypesMatch<["input", "result"]>,
    DeclareOpInterfaceMethods<Decoda_NormOpInterface>]> {
  let summary = "RMSNorm over the last axis";
  let description = [{
    `y = (x / sqrt(mean(x², last axis) + eps)) * (weight + weight_offset)`.

    The mean square is accumulated in `f32` whatever the storage type of `input`, the product
    with the weight is formed in `f32`, and `y` is cast back to the type of `input` once (the
    reference block of the seed documents: upcast, normalise, multiply by the weight, cast back;
    Hugging Face's Llama casts back before the weight product, which differs by one rounding). `weight` has one entry per feature (the last
    dimension of `input`). `weight_offset` (default 0) covers checkpoints that store `γ - 1`
    (Gemma stores the weight that way and multiplies by `1 + γ`).

    QK-norm is this op applied to per-head tensors `[B, T, H, D]` with a weight of shape `[D]`.

    ```mlir
    %y = decoda.rms_norm %x, %w {eps = 1.0e-06 : f64}
        : tensor<2x16x64xf32>, tensor<64xf32>
    ```
  }];
  let arguments = (ins Decoda_FloatTensor:$input, Decoda_FloatTensor:$weight,
      F64Attr:$eps, DefaultValuedAttr<F64Attr, "0.0">:$weight_offset);
  let results = (outs Decoda_FloatTensor:$result);
  let assemblyFormat = [{
    $input `,` $weight attr-dict `:` type($input) `,` type($weight)
  }];
}

def Decoda_LayerNormOp : Decoda_Op<"layer_norm", [Pure,
    AllTypesMatch<["input", "result"]>,
    DeclareOpInterfaceMethods<Decoda_NormOpInterface>]> {
  let summary = "LayerNorm over the last axis";
  let description = [{
    `y = (x - mean(x)) / sqrt(var(x) + eps) * weight + bias`, with the biased variance over the
    last axis. Mean and variance are accumulated in `f32` (two passes over the row, which is exact
    enough for the row lengths of decoder blocks) and `y` is cast back to the type of `input`.
    `bias` is optional (`elementwise_affine` without bias, as in OLMo and others).

    ```mlir
    %y = decoda.layer_norm %x, %w, %b {eps = 1.0e-05 : f64}
        : tensor<2x16x64xf32>, tensor<64xf32>, tensor<64xf32>
    ```
  }];
  let arguments = (ins Decoda_FloatTensor:$input, Decoda_FloatTensor:$weight,
      Optional<Decoda_FloatTensor>:$bias, F64Attr:$eps);
  let results = (outs Decoda_FloatTensor:$result);
  let assemblyFormat = [{
    $input `,` $weight (`,` $bias^)? attr-dict `:` type($input) `,` type($weight)
    (`,` type($bias)^)?
  }];
}

def Decoda_AddRMSNormOp : Decoda_Op<"add_rms_norm", [Pure,
    AllTypesMatch<["residual", "branch", "sum", "normalized"]>,
    DeclareOpInterfaceMethods<Decoda_NormOpInterface>]> {
  let summary = "residual add fused with the RMSNorm of the sum";
  let description = [{
    Returns `sum = residual + scale * branch` (the new residual stream) and
    `normalized = rms_norm(sum)` with the semantics of `decoda.rms_norm`. This is the form that
    `decoda-fuse-residual-norm` produces so that the lowering reads the stream once; `sum` feeds
    the next residual add (pre-norm) or may be unused (post-norm, where only `normalized` goes on).
    The sum is rounded to the storage type before it is normalised, exactly as the unfused
    program does, so fusing never changes a result.

    ```mlir
    %h, %n = decoda.add_rms_norm %x, %attn, %w {eps = 1.0e-05 : f64}
        : tensor<2x16x64xf32>, tensor<64xf32>
    ```
  }];
  let arguments = (ins Decoda_FloatTensor:$residual, Decoda_FloatTensor:$branch,
      Decoda_FloatTensor:$weight, F64Attr:$eps,
      DefaultValuedAttr<F64Attr, "0.0">:$weight_offset,
      DefaultValuedAttr<F64Attr, "1.0">:$scale);
  let results = (outs Decoda_FloatTensor:$sum, Decoda_FloatTensor:$normalized);
  let assemblyFormat = [{
    $residual `,` $branch `,` $weight attr-dict `:` type($residual) `,` type($weight)
  }];
}

def Decoda_AddLayerNormOp : Decoda_Op<"add_layer_norm", [Pure,
    AllTypesMatch<["residual", "branch", "sum", "normalized"]>,
    DeclareOpInterfaceMethods<Decoda_NormOpInterface>]> {
  let summary = "residual add fused with the LayerNorm of the sum";
  let description = [{
    Returns `sum = residual + scale * branch` and `normalized = layer_norm(sum)` with the
    semantics of `decoda.layer_norm`. Used for post-norm blocks (`u = LN(h + Attn(h))`, where
    `sum` is dead) and for pre-norm LayerNorm blocks.

    ```mlir
    %h, %n = decoda.add_layer_norm %x, %attn, %w, %b {eps = 1.0e-05 : f64}
        : tensor<2x16x64xf32>, tensor<64xf32>, tensor<64xf32>
    ```
  }];
  let arguments = (ins Decoda_FloatTensor:$residual, Decoda_FloatTensor:$branch,
      Decoda_FloatTensor:$weight, Optional<Decoda_FloatTensor>:$bias, F64Attr:$eps,
      DefaultValuedAttr<F64Attr, "1.0">:$scale);
  let results = (outs Decoda_FloatTensor:$sum, Decoda_FloatTensor:$normalized);
  let assemblyFormat = [{
    $residual `,` $branch `,` $weight (`,` $bias^)? attr-dict `:` type($residual) `,`
    type($weight) (`,` type($bias)^)?
  }];
}

//===----------------------------------------------------------------------===//
// Residual mixing
//===----------------------------------------------------------------------===//

def Decoda_ResidualAddOp : Decoda_Op<"residual_add", [Pure,
    SameOperandsAndResultType]> {
  let summary = "write a branch back into the residual stream";
  let description = [{
    `result = residual + scale * branch` (`scale` defaults to 1; scaled branches appear in
    depth-scaled and DeepNet-style residuals). Kept as its own op rather than `arith.addf` so
    that graph passes can tell the residual stream from other additions. The sum is computed in
    `f32` and rounded once to the storage type (for `scale = 1` that is the storage-type addition
    of the reference models).

    ```mlir
    %h = decoda.residual_add %x, %mlp {scale = 5.000000e-01 : f64} : tensor<2x16x64xf32>
    ```
  }];
  let arguments = (ins Decoda_FloatTensor:$residual, Decoda_FloatTensor:$branch,
      DefaultValuedAttr<F64Attr, "1.0">:$scale);
  let results = (outs Decoda_FloatTensor:$result);
  let assemblyFormat = "$residual `,` $branch attr-dict `:` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Decoda_HyperConnectionOp : Decoda_Op<"hyper_connection", [
    AllTypesMatch<["streams", "result"]>,
    SingleBlockImplicitTerminator<"::mlir::decoda::YieldOp">,
    RecursiveMemoryEffects]> {
  let summary = "manifold-constrained hyper-connection around one layer (mHC)";
  let description = [{
    Hyper-connections widen the residual stream into `n` streams, `X ∈ R^{n×d}` per token, and
    wrap a layer `F` (the body region) as

    `X' = B X + C ⊗ F(A X)`

    where `A = σ(Ã)` reads the layer input from the streams (`[n]`), `C = 2σ(C̃)` writes the layer
    output back into every stream (`[n]`), and `B` mixes the streams (`[n, n]`). mHC constrains
    `B` to the Birkhoff polytope: `B = Sinkhorn(exp(B̃))` with `sinkhorn_iters` iterations, each
    a row normalisation followed by a column normalisation (DeepSeek uses 20). Columns then sum to
    exactly 1 and rows to within the Sinkhorn residual, so the spectral norm of `B` stays ≈ 1
    through depth.

    `streams` is `[..., n, d]`. The logits `Ã`, `B̃`, `C̃` are either static (`[n]`, `[n, n]`, `[n]`,
    one set per layer) or dynamic, one set per token (`[..., n]`, `[..., n, n]`, `[..., n]` with
    the leading dims of `streams`), since mHC computes them from the current state.

    The body receives `A X` (`[..., d]`) and yields `F(A X)` with the same type. One op with the
    layer as its region, rather than separate read/write ops, keeps the read, the layer and the
    write together, so no pass can separate `A` from the `C` that belongs to it. The mixing and the
    Sinkhorn iterations run in `f32`.

    ```mlir
    %y = decoda.hyper_connection %x, %a, %b, %c {sinkhorn_iters = 20 : i64}
        : tensor<2x16x4x64xf32>, tensor<4xf32>, tensor<4x4xf32>, tensor<4xf32> {
    ^bb0(%h: tensor<2x16x64xf32>):
      %f = decoda.softcap %h {cap = 3.0e+01 : f64} : tensor<2x16x64xf32>
      decoda.yield %f : tensor<2x16x64xf32>
    }
    ```
  }];
  let arguments = (ins Decoda_FloatTensor:$streams, Decoda_FloatTensor:$read_logits,
      Decoda_FloatTensor:$mix_logits, Decoda_FloatTensor:$write_logits,
      DefaultValuedAttr<I64Attr, "20">:$sinkhorn_iters);
  let results = (outs Decoda_FloatTensor:$result);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    $streams `,` $read_logits `,` $mix_logits `,` $write_logits attr-dict `:` type($streams)
    `,` type($read_logits) `,` type($mix_logits) `,` type($write_logits) $body
  }];
  let hasVerifier = 1;
  let hasRegionVerifier = 1;
  let extraClassDeclaration = [{
    /// Number of residual streams n.
    int64_t getNumStreams();
    /// Type of the layer input and output: `streams` without its stream dimension.
    ::mlir::RankedTensorType getLayerType();
  }];
}

def Decoda_YieldOp : Decoda_Op<"yield", [Pure, Terminator,
    HasParent<"HyperConnectionOp">]> {
  let summary = "yield the layer output of a hyper-connection body";
  let description = [{
    Terminates the body of `decoda.hyper_connection`, returning `F(A X)`.

    ```mlir
    decoda.yield %f : tensor<2x16x64xf32>
    ```
  }];
  let arguments = (ins Variadic<AnyType>:$values);
  let assemblyFormat = "attr-dict ($values^ `:` type($values))?";
  let builders = [OpBuilder<(ins), [{ /* nothing to yield */ }]>];
}

//===----------------------------------------------------------------------===//
// Projections and MLPs
//===----------------------------------------------------------------------===//

def Decoda_LinearOp : Decoda_Op<"linear", [Pure, InferTypeOpAdaptor]> {
  let summary = "affine projection of the last axis";
  let description = [{
    `y[..., n] = Σ_k x[..., k] · W[n, k] + bias[n]`, accumulated in `f32`.

    The weight layout is stated by `weight_layout`: `out_in` (`[N, K]`, `torch.nn.Linear`, the
    default) or `in_out` (`[K, N]`, ONNX `MatMul`/`Gemm` initializers), so an importer keeps
    initializers as they are and the CPU pipeline packs them at compile time either way.

    A rank-3 weight `[H, N, K]` (`out_in`) or `[H, K, N]` (`in_out`) applies one projection per
    head to an input `[..., H, K]`, giving `[..., H, N]`; the bias is then `[H, N]`. That is the
    per-head projection of MLA's up-projections and of their absorbed forms.

    A tied LM head is `decoda.linear` whose weight is the embedding table `[V, D]` (`out_in`).

    ```mlir
    %q = decoda.linear %x, %wq : tensor<2x16x64xf32>, tensor<128x64xf32>
    %o = decoda.linear %x, %wt, %b {weight_layout = #decoda.weight_layout<in_out>}
        : tensor<2x16x64xf32>, tensor<64x32xf32>, tensor<32xf32>
    ```
  }];
  let arguments = (ins Decoda_FloatTensor:$input, Decoda_FloatTensor:$weight,
      Optional<Decoda_FloatTensor>:$bias,
      DefaultValuedAttr<Decoda_WeightLayoutAttr, "WeightLayout::out_in">:$weight_layout);
  let results = (outs Decoda_FloatTensor:$result);
  let assemblyFormat = [{
    $input `,` $weight (`,` $bias^)? attr-dict `:` type($input) `,` type($weight)
    (`,` type($bias)^)?
  }];
  let hasVerifier = 1;
}

def Decoda_EmbeddingOp : Decoda_Op<"embedding", [Pure, InferTypeOpAdaptor]> {
  let summary = "look token ids up in an embedding table";
  let description = [{
    `y[..., :] = table[ids[...], :]` for a table `[V, D]`; the result is `ids.shape + [D]` with
    the table's element type. Learned absolute positions are an `embedding` of position ids
    added to the token embedding. An id outside `[0, V)` is an error at run time; no memory
    outside the table is ever read.

    ```mlir
    %e = decoda.embedding %ids, %table : tensor<2x16xi64>, tensor<1000x64xf32>
    ```
  }];
  let arguments = (ins Decoda_IntTensor:$ids, Decoda_FloatTensor:$table);
  let results = (outs Decoda_FloatTensor:$result);
  let assemblyFormat = "$ids `,` $table attr-dict `:` type($ids) `,` type($table)";
  }

def Decoda_MLPOp : Decoda_Op<"mlp", [Pure, AttrSizedOperandSegments,
    AllTypesMatch<["input", "result"]>]> {
  let summary = "two-layer MLP with a pointwise activation";
  let description = [{
    `y = act(x W_upᵀ + b_up) W_downᵀ + b_down`, with `act` one of `gelu_erf`, `gelu_tanh`, `relu`,
    `silu`. Both matmuls accumulate in `f32`; the hidden activation is rounded to the storage
    type between them, as in the reference implementations. Weights follow `weight_layout`
    (`out_in` default: `W_up` is `[F, D]`, `W_down` is `[D, F]`). Biases come in pairs
    (`bias(b_up, b_down)`) or not at all.

    ```mlir
    %y = decoda.mlp %x, %wu, %wd bias(%bu, %bd : tensor<256xf32>, tensor<64xf32>)
        {activation = #decoda.activation<gelu_tanh>}
        : tensor<2x16x64xf32>, tensor<256x64xf32>, tensor<64x256xf32>
    ```
  }];
  let arguments = (ins Decoda_FloatTensor:$input, Decoda_FloatTensor:$w_up,
      Decoda_FloatTensor:$w_down, Optional<Decoda_FloatTensor>:$b_up,
      Optional<Decoda_FloatTensor>:$b_down, Decoda_ActivationAttr:$activation,
      DefaultValuedAttr<Decoda_WeightLayoutAttr, "WeightLayout::out_in">:$weight_layout);
  let results = (outs Decoda_FloatTensor:$result);
  let assemblyFormat = [{
    $input `,` $w_up `,` $w_down (`bias` `(` $b_up^ `,` $b_down `:` type($b_up) `,`
    type($b_down) `)`)? attr-dict `:` type($input) `,` type($w_up) `,` type($w_down)
  }];
  let hasVerifier = 1;
}

def Decoda_GatedMLPOp : Decoda_Op<"gated_mlp", [Pure, AttrSizedOperandSegments,
    AllTypesMatch<["input", "result"]>]> {
  let summary = "gated MLP: gate and up projections, a GLU, a down projection";
  let description = [{
    `y = glu(x W_gateᵀ + b_gate, x W_upᵀ + b_up) W_downᵀ + b_down` with the GLU described by
    `kind` (see `#decoda.glu`: SwiGLU, GeGLU, SiTU-GLU, clamped SwiGLU). Matmuls accumulate in
    `f32`; the GLU is evaluated in `f32` and rounded to the storage type. Weights follow
    `weight_layout` (`out_in` default: `W_gate`, `W_up` are `[F, D]`, `W_down` is `[D, F]`).
    Biases come in triples (`bias(b_gate, b_up, b_down)`) or not at all.

    One op for the whole MLP (rather than three linears and a `glu`) lets a graph pass see the
    shared input of gate and up, and gives the SiTU-GLU bound `|h| < β1β2` on the input of the
    down projection a place to live for INT8 calibration.

    ```mlir
    %y = decoda.gated_mlp %x, %wg, %wu, %wd {kind = #decoda.glu<situ, beta1 = 4.0, beta2 = 25.0>}
        : tensor<2x16x64xf32>, tensor<256x64xf32>, tensor<256x64xf32>, tensor<64x256xf32>
    ```
  }];
  let arguments = (ins Decoda_FloatTensor:$input, Decoda_FloatTensor:$w_gate,
      Decoda_FloatTensor:$w_up, Decoda_FloatTensor:$w_down,
      Optional<Decoda_FloatTensor>:$b_gate, Optional<Decoda_FloatTensor>:$b_up,
      Optional<Decoda_FloatTensor>:$b_down, Decoda_GluAttr:$kind,
      DefaultValuedAttr<Decoda_WeightLayoutAttr, "WeightLayout::out_in">:$weight_layout);
  let results = (outs Decoda_FloatTensor:$result);
  let assemblyFormat = [{
    $input `,` $w_gate `,` $w_up `,` $w_down (`bias` `(` $b_gate^ `,` $b_up `,` $b_down `:`
    type($b_gate) `,` type($b_up) `,` type($b_down) `)`)? attr-dict `:` type($input) `,`
    type($w_gate) `,` type($w_up) `,` type($w_down)
  }];
  let hasVerifier = 1;
  let hasCanonicalizer = 1;
}

def Decoda_GluOp : Decoda_Op<"glu", [Pure, SameOperandsAndResultType]> {
  let summary = "elementwise gated linear unit";
  let description = [{
    `h = glu(gate, up)` elementwise, with the GLU described by `kind` (see `#decoda.glu`).
    Evaluated in `f32`, rounded to the storage type. This is what raising produces from
    `silu(g) * u` subgraphs and what `decoda-fuse-projections` fuses into a split gate/up
    projection.

    ```mlir
    %h = decoda.glu %g, %u {kind = #decoda.glu<clamped_swiglu, limit = 10.0>} : tensor<2x16x256xf32>
    ```
  }];
  let arguments = (ins Decoda_FloatTensor:$gate, Decoda_FloatTensor:$up, Decoda_GluAttr:$kind);
  let results = (outs Decoda_FloatTensor:$result);
  let assemblyFormat = "$gate `,` $up attr-dict `:` type($result)";
  let hasCanonicalizer = 1;
}

def Decoda_SoftcapOp : Decoda_Op<"softcap", [Pure, SameOperandsAndResultType]> {
  let summary = "smooth cap: cap * tanh(x / cap)";
  let description = [{
    `y = cap · tanh(x / cap)`, so `|y| < cap` and `y ≈ x` for `|x| ≪ cap` (Gemma 2's logit softcap,
    the building block of SiTU-GLU). `cap` must be positive; `cap = +inf` is the identity and
    folds away.

    ```mlir
    %y = decoda.softcap %logits {cap = 3.0e+01 : f64} : tensor<2x16x1000xf32>
    ```
  }];
  let arguments = (ins Decoda_FloatTensor:$input, F64Attr:$cap);
  let results = (outs Decoda_FloatTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// Positions
//===----------------------------------------------------------------------===//

def Decoda_RopeOp : Decoda_Op<"rope", [Pure, AllTypesMatch<["input", "result"]>]> {
  let summary = "rotary position embedding of per-head vectors";
  let description = [{
    Rotates the first `rotary_dim` features of every head of `input` (`[B, T, H, D]`) by
    position-dependent angles; features past `rotary_dim` pass through (partial RoPE, as in
    GPT-J, GLM and MLA's decoupled key). `rotary_dim` defaults to `D` and must be even.

    Pair `k` (`0 ≤ k < rotary_dim/2`) at position `p` turns by `p · inv_freq[k]`, with
    `inv_freq[k] = theta^(-2k/rotary_dim)` modified by `scaling` (`#decoda.rope_scaling`: linear,
    YaRN, Llama 3). `layout` says which features form a pair:

    - `half_split` (Llama/NeoX, the default): `(x[k], x[k + rotary_dim/2])`;
    - `interleaved` (GPT-J, the original RoFormer): `(x[2k], x[2k+1])`.

    Positions come from `positions` (`[B, T]` or `[T]`, `i32`/`i64`), which a decode step passes
    explicitly (cache length + t); without it token `t` is at position `t`. Angles are computed in
    `f32` (in `f64` when folding constants) and the rotation is applied in `f32`.

    ```mlir
    %qr = decoda.rope %q positions(%pos : tensor<2x16xi64>)
        {theta = 5.0e+05 : f64, rotary_dim = 32 : i64,
         layout = #decoda.rope_layout<interleaved>,
         scaling = #decoda.rope_scaling<yarn, factor = 4.0, original_max_position = 4096>}
        : tensor<2x16x8x64xf32>
    ```
  }];
  let arguments = (ins Decoda_FloatTensor:$input, Optional<Decoda_IntTensor>:$positions,
      DefaultValuedAttr<F64Attr, "10000.0">:$theta, OptionalAttr<I64Attr>:$rotary_dim,
      DefaultValuedAttr<Decoda_RopeLayoutAttr, "RopeLayout::half_split">:$layout,
      OptionalAttr<Decoda_RopeScalingAttr>:$scaling);
  let results = (outs Decoda_FloatTensor:$result);
  let assemblyFormat = [{
    $input (`positions` `(` $positions^ `:` type($positions) `)`)? attr-dict `:` type($input)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// rotary_dim, or the head dim when it is absent.
    int64_t getRotaryDimOrHeadDim();
  }];
}

//===----------------------------------------------------------------------===//
// Attention
//===----------------------------------------------------------------------===//

// The mask and scoring attributes every attention form shares.
defvar AttentionConfig = (ins
  I64Attr:$num_heads,
  I64Attr:$num_kv_heads,
  OptionalAttr<F64Attr>:$scale,
  UnitAttr:$causal,
  OptionalAttr<I64Attr>:$window,
  OptionalAttr<I64Attr>:$chunk_size,
  OptionalAttr<F64Attr>:$softcap
);

defvar AttentionSemantics = [{
    Scores are `s = scale · q·k` (`scale` defaults to `1/sqrt(D)`), capped by
    `softcap · tanh(s / softcap)` when `softcap` is set (Gemma 2, Grok), then masked. Query `i` is at
    position `p_i` and key `j` at position `j`; a key is visible when every mask that is present
    allows it:

    - `causal`: `j ≤ p_i`;
    - `window` (sliding window, needs `causal`): `p_i - j < window`;
    - `chunk_size` (chunked attention, Llama 4): `⌊j / chunk⌋ = ⌊p_i / chunk⌋`.

    Softmax runs in `f32` with fp32 accumulators, online over key tiles (flash attention): the
    score matrix is never materialised and masks are computed from indices. With `sinks`
    (`[num_heads]`, gpt-oss), each head's learned sink logit joins the softmax denominator
    without a value (an "attend to nothing" option). A row whose keys are all masked gives 0.

    Heads: `num_heads` query heads share `num_kv_heads` K/V heads (MHA when equal, MQA when 1,
    GQA otherwise); query head `h` reads K/V head `⌊h · num_kv_heads / num_heads⌋`, by index —
    K and V are never copied per query head.
}];

def Decoda_AttentionOp : Decoda_Op<"attention", [Pure, AttrSizedOperandSegments,
    InferTypeOpAdaptor]> {
  let summary = "scaled dot-product attention (MHA, GQA, MQA) with masks, sinks, softcap";
  let description = [{
    `out = softmax(mask(softcap(scale · q kᵀ))) v` per head. Layouts are the ones a projection
    produces after a reshape: `query` `[B, Tq, num_heads, D]`, `key` `[B, Tk, num_kv_heads, D]`,
    `value` `[B, Tk, num_kv_heads, Dv]`, `result` `[B, Tq, num_heads, Dv]`. Queries are aligned
    to the end of the keys: query `i` is at position `p_i = Tk - Tq + i` (prefill has `Tq = Tk`;
    a step over past keys has `Tq < Tk`).
  }] # AttentionSemantics # [{
    Optional operands:
    - `mask`: an additive float mask `[B|1, num_heads|1, Tq, Tk]` added to the scores (for
      masks that no attribute expresses; prefer the attributes, which cost nothing);
    - `segment_ids`: `[B, Tk]` document ids for packed sequences; query `i` sees key `j` only
      when `segment_ids[b, j] = segment_ids[b, Tk - Tq + i]`;
    - `sinks`: `[num_heads]` sink logits;
    - `quantize(q_scale, k_scale, v_scale)`: rank-0 `f32` scales that make both matmuls INT8
      (all three or none). `qᵢ = clamp(round_half_even(q / q_scale), -127, 127)` and likewise
      `k` (`k_scale`) and `v` (`v_scale`); `q·k` is an `i32` dot product of `qᵢ·kᵢ`, scored as
      `scale · q_scale · k_scale · (qᵢ·kᵢ)`; softmax stays `f32`: with `m` the row's largest
      visible score (or sink logit) and `l = Σ_j exp(s_j - m)` (plus `exp(sink - m)`) in `f32`,
      the unnormalised probabilities `p_j = exp(s_j - m)` ∈ [0, 1] are quantised as `u8` with
      scale `1/255`, `pᵤ = clamp(round_half_even(255 · p), 0, 255)`, and
      `out = (Σ_j pᵤ·vᵢ) · v_scale / (255 · l)` with `i32` accumulation (exact for up to
      66311 keys, `2^31 / (255 · 127)`). Both integer products are exact; on the CPU they run
      as AVX-512 VNNI `vpdpbusd` tiles (`decoda-cpu-int8-attention`).

    ```mlir
    %o = decoda.attention %q, %k, %v sinks(%s : tensor<8xf32>)
        {num_heads = 8 : i64, num_kv_heads = 2 : i64, causal, window = 128 : i64}
        : tensor<1x16x8x64xf32>, tensor<1x16x2x64xf32>, tensor<1x16x2x64xf32>
    ```
  }];
  let arguments = !con((ins Decoda_FloatTensor:$query, Decoda_FloatTensor:$key,
      Decoda_FloatTensor:$value, Optional<Decoda_FloatTensor>:$mask,
      Optional<Decoda_IntTensor>:$segment_ids, Optional<Decoda_FloatTensor>:$sinks,
      Optional<Decoda_F32Tensor>:$q_scale, Optional<Decoda_F32Tensor>:$k_scale,
      Optional<Decoda_F32Tensor>:$v_scale),
      AttentionConfig);
  let results = (outs Decoda_FloatTensor:$result);
  let assemblyFormat = [{
    $query `,` $key `,` $value (`mask` `(` $mask^ `:` type($mask) `)`)?
    (`segment_ids` `(` $segment_ids^ `:` type($segment_ids) `)`)?
    (`sinks` `(` $sinks^ `:` type($sinks) `)`)?
    (`quantize` `(` $q_scale^ `,` $k_scale `,` $v_scale `:` type($q_scale) `,` type($k_scale)
     `,` type($v_scale) `)`)?
    attr-dict `:` type($query) `,` type($key) `,` type($value)
  }];
  // The float form, without the INT8 scales.
  let builders = [OpBuilder<(ins "Value":$query, "Value":$key, "Value":$value, "Value":$mask,
      "Value":$segment_ids, "Value":$sinks, "IntegerAttr":$num_heads,
      "IntegerAttr":$num_kv_heads, "FloatAttr":$scale, "UnitAttr":$causal,
      "IntegerAttr":$window, "IntegerAttr":$chunk_size, "FloatAttr":$softcap), [{
    build($_builder, $_state, query, key, value, mask, segment_ids, sinks, Value(), Value(),
          Value(), num_heads, num_kv_heads, scale, causal, window, chunk_size, softcap);
  }]>];
  let hasVerifier = 1;
}

def Decoda_CachedAttentionOp : Decoda_Op<"cached_attention", [Pure,
    AttrSizedOperandSegments, InferTypeOpAdaptor]> {
  let summary = "attention that appends to and reads from a KV cache (prefill and decode)";
  let description = [{
    The KV-cache form of `decoda.attention`. `key_cache`/`value_cache` are `[B, S, num_kv_heads,
    D]` / `[B, S, num_kv_heads, Dv]` with room for `S` tokens; `offset` (an `index`) is the number
    of tokens already cached. The op writes the new `key`/`value` (`[B, T, ...]`) at
    `[offset, offset + T)` and attends from the `T` queries (positions `offset + i`) to cache
    entries `[0, offset + T)`. It returns the attention output and the updated caches (value
    semantics; bufferization updates the cache buffers in place). `offset + T > S` is an error
    at run time, never a write past the cache.

    Prefill is `offset = 0`, `T` = prompt length; decode is `T = 1`, `offset` = tokens so far.
  }] # AttentionSemantics # [{
    Optional operands: `sinks` (`[num_heads]` sink logits) and `quantize(q_scale, k_scale,
    v_scale)`: INT8 attention with the semantics of `decoda.attention`'s `quantize` form over
    cache entries `[0, offset + T)` (rank-0 `f32` scales, all three or none). The caches keep
    their storage type: the new keys and values are appended in float, and K and V are
    quantised when they are read (`clamp(round_half_even(x / scale), -127, 127)` of the stored
    value). With static per-tensor scales this gives the same `i8` values as quantising at
    append time, so a prefill followed by decode steps equals one INT8 `decoda.attention` over
    the whole sequence.

    ```mlir
    %o, %kc2, %vc2 = decoda.cached_attention %q, %k, %v, %kc, %vc[%off]
        {num_heads = 8 : i64, num_kv_heads = 2 : i64, causal}
        : tensor<1x1x8x64xf32>, tensor<1x1x2x64xf32>, tensor<1x1x2x64xf32>,
          tensor<1x512x2x64xf32>, tensor<1x512x2x64xf32>
    %o8, %kc3, %vc3 = decoda.cached_attention %q, %k, %v, %kc, %vc[%off]
        quantize(%qs, %ks, %vs : tensor<f32>, tensor<f32>, tensor<f32>)
        {num_heads = 8 : i64, num_kv_heads = 2 : i64, causal}
        : tensor<1x1x8x64xf32>, tensor<1x1x2x64xf32>, tensor<1x1x2x64xf32>,
          tensor<1x512x2x64xf32>, tensor<1x512x2x64xf32>
    ```
  }];
  let arguments = !con((ins Decoda_FloatTensor:$query, Decoda_FloatTensor:$key,
      Decoda_FloatTensor:$value, Decoda_FloatTensor:$key_cache,
      Decoda_FloatTensor:$value_cache, Index:$offset, Optional<Decoda_FloatTensor>:$sinks,
      Optional<Decoda_F32Tensor>:$q_scale, Optional<Decoda_F32Tensor>:$k_scale,
      Optional<Decoda_F32Tensor>:$v_scale),
      AttentionConfig);
  let results = (outs Decoda_FloatTensor:$result, Decoda_FloatTensor:$key_cache_out,
      Decoda_FloatTensor:$value_cache_out);
  let assemblyFormat = [{
    $query `,` $key `,` $value `,` $key_cache `,` $value_cache `[` $offset `]`
    (`sinks` `(` $sinks^ `:` type($sinks) `)`)?
    (`quantize` `(` $q_scale^ `,` $k_scale `,` $v_scale `:` type($q_scale) `,` type($k_scale)
     `,` type($v_scale) `)`)?
    attr-dict `:` type($query) `,` type($key) `,` type($value) `,` type($key_cache) `,`
    type($value_cache)
  }];
  // The float form, without the INT8 scales.
  let builders = [OpBuilder<(ins "Value":$query, "Value":$key, "Value":$value,
      "Value":$key_cache, "Value":$value_cache, "Value":$offset, "Value":$sinks,
      "IntegerAttr":$num_heads, "IntegerAttr":$num_kv_heads, "FloatAttr":$scale,
      "UnitAttr":$causal, "IntegerAttr":$window, "IntegerAttr":$chunk_size,
      "FloatAttr":$softcap), [{
    build($_builder, $_state, query, key, value, key_cache, value_cache, offset, sinks, Value(),
          Value(), Value(), num_heads, num_kv_heads, scale, causal, window, chunk_size, softcap);
  }]>];
  let hasVerifier = 1;
}

def Decoda_MLAOp : Decoda_Op<"mla", [Pure, InferTypeOpAdaptor]> {
  let summary = "multi-head latent attention with decoupled RoPE (DeepSeek-V2/V3)";
  let description = [{
    Attention whose keys and values are decompressed from a per-token latent `c` (`[B, Tk, Dc]`,
    the only thing cached besides the RoPE key):

    - `k[h] = [c · W_UK[h]ᵀ ; k_rope]`, `v[h] = c · W_UV[h]ᵀ`, `q[h] = [q_nope[h] ; q_rope[h]]`;
    - `out[h] = softmax(mask(scale · q[h] k[h]ᵀ)) v[h]`.

    Operands: `q_nope` `[B, Tq, H, Dn]`, `q_rope` `[B, Tq, H, Dr]` (already rotated), `latent`
    `[B, Tk, Dc]`, `k_rope` `[B, Tk, Dr]` (already rotated, shared by all heads), `w_uk`
    `[H, Dn, Dc]`, `w_uv` `[H, Dv, Dc]`. Result `[B, Tq, H, Dv]`. `scale` defaults to
    `1/sqrt(Dn + Dr)`. Queries are aligned to the end of the keys as in `decoda.attention`.

    The up-projections are operands so that `decoda-absorb-mla` can fold `W_UK` into the query
    (`q_nope[h] W_UK[h]`, scored against `c` directly) and `W_UV` into the output projection,
    which turns this op into an MQA `decoda.attention` over `[c ; k_rope]` with one KV head of
    width `Dc + Dr`: only the non-rotary part is absorbed, and the cache holds `Dc + Dr` numbers per
    token instead of `2·H·D`.

    ```mlir
    %o = decoda.mla %qn, %qr, %c, %kr, %wuk, %wuv {num_heads = 4 : i64, causal}
        : tensor<1x16x4x32xf32>, tensor<1x16x4x16xf32>, tensor<1x16x64xf32>,
          tensor<1x16x16xf32>, tensor<4x32x64xf32>, tensor<4x32x64xf32>
    ```
  }];
  let arguments = (ins Decoda_FloatTensor:$q_nope, Decoda_FloatTensor:$q_rope,
      Decoda_FloatTensor:$latent, Decoda_FloatTensor:$k_rope, Decoda_FloatTensor:$w_uk,
      Decoda_FloatTensor:$w_uv, I64Attr:$num_heads, OptionalAttr<F64Attr>:$scale,
      UnitAttr:$causal);
  let results = (outs Decoda_FloatTensor:$result);
  let assemblyFormat = [{
    $q_nope `,` $q_rope `,` $latent `,` $k_rope `,` $w_uk `,` $w_uv attr-dict `:`
    type($q_nope) `,` type($q_rope) `,` type($latent) `,` type($k_rope) `,` type($w_uk) `,`
    type($w_uv)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Mixture of experts
//===----------------------------------------------------------------------===//

def Decoda_MoEOp : Decoda_Op<"moe", [Pure, AttrSizedOperandSegments,
    AllTypesMatch<["input", "result"]>]> {
  let summary = "mixture of gated-MLP experts with a top-k router and shared experts";
  let description = [{
    Per token `x` (`input` is `[..., D]`):

    1. logits `z = x · routerᵀ` (`router` `[E, D]`), affinities `s = softmax(z)` or `σ(z)`
       (`scoring`);
    2. the `top_k` experts by `s + selection_bias` (`[E]`, optional; DeepSeek-V3's
       auxiliary-loss-free balancing: the bias chooses experts but never weights them; ties go
       to the lower expert index);
    3. gates `g_i = s_i` of the chosen experts, divided by their sum when `normalize` is set,
       times `routed_scale` (default 1);
    4. `y = Σ_i g_i · expert_i(x) + shared(x)`, where every expert is a bias-free gated MLP with
       the GLU `kind`, weights `w_gate`, `w_up` `[E, F, D]` and `w_down` `[E, D, F]` (`out_in`; the
       per-expert transposes with `in_out`), and `shared` is an always-on gated MLP with weights
       `[Fs, D]`, `[Fs, D]`, `[D, Fs]` (several shared experts are one with `Fs` concatenated).

    Routing runs in `f32`. Each expert's output is rounded to the storage type (as a separate
    gated MLP would be), the gated sum and the shared expert are accumulated in `f32`, and `y`
    is rounded once. Lowerings compute only the chosen experts (the dense reformulation that
    multiplies every expert by a zero gate is not an implementation of this op).

    ```mlir
    %y = decoda.moe %x router(%r) experts(%eg, %eu, %ed)
        shared(%sg, %su, %sd : tensor<32x64xf32>, tensor<32x64xf32>, tensor<64x32xf32>)
        {top_k = 2 : i64, scoring = #decoda.scoring<softmax>, normalize,
         kind = #decoda.glu<swiglu>}
        : tensor<2x16x64xf32>, tensor<8x64xf32>, tensor<8x32x64xf32>, tensor<8x32x64xf32>,
          tensor<8x64x32xf32>
    ```
  }];
  let arguments = (ins Decoda_FloatTensor:$input, Decoda_FloatTensor:$router,
      Decoda_FloatTensor:$w_gate, Decoda_FloatTensor:$w_up, Decoda_FloatTensor:$w_down,
      Optional<Decoda_FloatTensor>:$selection_bias, Optional<Decoda_FloatTensor>:$shared_gate,
      Optional<Decoda_FloatTensor>:$shared_up, Optional<Decoda_FloatTensor>:$shared_down,
      I64Attr:$top_k, Decoda_RouterScoringAttr:$scoring, UnitAttr:$normalize,
      DefaultValuedAttr<F64Attr, "1.0">:$routed_scale, Decoda_GluAttr:$kind,
      DefaultValuedAttr<Decoda_WeightLayoutAttr, "WeightLayout::out_in">:$weight_layout);
  let results = (outs Decoda_FloatTensor:$result);
  let assemblyFormat = [{
    $input `router` `(` $router `)` `experts` `(` $w_gate `,` $w_up `,` $w_down `)`
    (`selection_bias` `(` $selection_bias^ `:` type($selection_bias) `)`)?
    (`shared` `(` $shared_gate^ `,` $shared_up `,` $shared_down `:` type($shared_gate) `,`
    type($shared_up) `,` type($shared_down) `)`)?
    attr-dict `:` type($input) `,` type($router) `,` type($w_gate) `,` type($w_up) `,`
    type($w_down)
  }];
  let hasVerifier = 1;
  let hasCanonicalizer = 1;
}

//===----------------------------------------------------------------------===//
// INT8 quantisation
//===----------------------------------------------------------------------===//

defvar QuantGranularity = [{
    `scale` is `f32` and broadcasts against the data the NumPy way with the same rank (or is
    rank 0): per-tensor is `tensor<f32>`, per-output-channel of a weight `[N, K]` is
    `tensor<Nx1xf32>`, per-token of an activation `[B, T, D]` is `tensor<BxTx1xf32>`. One
    broadcasting rule instead of an `axis` attribute expresses per-tensor, per-channel and
    per-token (several axes at once) alike. `zero_point` (`i8`, the shape of `scale`) defaults to
    0 (symmetric).
}];

def Decoda_QuantizeOp : Decoda_Op<"quantize", [Pure,
    TypesMatchWith<"result is i8 with the shape of input", "input", "result",
      "::mlir::cast<::mlir::RankedTensorType>($_self).clone("
      "::mlir::IntegerType::get($_self.getContext(), 8))">]> {
  let summary = "quantise a float tensor to i8";
  let description = [{
    `q = clamp(round_half_even(x / scale) + zero_point, -128, 127)`, computed in `f32`.
  }] # QuantGranularity # [{
    ```mlir
    %q = decoda.quantize %x, %s : tensor<2x16x64xf32>, tensor<2x16x1xf32>
    ```
  }];
  let arguments = (ins Decoda_FloatTensor:$input, Decoda_F32Tensor:$scale,
      Optional<Decoda_I8Tensor>:$zero_point);
  let results = (outs Decoda_I8Tensor:$result);
  let assemblyFormat = [{
    $input `,` $scale (`zero_point` `(` $zero_point^ `:` type($zero_point) `)`)? attr-dict `:`
    type($input) `,` type($scale)
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Decoda_DequantizeOp : Decoda_Op<"dequantize", [Pure]> {
  let summary = "dequantise an i8 tensor to float";
  let description = [{
    `x = (q - zero_point) · scale`, computed in `f32` and rounded to the result's float type.
  }] # QuantGranularity # [{
    ```mlir
    %w = decoda.dequantize %q, %s : tensor<128x64xi8>, tensor<128x1xf32> -> tensor<128x64xf32>
    ```
  }];
  let arguments = (ins Decoda_I8Tensor:$input, Decoda_F32Tensor:$scale,
      Optional<Decoda_I8Tensor>:$zero_point);
  let results = (outs Decoda_FloatTensor:$result);
  let assemblyFormat = [{
    $input `,` $scale (`zero_point` `(` $zero_point^ `:` type($zero_point) `)`)? attr-dict `:`
    type($input) `,` type($scale) `->` type($result)
  }];
  let hasVerifier = 1;
}

def Decoda_DequantizeBlocksOp : Decoda_Op<"dequantize_blocks", [Pure]> {
  let summary = "dequantise block-quantised weight codes (2, 4 or 8 bits) to float";
  let description = [{
    A weight `[N, K]` stored as `bits`-bit unsigned codes (weight-only quantisation, as
    ONNX Runtime's `MatMulNBits` and GPTQ/AWQ-style int4 checkpoints): row `n` of `codes`
    (`i8` bytes, `[N, P]`) packs the codes of row `n` low bits first, code `k` in byte
    `k · bits / 8` at bit `(k · bits) mod 8`; each block of `block_size` codes along `K` has one
    scale and one zero point:

    `w[n, k] = (code[n, k] - zero_point[n, k / block_size]) · scale[n, k / block_size]`,

    computed in `f32` and rounded once to the result's float type. `scales` is
    `[N, ceil(K / block_size)]` of the result's float type; `zero_points` (the same shape and
    type) defaults to `2^(bits - 1)`. `P` is `ceil(K / block_size) · block_size · bits / 8`
    (the last block padded to whole blocks, as `MatMulNBits` stores it). `bits` is 2, 4 or 8;
    `block_size` a power of two of at least 16.

    Kept as an op (not folded at import) so that GPU kernels read the packed codes: the GEMV
    kernels dequantise in registers (`decoda-gpu-gemv`), a fourth of an f16 weight's bytes at 4
    bits; the CPU pipeline folds constant operands into a float constant
    (`decoda-fold-constant-dequantize`).

    ```mlir
    %w = decoda.dequantize_blocks %codes, %scales {bits = 4 : i64, block_size = 32 : i64}
        : tensor<128x32xi8>, tensor<128x2xf16> -> tensor<128x64xf16>
    ```
  }];
  let arguments = (ins Decoda_I8Tensor:$codes, Decoda_FloatTensor:$scales,
      Optional<Decoda_FloatTensor>:$zero_points, I64Attr:$bits, I64Attr:$block_size);
  let results = (outs Decoda_FloatTensor:$result);
  let assemblyFormat = [{
    $codes `,` $scales (`zero_points` `(` $zero_points^ `:` type($zero_points) `)`)? attr-dict
    `:` type($codes) `,` type($scales) `->` type($result)
  }];
  let hasVerifier = 1;
}

def Decoda_QLinearOp : Decoda_Op<"qlinear", [Pure, AttrSizedOperandSegments]> {
  let summary = "integer linear: i8 × i8 → i32 accumulation, dequantising epilogue";
  let description = [{
    `acc[..., n] = Σ_k (x[..., k] - x_zero_point) · w[n, k]` in `i32` (exact while
    K · max|x - x_zero_point| · 128 < 2^31: K < 2^17 when symmetric, K ≤ 65793 with a zero point), then
    `y = acc · x_scale · w_scale[n] + bias[n]` in `f32`, rounded to the result's float type. With
    `requantize(out_scale)` the epilogue instead produces `i8`:
    `clamp(round_half_even(y / out_scale), -128, 127)`.

    `input` is `[..., K]` `i8`; `weight` is `[N, K]` `i8` (`out_in`; symmetric per-channel, as
    SmoothQuant's W8); `x_scale` is rank 0 (per-tensor) or `[..., 1]` with the leading dims of
    `input` (per-token); `w_scale` is rank 0 or `[N]`; `bias` is `[N]` float.

    ```mlir
    %y = decoda.qlinear %xq, %wq, %xs, %ws : tensor<2x16x64xi8>, tensor<128x64xi8>,
        tensor<f32>, tensor<128xf32> -> tensor<2x16x128xf32>
    ```
  }];
  let arguments = (ins Decoda_I8Tensor:$input, Decoda_I8Tensor:$weight,
      Decoda_F32Tensor:$x_scale, Decoda_F32Tensor:$w_scale,
      Optional<Decoda_I8Tensor>:$x_zero_point, Optional<Decoda_FloatTensor>:$bias,
      Optional<Decoda_F32Tensor>:$out_scale);
  let results = (outs RankedTensorOf<[F32, F16, BF16, I8]>:$result);
  let assemblyFormat = [{
    $input `,` $weight `,` $x_scale `,` $w_scale
    (`x_zero_point` `(` $x_zero_point^ `:` type($x_zero_point) `)`)?
    (`bias` `(` $bias^ `:` type($bias) `)`)?
    (`requantize` `(` $out_scale^ `:` type($out_scale) `)`)?
    attr-dict `:` type($input) `,` type($weight) `,` type($x_scale) `,` type($w_scale)
    `->` type($result)
  }];
  let hasVerifier = 1;
}

#endif // DECODA_OPS_TD
