//===- OpsNN.cpp - ONNX neural-network ops --------------------------------===//
//
// MatMul/Gemm (a rank-2 right operand is a `decoda.linear` in `in_out` layout), com.microsoft
// MatMulNBits (block-quantized constant weights, kept packed), Softmax, the
// normalisations (default domain and com.microsoft, including the Skip* fused residual forms),
// ONNX Attention (opset 23) and the com.microsoft attention ops. These map one node to one
// `decoda` op where the semantics coincide; everything else stays in linalg form for the raising
// pass.
//
//===----------------------------------------------------------------------===//

#include "ImporterImpl.h"

#include "decoda/Dialect/Decoda/IR/DecodaOps.h"
#include "decoda/Support/FloatBits.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/DialectResourceBlobManager.h"

#include <onnx/onnx_pb.h>

#include <cmath>
#include <cstring>

using namespace mlir;
using namespace mlir::decoda;
using namespace mlir::decoda::onnx_import;

namespace {


LogicalResult setResult(NodeContext &n, unsigned i, FailureOr<OnnxValue> v) {
  if (failed(v))
    return failure();
  n.setOutput(i, *v);
  return success();
}

/// The stored bytes of a constant (an initializer or a Constant node), or nothing for a
/// run-time value; a splat is expanded to `count` elements of `bytes` each.
std::optional<std::vector<char>> constantBytes(OnnxValue &v, int64_t count, int64_t bytes) {
  if (!v.isConst())
    return std::nullopt;
  ArrayRef<char> raw;
  bool splat = false;
  if (auto dense = dyn_cast<DenseElementsAttr>(v.cst)) {
    raw = dense.getRawData();
    splat = dense.isSplat();
  } else if (auto resource = dyn_cast<DenseResourceElementsAttr>(v.cst)) {
    raw = resource.getData();
  } else {
    return std::nullopt;
  }
  if (splat && (int64_t)raw.size() == bytes) {
    std::vector<char> out;
    out.reserve(count * bytes);
    for (int64_t i = 0; i < count; ++i)
      out.insert(out.end(), raw.begin(), raw.end());
    return out;
  }
  if ((int64_t)raw.size() != count * bytes)
    return std::nullopt;
  return std::vector<char>(raw.begin(), raw.end());
}

/// com.microsoft MatMulNBits (onnxruntime-genai's int4 weight-only models): Y = A Wᵀ (+ bias)
/// with W [N, K] stored as `bits`-bit codes (2, 4 or 8) packed low-first into bytes, in blocks
/// of `block_size` along K: B [N, k_blocks, block_size · bits / 8] (uint8),
/// W[n, k] = (code − zero_point) · scale of (n, k / block_size); scales [N · k_blocks] of A's
/// type; zero points either packed codes (uint8, each row's k_blocks codes padded to whole
/// bytes) or floats of A's type [N · k_blocks], else 2^(bits − 1). The weights are constants:
/// they become a decoda.dequantize_blocks of the packed codes (kept packed for the GPU's GEMV
/// kernels; the CPU pipeline folds it into a float constant) and the node a decoda.linear in
/// out_in layout (the layout of the GEMV and tensor-core kernels), so the
/// model computes in its float type whatever `accuracy_level` asks of ONNX Runtime (level 4
/// lets it quantize A to int8). g_idx (an act-order permutation) is refused.
LogicalResult importMatMulNBits(NodeContext &n) {
  int64_t K = n.intAttr("K", -1), N = n.intAttr("N", -1), bits = n.intAttr("bits", 4),
          blockSize = n.intAttr("block_size", -1);
  if (K <= 0 || N <= 0)
    return n.error() << "attributes K and N must be positive (got K = " << K << ", N = " << N
                     << ")";
  if (bits != 2 && bits != 4 && bits != 8)
    return n.error() << "bits = " << bits << " is not supported (2, 4 or 8)";
  if (blockSize < 16 || !llvm::isPowerOf2_64(blockSize))
    return n.error() << "block_size must be a power of two of at least 16, got " << blockSize;
  if (n.hasInput(4))
    return n.error() << "input 4 (g_idx) is not supported";
  if (n.numInputs() < 3 || !n.hasInput(1) || !n.hasInput(2))
    return n.error() << "inputs A, B and scales are required";
  RankedTensorType at = n.inputType(0);
  Type et = at.getElementType();
  if (!et.isF32() && !et.isF16() && !et.isBF16())
    return n.error() << "A must be f32, f16 or bf16, got " << et;
  if (at.getRank() < 1 || (!at.isDynamicDim(at.getRank() - 1) && at.getShape().back() != K))
    return n.error() << "A's last dim must be K = " << K << ", got " << at;
  int64_t blocks = (K + blockSize - 1) / blockSize, blob = blockSize * bits / 8;
  int64_t eb = et.getIntOrFloatBitWidth() / 8;

  auto constant = [&](unsigned i, StringRef what, Type want,
                      int64_t count) -> FailureOr<std::vector<char>> {
    RankedTensorType t = n.inputType(i);
    if (t.getElementType() != want)
      return n.error() << what << " must be " << want << ", got " << t, failure();
    if (!t.hasStaticShape() || t.getNumElements() != count)
      return n.error() << what << " must have " << count << " elements, got " << t, failure();
    std::optional<std::vector<char>> raw =
        constantBytes(n.input(i), count, want.getIntOrFloatBitWidth() / 8);
    if (!raw)
      return n.error() << what << " must be a constant (an initializer): quantized weights "
                              "computed at run time are not supported",
             failure();
    return std::move(*raw);
  };
  if (!n.inputType(1).getElementType().isUnsignedInteger(8))
    return n.error() << "B must be uint8, got " << n.inputType(1);
  FailureOr<std::vector<char>> codes = constant(1, "B", n.inputType(1).getElementType(),
                                                N * blocks * blob);
  FailureOr<std::vector<char>> scales = constant(2, "scales", et, N * blocks);
  if (failed(codes) || failed(scales))
    return failure();
  // Zero points: floats of A's type, or packed codes unpacked to them (small integers, exact
  // in every float type); absent: the op's default 2^(bits - 1).
  std::shared_ptr<std::vector<char>> zpData;
  if (n.hasInput(3)) {
    Type zt = n.inputType(3).getElementType();
    if (isa<FloatType>(zt)) {
      FailureOr<std::vector<char>> z = constant(3, "zero_points", et, N * blocks);
      if (failed(z))
        return failure();
      zpData = std::make_shared<std::vector<char>>(std::move(*z));
    } else {
      if (!zt.isUnsignedInteger(8))
        return n.error() << "zero_points must be uint8 (packed codes) or " << et << ", got "
                         << n.inputType(3);
      int64_t rowBytes = (blocks * bits + 7) / 8;
      FailureOr<std::vector<char>> z = constant(3, "zero_points", zt, N * rowBytes);
      if (failed(z))
        return failure();
      zpData = std::make_shared<std::vector<char>>(N * blocks * eb);
      auto format = et.isF32()   ? ::decoda::float_bits::Format::F32
                    : et.isF16() ? ::decoda::float_bits::Format::F16
                                 : ::decoda::float_bits::Format::BF16;
      int64_t per = 8 / bits, mask = (1 << bits) - 1;
      for (int64_t r = 0; r < N; ++r)
        for (int64_t kb = 0; kb < blocks; ++kb) {
          uint8_t byte = (uint8_t)(*z)[r * rowBytes + kb / per];
          ::decoda::float_bits::store(zpData->data() + (r * blocks + kb) * eb,
                                      float((byte >> (bits * (kb % per))) & mask), format);
        }
    }
  }

  // The codes stay packed: decoda.dequantize_blocks of constants [N, blocks · blob] (i8
  // bytes), scales and zero points [N, blocks]; the GPU's GEMV kernels read the codes, the CPU
  // pipeline folds them into a float constant (decoda-fold-constant-dequantize).
  std::string base = (n.name().empty() ? StringRef("MatMulNBits") : n.name()).str();
  for (char &c : base)
    if (!llvm::isAlnum(c) && c != '_' && c != '.')
      c = '_';
  auto makeConstant = [&](std::shared_ptr<std::vector<char>> data, RankedTensorType t,
                          StringRef suffix) {
    ElementsAttr attr;
    if (t.getNumElements() <= n.importer.options.inlineConstantLimit) {
      attr = DenseElementsAttr::getFromRawBuffer(t, ArrayRef<char>(*data));
    } else {
      ArrayRef<char> bytes(*data);
      attr = DenseResourceElementsAttr::get(
          t, base + "." + suffix.str(),
          UnmanagedAsmResourceBlob::allocateWithAlign(bytes, alignof(uint64_t),
                                                      [data](void *, size_t, size_t) {}));
    }
    OnnxValue v = OnnxValue::constant(attr);
    return n.importer.materialize(v, n.loc);
  };
  Value codesV = makeConstant(std::make_shared<std::vector<char>>(std::move(*codes)),
                              RankedTensorType::get({N, blocks * blob}, n.b.getI8Type()), "codes");
  Value scalesV = makeConstant(std::make_shared<std::vector<char>>(std::move(*scales)),
                               RankedTensorType::get({N, blocks}, et), "scales");
  Value zpV = zpData ? makeConstant(zpData, RankedTensorType::get({N, blocks}, et), "zero_points")
                     : Value();
  Value w = DequantizeBlocksOp::create(n.b, n.loc, RankedTensorType::get({N, K}, et), codesV,
                                       scalesV, zpV, n.b.getI64IntegerAttr(bits),
                                       n.b.getI64IntegerAttr(blockSize));

  Value bias;
  if (n.hasInput(5)) {
    RankedTensorType bt = n.inputType(5);
    if (bt.getElementType() != et || bt.getRank() != 1 ||
        (!bt.isDynamicDim(0) && bt.getDimSize(0) != N))
      return n.error() << "bias must be [N] = [" << N << "] of " << et << ", got " << bt;
    bias = n.tensorInput(5);
  }
  OnnxValue a = n.input(0);
  SmallVector<OpFoldResult> ad = n.importer.dimsOf(a, n.loc);
  Value r = LinearOp::create(n.b, n.loc, n.importer.materialize(a, n.loc), w, bias,
                             WeightLayoutAttr::get(n.b.getContext(), WeightLayout::out_in));
  SmallVector<OpFoldResult> dims(ad.begin(), ad.end() - 1);
  dims.push_back(n.b.getIndexAttr(N));
  n.setOutput(0, OnnxValue::tensor(r, dims));
  return success();
}

/// A per-feature parameter [D] (or broadcastable [1, ..., D]) as a rank-1 tensor.
FailureOr<Value> featureVector(NodeContext &n, unsigned i, OpFoldResult d, StringRef what) {
  if (!n.hasInput(i)) // operators without a schema in libonnx (RequiredInputs.cpp)
    return n.error() << "input " << i << " (" << what << ") is required and the node omits it",
           failure();
  OnnxValue v = n.input(i);
  SmallVector<OpFoldResult> dims = n.importer.dimsOf(v, n.loc);
  if (dims.empty() || !sameDim(dims.back(), d))
    return n.error() << what << " must have the normalised axis' size as its last dim",
           failure();
  for (size_t k = 0; k + 1 < dims.size(); ++k)
    if (getConstantIntValue(dims[k]) != 1)
      return n.error() << what << " must be a vector over the normalised axis", failure();
  if (dims.size() > 1) {
    if (v.isConst())
      if (auto d2 = dyn_cast<DenseElementsAttr>(v.cst)) {
        v = OnnxValue::constant(d2.reshape(RankedTensorType::get(
            {d2.getType().getShape().back()}, d2.getElementType())));
        return n.importer.materialize(v, n.loc);
      }
    FailureOr<OnnxValue> r = emitReshape(n, v, {d});
    if (failed(r))
      return failure();
    return n.importer.materialize(*r, n.loc);
  }
  return n.importer.materialize(v, n.loc);
}

/// Checks that the normalisation runs over the last axis only (what decoda's norms do).
LogicalResult lastAxisOnly(NodeContext &n, int64_t axisAttr, int64_t rank) {
  FailureOr<int64_t> ax = n.axis(axisAttr, rank);
  if (failed(ax))
    return failure();
  if (*ax != rank - 1)
    return n.error() << "normalisation over axes " << *ax << ".." << rank - 1
                     << " is not supported (only the last axis)";
  return success();
}

LogicalResult noExtraOutputs(NodeContext &n, unsigned firstExtra, unsigned except = ~0u) {
  for (unsigned i = firstExtra; i < n.numOutputs(); ++i)
    if (i != except && n.outputUsed(i))
      return n.error() << "output " << i << " (training statistics) is not supported";
  return success();
}

/// LayerNormalization over the trailing axes from `axis`, with the Mean and InvStdDev outputs:
/// decomposed into reductions and elementwise maps (computed in the stash type).
LogicalResult generalLayerNorm(NodeContext &n, int64_t axis) {
  OnnxValue x = n.input(0);
  int64_t rank = n.inputRank(0);
  Type et = n.inputType(0).getElementType();
  if (!isa<FloatType>(et))
    return n.error() << "expects a floating-point input";
  Type ct = n.intAttr("stash_type", 1) == 1 ? Type(n.b.getF32Type()) : et;
  double eps = n.floatAttr("epsilon", 1e-5);
  SmallVector<int64_t> axes = llvm::to_vector(llvm::seq<int64_t>(axis, rank));
  auto map = [&](ArrayRef<OnnxValue> ins, Type out,
                 std::function<Value(OpBuilder &, Location, ValueRange)> f) {
    return emitElementwise(n, ins, out, [&](OpBuilder &b, Location loc, ValueRange a) {
      SmallVector<Value> c;
      for (Value v : a)
        c.push_back(castScalar(b, loc, v, ct));
      return castScalar(b, loc, f(b, loc, c), out);
    });
  };
  FailureOr<OnnxValue> xc = map({x}, ct, [](OpBuilder &, Location, ValueRange a) { return a[0]; });
  if (failed(xc))
    return failure();
  FailureOr<OnnxValue> mean = emitReduce(n, *xc, axes, true, ReduceKind::Mean);
  if (failed(mean))
    return failure();
  FailureOr<OnnxValue> d = map({*xc, *mean}, ct, [](OpBuilder &b, Location l, ValueRange a) -> Value {
    return arith::SubFOp::create(b, l, a[0], a[1]);
  });
  if (failed(d))
    return failure();
  FailureOr<OnnxValue> d2 = map({*d}, ct, [](OpBuilder &b, Location l, ValueRange a) -> Value {
    return arith::MulFOp::create(b, l, a[0], a[0]);
  });
  if (failed(d2))
    return failure();
  FailureOr<OnnxValue> var = emitReduce(n, *d2, axes, true, ReduceKind::Mean);
  if (failed(var))
    return failure();
  FailureOr<OnnxValue> inv = map({*var}, ct, [&](OpBuilder &b, Location l, ValueRange a) -> Value {
    Value s = math::SqrtOp::create(b, l, arith::AddFOp::create(b, l, a[0], scalarConst(b, l, ct, eps)));
    return arith::DivFOp::create(b, l, scalarConst(b, l, ct, 1.0), s);
  });
  if (failed(inv))
    return failure();
  SmallVector<OnnxValue> ins = {*d, *inv, n.input(1)};
  bool bias = n.hasInput(2);
  if (bias)
    ins.push_back(n.input(2));
  FailureOr<OnnxValue> y = map(ins, et, [&](OpBuilder &b, Location l, ValueRange a) -> Value {
    Value r = arith::MulFOp::create(b, l, arith::MulFOp::create(b, l, a[0], a[1]), a[2]);
    return bias ? arith::AddFOp::create(b, l, r, a[3]).getResult() : r;
  });
  if (failed(y))
    return failure();
  n.setOutput(0, *y);
  n.setOutput(1, *mean);
  n.setOutput(2, *inv);
  return success();
}

} // namespace

void onnx_import::registerNNOps(std::vector<OpEntry> &t) {
  addOp(t, "", "MatMul", 13, [](NodeContext &n) -> LogicalResult {
    OnnxValue a = n.input(0), w = n.input(1);
    Type et = n.inputType(0).getElementType();
    if (n.inputRank(1) == 2 && n.inputRank(0) >= 2 && isa<FloatType>(et) &&
        n.inputType(1).getElementType() == et) {
      SmallVector<OpFoldResult> ad = n.importer.dimsOf(a, n.loc), wd = n.importer.dimsOf(w, n.loc);
      std::optional<int64_t> k1 = getConstantIntValue(ad.back()), k2 = getConstantIntValue(wd[0]);
      if (k1 && k2 && *k1 != *k2)
        return n.error() << "contraction sizes differ: " << *k1 << " and " << *k2;
      if (k1 && k2) {
        Value r = LinearOp::create(
            n.b, n.loc, n.importer.materialize(a, n.loc), n.importer.materialize(w, n.loc),
            Value(), WeightLayoutAttr::get(n.b.getContext(), WeightLayout::in_out));
        SmallVector<OpFoldResult> dims(ad.begin(), ad.end() - 1);
        dims.push_back(wd[1]);
        n.setOutput(0, OnnxValue::tensor(r, dims));
        return success();
      }
    }
    return setResult(n, 0, emitMatMul(n, a, w));
  });
  addOp(t, "com.microsoft", "MatMulNBits", 1, importMatMulNBits);
  addOp(t, "", "Gemm", 13, [](NodeContext &n) -> LogicalResult {
    double alpha = n.floatAttr("alpha", 1.0), beta = n.floatAttr("beta", 1.0);
    bool transA = n.intAttr("transA", 0), transB = n.intAttr("transB", 0);
    if (n.inputRank(0) != 2 || n.inputRank(1) != 2)
      return n.error() << "A and B must be matrices";
    Type et = n.inputType(0).getElementType();
    if (!isa<FloatType>(et))
      return n.error() << "integer Gemm is not supported";
    OnnxValue a = n.input(0);
    if (transA)
      a = emitTranspose(n, a, {1, 0});
    SmallVector<OpFoldResult> ad = n.importer.dimsOf(a, n.loc);
    SmallVector<OpFoldResult> wd = n.importer.dimsOf(n.input(1), n.loc);
    OpFoldResult nDim = transB ? wd[0] : wd[1];
    OpFoldResult kDim = transB ? wd[1] : wd[0];
    if (!sameDim(ad[1], kDim))
      return n.error() << "contraction sizes of A and B differ";
    Value bias;
    bool biasDone = false;
    if (n.hasInput(2) && beta == 1.0) {
      SmallVector<OpFoldResult> cd = n.importer.dimsOf(n.input(2), n.loc);
      if (!cd.empty() && sameDim(cd.back(), nDim) &&
          (cd.size() == 1 || (cd.size() == 2 && getConstantIntValue(cd[0]) == 1)) &&
          alpha == 1.0) {
        FailureOr<Value> bv = featureVector(n, 2, nDim, "C");
        if (failed(bv))
          return failure();
        bias = *bv;
        biasDone = true;
      }
    }
    Value r = LinearOp::create(n.b, n.loc, n.importer.materialize(a, n.loc), n.tensorInput(1),
                               bias,
                               WeightLayoutAttr::get(n.b.getContext(), transB ? WeightLayout::out_in
                                                                              : WeightLayout::in_out));
    OnnxValue y = OnnxValue::tensor(r, {ad[0], nDim});
    if (alpha != 1.0) {
      FailureOr<OnnxValue> s = emitElementwise(n, {y}, et, [&](OpBuilder &b, Location loc, ValueRange x) -> Value {
        return arith::MulFOp::create(b, loc, x[0], scalarConst(b, loc, et, alpha));
      });
      if (failed(s))
        return failure();
      y = *s;
    }
    if (n.hasInput(2) && !biasDone && beta != 0.0) {
      FailureOr<OnnxValue> s = emitElementwise(
          n, {y, n.input(2)}, et, [&](OpBuilder &b, Location loc, ValueRange x) -> Value {
            Value c = x[1];
            if (beta != 1.0)
              c = arith::MulFOp::create(b, loc, c, scalarConst(b, loc, et, beta));
            return arith::AddFOp::create(b, loc, x[0], c);
          });
      if (failed(s))
        return failure();
      y = *s;
    }
    n.setOutput(0, y);
    return success();
  });
  // Reductions: axes is an attribute before opset 18 (ReduceSum: 13), an input after.
  for (auto [name, kind, inputSince] :
       {std::tuple<const char *, ReduceKind, int64_t>{"ReduceMean", ReduceKind::Mean, 18},
        {"ReduceSum", ReduceKind::Sum, 13},
        {"ReduceMax", ReduceKind::Max, 18},
        {"ReduceMin", ReduceKind::Min, 18},
        {"ReduceProd", ReduceKind::Prod, 18}}) {
    addOp(t, "", name, 13, [kind = kind, inputSince = inputSince](NodeContext &n) -> LogicalResult {
      SmallVector<int64_t> axes;
      if (n.opset < inputSince) {
        axes = n.intsAttr("axes");
      } else if (n.hasInput(1)) {
        auto c = n.constInts(1);
        if (!c)
          return n.error() << "axes must be known at compile time";
        axes = *c;
      }
      bool keepDims = n.intAttr("keepdims", 1) != 0;
      int64_t rank = n.inputRank(0);
      if (axes.empty()) {
        if (n.intAttr("noop_with_empty_axes", 0)) {
          n.setOutput(0, n.input(0));
          return success();
        }
        for (int64_t i = 0; i < rank; ++i)
          axes.push_back(i);
      }
      return setResult(n, 0, emitReduce(n, n.input(0), axes, keepDims, kind));
    });
  }
  addOp(t, "", "Softmax", 13, [](NodeContext &n) -> LogicalResult {
    int64_t rank = n.inputRank(0);
    FailureOr<int64_t> ax = n.axis(n.intAttr("axis", -1), rank);
    if (failed(ax))
      return failure();
    OnnxValue in = n.input(0);
    if (!isa<FloatType>(n.inputType(0).getElementType()))
      return n.error() << "expects a floating-point input";
    Value v = n.importer.materialize(in, n.loc);
    SmallVector<OpFoldResult> dims = n.importer.dimsOf(in, n.loc);
    Value init = tensor::EmptyOp::create(n.b, n.loc, dims, n.inputType(0).getElementType());
    auto sm = linalg::SoftmaxOp::create(n.b, n.loc, TypeRange{init.getType()}, v, init, *ax);
    n.setOutput(0, OnnxValue::tensor(sm.getResult()[0], dims));
    return success();
  });

  // Normalisations ---------------------------------------------------------------
  addOp(t, "", "LayerNormalization", 17, [](NodeContext &n) -> LogicalResult {
    int64_t rank = n.inputRank(0);
    FailureOr<int64_t> axis = n.axis(n.intAttr("axis", -1), rank);
    if (failed(axis))
      return failure();
    if (*axis != rank - 1 || n.outputUsed(1) || n.outputUsed(2))
      return generalLayerNorm(n, *axis);
    OnnxValue x = n.input(0);
    OpFoldResult d = n.importer.dimsOf(x, n.loc).back();
    FailureOr<Value> w = featureVector(n, 1, d, "Scale");
    if (failed(w))
      return failure();
    Value bias;
    if (n.hasInput(2)) {
      FailureOr<Value> bv = featureVector(n, 2, d, "B");
      if (failed(bv))
        return failure();
      bias = *bv;
    }
    Value r = LayerNormOp::create(n.b, n.loc, n.importer.materialize(x, n.loc), *w, bias,
                                  n.b.getF64FloatAttr(n.floatAttr("epsilon", 1e-5)));
    n.setOutput(0, OnnxValue::tensor(r, n.importer.dimsOf(x, n.loc)));
    return success();
  });
  auto rmsNorm = [](NodeContext &n) -> LogicalResult {
    int64_t rank = n.inputRank(0);
    if (failed(lastAxisOnly(n, n.intAttr("axis", -1), rank)) || failed(noExtraOutputs(n, 1)))
      return failure();
    OnnxValue x = n.input(0);
    OpFoldResult d = n.importer.dimsOf(x, n.loc).back();
    FailureOr<Value> w = featureVector(n, 1, d, "scale");
    if (failed(w))
      return failure();
    Value r = RMSNormOp::create(n.b, n.loc, n.importer.materialize(x, n.loc), *w,
                                n.b.getF64FloatAttr(n.floatAttr("epsilon", 1e-5)),
                                n.b.getF64FloatAttr(0.0));
    n.setOutput(0, OnnxValue::tensor(r, n.importer.dimsOf(x, n.loc)));
    return success();
  };
  addOp(t, "", "RMSNormalization", 23, rmsNorm);
  addOp(t, "com.microsoft", "SimplifiedLayerNormalization", 1, rmsNorm);
  addOp(t, "", "SimplifiedLayerNormalization", 1, rmsNorm); // exported in the default domain too

  // Skip*: out = norm(input + skip [+ bias]); output 3 is the sum (the new residual stream).
  auto skipNorm = [](bool layerNorm) {
    return [layerNorm](NodeContext &n) -> LogicalResult {
      if (failed(noExtraOutputs(n, 1, 3)))
        return failure();
      OnnxValue x = n.input(0), skip = n.input(1);
      SmallVector<OpFoldResult> dims = n.importer.dimsOf(x, n.loc);
      OpFoldResult d = dims.back();
      FailureOr<Value> w = featureVector(n, 2, d, "gamma");
      if (failed(w))
        return failure();
      Value beta;
      unsigned biasIndex = layerNorm ? 4 : 3;
      if (layerNorm && n.hasInput(3)) {
        FailureOr<Value> bv = featureVector(n, 3, d, "beta");
        if (failed(bv))
          return failure();
        beta = *bv;
      }
      Type et = n.inputType(0).getElementType();
      OnnxValue branch = skip;
      if (n.hasInput(biasIndex)) {
        FailureOr<OnnxValue> s = emitElementwise(
            n, {skip, n.input(biasIndex)}, et,
            [](OpBuilder &b, Location loc, ValueRange a) -> Value {
              return arith::AddFOp::create(b, loc, a[0], a[1]);
            });
        if (failed(s))
          return failure();
        branch = *s;
      }
      SmallVector<OpFoldResult> sd = n.importer.dimsOf(branch, n.loc);
      if (sd.size() != dims.size()) {
        FailureOr<OnnxValue> bc = emitBroadcastTo(n, branch, dims);
        if (failed(bc))
          return failure();
        branch = *bc;
      }
      Value xv = n.importer.materialize(x, n.loc), bv = n.importer.materialize(branch, n.loc);
      if (bv.getType() != xv.getType())
        bv = tensor::CastOp::create(n.b, n.loc, xv.getType(), bv);
      FloatAttr eps = n.b.getF64FloatAttr(n.floatAttr("epsilon", 1e-5));
      FloatAttr one = n.b.getF64FloatAttr(1.0);
      Value sum, normed;
      if (layerNorm) {
        auto op = AddLayerNormOp::create(n.b, n.loc, xv, bv, *w, beta, eps, one);
        sum = op.getSum();
        normed = op.getNormalized();
      } else {
        auto op = AddRMSNormOp::create(n.b, n.loc, xv, bv, *w, eps, n.b.getF64FloatAttr(0.0), one);
        sum = op.getSum();
        normed = op.getNormalized();
      }
      n.setOutput(0, OnnxValue::tensor(normed, dims));
      n.setOutput(3, OnnxValue::tensor(sum, dims));
      return success();
    };
  };
  addOp(t, "com.microsoft", "SkipSimplifiedLayerNormalization", 1, skipNorm(false));
  addOp(t, "com.microsoft", "SkipLayerNormalization", 1, skipNorm(true));
}
