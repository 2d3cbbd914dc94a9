//===- QuantPasses.td - INT8 (W8A8, SmoothQuant) graph passes -*- tablegen -*-===//
//
// Included by Passes.td. The three passes run after decoda-graph-opt, in this order (the
// driver's `--quantize=int8` does so; see README "INT8 W8A8"):
//   decoda-smooth-quant -> decoda-insert-qdq -> decoda-fold-qlinear
// They read calibration statistics from op attributes that the driver's calibration writes
// (`decoda.calib_absmax`, see each pass), so every pass is testable on its own.
//
//===----------------------------------------------------------------------===//

#ifndef DECODA_TRANSFORMS_QUANTPASSES_TD
#define DECODA_TRANSFORMS_QUANTPASSES_TD

def SmoothQuantPass : Pass<"decoda-smooth-quant"> {
  let summary = "SmoothQuant: move activation outliers from a norm's output into the weights";
  let description = [{
    For every `rms_norm`, `layer_norm`, `add_rms_norm` or `add_layer_norm` whose normalised
    output is read only as the input of `decoda.linear`s (Q/K/V, gate/up, or their fused form)
    with constant rank-2 f32 weights, a constant f32 norm weight (and bias), and calibration
    statistics on every linear (`decoda.calib_absmax = array<f32: ...>`, the per-channel
    maximum of |input| over the calibration tokens, length K): with
    `a_j = max_linears calib_absmax_j` and `w_j = max over all rows of all linears |W[n, j]|`,

      s_j = clamp(a_j^alpha / w_j^(1 - alpha), 1e-5, 1e5)   (s_j = 1 when a_j or w_j is 0)

    the norm weight and bias are divided by s (with `weight_offset` o: (o + w)/s - o), every
    weight column j is multiplied by s_j, and every `calib_absmax` is divided by s. Linears that
    share the input share s. The program computes the same function (up to f32 rounding);
    only the activation range seen by the following quantisation changes. Groups that do not
    qualify are left alone; linears marked `decoda.float` are not smoothed.
  }];
  let dependentDialects = ["::mlir::decoda::DecodaDialect", "::mlir::arith::ArithDialect"];
  let options = [
    Option<"alpha", "alpha", "double", /*default=*/"0.5",
           "Migration strength alpha in [0, 1]">
  ];
  let statistics = [
    Statistic<"numSmoothed", "num-smoothed", "norm outputs smoothed">
  ];
}

def InsertQDQPass : Pass<"decoda-insert-qdq"> {
  let summary = "Insert INT8 quantize/dequantize boundaries around projections and attention";
  let description = [{
    The precision policy of SmoothQuant's W8A8 block: every `decoda.linear` (constant rank-2 f32
    weight) computes on `dequantize(quantize(x))` and `dequantize(W_i8)`; the attention
    batched matmuls get the `quantize(q_scale, k_scale, v_scale)` operands of
    `decoda.attention`; norms, residuals, softmax, RoPE and activations stay in float.

    - Weights: symmetric per output channel (`weights=per-channel`, the default) or per tensor:
      `ws = max|W| / 127`, `Wq = round_half_even(W / ws)` stored as an `i8` constant in
      `out_in` layout (an `in_out` weight is transposed at compile time).
    - Activations of linears: `scales=dynamic` (default) computes the scale at run time from
      the tensor, per token (`activations=per-token`, default: `[..., 1]`) or per tensor
      (rank 0), as `max(max|x|, 1e-30) / 127`; `scales=static` uses a constant per-tensor
      scale `max_j calib_absmax_j / 127` from calibration. With static scales, a linear whose
      input is a `decoda.glu` with a finite output bound (SiTU-GLU: β1·β2) takes
      `bound / 127` without calibration (`glu-bound=true`, default).
    - Attention (`attention=true`, default): static per-tensor scales `absmax / 127` for Q, K,
      V from `decoda.calib_absmax = array<f32: q, k, v>` on the op, for `decoda.attention` and
      `decoda.cached_attention` alike (the latter's K/V caches keep their storage type and are
      quantised when read; its statistics cover the cache entries it attends to).
    - `keep-float`: entries that keep matching ops in float: an op name (`linear`,
      `attention`, `cached_attention`) or a substring of the op's location. An op marked `decoda.float` stays
      float too.

    A static scale without calibration statistics is an error naming the op. Linears with
    argument (non-constant) weights or non-f32 types stay float, with a remark.
  }];
  let dependentDialects = ["::mlir::decoda::DecodaDialect", "::mlir::arith::ArithDialect",
                           "::mlir::linalg::LinalgDialect", "::mlir::tensor::TensorDialect"];
  let options = [
    Option<"activations", "activations", "std::string", /*default=*/"\"per-token\"",
           "Activation scale granularity: per-token | per-tensor">,
    Option<"scales", "scales", "std::string", /*default=*/"\"dynamic\"",
           "Activation scales: dynamic (computed at run time) | static (from calibration)">,
    Option<"weights", "weights", "std::string", /*default=*/"\"per-channel\"",
           "Weight scale granularity: per-channel | per-tensor">,
    Option<"attention", "attention", "bool", /*default=*/"true",
           "Quantise the attention batched matmuls (QK^T, PV)">,
    Option<"gluBound", "glu-bound", "bool", /*default=*/"true",
           "Static scale of a bounded GLU's output (SiTU-GLU: beta1*beta2) without calibration">,
    ListOption<"keepFloat", "keep-float", "std::string",
               "Op names or location substrings that stay in float">
  ];
  let statistics = [
    Statistic<"numLinears", "num-linears", "linears quantised">,
    Statistic<"numAttention", "num-attention", "attention ops quantised">
  ];
}

def FoldQLinearPass : Pass<"decoda-fold-qlinear"> {
  let summary = "Fold dequantize -> linear <- dequantize into decoda.qlinear";
  let description = [{
    `linear(dequantize(xq, xs), dequantize(wq, ws), bias?)` with an `out_in` rank-2 weight,
    symmetric weight (no zero point), `ws` rank 0 or `[N, 1]`, `xs` rank 0 or `[..., 1]` and a
    result of the input's float type becomes `qlinear(xq, wq, xs, ws', bias)` (i8 x i8 -> i32
    accumulation, dequantising f32 epilogue), with `ws'` the constant `[N]` (or rank-0) scale.
    When the qlinear's only user is `quantize(y, s)` with a rank-0 `s` and no zero point, that
    becomes the requantising epilogue (`requantize(s)`, i8 result). The i8 weight stays a
    constant: it is stored as i8 in the artifact.
  }];
  let dependentDialects = ["::mlir::decoda::DecodaDialect", "::mlir::arith::ArithDialect"];
  let statistics = [
    Statistic<"numFolded", "num-folded", "linears folded into qlinear">
  ];
}

#endif // DECODA_TRANSFORMS_QUANTPASSES_TD
