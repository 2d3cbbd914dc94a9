//===- RaiseONNX.cpp - decomposed exporter subgraphs to decoda ops --------===//
//
// decoda-raise-onnx. Exporters write norms, activations and attention as chains of small ops;
// the importer turns each into a linalg.generic. This pass reads such chains as scalar
// expression trees (following elementwise generics, reductions over the last axis, unit-dim
// reshapes and constants), recognises
//
//   RMSNorm and LayerNorm (Div, Reciprocal, Rsqrt and Pow forms, weight and bias in any order;
//   a 16-bit model's norms computed in f32 between casts),
//   GLUs (SiLU·up, GeLU·up in erf and tanh forms, SiTU-GLU, clamped SwiGLU) and plain MLP
//   activations by evaluating the tree at sample points against the definitions,
//   softcaps c·tanh(x/c),
//   RoPE: rotate-half and GPT-J interleaved forms with in-graph theta tables, and partial
//   rotary (concat of the rotated head of the features with the untouched rest),
//   attention: softmax(mask(softcap(scale·QKᵀ)))·V with repeat-KV expansion folded into
//   num_kv_heads and triangular additive masks recognised as causal (a 16-bit model's f32
//   softmax between casts, its mask filled with the type's lowest value),
//   residual adds of a projection's output,
//   MLPs between token-flattening reshapes (GPT-2's Reshape -> Gemm -> Reshape), after the
//   activation is moved to the flat side,
//
// and replaces them with decoda ops, so the graph passes and fast lowerings apply to exports.
// Anything that does not match exactly is left alone.
//
//===----------------------------------------------------------------------===//

#include "decoda/Dialect/Decoda/IR/DecodaOps.h"
#include "decoda/Transforms/Passes.h"

#include "ConstantData.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/IndexingUtils.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Dominance.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include "llvm/ADT/MapVector.h"

#include <cmath>
#include <memory>

namespace mlir::decoda {
#define GEN_PASS_DEF_RAISEONNXPASS
#include "decoda/Transforms/Passes.h.inc"
} // namespace mlir::decoda

using namespace mlir;
using namespace mlir::decoda;

namespace {

//===----------------------------------------------------------------------===//
// Scalar expression trees over tensors
//===----------------------------------------------------------------------===//

struct Expr;
using ExprRef = std::shared_ptr<Expr>;

struct Expr {
  enum Kind {
    Leaf, Const, Add, Sub, Mul, Div, Neg, Sqrt, Rsqrt, Exp, Log, Tanh, Erf, Pow, Max, Min,
    Select, CmpLT, CmpGT, ReduceSumLast, Unknown
  };
  Kind kind = Unknown;
  double value = 0;           // Const
  Value leaf;                 // Leaf
  Value src;                  // the tensor this node computes, when it is a whole tensor
  SmallVector<ExprRef> ops;
  int64_t reduceSize = -1;    // ReduceSumLast: the reduced extent when static
};

ExprRef mk(Expr::Kind k, ArrayRef<ExprRef> ops = {}) {
  auto e = std::make_shared<Expr>();
  e->kind = k;
  e->ops.assign(ops.begin(), ops.end());
  return e;
}
ExprRef mkConst(double v) {
  auto e = mk(Expr::Const);
  e->value = v;
  return e;
}
ExprRef mkLeaf(Value v) {
  auto e = mk(Expr::Leaf);
  e->leaf = v;
  e->src = v;
  return e;
}

/// A constant scalar value (arith.constant, rank-0 / splat dense tensors, casts of constants).
std::optional<double> scalarConstant(Value v) {
  Attribute attr;
  if (matchPattern(v, m_Constant(&attr))) {
    if (auto f = dyn_cast<FloatAttr>(attr))
      return f.getValueAsDouble();
    if (auto i = dyn_cast<IntegerAttr>(attr))
      return (double)i.getInt();
    if (auto d = dyn_cast<DenseElementsAttr>(attr); d && d.isSplat()) {
      if (isa<FloatType>(d.getElementType()))
        return d.getSplatValue<APFloat>().convertToDouble();
      if (isa<IntegerType>(d.getElementType()) && !d.getElementType().isInteger(1))
        return (double)d.getSplatValue<APInt>().getSExtValue();
    }
    return std::nullopt;
  }
  Operation *def = v.getDefiningOp();
  if (isa_and_nonnull<arith::SIToFPOp, arith::IndexCastOp, arith::ExtFOp, arith::TruncFOp,
                      arith::UIToFPOp>(def))
    return scalarConstant(def->getOperand(0));
  return std::nullopt;
}

/// Looks through reshapes that only add or remove unit dims, and casts.
Value stripUnitReshapes(Value v) {
  while (Operation *def = v.getDefiningOp()) {
    if (auto e = dyn_cast<tensor::ExpandShapeOp>(def)) {
      auto src = e.getSrcType(), dst = e.getResultType();
      if (llvm::count_if(dst.getShape(), [](int64_t d) { return d != 1; }) !=
          llvm::count_if(src.getShape(), [](int64_t d) { return d != 1; }))
        break;
      v = e.getSrc();
      continue;
    }
    if (auto c = dyn_cast<tensor::CollapseShapeOp>(def)) {
      auto src = c.getSrcType(), dst = c.getResultType();
      if (llvm::count_if(dst.getShape(), [](int64_t d) { return d != 1; }) !=
          llvm::count_if(src.getShape(), [](int64_t d) { return d != 1; }))
        break;
      v = c.getSrc();
      continue;
    }
    if (auto c = dyn_cast<tensor::CastOp>(def)) {
      v = c.getSource();
      continue;
    }
    break;
  }
  return v;
}

bool allParallel(linalg::GenericOp g) {
  return llvm::all_of(g.getIteratorTypesArray(),
                      [](utils::IteratorType t) { return t == utils::IteratorType::parallel; });
}

/// A constant seen through broadcasting copies and unit-dim reshapes.
DenseElementsAttr constantThrough(Value v) {
  for (int i = 0; i < 8; ++i) {
    v = stripUnitReshapes(v);
    DenseElementsAttr attr;
    if (matchPattern(v, m_Constant(&attr)))
      return attr;
    auto g = v.getDefiningOp<linalg::GenericOp>();
    if (!g || !allParallel(g) || g.getNumDpsInputs() != 1)
      return {};
    auto yield = cast<linalg::YieldOp>(g.getBody()->getTerminator());
    if (yield.getOperand(0) != g.getBody()->getArgument(0))
      return {};
    v = g.getDpsInputs()[0];
  }
  return {};
}

/// The source of an elementwise float cast (a generic over one identity-mapped input whose
/// body yields arith.extf or arith.truncf of it: an ONNX Cast between float types), or null.
Value floatCastSource(Value v) {
  auto g = v.getDefiningOp<linalg::GenericOp>();
  if (!g || !allParallel(g) || g.getNumDpsInputs() != 1 || g.getNumResults() != 1 ||
      !llvm::all_of(g.getIndexingMapsArray(), [](AffineMap m) { return m.isIdentity(); }))
    return {};
  auto yield = cast<linalg::YieldOp>(g.getBody()->getTerminator());
  Operation *c = yield.getOperand(0).getDefiningOp();
  if (!isa_and_nonnull<arith::ExtFOp, arith::TruncFOp>(c) ||
      c->getOperand(0) != g.getBody()->getArgument(0))
    return {};
  return g.getDpsInputs()[0];
}

/// A mask value that hides a key: below -1e30, or (a 16-bit type's mask, as an f16 export
/// fills with finfo(float16).min) at most half the type's lowest finite value.
bool veryNegative(double v, Type t) {
  if (v <= -1e30)
    return true;
  auto ft = dyn_cast<FloatType>(getElementTypeOrSelf(t));
  return ft && v <= 0.5 * APFloat::getLargest(ft.getFloatSemantics(), /*Negative=*/true)
                              .convertToDouble();
}

class ExprBuilder {
public:
  ExprRef tensorExpr(Value v, int depth = 0);

private:
  ExprRef scalarExpr(linalg::GenericOp g, Value s, int depth);
  ExprRef reduceExpr(linalg::GenericOp g, int depth);
  static constexpr int kMaxDepth = 48;
};

ExprRef ExprBuilder::tensorExpr(Value v, int depth) {
  if (depth > kMaxDepth)
    return mkLeaf(v);
  if (std::optional<double> c = scalarConstant(v))
    return mkConst(*c);
  Value base = stripUnitReshapes(v);
  if (base != v)
    return tensorExpr(base, depth + 1);
  auto g = v.getDefiningOp<linalg::GenericOp>();
  if (!g || g.getNumResults() != 1 || g.getNumDpsInits() != 1)
    return mkLeaf(v);
  if (allParallel(g)) {
    // The init must be a destination only.
    if (!g.getRegionOutputArgs()[0].use_empty())
      return mkLeaf(v);
    if (llvm::any_of(g.getBody()->getOperations(), [](Operation &op) {
          return isa<linalg::IndexOp, tensor::ExtractOp>(op);
        }))
      return mkLeaf(v);
    auto yield = cast<linalg::YieldOp>(g.getBody()->getTerminator());
    ExprRef e = scalarExpr(g, yield.getOperand(0), depth + 1);
    if (!e)
      return mkLeaf(v);
    if (!e->src)
      e->src = v;
    return e;
  }
  ExprRef r = reduceExpr(g, depth + 1);
  if (!r)
    return mkLeaf(v);
  r->src = v;
  return r;
}

/// sum over the last axis: iterators (parallel..., reduction), input identity, init a zero fill,
/// body `out + f(in...)`.
ExprRef ExprBuilder::reduceExpr(linalg::GenericOp g, int depth) {
  SmallVector<utils::IteratorType> its = g.getIteratorTypesArray();
  if (its.empty() || its.back() != utils::IteratorType::reduction)
    return nullptr;
  for (size_t i = 0; i + 1 < its.size(); ++i)
    if (its[i] != utils::IteratorType::parallel)
      return nullptr;
  if (g.getNumDpsInputs() != 1 || !g.getIndexingMapsArray()[0].isIdentity())
    return nullptr;
  Value init = g.getDpsInits()[0];
  auto fill = init.getDefiningOp<linalg::FillOp>();
  if (!fill || scalarConstant(fill.getInputs()[0]) != 0.0)
    return nullptr;
  auto yield = cast<linalg::YieldOp>(g.getBody()->getTerminator());
  auto add = yield.getOperand(0).getDefiningOp<arith::AddFOp>();
  if (!add)
    return nullptr;
  BlockArgument out = g.getRegionOutputArgs()[0];
  Value other;
  if (add.getLhs() == out)
    other = add.getRhs();
  else if (add.getRhs() == out)
    other = add.getLhs();
  else
    return nullptr;
  if (llvm::any_of(out.getUsers(), [&](Operation *u) { return u != add; }))
    return nullptr;
  ExprRef body = scalarExpr(g, other, depth + 1);
  if (!body)
    return nullptr;
  ExprRef r = mk(Expr::ReduceSumLast, {body});
  auto in = cast<RankedTensorType>(g.getDpsInputs()[0].getType());
  r->reduceSize = in.isDynamicDim(in.getRank() - 1) ? -1 : in.getDimSize(in.getRank() - 1);
  return r;
}

ExprRef ExprBuilder::scalarExpr(linalg::GenericOp g, Value s, int depth) {
  if (depth > kMaxDepth)
    return nullptr;
  if (auto arg = dyn_cast<BlockArgument>(s)) {
    if (arg.getOwner() != g.getBody() || arg.getArgNumber() >= g.getNumDpsInputs())
      return nullptr;
    return tensorExpr(g.getDpsInputs()[arg.getArgNumber()], depth + 1);
  }
  if (std::optional<double> c = scalarConstant(s))
    return mkConst(*c);
  Operation *op = s.getDefiningOp();
  if (!op || op->getBlock() != g.getBody())
    return nullptr;
  auto sub = [&](unsigned i) { return scalarExpr(g, op->getOperand(i), depth + 1); };
  auto un = [&](Expr::Kind k) -> ExprRef {
    ExprRef a = sub(0);
    return a ? mk(k, {a}) : nullptr;
  };
  auto bin = [&](Expr::Kind k) -> ExprRef {
    ExprRef a = sub(0), b = sub(1);
    return a && b ? mk(k, {a, b}) : nullptr;
  };
  if (isa<arith::AddFOp>(op)) return bin(Expr::Add);
  if (isa<arith::SubFOp>(op)) return bin(Expr::Sub);
  if (isa<arith::MulFOp>(op)) return bin(Expr::Mul);
  if (isa<arith::DivFOp>(op)) return bin(Expr::Div);
  if (isa<arith::MaximumFOp, arith::MaxNumFOp>(op)) return bin(Expr::Max);
  if (isa<arith::MinimumFOp, arith::MinNumFOp>(op)) return bin(Expr::Min);
  if (isa<math::PowFOp>(op)) return bin(Expr::Pow);
  if (isa<arith::NegFOp>(op)) return un(Expr::Neg);
  if (isa<math::SqrtOp>(op)) return un(Expr::Sqrt);
  if (isa<math::RsqrtOp>(op)) return un(Expr::Rsqrt);
  if (isa<math::ExpOp>(op)) return un(Expr::Exp);
  if (isa<math::LogOp>(op)) return un(Expr::Log);
  if (isa<math::TanhOp>(op)) return un(Expr::Tanh);
  if (isa<math::ErfOp>(op)) return un(Expr::Erf);
  if (auto sel = dyn_cast<arith::SelectOp>(op)) {
    ExprRef c = sub(0), a = sub(1), b = sub(2);
    return c && a && b ? mk(Expr::Select, {c, a, b}) : nullptr;
  }
  if (auto cmp = dyn_cast<arith::CmpFOp>(op)) {
    if (cmp.getPredicate() == arith::CmpFPredicate::OLT)
      return bin(Expr::CmpLT);
    if (cmp.getPredicate() == arith::CmpFPredicate::OGT)
      return bin(Expr::CmpGT);
    return nullptr;
  }
  return nullptr;
}

//===----------------------------------------------------------------------===//
// Evaluation and classification
//===----------------------------------------------------------------------===//

/// Evaluates a tree without reductions at given leaf values; nullopt if it cannot.
std::optional<double> eval(const ExprRef &e, const llvm::DenseMap<Value, double> &leaves) {
  auto a = [&](unsigned i) { return eval(e->ops[i], leaves); };
  switch (e->kind) {
  case Expr::Const: return e->value;
  case Expr::Leaf: {
    auto it = leaves.find(e->leaf);
    if (it == leaves.end())
      return std::nullopt;
    return it->second;
  }
  case Expr::ReduceSumLast:
  case Expr::Unknown:
    return std::nullopt;
  default:
    break;
  }
  SmallVector<double> v;
  for (unsigned i = 0; i < e->ops.size(); ++i) {
    std::optional<double> x = a(i);
    if (!x)
      return std::nullopt;
    v.push_back(*x);
  }
  switch (e->kind) {
  case Expr::Add: return v[0] + v[1];
  case Expr::Sub: return v[0] - v[1];
  case Expr::Mul: return v[0] * v[1];
  case Expr::Div: return v[0] / v[1];
  case Expr::Neg: return -v[0];
  case Expr::Sqrt: return std::sqrt(v[0]);
  case Expr::Rsqrt: return 1.0 / std::sqrt(v[0]);
  case Expr::Exp: return std::exp(v[0]);
  case Expr::Log: return std::log(v[0]);
  case Expr::Tanh: return std::tanh(v[0]);
  case Expr::Erf: return std::erf(v[0]);
  case Expr::Pow: return std::pow(v[0], v[1]);
  case Expr::Max: return std::max(v[0], v[1]);
  case Expr::Min: return std::min(v[0], v[1]);
  case Expr::Select: return v[0] != 0 ? v[1] : v[2];
  case Expr::CmpLT: return v[0] < v[1] ? 1.0 : 0.0;
  case Expr::CmpGT: return v[0] > v[1] ? 1.0 : 0.0;
  default: return std::nullopt;
  }
}

void collectLeaves(const ExprRef &e, llvm::SetVector<Value> &out, bool &hasReduce) {
  if (e->kind == Expr::Leaf)
    out.insert(e->leaf);
  if (e->kind == Expr::ReduceSumLast)
    hasReduce = true;
  for (const ExprRef &o : e->ops)
    collectLeaves(o, out, hasReduce);
}

void collectConsts(const ExprRef &e, SmallVectorImpl<double> &out) {
  if (e->kind == Expr::Const && std::isfinite(e->value) && e->value != 0)
    out.push_back(std::fabs(e->value));
  for (const ExprRef &o : e->ops)
    collectConsts(o, out);
}

double sigmoidD(double x) { return 1.0 / (1.0 + std::exp(-x)); }
double siluD(double x) { return x * sigmoidD(x); }
double geluErfD(double x) { return 0.5 * x * (1.0 + std::erf(x * M_SQRT1_2)); }
double geluTanhD(double x) {
  return 0.5 * x * (1.0 + std::tanh(std::sqrt(2.0 / M_PI) * (x + 0.044715 * x * x * x)));
}

const double kSamples[] = {-6.1, -3.3, -1.7, -0.9, -0.35, -0.05, 0.0, 0.13, 0.6, 1.1, 2.4, 4.2, 7.5};

/// The largest error of the tree against `f` over the samples, relative to max(1, |f|); infinity
/// where the tree cannot be evaluated.
double unaryError(const ExprRef &e, Value x, const std::function<double(double)> &f) {
  double worst = 0;
  for (double s : kSamples) {
    llvm::DenseMap<Value, double> leaves{{x, s}};
    std::optional<double> r = eval(e, leaves);
    double want = f(s);
    double err = r ? std::fabs(*r - want) / std::max(1.0, std::fabs(want)) : INFINITY;
    if (!(err <= worst))
      worst = std::isnan(err) ? INFINITY : err;
  }
  return worst;
}

double binaryError(const ExprRef &e, Value g, Value u,
                   const std::function<double(double, double)> &f) {
  double worst = 0;
  for (double s : kSamples)
    for (double t : {-2.7, -0.4, 0.3, 1.9, 5.5}) {
      llvm::DenseMap<Value, double> leaves{{g, s}, {u, t}};
      std::optional<double> r = eval(e, leaves);
      double want = f(s, t);
      double err = r ? std::fabs(*r - want) / std::max(1.0, std::fabs(want)) : INFINITY;
      if (!(err <= worst))
        worst = std::isnan(err) ? INFINITY : err;
    }
  return worst;
}

constexpr double kExactTolerance = 1e-6;

bool matchesUnary(const ExprRef &e, Value x, const std::function<double(double)> &f) {
  return unaryError(e, x, f) <= kExactTolerance;
}

bool matchesBinary(const ExprRef &e, Value g, Value u, const std::function<double(double, double)> &f) {
  return binaryError(e, g, u, f) <= kExactTolerance;
}

/// How far an activation with irrational constants (GELU's 1/sqrt(2), sqrt(2/pi), 0.044715) may
/// be from its definition: a 16-bit export writes those constants in its own type (f16's
/// sqrt(2/pi) is 4e-5 off, 0.044715 1.5e-4), so half an ulp of the type (2^-11 for f16, 2^-8
/// for bf16); f32 and wider must match to 1e-6. Candidates are then ranked by their error.
double activationTolerance(Type t) {
  auto ft = dyn_cast<FloatType>(getElementTypeOrSelf(t));
  if (!ft || ft.getFPMantissaWidth() >= 24)
    return kExactTolerance;
  return std::ldexp(1.0, -static_cast<int>(ft.getFPMantissaWidth()));
}

//===----------------------------------------------------------------------===//
// Normalisations
//===----------------------------------------------------------------------===//

/// Splits a product into numerator and denominator factors (Mul, Div, reciprocal forms).
void factorize(const ExprRef &e, SmallVectorImpl<ExprRef> &num, SmallVectorImpl<ExprRef> &den,
               bool inverted = false) {
  auto &dst = inverted ? den : num;
  auto &other = inverted ? num : den;
  switch (e->kind) {
  case Expr::Mul:
    factorize(e->ops[0], num, den, inverted);
    factorize(e->ops[1], num, den, inverted);
    return;
  case Expr::Div:
    factorize(e->ops[0], num, den, inverted);
    factorize(e->ops[1], num, den, !inverted);
    return;
  case Expr::Rsqrt:
    other.push_back(mk(Expr::Sqrt, {e->ops[0]}));
    return;
  case Expr::Pow:
    if (e->ops[1]->kind == Expr::Const && e->ops[1]->value == -0.5) {
      other.push_back(mk(Expr::Sqrt, {e->ops[0]}));
      return;
    }
    if (e->ops[1]->kind == Expr::Const && e->ops[1]->value == 0.5) {
      dst.push_back(mk(Expr::Sqrt, {e->ops[0]}));
      return;
    }
    break;
  default:
    break;
  }
  dst.push_back(e);
}

bool sameExpr(const ExprRef &a, const ExprRef &b) {
  if (a->kind != b->kind || a->ops.size() != b->ops.size())
    return false;
  if (a->kind == Expr::Leaf)
    return a->leaf == b->leaf;
  if (a->kind == Expr::Const)
    return a->value == b->value;
  bool same = true;
  for (size_t i = 0; i < a->ops.size() && same; ++i)
    same = sameExpr(a->ops[i], b->ops[i]);
  if (!same && (a->kind == Expr::Add || a->kind == Expr::Mul))
    return sameExpr(a->ops[0], b->ops[1]) && sameExpr(a->ops[1], b->ops[0]);
  return same;
}

/// The tensor `e` stands for, when it is one of `type`: a leaf, or the result of the
/// elementwise op the expression was read from.
Value wholeTensor(const ExprRef &e, RankedTensorType type) {
  Value v = e->kind == Expr::Leaf ? e->leaf : e->src;
  return v && v.getType() == type ? v : Value();
}

/// mean over the last axis of `inner`: sum / N or sum * (1/N) with N the reduced extent.
ExprRef matchMean(const ExprRef &e) {
  auto isMean = [](const ExprRef &sum, double k, bool divide) -> bool {
    if (sum->kind != Expr::ReduceSumLast || sum->reduceSize <= 0)
      return false;
    double n = (double)sum->reduceSize;
    return divide ? std::fabs(k - n) < 1e-9 * n : std::fabs(k * n - 1.0) < 1e-6;
  };
  if (e->kind == Expr::Div && e->ops[1]->kind == Expr::Const && isMean(e->ops[0], e->ops[1]->value, true))
    return e->ops[0]->ops[0];
  if (e->kind == Expr::Mul) {
    for (int i = 0; i < 2; ++i)
      if (e->ops[1 - i]->kind == Expr::Const && isMean(e->ops[i], e->ops[1 - i]->value, false))
        return e->ops[i]->ops[0];
  }
  return nullptr;
}

/// The square of something: x*x or Pow(x, 2).
ExprRef matchSquare(const ExprRef &e) {
  if (e->kind == Expr::Mul && sameExpr(e->ops[0], e->ops[1]))
    return e->ops[0];
  if (e->kind == Expr::Pow && e->ops[1]->kind == Expr::Const && e->ops[1]->value == 2.0)
    return e->ops[0];
  return nullptr;
}

/// sqrt(m + eps) with eps a constant: returns m and eps.
bool matchSqrtPlusEps(const ExprRef &e, ExprRef &m, double &eps) {
  if (e->kind != Expr::Sqrt)
    return false;
  const ExprRef &s = e->ops[0];
  if (s->kind != Expr::Add)
    return false;
  for (int i = 0; i < 2; ++i)
    if (s->ops[1 - i]->kind == Expr::Const) {
      m = s->ops[i];
      eps = s->ops[1 - i]->value;
      return eps >= 0;
    }
  return false;
}

int64_t lastDim(Value v) {
  auto t = cast<RankedTensorType>(v.getType());
  return t.getRank() ? t.getDimSize(t.getRank() - 1) : -1;
}

/// A per-feature vector leaf: [D] or [1, ..., 1, D].
bool isFeatureVector(Value v, int64_t d) {
  auto t = cast<RankedTensorType>(v.getType());
  if (t.getRank() < 1 || t.getDimSize(t.getRank() - 1) != d)
    return false;
  for (int64_t i = 0; i + 1 < t.getRank(); ++i)
    if (t.getDimSize(i) != 1)
      return false;
  return true;
}

Value asVector(PatternRewriter &rw, Location loc, Value v) {
  auto t = cast<RankedTensorType>(v.getType());
  if (t.getRank() == 1)
    return v;
  SmallVector<ReassociationIndices> groups = {llvm::to_vector(llvm::seq<int64_t>(0, t.getRank()))};
  return tensor::CollapseShapeOp::create(
      rw, loc, RankedTensorType::get({t.getDimSize(t.getRank() - 1)}, t.getElementType()), v,
      groups);
}

Value onesVector(PatternRewriter &rw, Location loc, int64_t d, Type et) {
  auto t = RankedTensorType::get({d}, et);
  return arith::ConstantOp::create(rw, loc, DenseElementsAttr::get(t, rw.getFloatAttr(et, 1.0)));
}

struct Counters {
  int64_t rms = 0, layer = 0, glu = 0, mlp = 0, gatedMlp = 0, softcap = 0, attention = 0,
          causal = 0, residual = 0, bias = 0, rope = 0;
};

/// A raising pattern that counts what it raised.
template <typename OpTy>
struct RaisePattern : public OpRewritePattern<OpTy> {
  RaisePattern(MLIRContext *ctx, Counters &c, PatternBenefit benefit)
      : OpRewritePattern<OpTy>(ctx, benefit), c(c) {}
  Counters &c;
};

/// Norms: x·w/sqrt(mean(x²)+eps) and (x-mean)·w/sqrt(mean((x-mean)²)+eps) + b.
struct RaiseNorm : public RaisePattern<linalg::GenericOp> {
  RaiseNorm(MLIRContext *ctx, Counters &c) : RaisePattern(ctx, c, /*benefit=*/10) {}

  LogicalResult matchAndRewrite(linalg::GenericOp g, PatternRewriter &rw) const override {
    if (!allParallel(g) || g.getNumResults() != 1)
      return failure();
    Value root = g.getResult(0);
    auto rt = cast<RankedTensorType>(root.getType());
    if (!isa<FloatType>(rt.getElementType()) || rt.getRank() < 1)
      return failure();
    ExprBuilder eb;
    ExprRef e = eb.tensorExpr(root);
    // Optional bias (LayerNorm): e = P + b.
    Value bias;
    ExprRef prod = e;
    if (e->kind == Expr::Add) {
      for (int i = 0; i < 2; ++i)
        if (e->ops[1 - i]->kind == Expr::Leaf && isFeatureVector(e->ops[1 - i]->leaf, rt.getDimSize(rt.getRank() - 1))) {
          bias = e->ops[1 - i]->leaf;
          prod = e->ops[i];
        }
    }
    SmallVector<ExprRef> num, den;
    factorize(prod, num, den);
    if (den.size() != 1)
      return failure();
    ExprRef m;
    double eps;
    if (!matchSqrtPlusEps(den[0], m, eps))
      return failure();
    ExprRef meanOf = matchMean(m);
    if (!meanOf)
      return failure();
    ExprRef sq = matchSquare(meanOf);
    if (!sq)
      return failure();
    int64_t d = rt.getDimSize(rt.getRank() - 1);
    if (ShapedType::isDynamic(d))
      return failure();
    // The normalised input computed by elementwise ops (Gemma's embeddings times sqrt(hidden),
    // GPT-2's token plus position embeddings): the expression builder looked through them, so
    // a product's factors are spread among the numerator's. Take them out again and stand the
    // tensor they compute in their place.
    if (sq->kind == Expr::Mul && wholeTensor(sq, rt)) {
      SmallVector<ExprRef> sqNum, sqDen;
      factorize(sq, sqNum, sqDen);
      SmallVector<ExprRef> rest(num.begin(), num.end());
      bool all = sqDen.empty();
      for (const ExprRef &f : sqNum) {
        auto it = llvm::find_if(rest, [&](const ExprRef &n) { return sameExpr(n, f); });
        if (!all || it == rest.end()) {
          all = false;
          break;
        }
        rest.erase(it);
      }
      if (all) {
        rest.push_back(mkLeaf(wholeTensor(sq, rt)));
        num.assign(rest.begin(), rest.end());
        sq = num.back();
      }
    }
    // Numerator: the normalised input (x or x - mean(x)) and at most one weight vector: a
    // tensor, `c + w` (Gemma's `(1 + w)`: w with weight_offset c; for RMSNorm, whose op has
    // the offset), or a vector computed some other way.
    Value x, weight;
    double offset = 0.0;
    ExprRef offsetWeight;
    bool centred = false;
    for (const ExprRef &f : num) {
      if (f->kind == Expr::Const && f->value == 1.0)
        continue;
      if (!weight && !sameExpr(f, sq)) {
        if (f->kind == Expr::Leaf && isFeatureVector(f->leaf, d)) {
          weight = f->leaf;
          continue;
        }
        if (f->kind == Expr::Add) {
          auto isVec = [&](const ExprRef &o) {
            return o->kind == Expr::Leaf && isFeatureVector(o->leaf, d);
          };
          int c = f->ops[0]->kind == Expr::Const ? 0 : 1;
          if (f->ops[c]->kind == Expr::Const && isVec(f->ops[1 - c])) {
            weight = f->ops[1 - c]->leaf;
            offset = f->ops[c]->value;
            offsetWeight = f;
            continue;
          }
        }
        if (f->kind != Expr::Const && f->src && isFeatureVector(f->src, d)) {
          weight = f->src;
          continue;
        }
      }
      if (x)
        return failure();
      if (sameExpr(f, sq) && f->kind == Expr::Leaf) {
        x = f->leaf;
        continue;
      }
      // x - mean(x), x a tensor or one computed by elementwise ops
      if (sameExpr(f, sq) && f->kind == Expr::Sub && wholeTensor(f->ops[0], rt)) {
        ExprRef mx = matchMean(f->ops[1]);
        if (mx && sameExpr(mx, f->ops[0])) {
          x = wholeTensor(f->ops[0], rt);
          centred = true;
          continue;
        }
      }
      // x computed by elementwise ops that are not a product (a sum of embeddings)
      if (sameExpr(f, sq) && f->kind != Expr::Const && wholeTensor(f, rt)) {
        x = wholeTensor(f, rt);
        continue;
      }
      return failure();
    }
    if (!x || x.getType() != root.getType() || (bias && !centred))
      return failure();
    if (offset != 0.0 && centred) {
      // decoda.layer_norm has no offset: its weight is the vector c + w itself.
      if (!offsetWeight->src || !isFeatureVector(offsetWeight->src, d))
        return failure();
      weight = offsetWeight->src;
      offset = 0.0;
    }
    Location loc = g.getLoc();
    Type et = rt.getElementType();
    Value w = weight ? asVector(rw, loc, weight) : onesVector(rw, loc, d, et);
    if (cast<ShapedType>(w.getType()).getElementType() != et)
      return failure();
    Value r;
    if (centred) {
      Value b = bias ? asVector(rw, loc, bias) : Value();
      r = LayerNormOp::create(rw, loc, x, w, b, rw.getF64FloatAttr(eps));
      ++c.layer;
    } else {
      r = RMSNormOp::create(rw, loc, x, w, rw.getF64FloatAttr(eps), rw.getF64FloatAttr(offset));
      ++c.rms;
    }
    rw.replaceOp(g, r);
    return success();
  }
};

/// A 16-bit model's norm computed in f32 between casts, once RaiseNorm raised its f32 middle:
///   Hugging Face's Llama form `w * to(dtype)(rms(to(float32)(x)))`: rms_norm(to(f32)(x), 1)
///     cast back, times a weight vector of x's type;
///   the form that applies the weights in f32 (`norm(x.float(), w.float(), b.float()).type_as(x)`):
///     rms_norm / layer_norm(to(f32)(x), to(f32)(w) [, to(f32)(b)]) cast back, w and b of x's
///     type (or weight 1)
/// -> rms_norm / layer_norm(x, w [, b]) in x's type. The op computes in f32 as the export does
/// and rounds once; the Llama form rounds the normalised value and then the product (the two
/// differ by at most an ulp of the 16-bit type), the other form is the op's rule exactly.
struct RaiseNarrowNorm : public RaisePattern<linalg::GenericOp> {
  RaiseNarrowNorm(MLIRContext *ctx, Counters &c) : RaisePattern(ctx, c, /*benefit=*/9) {}

  LogicalResult matchAndRewrite(linalg::GenericOp g, PatternRewriter &rw) const override {
    if (!allParallel(g) || g.getNumResults() != 1)
      return failure();
    Value root = g.getResult(0);
    auto rt = cast<RankedTensorType>(root.getType());
    if (!isa<FloatType>(rt.getElementType()) || rt.getRank() < 1 ||
        ShapedType::isDynamic(rt.getDimSize(rt.getRank() - 1)))
      return failure();
    Type et = rt.getElementType();
    int64_t d = rt.getDimSize(rt.getRank() - 1);
    // `user` computing n * w, n a cast's result and w a [D] vector of x's type: (n, w).
    auto weightApplied = [&](linalg::GenericOp user) -> std::pair<Value, Value> {
      ExprBuilder eb;
      ExprRef e = eb.tensorExpr(user.getResult(0));
      if (e->kind != Expr::Mul)
        return {};
      for (int i = 0; i < 2; ++i) {
        const ExprRef &n = e->ops[i], &w = e->ops[1 - i];
        if (n->kind == Expr::Leaf && w->kind == Expr::Leaf && floatCastSource(n->leaf) &&
            n->leaf.hasOneUse() && isFeatureVector(w->leaf, d) &&
            getElementTypeOrSelf(w->leaf.getType()) == et)
          return {n->leaf, w->leaf};
      }
      return {};
    };
    Value narrowed = root, outerWeight;
    if (floatCastSource(root)) {
      // The Llama form is matched at the product, which takes this cast with it.
      if (root.hasOneUse())
        if (auto user = dyn_cast<linalg::GenericOp>(*root.getUsers().begin());
            user && user.getNumResults() == 1 && allParallel(user) &&
            user.getResult(0).getType() == root.getType() && weightApplied(user).first == root)
          return failure();
    } else {
      std::tie(narrowed, outerWeight) = weightApplied(g);
      if (!narrowed)
        return failure();
    }
    if (narrowed.getType() != root.getType())
      return failure();
    Value wide = floatCastSource(narrowed);
    Operation *norm = wide.getDefiningOp();
    auto rms = dyn_cast_or_null<RMSNormOp>(norm);
    auto ln = dyn_cast_or_null<LayerNormOp>(norm);
    if ((!rms && !ln) || !wide.hasOneUse() ||
        (rms && rms.getWeightOffset().convertToDouble() != 0.0))
      return failure();
    Value input = rms ? rms.getInput() : ln.getInput();
    Value x = floatCastSource(input);
    if (!x || x.getType() != root.getType())
      return failure();
    // The weight: the outer one (the inner then 1), or the inner one as the same values in x's
    // type (a cast of such a value, or 1); the bias likewise. Nothing is created before all
    // is known to match.
    Value innerWeight = rms ? rms.getWeight() : ln.getWeight();
    auto isUnit = [](Value v) {
      std::optional<double> c = scalarConstant(v);
      return c && *c == 1.0;
    };
    auto narrowSource = [&](Value v) -> Value {
      Value src = v ? floatCastSource(v) : Value();
      return src && getElementTypeOrSelf(src.getType()) == et ? src : Value();
    };
    Value wSource = outerWeight;
    if (outerWeight) {
      if (!isUnit(innerWeight) || (ln && ln.getBias()))
        return failure();
    } else if (!(wSource = narrowSource(innerWeight)) && !isUnit(innerWeight)) {
      return failure();
    }
    Value bias;
    if (ln && ln.getBias() && !(bias = narrowSource(ln.getBias())))
      return failure();
    Location loc = g.getLoc();
    Value w = wSource ? asVector(rw, loc, wSource) : onesVector(rw, loc, d, et);
    Value r;
    if (rms)
      r = RMSNormOp::create(rw, loc, x, w, rms.getEpsAttr(), rms.getWeightOffsetAttr());
    else
      r = LayerNormOp::create(rw, loc, x, w, bias ? asVector(rw, loc, bias) : bias,
                              ln.getEpsAttr());
    rw.replaceOp(g, r);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Activations, GLUs, MLPs, softcaps
//===----------------------------------------------------------------------===//

std::optional<GluAttr> classifyGlu(MLIRContext *ctx, const ExprRef &e, Value g, Value u,
                                   double tol) {
  // The fixed GLUs: the closest within `tol`.
  struct Candidate {
    GluKind kind;
    std::function<double(double, double)> f;
  };
  const Candidate fixed[] = {
      {GluKind::swiglu, [](double a, double b) { return siluD(a) * b; }},
      {GluKind::geglu, [](double a, double b) { return geluErfD(a) * b; }},
      {GluKind::geglu_tanh, [](double a, double b) { return geluTanhD(a) * b; }}};
  std::optional<GluKind> best;
  double bestErr = tol;
  for (const Candidate &cand : fixed)
    if (double err = binaryError(e, g, u, cand.f); err <= bestErr) {
      best = cand.kind;
      bestErr = err;
    }
  if (best)
    return GluAttr::get(ctx, *best, std::nullopt, std::nullopt, std::nullopt);
  SmallVector<double> consts;
  collectConsts(e, consts);
  for (double l : consts)
    if (matchesBinary(e, g, u, [l](double a, double b) {
          return siluD(std::min(a, l)) * std::min(std::max(b, -l), l);
        }))
      return GluAttr::get(ctx, GluKind::clamped_swiglu, std::nullopt, std::nullopt, APFloat(l));
  for (double b1 : consts)
    for (double b2 : consts)
      if (matchesBinary(e, g, u, [b1, b2](double a, double b) {
            return b1 * std::tanh(a / b1) * sigmoidD(a) * b2 * std::tanh(b / b2);
          }))
        return GluAttr::get(ctx, GluKind::situ, APFloat(b1), APFloat(b2), std::nullopt);
  return std::nullopt;
}

std::optional<Activation> classifyActivation(const ExprRef &e, Value x, double tol) {
  struct Candidate {
    Activation act;
    std::function<double(double)> f;
  };
  const Candidate candidates[] = {{Activation::gelu_erf, geluErfD},
                                  {Activation::gelu_tanh, geluTanhD},
                                  {Activation::silu, siluD},
                                  {Activation::relu, [](double v) { return std::max(v, 0.0); }}};
  std::optional<Activation> best;
  double bestErr = tol;
  for (const Candidate &cand : candidates)
    if (double err = unaryError(e, x, cand.f); err <= bestErr) {
      best = cand.act;
      bestErr = err;
    }
  return best;
}

/// An elementwise generic with two same-shaped leaves computing a GLU -> decoda.glu.
struct RaiseGlu : public RaisePattern<linalg::GenericOp> {
  RaiseGlu(MLIRContext *ctx, Counters &c) : RaisePattern(ctx, c, /*benefit=*/5) {}
  LogicalResult matchAndRewrite(linalg::GenericOp g, PatternRewriter &rw) const override {
    if (!allParallel(g) || g.getNumResults() != 1)
      return failure();
    Value root = g.getResult(0);
    if (!isa<FloatType>(cast<ShapedType>(root.getType()).getElementType()))
      return failure();
    ExprBuilder eb;
    ExprRef e = eb.tensorExpr(root);
    llvm::SetVector<Value> leaves;
    bool hasReduce = false;
    collectLeaves(e, leaves, hasReduce);
    if (hasReduce || leaves.size() != 2)
      return failure();
    for (int swap = 0; swap < 2; ++swap) {
      Value gate = leaves[swap], up = leaves[1 - swap];
      if (gate.getType() != root.getType() || up.getType() != root.getType())
        continue;
      if (std::optional<GluAttr> kind =
              classifyGlu(rw.getContext(), e, gate, up, activationTolerance(root.getType()))) {
        rw.replaceOpWithNewOp<GluOp>(g, gate, up, *kind);
        ++c.glu;
        return success();
      }
    }
    return failure();
  }
};

/// c·tanh(x/c) -> decoda.softcap.
struct RaiseSoftcap : public RaisePattern<linalg::GenericOp> {
  RaiseSoftcap(MLIRContext *ctx, Counters &c) : RaisePattern(ctx, c, /*benefit=*/4) {}
  LogicalResult matchAndRewrite(linalg::GenericOp g, PatternRewriter &rw) const override {
    if (!allParallel(g) || g.getNumResults() != 1)
      return failure();
    Value root = g.getResult(0);
    ExprBuilder eb;
    ExprRef e = eb.tensorExpr(root);
    llvm::SetVector<Value> leaves;
    bool hasReduce = false;
    collectLeaves(e, leaves, hasReduce);
    if (hasReduce || leaves.size() != 1 || leaves[0].getType() != root.getType() ||
        !isa<FloatType>(cast<ShapedType>(root.getType()).getElementType()))
      return failure();
    SmallVector<double> consts;
    collectConsts(e, consts);
    for (double cap : consts) {
      if (cap == 1.0)
        continue;
      if (matchesUnary(e, leaves[0], [cap](double x) { return cap * std::tanh(x / cap); })) {
        rw.replaceOpWithNewOp<SoftcapOp>(g, leaves[0], rw.getF64FloatAttr(cap));
        ++c.softcap;
        return success();
      }
    }
    return failure();
  }
};

/// Every use of `v` is inside the elementwise chain that ends in `root` (so replacing the root
/// leaves no other reader of `v`).
bool usedOnlyBy(Value v, linalg::GenericOp root) {
  SmallVector<Value> work = {v};
  llvm::SmallPtrSet<Operation *, 16> seen;
  while (!work.empty()) {
    Value x = work.pop_back_val();
    for (Operation *u : x.getUsers()) {
      if (u == root.getOperation())
        continue;
      auto g = dyn_cast<linalg::GenericOp>(u);
      if (!g || !allParallel(g) || g.getNumResults() != 1)
        return false;
      if (seen.insert(u).second)
        work.push_back(g.getResult(0));
    }
  }
  return !seen.empty() || v.hasOneUse();
}

/// linear(glu(linear(x, Wg), linear(x, Wu)), Wd) -> decoda.gated_mlp;
/// linear(act(linear(x, Wu)), Wd) -> decoda.mlp.
struct RaiseMLP : public RaisePattern<LinearOp> {
  RaiseMLP(MLIRContext *ctx, Counters &c) : RaisePattern(ctx, c, /*benefit=*/3) {}

  static bool plain(LinearOp l) {
    return l && !l.getBias() &&
           cast<RankedTensorType>(l.getWeight().getType()).getRank() == 2 &&
           l.getResult().hasOneUse();
  }

  /// Phi-3's `gate_up_proj`: linear(glu(slice(linear(x, W)), slice(..)), Wd), the two halves
  /// taken from one projection's columns -> gated_mlp(x, W's gate columns, W's up columns, Wd).
  /// A constant W is split at compile time; a run-time W is sliced. The slices must span the
  /// projection's rows: sizes that are not the same values as x's extents are checked at run
  /// time.
  LogicalResult raiseSplitGateUp(LinearOp down, GluOp glu, PatternRewriter &rw) const {
    WeightLayout layout = down.getWeightLayout();
    auto gs = glu.getGate().getDefiningOp<tensor::ExtractSliceOp>();
    auto us = glu.getUp().getDefiningOp<tensor::ExtractSliceOp>();
    if (!gs || !us || gs.getSource() != us.getSource() || !glu.getResult().hasOneUse())
      return failure();
    auto wide = gs.getSource().getDefiningOp<LinearOp>();
    if (!wide || wide.getBias() || wide.getWeightLayout() != layout)
      return failure();
    if (llvm::any_of(wide.getResult().getUsers(),
                     [&](Operation *u) { return u != gs.getOperation() && u != us.getOperation(); }))
      return failure();
    auto wt = cast<RankedTensorType>(wide.getWeight().getType());
    auto rt = cast<RankedTensorType>(wide.getType());
    Value x = wide.getInput();
    int64_t r = rt.getRank();
    if (wt.getRank() != 2 || !wt.hasStaticShape() || x.getType() != down.getType())
      return failure();
    // Each half: columns [off, off + ff) of every row, no rank reduction.
    auto columns = [&](tensor::ExtractSliceOp s, int64_t &off) {
      if (s.getResultType().getRank() != r ||
          !llvm::all_of(s.getStaticStrides(), [](int64_t v) { return v == 1; }))
        return false;
      ArrayRef<int64_t> offs = s.getStaticOffsets();
      for (int64_t i = 0; i + 1 < r; ++i)
        if (offs[i] != 0)
          return false;
      off = offs[r - 1];
      return !ShapedType::isDynamic(off);
    };
    int64_t og, ou;
    if (!columns(gs, og) || !columns(us, ou))
      return failure();
    int64_t ff = gs.getStaticSizes()[r - 1];
    if (ShapedType::isDynamic(ff) || us.getStaticSizes()[r - 1] != ff)
      return failure();
    SmallVector<OpFoldResult> gSizes = gs.getMixedSizes(), uSizes = us.getMixedSizes();
    SmallVector<std::pair<OpFoldResult, int64_t>> checks;
    for (int64_t i = 0; i + 1 < r; ++i) {
      if (!isEqualConstantIntOrValue(gSizes[i], uSizes[i]))
        return failure();
      std::optional<int64_t> c = getConstantIntValue(gSizes[i]);
      if (c && !rt.isDynamicDim(i)) {
        if (*c != rt.getDimSize(i))
          return failure();
        continue;
      }
      checks.push_back({gSizes[i], i});
    }
    // Matched: from here on the rewrite.
    Location loc = down.getLoc();
    for (auto [size, i] : checks) {
      Value extent = tensor::DimOp::create(rw, loc, x, i);
      Value same = arith::CmpIOp::create(rw, loc, arith::CmpIPredicate::eq,
                                         getValueOrCreateConstantIndexOp(rw, loc, size), extent);
      cf::AssertOp::create(rw, loc, same,
                           "decoda-raise-onnx: the halves of a fused gate/up projection do not "
                           "span its rows");
    }
    int64_t axis = layout == WeightLayout::in_out ? 1 : 0;
    auto half = [&](int64_t off) -> Value {
      Value w = wide.getWeight();
      if (Value c = sliceConstant(rw, loc, w, axis, off, ff, "decoda_gate_up_half"))
        return c;
      SmallVector<OpFoldResult> offs(2, rw.getIndexAttr(0)), strides(2, rw.getIndexAttr(1));
      SmallVector<OpFoldResult> sizes = {rw.getIndexAttr(wt.getDimSize(0)),
                                         rw.getIndexAttr(wt.getDimSize(1))};
      offs[axis] = rw.getIndexAttr(off);
      sizes[axis] = rw.getIndexAttr(ff);
      return tensor::ExtractSliceOp::create(rw, loc, w, offs, sizes, strides);
    };
    Value wg = half(og), wu = half(ou);
    Value res = GatedMLPOp::create(rw, loc, down.getType(), x, wg, wu, down.getWeight(), Value(),
                                   Value(), Value(), glu.getKind(),
                                   WeightLayoutAttr::get(rw.getContext(), layout));
    rw.replaceOp(down, res);
    ++c.gatedMlp;
    return success();
  }

  LogicalResult matchAndRewrite(LinearOp down, PatternRewriter &rw) const override {
    if (cast<RankedTensorType>(down.getWeight().getType()).getRank() != 2)
      return failure();
    WeightLayout layout = down.getWeightLayout();
    Value h = down.getInput();
    if (auto glu = h.getDefiningOp<GluOp>()) {
      if (down.getBias())
        return failure();
      auto gate = glu.getGate().getDefiningOp<LinearOp>();
      auto up = glu.getUp().getDefiningOp<LinearOp>();
      if (!gate && !up)
        return raiseSplitGateUp(down, glu, rw);
      if (!plain(gate) || !plain(up) || !glu.getResult().hasOneUse() ||
          gate.getInput() != up.getInput() || gate.getWeightLayout() != layout ||
          up.getWeightLayout() != layout || gate.getInput().getType() != down.getType())
        return failure();
      Value r = GatedMLPOp::create(rw, down.getLoc(), down.getType(), gate.getInput(),
                                   gate.getWeight(), up.getWeight(), down.getWeight(), Value(),
                                   Value(), Value(), glu.getKind(),
                                   WeightLayoutAttr::get(rw.getContext(), layout));
      rw.replaceOp(down, r);
      ++c.gatedMlp;
      return success();
    }
    auto g = h.getDefiningOp<linalg::GenericOp>();
    if (!g || !allParallel(g) || !h.hasOneUse())
      return failure();
    ExprBuilder eb;
    ExprRef e = eb.tensorExpr(h);
    llvm::SetVector<Value> leaves;
    bool hasReduce = false;
    collectLeaves(e, leaves, hasReduce);
    if (hasReduce || leaves.size() != 1)
      return failure();
    auto up = leaves[0].getDefiningOp<LinearOp>();
    if (!up || cast<RankedTensorType>(up.getWeight().getType()).getRank() != 2 ||
        !usedOnlyBy(up.getResult(), g) || up.getWeightLayout() != layout ||
        up.getInput().getType() != down.getType() || leaves[0].getType() != h.getType())
      return failure();
    std::optional<Activation> act =
        classifyActivation(e, leaves[0], activationTolerance(h.getType()));
    if (!act)
      return failure();
    if ((bool)up.getBias() != (bool)down.getBias())
      return failure();
    Value r = MLPOp::create(rw, down.getLoc(), down.getType(), up.getInput(), up.getWeight(),
                            down.getWeight(), up.getBias(), down.getBias(),
                            ActivationAttr::get(rw.getContext(), *act),
                            WeightLayoutAttr::get(rw.getContext(), layout));
    rw.replaceOp(down, r);
    ++c.mlp;
    return success();
  }
};

/// Whether `v` is computed from `src` (a bounded backward walk over defining ops).
bool dependsOn(Value v, Value src) {
  SmallVector<Value> work = {v};
  llvm::SmallPtrSet<Operation *, 32> seen;
  while (!work.empty()) {
    Value x = work.pop_back_val();
    if (x == src)
      return true;
    Operation *d = x.getDefiningOp();
    if (!d || !seen.insert(d).second || seen.size() > 256)
      continue;
    for (Value o : d->getOperands())
      work.push_back(o);
  }
  return false;
}

/// x + branch, where the branch is a projection, an MLP or attention output -> residual_add.
struct RaiseResidual : public RaisePattern<linalg::GenericOp> {
  RaiseResidual(MLIRContext *ctx, Counters &c) : RaisePattern(ctx, c, /*benefit=*/1) {}
  static bool isBranch(Value v) {
    Operation *d = v.getDefiningOp();
    return isa_and_nonnull<LinearOp, MLPOp, GatedMLPOp, MoEOp>(d);
  }
  /// The operands of `g` when it is an elementwise `a + b` of two tensors of its result's type.
  static std::optional<std::pair<Value, Value>> addOperands(linalg::GenericOp g) {
    if (!allParallel(g) || g.getNumResults() != 1 || g.getNumDpsInputs() != 2)
      return std::nullopt;
    auto yield = cast<linalg::YieldOp>(g.getBody()->getTerminator());
    auto add = yield.getOperand(0).getDefiningOp<arith::AddFOp>();
    if (!add || add->getBlock() != g.getBody())
      return std::nullopt;
    Block *body = g.getBody();
    if (add.getLhs() != body->getArgument(0) || add.getRhs() != body->getArgument(1)) {
      if (!(add.getLhs() == body->getArgument(1) && add.getRhs() == body->getArgument(0)))
        return std::nullopt;
    }
    for (AffineMap m : g.getIndexingMapsArray())
      if (!m.isIdentity())
        return std::nullopt;
    Value a = g.getDpsInputs()[0], b = g.getDpsInputs()[1];
    Value root = g.getResult(0);
    if (a.getType() != root.getType() || b.getType() != root.getType())
      return std::nullopt;
    return std::make_pair(a, b);
  }

  /// `(b1 + b2) + x` with b1, b2 branches, the sum used once and x depending on neither: a
  /// parallel block (GPT-NeoX, Phi-2, Falcon: `mlp_out + attn_out + residual`) becomes
  /// `(x + b1) + b2`, b1 the branch defined first, so each add is a projection's epilogue.
  LogicalResult raiseParallel(linalg::GenericOp g, Value a, Value b,
                              PatternRewriter &rw) const {
    for (int i = 0; i < 2; ++i) {
      Value sum = i ? b : a, residual = i ? a : b;
      auto inner = sum.getDefiningOp<linalg::GenericOp>();
      if (!inner || !sum.hasOneUse())
        continue;
      auto ops = addOperands(inner);
      if (!ops || !isBranch(ops->first) || !isBranch(ops->second) || isBranch(residual))
        continue;
      auto [b1, b2] = *ops;
      Operation *d1 = b1.getDefiningOp(), *d2 = b2.getDefiningOp();
      if (d1->getBlock() == d2->getBlock() && d2->isBeforeInBlock(d1))
        std::swap(b1, b2);
      if (dependsOn(residual, b1) || dependsOn(residual, b2))
        continue;
      // x + b1 right after b1 (when x is defined there), so it is b1's projection's epilogue
      // (the GPU kernels fuse the elementwise op that follows a contraction).
      Value first;
      {
        OpBuilder::InsertionGuard guard(rw);
        Operation *def1 = b1.getDefiningOp();
        if (DominanceInfo().properlyDominates(residual, def1->getNextNode()))
          rw.setInsertionPointAfter(def1);
        first = ResidualAddOp::create(rw, g.getLoc(), residual, b1, rw.getF64FloatAttr(1.0));
      }
      rw.replaceOpWithNewOp<ResidualAddOp>(g, first, b2, rw.getF64FloatAttr(1.0));
      rw.eraseOp(inner);
      c.residual += 2;
      return success();
    }
    return failure();
  }

  LogicalResult matchAndRewrite(linalg::GenericOp g, PatternRewriter &rw) const override {
    auto ops = addOperands(g);
    if (!ops)
      return failure();
    auto [a, b] = *ops;
    Value residual, branch;
    if (isBranch(b) && !isBranch(a)) {
      residual = a;
      branch = b;
    } else if (isBranch(a) && !isBranch(b)) {
      residual = b;
      branch = a;
    } else {
      return raiseParallel(g, a, b, rw);
    }
    // The residual stream does not depend on the branch (x + f(x) inside an activation such as
    // tanh-GELU's `h + 0.044715·h³` is not a residual connection).
    if (dependsOn(residual, branch))
      return failure();
    rw.replaceOpWithNewOp<ResidualAddOp>(g, residual, branch, rw.getF64FloatAttr(1.0));
    ++c.residual;
    return success();
  }
};

/// linear(x, W) + b with b a [N] vector -> linear(x, W, b) (MatMul + Add bias exports).
struct RaiseLinearBias : public RaisePattern<linalg::GenericOp> {
  RaiseLinearBias(MLIRContext *ctx, Counters &c) : RaisePattern(ctx, c, /*benefit=*/2) {}
  LogicalResult matchAndRewrite(linalg::GenericOp g, PatternRewriter &rw) const override {
    if (!allParallel(g) || g.getNumResults() != 1 || g.getNumDpsInputs() != 2)
      return failure();
    auto yield = cast<linalg::YieldOp>(g.getBody()->getTerminator());
    auto add = yield.getOperand(0).getDefiningOp<arith::AddFOp>();
    Block *body = g.getBody();
    if (!add || !((add.getLhs() == body->getArgument(0) && add.getRhs() == body->getArgument(1)) ||
                  (add.getLhs() == body->getArgument(1) && add.getRhs() == body->getArgument(0))))
      return failure();
    Value root = g.getResult(0);
    for (int i = 0; i < 2; ++i) {
      auto lin = g.getDpsInputs()[i].getDefiningOp<LinearOp>();
      Value b = g.getDpsInputs()[1 - i];
      if (!lin || lin.getBias() || !lin.getResult().hasOneUse() || lin.getType() != root.getType() ||
          cast<RankedTensorType>(lin.getWeight().getType()).getRank() != 2)
        continue;
      if (!g.getIndexingMapsArray()[i].isIdentity())
        continue;
      if (!isFeatureVector(b, lastDim(root)))
        continue;
      Value bias = asVector(rw, g.getLoc(), b);
      Value r = LinearOp::create(rw, g.getLoc(), lin.getInput(), lin.getWeight(), bias,
                                 WeightLayoutAttr::get(rw.getContext(), lin.getWeightLayout()));
      rw.replaceOp(g, r);
      ++c.bias;
      return success();
    }
    return failure();
  }
};

//===----------------------------------------------------------------------===//
// Attention
//===----------------------------------------------------------------------===//

/// A batched-matmul generic over 4-D operands: out[b,h,m,n] = Σ_k A[b,h,m,k] · B[b,h,k,n].
bool isBatchMatmul4D(linalg::GenericOp g) {
  if (g.getNumDpsInputs() != 2 || g.getNumResults() != 1 || g.getNumLoops() != 5)
    return false;
  SmallVector<utils::IteratorType> its = g.getIteratorTypesArray();
  for (int i = 0; i < 4; ++i)
    if (its[i] != utils::IteratorType::parallel)
      return false;
  if (its[4] != utils::IteratorType::reduction)
    return false;
  MLIRContext *ctx = g.getContext();
  auto d = [&](unsigned i) { return getAffineDimExpr(i, ctx); };
  SmallVector<AffineMap> maps = g.getIndexingMapsArray();
  if (maps[0] != AffineMap::get(5, 0, {d(0), d(1), d(2), d(4)}, ctx) ||
      maps[1] != AffineMap::get(5, 0, {d(0), d(1), d(4), d(3)}, ctx) ||
      maps[2] != AffineMap::get(5, 0, {d(0), d(1), d(2), d(3)}, ctx))
    return false;
  auto yield = cast<linalg::YieldOp>(g.getBody()->getTerminator());
  auto add = yield.getOperand(0).getDefiningOp<arith::AddFOp>();
  if (!add)
    return false;
  Block *body = g.getBody();
  Value out = body->getArgument(2);
  Value other = add.getLhs() == out ? add.getRhs() : add.getRhs() == out ? add.getLhs() : Value();
  auto mul = other ? other.getDefiningOp<arith::MulFOp>() : nullptr;
  if (!mul)
    return false;
  Value a = body->getArgument(0), b = body->getArgument(1);
  if (!((mul.getLhs() == a && mul.getRhs() == b) || (mul.getLhs() == b && mul.getRhs() == a)))
    return false;
  auto fill = g.getDpsInits()[0].getDefiningOp<linalg::FillOp>();
  return fill && scalarConstant(fill.getInputs()[0]) == 0.0;
}

Value transposeTo(PatternRewriter &rw, Location loc, Value v, ArrayRef<int64_t> perm) {
  // transpose(transpose(x, p), q) = x when q undoes p.
  if (auto t = v.getDefiningOp<linalg::TransposeOp>()) {
    ArrayRef<int64_t> p = t.getPermutation();
    bool inverse = p.size() == perm.size();
    for (size_t i = 0; i < perm.size() && inverse; ++i)
      inverse = p[perm[i]] == (int64_t)i;
    if (inverse)
      return t.getInput();
  }
  auto tt = cast<RankedTensorType>(v.getType());
  SmallVector<OpFoldResult> dims = tensor::getMixedSizes(rw, loc, v);
  SmallVector<OpFoldResult> out;
  for (int64_t p : perm)
    out.push_back(dims[p]);
  Value init = tensor::EmptyOp::create(rw, loc, out, tt.getElementType());
  return linalg::TransposeOp::create(rw, loc, v, init, perm).getResult()[0];
}

/// [B, H, T, D] built by repeating KV heads (expand [B,Hkv,1,T,D] -> broadcast
/// [B,Hkv,rep,T,D] -> collapse) gives back [B, Hkv, T, D].
Value stripRepeatKV(Value v) {
  auto collapse = v.getDefiningOp<tensor::CollapseShapeOp>();
  if (!collapse)
    return v;
  SmallVector<ReassociationIndices> groups = collapse.getReassociationIndices();
  if (groups.size() != 4 || groups[1] != ReassociationIndices{1, 2})
    return v;
  auto bc = collapse.getSrc().getDefiningOp<linalg::GenericOp>();
  if (!bc || !allParallel(bc) || bc.getNumDpsInputs() != 1)
    return v;
  auto yield = cast<linalg::YieldOp>(bc.getBody()->getTerminator());
  if (yield.getOperand(0) != bc.getBody()->getArgument(0))
    return v;
  MLIRContext *ctx = bc.getContext();
  auto d = [&](unsigned i) { return getAffineDimExpr(i, ctx); };
  AffineMap want = AffineMap::get(5, 0, {d(0), d(1), getAffineConstantExpr(0, ctx), d(3), d(4)}, ctx);
  if (bc.getIndexingMapsArray()[0] != want)
    return v;
  auto expand = bc.getDpsInputs()[0].getDefiningOp<tensor::ExpandShapeOp>();
  if (!expand)
    return v;
  SmallVector<ReassociationIndices> eg = expand.getReassociationIndices();
  if (eg.size() != 4 || eg[1] != ReassociationIndices{1, 2})
    return v;
  return expand.getSrc();
}

/// Is `m` an additive causal mask [T, T] (or with leading unit dims): a fill of a very negative
/// value kept strictly above the diagonal (Trilu upper, k = 1)?
bool isCausalMask(Value m) {
  // A constant mask (static exports fold the mask computation): 0 on and below the diagonal,
  // very negative above it, over a square [.., T, T] with unit leading dims.
  if (DenseElementsAttr c = constantThrough(m)) {
    auto ct = cast<RankedTensorType>(c.getType());
    int64_t r = ct.getRank();
    if (r < 2 || !isa<FloatType>(ct.getElementType()) || ct.getDimSize(r - 1) != ct.getDimSize(r - 2))
      return false;
    for (int64_t i = 0; i + 2 < r; ++i)
      if (ct.getDimSize(i) != 1)
        return false;
    int64_t t = ct.getDimSize(r - 1);
    int64_t idx = 0;
    for (APFloat x : c.getValues<APFloat>()) {
      int64_t i = idx / t, j = idx % t;
      ++idx;
      double v = x.convertToDouble();
      if (j <= i ? v != 0.0 : !veryNegative(v, ct))
        return false;
    }
    return true;
  }
  m = stripUnitReshapes(m);
  // A mask built in one float type and cast to the scores' (`mask.to(dtype)`).
  if (Value wide = floatCastSource(m))
    m = stripUnitReshapes(wide);
  auto g = m.getDefiningOp<linalg::GenericOp>();
  if (!g || !allParallel(g) || g.getNumDpsInputs() != 1)
    return false;
  auto t = cast<RankedTensorType>(m.getType());
  if (t.getRank() != 2)
    return false;
  auto fill = g.getDpsInputs()[0].getDefiningOp<linalg::FillOp>();
  std::optional<double> v =
      fill ? scalarConstant(fill.getInputs()[0]) : scalarConstant(g.getDpsInputs()[0]);
  if (!v || !veryNegative(*v, t))
    return false;
  // Body: select(j - i >= 1, in, 0).
  auto yield = cast<linalg::YieldOp>(g.getBody()->getTerminator());
  auto sel = yield.getOperand(0).getDefiningOp<arith::SelectOp>();
  if (!sel || sel.getTrueValue() != g.getBody()->getArgument(0) ||
      scalarConstant(sel.getFalseValue()) != 0.0)
    return false;
  auto cmp = sel.getCondition().getDefiningOp<arith::CmpIOp>();
  if (!cmp || cmp.getPredicate() != arith::CmpIPredicate::sge || scalarConstant(cmp.getRhs()) != 1.0)
    return false;
  auto sub = cmp.getLhs().getDefiningOp<arith::SubIOp>();
  if (!sub)
    return false;
  auto j = sub.getLhs().getDefiningOp<linalg::IndexOp>(), i = sub.getRhs().getDefiningOp<linalg::IndexOp>();
  return j && i && j.getDim() == 1 && i.getDim() == 0;
}

/// Strips multiplications and divisions by constants, folding them into `scale`.
ExprRef peelConstantScale(ExprRef e, double &scale) {
  while (true) {
    if (e->kind == Expr::Mul && e->ops[1]->kind == Expr::Const) {
      scale *= e->ops[1]->value;
      e = e->ops[0];
    } else if (e->kind == Expr::Mul && e->ops[0]->kind == Expr::Const) {
      scale *= e->ops[0]->value;
      e = e->ops[1];
    } else if (e->kind == Expr::Div && e->ops[1]->kind == Expr::Const) {
      scale /= e->ops[1]->value;
      e = e->ops[0];
    } else {
      return e;
    }
  }
}

struct RaiseAttention : public RaisePattern<linalg::GenericOp> {
  RaiseAttention(MLIRContext *ctx, Counters &c) : RaisePattern(ctx, c, /*benefit=*/20) {}

  LogicalResult matchAndRewrite(linalg::GenericOp pv, PatternRewriter &rw) const override {
    if (!isBatchMatmul4D(pv))
      return failure();
    // softmax(scores), or (a 16-bit export: softmax(..., dtype=float32).to(dtype)) the
    // softmax of the scores cast to f32, cast back: the op's own rule (f32 softmax, P rounded
    // to the operands' type).
    Value probs = pv.getDpsInputs()[0];
    Value narrowProbs = floatCastSource(probs);
    if (narrowProbs && !probs.hasOneUse())
      return failure();
    auto sm = (narrowProbs ? narrowProbs : probs).getDefiningOp<linalg::SoftmaxOp>();
    if (!sm || sm.getDimension() != 3 || !sm.getResult()[0].hasOneUse())
      return failure();
    Value scores = sm.getInput();
    if (narrowProbs) {
      Value narrowScores = floatCastSource(scores);
      if (!narrowScores || !scores.hasOneUse() || narrowScores.getType() != probs.getType() ||
          !getElementTypeOrSelf(scores.getType()).isF32())
        return failure();
      scores = narrowScores;
    }
    ExprBuilder eb;
    ExprRef e = eb.tensorExpr(scores);
    // Peel mask (outermost), then softcap, then scale, down to the QKᵀ leaf.
    Value mask, boolMask;
    bool maskWhereTrue = true;
    if (e->kind == Expr::Add) {
      // The mask is the addend that does not contain the scores: any tensor-valued subtree
      // (a leaf or a whole mask computation).
      for (int i = 0; i < 2 && !mask; ++i) {
        Value cand = e->ops[1 - i]->src;
        if (!cand)
          continue;
        auto ct = cast<RankedTensorType>(cand.getType());
        if (ct.getRank() < 2 || !isa<FloatType>(ct.getElementType()))
          continue;
        ExprRef rest = e->ops[i];
        llvm::SetVector<Value> l, ml;
        bool red = false;
        collectLeaves(rest, l, red);
        collectLeaves(e->ops[1 - i], ml, red);
        if (l.size() == 1 && !ml.contains(l[0]) && !dependsOn(cand, l[0])) {
          mask = cand;
          e = rest;
        }
      }
    } else if (e->kind == Expr::Select && e->ops[0]->kind == Expr::Leaf) {
      // where(cond, s, -big) or where(cond, -big, s)
      for (int which = 1; which <= 2; ++which) {
        const ExprRef &other = e->ops[3 - which];
        if (other->kind == Expr::Const && veryNegative(other->value, scores.getType())) {
          boolMask = e->ops[0]->leaf;
          maskWhereTrue = which == 1;
          e = e->ops[which];
          break;
        }
      }
      if (!boolMask)
        return failure();
    }
    std::optional<double> softcap;
    if (e->kind == Expr::Mul) {
      for (int i = 0; i < 2; ++i) {
        const ExprRef &k = e->ops[1 - i], &t = e->ops[i];
        if (k->kind == Expr::Const && t->kind == Expr::Tanh) {
          const ExprRef &inner = t->ops[0];
          double cap = k->value;
          if (inner->kind == Expr::Div && inner->ops[1]->kind == Expr::Const &&
              inner->ops[1]->value == cap) {
            softcap = cap;
            e = inner->ops[0];
          } else if (inner->kind == Expr::Mul) {
            for (int j = 0; j < 2; ++j)
              if (inner->ops[1 - j]->kind == Expr::Const &&
                  std::fabs(inner->ops[1 - j]->value * cap - 1.0) < 1e-6) {
                softcap = cap;
                e = inner->ops[j];
              }
          }
          break;
        }
      }
    }
    double scale = 1.0;
    e = peelConstantScale(e, scale);
    if (e->kind != Expr::Leaf)
      return failure();
    auto qk = e->leaf.getDefiningOp<linalg::GenericOp>();
    if (!qk || !isBatchMatmul4D(qk) || !qk.getResult(0).hasOneUse())
      return failure();
    Location loc = pv.getLoc();
    Value q4 = qk.getDpsInputs()[0], kT = qk.getDpsInputs()[1], v4 = pv.getDpsInputs()[1];
    // Queries pre-scaled by a constant (q * s or q / s).
    {
      ExprRef qe = peelConstantScale(eb.tensorExpr(q4), scale);
      if (qe->kind == Expr::Leaf)
        q4 = qe->leaf;
    }
    // Keys: kT = transpose(K4, [0,1,3,2]) or transpose(K [B,T,H,D], [0,2,3,1]).
    auto kTrans = kT.getDefiningOp<linalg::TransposeOp>();
    if (!kTrans)
      return failure();
    Value kBTHD;
    ArrayRef<int64_t> kp = kTrans.getPermutation();
    if (kp == ArrayRef<int64_t>{0, 1, 3, 2}) {
      Value k4 = stripRepeatKV(kTrans.getInput());
      kBTHD = transposeTo(rw, loc, k4, {0, 2, 1, 3});
    } else if (kp == ArrayRef<int64_t>{0, 2, 3, 1}) {
      kBTHD = kTrans.getInput();
    } else {
      return failure();
    }
    Value v4s = stripRepeatKV(v4);
    Value qB = transposeTo(rw, loc, q4, {0, 2, 1, 3});
    Value vB = transposeTo(rw, loc, v4s, {0, 2, 1, 3});
    auto qt = cast<RankedTensorType>(qB.getType()), kt = cast<RankedTensorType>(kBTHD.getType()),
         vt = cast<RankedTensorType>(vB.getType());
    int64_t heads = qt.getDimSize(2), kvHeads = kt.getDimSize(2), dh = qt.getDimSize(3);
    if (ShapedType::isDynamic(heads) || ShapedType::isDynamic(kvHeads) || kvHeads <= 0 ||
        heads % kvHeads || vt.getDimSize(2) != kvHeads || ShapedType::isDynamic(dh) ||
        kt.getDimSize(3) != dh)
      return failure();
    Type et = qt.getElementType();
    // Mask operand.
    bool causal = false;
    Value maskOperand;
    if (mask) {
      auto mt = cast<RankedTensorType>(mask.getType());
      if (isCausalMask(mask)) {
        causal = true;
      } else {
        if (mt.getElementType() != et || mt.getRank() > 4)
          return failure();
        maskOperand = mask;
        if (mt.getRank() < 4) {
          SmallVector<int64_t> shape(4 - mt.getRank(), 1);
          llvm::append_range(shape, mt.getShape());
          SmallVector<ReassociationIndices> groups;
          int64_t extra = 4 - mt.getRank();
          for (int64_t i = 0; i < mt.getRank(); ++i) {
            ReassociationIndices gidx;
            if (i == 0)
              for (int64_t k = 0; k < extra; ++k)
                gidx.push_back(k);
            gidx.push_back(i + extra);
            groups.push_back(gidx);
          }
          SmallVector<OpFoldResult> dims(extra, rw.getIndexAttr(1));
          llvm::append_range(dims, tensor::getMixedSizes(rw, loc, mask));
          maskOperand = tensor::ExpandShapeOp::create(
              rw, loc, RankedTensorType::get(shape, et), mask, groups, dims);
        }
      }
    } else if (boolMask) {
      auto bt = cast<RankedTensorType>(boolMask.getType());
      if (!bt.getElementType().isInteger(1) || bt.getRank() > 4)
        return failure();
      // Additive mask from the condition: 0 where keys are visible, -inf elsewhere.
      SmallVector<OpFoldResult> dims = tensor::getMixedSizes(rw, loc, boolMask);
      Value init = tensor::EmptyOp::create(rw, loc, dims, et);
      MLIRContext *ctx = rw.getContext();
      SmallVector<AffineMap> maps(2, AffineMap::getMultiDimIdentityMap(bt.getRank(), ctx));
      SmallVector<utils::IteratorType> its(bt.getRank(), utils::IteratorType::parallel);
      const llvm::fltSemantics &sem = cast<FloatType>(et).getFloatSemantics();
      Value add = linalg::GenericOp::create(
                      rw, loc, TypeRange{init.getType()}, ValueRange{boolMask}, ValueRange{init},
                      maps, its,
                      [&](OpBuilder &b, Location l, ValueRange a) {
                        Value zero = arith::ConstantOp::create(b, l, b.getFloatAttr(et, 0.0));
                        Value ninf = arith::ConstantOp::create(
                            b, l, b.getFloatAttr(et, APFloat::getInf(sem, true)));
                        Value r = maskWhereTrue
                                      ? arith::SelectOp::create(b, l, a[0], zero, ninf)
                                      : arith::SelectOp::create(b, l, a[0], ninf, zero);
                        linalg::YieldOp::create(b, l, r);
                      })
                      .getResult(0);
      maskOperand = add;
      if (bt.getRank() < 4) {
        int64_t extra = 4 - bt.getRank();
        SmallVector<int64_t> shape(extra, 1);
        llvm::append_range(shape, cast<RankedTensorType>(add.getType()).getShape());
        SmallVector<ReassociationIndices> groups;
        for (int64_t i = 0; i < bt.getRank(); ++i) {
          ReassociationIndices gidx;
          if (i == 0)
            for (int64_t k = 0; k < extra; ++k)
              gidx.push_back(k);
          gidx.push_back(i + extra);
          groups.push_back(gidx);
        }
        SmallVector<OpFoldResult> d2(extra, rw.getIndexAttr(1));
        llvm::append_range(d2, dims);
        maskOperand = tensor::ExpandShapeOp::create(rw, loc, RankedTensorType::get(shape, et),
                                                    add, groups, d2);
      }
    }
    double defaultScale = 1.0 / std::sqrt((double)dh);
    FloatAttr scaleAttr = std::fabs(scale - defaultScale) <= 1e-7 * defaultScale
                              ? FloatAttr()
                              : rw.getF64FloatAttr(scale);
    Value att = AttentionOp::create(
        rw, loc, qB, kBTHD, vB, maskOperand, Value(), Value(), rw.getI64IntegerAttr(heads),
        rw.getI64IntegerAttr(kvHeads), scaleAttr, causal ? rw.getUnitAttr() : UnitAttr(),
        IntegerAttr(), IntegerAttr(), softcap ? rw.getF64FloatAttr(*softcap) : FloatAttr());
    Value back = transposeTo(rw, loc, att, {0, 2, 1, 3});
    if (back.getType() != pv.getResult(0).getType())
      back = tensor::CastOp::create(rw, loc, pv.getResult(0).getType(), back);
    rw.replaceOp(pv, back);
    ++c.attention;
    if (causal)
      ++c.causal;
    return success();
  }
};

//===----------------------------------------------------------------------===//
// RoPE (rotate-half form)
//===----------------------------------------------------------------------===//

/// Whether `size` is the full extent of `x` along `dim` (a constant or the tensor.dim of it, or a
/// value the importer used for that dim).
bool sameSize(OpFoldResult size, Value x, int64_t dim) {
  auto t = cast<RankedTensorType>(x.getType());
  if (!t.isDynamicDim(dim))
    return getConstantIntValue(size) == t.getDimSize(dim);
  return !getConstantIntValue(size).has_value();
}

/// R = concat(-x[..., D/2:], x[..., :D/2]) along the last axis.
bool isRotateHalf(Value r, Value x) {
  auto cat = r.getDefiningOp<tensor::ConcatOp>();
  auto xt = cast<RankedTensorType>(x.getType());
  int64_t rank = xt.getRank(), d = xt.getDimSize(rank - 1);
  if (!cat || cat.getInputs().size() != 2 || (int64_t)cat.getDim() != rank - 1 ||
      ShapedType::isDynamic(d) || d % 2)
    return false;
  auto neg = cat.getInputs()[0].getDefiningOp<linalg::GenericOp>();
  if (!neg || !allParallel(neg) || neg.getNumDpsInputs() != 1)
    return false;
  auto yield = cast<linalg::YieldOp>(neg.getBody()->getTerminator());
  auto n = yield.getOperand(0).getDefiningOp<arith::NegFOp>();
  if (!n || n.getOperand() != neg.getBody()->getArgument(0))
    return false;
  auto isHalf = [&](Value v, int64_t offset) {
    auto sl = v.getDefiningOp<tensor::ExtractSliceOp>();
    if (!sl || sl.getSource() != x || !sl.hasUnitStride())
      return false;
    SmallVector<OpFoldResult> offs = sl.getMixedOffsets(), sizes = sl.getMixedSizes();
    for (int64_t i = 0; i + 1 < rank; ++i)
      if (getConstantIntValue(offs[i]) != 0 || !sameSize(sizes[i], x, i))
        return false;
    return getConstantIntValue(offs[rank - 1]) == offset &&
           getConstantIntValue(sizes[rank - 1]) == d / 2;
  };
  return isHalf(neg.getDpsInputs()[0], d / 2) && isHalf(cat.getInputs()[1], 0);
}

/// A table trig(F) (cos or sin, seen through unit reshapes): returns F.
Value plainTrigArgument(Value t, bool wantCos) {
  t = stripUnitReshapes(t);
  // A 16-bit export's table: the f32 cos/sin cast to the model's type (the op computes its
  // tables in f32 and rounds its result once).
  if (Value wide = floatCastSource(t))
    t = stripUnitReshapes(wide);
  auto g = t.getDefiningOp<linalg::GenericOp>();
  if (!g || !allParallel(g) || g.getNumDpsInputs() != 1)
    return {};
  auto yield = cast<linalg::YieldOp>(g.getBody()->getTerminator());
  Operation *trig = yield.getOperand(0).getDefiningOp();
  if (!trig || !(wantCos ? isa<math::CosOp>(trig) : isa<math::SinOp>(trig)) ||
      trig->getOperand(0) != g.getBody()->getArgument(0))
    return {};
  return g.getDpsInputs()[0];
}

/// A cos or sin table: trig(concat(F, F)) with F = positions ⊗ inv_freq. Returns F.
Value trigTableArgument(Value t, bool wantCos) {
  Value f = plainTrigArgument(t, wantCos);
  auto cat = f ? f.getDefiningOp<tensor::ConcatOp>() : tensor::ConcatOp();
  if (!cat || cat.getInputs().size() != 2 || cat.getInputs()[0] != cat.getInputs()[1])
    return {};
  auto ct = cast<RankedTensorType>(cat.getType());
  if ((int64_t)cat.getDim() != ct.getRank() - 1)
    return {};
  return cat.getInputs()[0];
}

/// Where a rank-4 x keeps its heads, given the table's sequence extent: true for [B, H, T, D],
/// false for [B, T, H, D], nullopt when neither reads unambiguously.
std::optional<bool> headsFirst(Value x, Value table) {
  auto tt = cast<RankedTensorType>(table.getType());
  auto xt = cast<RankedTensorType>(x.getType());
  int64_t tableT = tt.getRank() >= 2 ? tt.getDimSize(tt.getRank() - 2) : -1;
  auto isHeads = [&](int64_t dim) {
    return !xt.isDynamicDim(dim) &&
           (ShapedType::isDynamic(tableT) || xt.getDimSize(dim) != tableT);
  };
  auto isSeq = [&](int64_t dim) {
    return xt.isDynamicDim(dim) ? ShapedType::isDynamic(tableT) : xt.getDimSize(dim) == tableT;
  };
  if (isHeads(1) && isSeq(2))
    return true;
  if (isSeq(1) && isHeads(2))
    return false;
  return std::nullopt;
}

/// theta such that inv[k] = theta^(-2k/rotDim) for every k.
std::optional<double> thetaOf(DenseElementsAttr inv, int64_t rotDim) {
  if (!inv || inv.getNumElements() != rotDim / 2 || !isa<FloatType>(inv.getElementType()))
    return std::nullopt;
  SmallVector<double> v;
  for (APFloat x : inv.getValues<APFloat>())
    v.push_back(x.convertToDouble());
  double theta = 10000.0;
  if (v.size() > 1) {
    if (!(v[1] > 0 && v[1] < 1))
      return std::nullopt;
    theta = std::pow(v[1], -(double)rotDim / 2.0);
  }
  double rounded = std::round(theta);
  if (std::fabs(rounded - theta) < 1e-3 * theta)
    theta = rounded;
  for (size_t k = 0; k < v.size(); ++k) {
    double want = std::pow(theta, -2.0 * k / rotDim);
    if (std::fabs(v[k] - want) > 1e-6 * want + 1e-12)
      return std::nullopt;
  }
  return theta;
}

/// F = P * inv_freq (elementwise, broadcast) or F = transpose(inv_freq[:, None] @ P[None, :])
/// (the Hugging Face form: a batched matmul with a contraction of size 1), with inv_freq a
/// constant [D/2]: returns (P, theta) when inv_freq is theta^(-2k/D).
std::optional<std::pair<Value, double>> anglesOf(Value f, int64_t rotDim) {
  if (auto t = f.getDefiningOp<linalg::TransposeOp>();
      t && t.getPermutation() == ArrayRef<int64_t>{0, 2, 1}) {
    auto mm = t.getInput().getDefiningOp<linalg::GenericOp>();
    if (!mm || mm.getNumDpsInputs() != 2 || mm.getNumLoops() != 4)
      return std::nullopt;
    MLIRContext *ctx = mm.getContext();
    auto d = [&](unsigned i) { return getAffineDimExpr(i, ctx); };
    SmallVector<AffineMap> maps = mm.getIndexingMapsArray();
    if (maps[0] != AffineMap::get(4, 0, {d(0), d(1), d(3)}, ctx) ||
        maps[1] != AffineMap::get(4, 0, {d(0), d(3), d(2)}, ctx) ||
        maps[2] != AffineMap::get(4, 0, {d(0), d(1), d(2)}, ctx))
      return std::nullopt;
    auto at = cast<RankedTensorType>(mm.getDpsInputs()[0].getType());
    if (at.getDimSize(2) != 1)
      return std::nullopt; // contraction of size 1: an outer product
    std::optional<double> theta = thetaOf(constantThrough(mm.getDpsInputs()[0]), rotDim);
    if (!theta)
      return std::nullopt;
    return std::make_pair(mm.getDpsInputs()[1], *theta);
  }
  auto g = f.getDefiningOp<linalg::GenericOp>();
  if (!g || !allParallel(g) || g.getNumDpsInputs() != 2)
    return std::nullopt;
  auto yield = cast<linalg::YieldOp>(g.getBody()->getTerminator());
  auto mul = yield.getOperand(0).getDefiningOp<arith::MulFOp>();
  Block *body = g.getBody();
  if (!mul || !((mul.getLhs() == body->getArgument(0) && mul.getRhs() == body->getArgument(1)) ||
                (mul.getLhs() == body->getArgument(1) && mul.getRhs() == body->getArgument(0))))
    return std::nullopt;
  for (int i = 0; i < 2; ++i) {
    DenseElementsAttr inv = constantThrough(g.getDpsInputs()[i]);
    if (!inv)
      continue;
    std::optional<double> theta = thetaOf(inv, rotDim);
    if (!theta)
      return std::nullopt;
    return std::make_pair(g.getDpsInputs()[1 - i], *theta);
  }
  return std::nullopt;
}

/// Float positions P: a cast of integer ids (-> those ids) or 0, 1, ..., T-1 (-> no operand).
/// Returns failure if P is neither.
FailureOr<Value> positionsOf(Value p) {
  p = stripUnitReshapes(p);
  auto g = p.getDefiningOp<linalg::GenericOp>();
  if (!g || !allParallel(g) || g.getNumResults() != 1)
    return failure();
  auto yield = cast<linalg::YieldOp>(g.getBody()->getTerminator());
  Operation *c = yield.getOperand(0).getDefiningOp();
  if (!isa_and_nonnull<arith::SIToFPOp, arith::UIToFPOp>(c))
    return failure();
  Value in = c->getOperand(0);
  if (auto arg = dyn_cast<BlockArgument>(in)) {
    if (arg.getOwner() != g.getBody() || g.getNumDpsInputs() != 1)
      return failure();
    Value ids = stripUnitReshapes(g.getDpsInputs()[0]);
    // Ids that are themselves a 0..T-1 range need no operand either.
    if (auto r = ids.getDefiningOp<linalg::GenericOp>(); r && r.getNumDpsInputs() == 0) {
      auto ry = cast<linalg::YieldOp>(r.getBody()->getTerminator());
      Operation *cast0 = ry.getOperand(0).getDefiningOp();
      if (isa_and_nonnull<arith::IndexCastOp>(cast0)) {
        auto add = cast0->getOperand(0).getDefiningOp<arith::AddIOp>();
        if (add && scalarConstant(add.getLhs()) == 0.0) {
          auto mul = add.getRhs().getDefiningOp<arith::MulIOp>();
          if (mul && mul.getLhs().getDefiningOp<linalg::IndexOp>() &&
              scalarConstant(mul.getRhs()) == 1.0)
            return Value();
        }
      }
    }
    auto it = cast<RankedTensorType>(ids.getType());
    if (!isa<IntegerType>(it.getElementType()) || it.getRank() < 1 || it.getRank() > 2)
      return failure();
    return ids;
  }
  return failure();
}

/// x·cos + rotate_half(x)·sin with in-graph theta tables -> decoda.rope.
struct RaiseRope : public RaisePattern<linalg::GenericOp> {
  RaiseRope(MLIRContext *ctx, Counters &c) : RaisePattern(ctx, c, /*benefit=*/8) {}
  LogicalResult matchAndRewrite(linalg::GenericOp g, PatternRewriter &rw) const override {
    if (!allParallel(g) || g.getNumResults() != 1)
      return failure();
    Value root = g.getResult(0);
    auto rt = cast<RankedTensorType>(root.getType());
    if (rt.getRank() != 4 || !isa<FloatType>(rt.getElementType()))
      return failure();
    ExprBuilder eb;
    ExprRef e = eb.tensorExpr(root);
    if (e->kind != Expr::Add || e->ops[0]->kind != Expr::Mul || e->ops[1]->kind != Expr::Mul)
      return failure();
    int64_t d = rt.getDimSize(3);
    if (ShapedType::isDynamic(d) || d % 2)
      return failure();
    for (int p = 0; p < 2; ++p)
      for (int i = 0; i < 2; ++i)
        for (int j = 0; j < 2; ++j) {
          const ExprRef &xc = e->ops[p], &rs = e->ops[1 - p];
          ExprRef xe = xc->ops[i], ce = xc->ops[1 - i], re = rs->ops[j], se = rs->ops[1 - j];
          if (!xe->src || !ce->src || !re->src || !se->src)
            continue;
          Value x = xe->src;
          if (x.getType() != root.getType() || !isRotateHalf(re->src, x))
            continue;
          Value fc = trigTableArgument(ce->src, true), fs = trigTableArgument(se->src, false);
          if (!fc || fc != fs)
            continue;
          auto angles = anglesOf(fc, d);
          if (!angles)
            continue;
          FailureOr<Value> pos = positionsOf(angles->first);
          if (failed(pos))
            continue;
          // Layout [B, H, T, D] or [B, T, H, D]: the head axis is the static one that is not
          // the table's sequence axis.
          std::optional<bool> heads = headsFirst(x, ce->src);
          if (!heads)
            continue;
          bool bhtd = *heads;
          Location loc = g.getLoc();
          Value xb = bhtd ? transposeTo(rw, loc, x, {0, 2, 1, 3}) : x;
          Value r = RopeOp::create(rw, loc, xb, *pos, rw.getF64FloatAttr(angles->second),
                                   IntegerAttr(),
                                   RopeLayoutAttr::get(rw.getContext(), RopeLayout::half_split),
                                   RopeScalingAttr());
          Value back = bhtd ? transposeTo(rw, loc, r, {0, 2, 1, 3}) : r;
          if (back.getType() != root.getType())
            back = tensor::CastOp::create(rw, loc, root.getType(), back);
          rw.replaceOp(g, back);
          ++c.rope;
          return success();
        }
    return failure();
  }
};

/// x[..., offset::2] taking D/2 features of the last axis (unit offsets and full sizes
/// elsewhere): returns x.
Value strideTwoSource(Value v, int64_t offset) {
  auto sl = v.getDefiningOp<tensor::ExtractSliceOp>();
  if (!sl)
    return {};
  Value x = sl.getSource();
  auto xt = cast<RankedTensorType>(x.getType());
  int64_t rank = xt.getRank(), d = xt.getDimSize(rank - 1);
  if (ShapedType::isDynamic(d) || d % 2 || sl.getType().getRank() != rank)
    return {};
  SmallVector<OpFoldResult> offs = sl.getMixedOffsets(), sizes = sl.getMixedSizes(),
                            strides = sl.getMixedStrides();
  for (int64_t i = 0; i + 1 < rank; ++i)
    if (getConstantIntValue(offs[i]) != 0 || !sameSize(sizes[i], x, i) ||
        getConstantIntValue(strides[i]) != 1)
      return {};
  if (getConstantIntValue(offs[rank - 1]) != offset ||
      getConstantIntValue(sizes[rank - 1]) != d / 2 ||
      getConstantIntValue(strides[rank - 1]) != 2)
    return {};
  return x;
}

/// GPT-J's interleaved RoPE as exported: x0 = x[..., 0::2], x1 = x[..., 1::2],
/// r0 = x0·cos - x1·sin, r1 = x0·sin + x1·cos, stacked on a new last axis and reshaped back to
/// [..., D], with cos/sin = trig(positions ⊗ inv_freq) [.., T, D/2] -> decoda.rope (interleaved).
struct RaiseInterleavedRope : public RaisePattern<tensor::CollapseShapeOp> {
  RaiseInterleavedRope(MLIRContext *ctx, Counters &c) : RaisePattern(ctx, c, /*benefit=*/8) {}
  LogicalResult matchAndRewrite(tensor::CollapseShapeOp root, PatternRewriter &rw) const override {
    auto rt = root.getResultType();
    auto st = root.getSrcType();
    if (rt.getRank() != 4 || st.getRank() != 5 || !isa<FloatType>(rt.getElementType()) ||
        st.getDimSize(4) != 2)
      return failure();
    SmallVector<ReassociationIndices> re = root.getReassociationIndices();
    if (re.size() != 4 || re[3] != ReassociationIndices{3, 4})
      return failure();
    auto cat = root.getSrc().getDefiningOp<tensor::ConcatOp>();
    if (!cat || cat.getInputs().size() != 2 || cat.getDim() != 4)
      return failure();
    Value r0 = stripUnitReshapes(cat.getInputs()[0]), r1 = stripUnitReshapes(cat.getInputs()[1]);
    if (cast<RankedTensorType>(r0.getType()).getRank() != 4 ||
        cast<RankedTensorType>(r1.getType()).getRank() != 4)
      return failure();
    ExprBuilder eb;
    ExprRef e0 = eb.tensorExpr(r0), e1 = eb.tensorExpr(r1);
    // r0 = Sub(Mul(x0, C), Mul(x1, S)), r1 = Add(Mul(x0, S), Mul(x1, C)) in any operand order.
    if (e0->kind != Expr::Sub || e1->kind != Expr::Add)
      return failure();
    for (const ExprRef &m : {e0->ops[0], e0->ops[1], e1->ops[0], e1->ops[1]})
      if (m->kind != Expr::Mul || !m->ops[0]->src || !m->ops[1]->src)
        return failure();
    // Splits a product into (the x-half with the given offset, the other factor).
    auto split = [](const ExprRef &m, int64_t offset, Value &x, Value &t) {
      for (int i = 0; i < 2; ++i)
        if (Value s = strideTwoSource(m->ops[i]->src, offset)) {
          x = s;
          t = m->ops[1 - i]->src;
          return true;
        }
      return false;
    };
    Value xa, ca, xb, sa, xc, sb, xd, cb;
    if (!split(e0->ops[0], 0, xa, ca) || !split(e0->ops[1], 1, xb, sa))
      return failure();
    const ExprRef &p0 = e1->ops[0], &p1 = e1->ops[1];
    if (!((split(p0, 0, xc, sb) && split(p1, 1, xd, cb)) ||
          (split(p1, 0, xc, sb) && split(p0, 1, xd, cb))))
      return failure();
    Value x = xa;
    if (xb != x || xc != x || xd != x || x.getType() != rt || ca != cb || sa != sb)
      return failure();
    Value fc = plainTrigArgument(ca, true), fs = plainTrigArgument(sa, false);
    if (!fc || fc != fs)
      return failure();
    auto angles = anglesOf(fc, rt.getDimSize(3));
    if (!angles)
      return failure();
    FailureOr<Value> pos = positionsOf(angles->first);
    if (failed(pos))
      return failure();
    std::optional<bool> bhtd = headsFirst(x, ca);
    if (!bhtd)
      return failure();
    Location loc = root.getLoc();
    Value xin = *bhtd ? transposeTo(rw, loc, x, {0, 2, 1, 3}) : x;
    Value r = RopeOp::create(rw, loc, xin, *pos, rw.getF64FloatAttr(angles->second),
                             IntegerAttr(),
                             RopeLayoutAttr::get(rw.getContext(), RopeLayout::interleaved),
                             RopeScalingAttr());
    Value back = *bhtd ? transposeTo(rw, loc, r, {0, 2, 1, 3}) : r;
    if (back.getType() != rt)
      back = tensor::CastOp::create(rw, loc, rt, back);
    rw.replaceOp(root, back);
    ++c.rope;
    return success();
  }
};

/// Partial RoPE (GPT-J/NeoX rotary_pct, GLM, Phi): concat(rope(x[..., :r]), x[..., r:]) on the
/// last axis, the rope raised already (possibly between head transposes) and rotating all of
/// its input -> one decoda.rope on x with rotary_dim = r.
struct RaisePartialRope : public RaisePattern<tensor::ConcatOp> {
  RaisePartialRope(MLIRContext *ctx, Counters &c) : RaisePattern(ctx, c, /*benefit=*/8) {}
  LogicalResult matchAndRewrite(tensor::ConcatOp cat, PatternRewriter &rw) const override {
    auto rt = cast<RankedTensorType>(cat.getType());
    if (rt.getRank() != 4 || cat.getInputs().size() != 2 || (int64_t)cat.getDim() != 3)
      return failure();
    // The rotated part: rope(s) or transpose(rope(transpose(s))) with the 0213 permutation.
    Value a = cat.getInputs()[0];
    if (auto c = a.getDefiningOp<tensor::CastOp>())
      a = c.getSource();
    auto perm0213 = [](linalg::TransposeOp t) {
      return t && t.getPermutation() == ArrayRef<int64_t>{0, 2, 1, 3};
    };
    bool transposed = false;
    if (auto t = a.getDefiningOp<linalg::TransposeOp>()) {
      if (!perm0213(t))
        return failure();
      a = t.getInput();
      transposed = true;
    }
    auto rope = a.getDefiningOp<RopeOp>();
    if (!rope || (rope.getRotaryDim() &&
                  (int64_t)*rope.getRotaryDim() != rope.getInput().getType().getDimSize(3)))
      return failure();
    Value s = rope.getInput();
    if (transposed) {
      auto t = s.getDefiningOp<linalg::TransposeOp>();
      if (!perm0213(t))
        return failure();
      s = t.getInput();
    }
    // s = x[..., :r], the pass-through part x[..., r:].
    auto head = s.getDefiningOp<tensor::ExtractSliceOp>();
    auto tail = cat.getInputs()[1].getDefiningOp<tensor::ExtractSliceOp>();
    if (!head || !tail || head.getSource() != tail.getSource())
      return failure();
    Value x = head.getSource();
    if (x.getType() != rt)
      return failure();
    int64_t d = rt.getDimSize(3);
    auto covers = [&](tensor::ExtractSliceOp sl, int64_t off, int64_t size) {
      if (!sl.hasUnitStride() || sl.getType().getRank() != 4)
        return false;
      SmallVector<OpFoldResult> offs = sl.getMixedOffsets(), sizes = sl.getMixedSizes();
      for (int64_t i = 0; i < 3; ++i)
        if (getConstantIntValue(offs[i]) != 0 || !sameSize(sizes[i], x, i))
          return false;
      return getConstantIntValue(offs[3]) == off && getConstantIntValue(sizes[3]) == size;
    };
    int64_t r = head.getType().getDimSize(3);
    if (ShapedType::isDynamic(d) || ShapedType::isDynamic(r) || r <= 0 || r >= d || r % 2 ||
        !covers(head, 0, r) || !covers(tail, r, d - r))
      return failure();
    Location loc = cat.getLoc();
    Value xin = transposed ? transposeTo(rw, loc, x, {0, 2, 1, 3}) : x;
    Value out = RopeOp::create(rw, loc, xin, rope.getPositions(), rope.getThetaAttr(),
                               rw.getI64IntegerAttr(r), rope.getLayoutAttr(),
                               rope.getScalingAttr());
    Value back = transposed ? transposeTo(rw, loc, out, {0, 2, 1, 3}) : out;
    if (back.getType() != rt)
      back = tensor::CastOp::create(rw, loc, rt, back);
    rw.replaceOp(cat, back);
    return success();
  }
};

/// An elementwise generic over token-unflattened operands, f(u(a), u(b), scalars), where every
/// u turns [N, F] into [B, T, F] the same way (one tensor.expand_shape form, or one
/// tensor.reshape with the same shape operand), becomes u(f(a, b, scalars)): GPT-2's Conv1D
/// exports project flattened tokens (Reshape -> Gemm -> Reshape), so the activation between two
/// projections sinks to the flat side, where the reshape back and forth folds and the MLP is
/// recognisable.
struct SinkTokenExpand : public OpRewritePattern<linalg::GenericOp> {
  using OpRewritePattern::OpRewritePattern;
  /// The flat [N, F] source of a [B, T, F] unflattening, or null.
  static Value flatSource(Value v) {
    if (auto e = v.getDefiningOp<tensor::ExpandShapeOp>()) {
      SmallVector<ReassociationIndices> re = e.getReassociationIndices();
      if (e.getSrcType().getRank() == 2 && re.size() == 2 && re[1] == ReassociationIndices{2})
        return e.getSrc();
      return {};
    }
    if (auto r = v.getDefiningOp<tensor::ReshapeOp>()) {
      auto st = cast<RankedTensorType>(r.getSource().getType());
      auto rt = cast<RankedTensorType>(r.getType());
      if (st.getRank() == 2 && rt.getRank() == 3 && !st.isDynamicDim(1) &&
          st.getDimSize(1) == rt.getDimSize(2))
        return r.getSource();
    }
    return {};
  }
  /// Whether two unflattenings are the same map.
  static bool sameUnflatten(Operation *a, Operation *b) {
    if (auto ea = dyn_cast<tensor::ExpandShapeOp>(a)) {
      auto eb = dyn_cast<tensor::ExpandShapeOp>(b);
      return eb && ea.getSrcType() == eb.getSrcType() &&
             ea.getReassociationIndices() == eb.getReassociationIndices() &&
             ea.getMixedOutputShape() == eb.getMixedOutputShape();
    }
    auto ra = cast<tensor::ReshapeOp>(a);
    auto rb = dyn_cast<tensor::ReshapeOp>(b);
    return rb && ra.getSource().getType() == rb.getSource().getType() &&
           ra.getShape() == rb.getShape() && ra.getType() == rb.getType();
  }
  LogicalResult matchAndRewrite(linalg::GenericOp g, PatternRewriter &rw) const override {
    if (!allParallel(g) || g.getNumResults() != 1 || g.getNumDpsInits() != 1 ||
        !g.getIndexingMapsArray().back().isIdentity() ||
        !g.getRegionOutputArgs()[0].use_empty() ||
        llvm::any_of(g.getBody()->getOperations(),
                     [](Operation &op) { return isa<linalg::IndexOp, tensor::ExtractOp>(op); }))
      return failure();
    auto rt = cast<RankedTensorType>(g.getResult(0).getType());
    if (rt.getRank() != 3 || rt.isDynamicDim(2))
      return failure();
    Operation *first = nullptr;
    SmallVector<AffineMap> maps = g.getIndexingMapsArray();
    for (auto [i, in] : llvm::enumerate(g.getDpsInputs())) {
      if (maps[i].getNumResults() == 0)
        continue; // a broadcast scalar
      if (!maps[i].isIdentity() || !flatSource(in))
        return failure();
      Operation *u = in.getDefiningOp();
      if (!first)
        first = u;
      else if (!sameUnflatten(first, u))
        return failure();
    }
    if (!first)
      return failure();
    Location loc = g.getLoc();
    MLIRContext *ctx = rw.getContext();
    SmallVector<Value> ins;
    SmallVector<AffineMap> newMaps;
    for (auto [i, in] : llvm::enumerate(g.getDpsInputs())) {
      bool scalar = maps[i].getNumResults() == 0;
      ins.push_back(scalar ? in : flatSource(in));
      newMaps.push_back(scalar ? AffineMap::get(2, 0, {}, ctx)
                               : AffineMap::getMultiDimIdentityMap(2, ctx));
    }
    newMaps.push_back(AffineMap::getMultiDimIdentityMap(2, ctx));
    // The flat size N = B·T from the unflattening's own shape (a tensor.dim of the flat source
    // would be one more reader of the projection and keep it from being raised).
    Value b, t;
    if (auto e = dyn_cast<tensor::ExpandShapeOp>(first)) {
      SmallVector<OpFoldResult> shape = e.getMixedOutputShape();
      b = getValueOrCreateConstantIndexOp(rw, loc, shape[0]);
      t = getValueOrCreateConstantIndexOp(rw, loc, shape[1]);
    } else {
      Value shape = cast<tensor::ReshapeOp>(first).getShape();
      auto at = [&](int64_t i) -> Value {
        Value v = tensor::ExtractOp::create(rw, loc, shape,
                                            ValueRange{arith::ConstantIndexOp::create(rw, loc, i)});
        if (!v.getType().isIndex())
          v = arith::IndexCastOp::create(rw, loc, rw.getIndexType(), v);
        return v;
      };
      b = at(0);
      t = at(1);
    }
    Value nTokens = arith::MulIOp::create(rw, loc, b, t);
    auto ft = cast<RankedTensorType>(flatSource(first->getResult(0)).getType());
    SmallVector<OpFoldResult> flatSizes = {ft.isDynamicDim(0) ? OpFoldResult(nTokens)
                                                              : rw.getIndexAttr(ft.getDimSize(0)),
                                           rw.getIndexAttr(ft.getDimSize(1))};
    Value init = tensor::EmptyOp::create(rw, loc, flatSizes, rt.getElementType());
    auto flat = linalg::GenericOp::create(
        rw, loc, TypeRange{init.getType()}, ins, ValueRange{init}, newMaps,
        SmallVector<utils::IteratorType>(2, utils::IteratorType::parallel));
    rw.cloneRegionBefore(g.getRegion(), flat.getRegion(), flat.getRegion().end());
    Value r;
    if (auto e = dyn_cast<tensor::ExpandShapeOp>(first))
      r = tensor::ExpandShapeOp::create(rw, loc, rt, flat.getResult(0),
                                        e.getReassociationIndices(), e.getMixedOutputShape());
    else
      r = tensor::ReshapeOp::create(rw, loc, rt, flat.getResult(0),
                                    cast<tensor::ReshapeOp>(first).getShape());
    rw.replaceOp(g, r);
    return success();
  }
};

/// reshape(reshape(y)) = y, and reshape(y) = y, when the result has y's type with every dim
/// but the first static and non-zero (the element count then fixes the first): the flatten
/// after an unflatten (upstream folding may have composed the pair into one reshape already).
struct FoldReshapeRoundTrip : public OpRewritePattern<tensor::ReshapeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(tensor::ReshapeOp op, PatternRewriter &rw) const override {
    auto t = cast<RankedTensorType>(op.getType());
    for (int64_t d = 1; d < t.getRank(); ++d)
      if (t.isDynamicDim(d) || t.getDimSize(d) == 0)
        return failure();
    Value y = op.getSource();
    if (auto inner = y.getDefiningOp<tensor::ReshapeOp>();
        inner && inner.getSource().getType() == t)
      y = inner.getSource();
    if (y.getType() != t)
      return failure();
    rw.replaceOp(op, y);
    return success();
  }
};

/// Whether permutation q undoes p (transpose(transpose(x, p), q) = x).
bool undoes(ArrayRef<int64_t> p, ArrayRef<int64_t> q) {
  return llvm::equal(q, invertPermutationVector(p));
}

/// The slice of x that `slice`, a same-rank slice of transpose(x, p), takes of its elements
/// (the slice's dim i is x's dim p[i]).
Value sliceOfTransposed(PatternRewriter &rw, tensor::ExtractSliceOp slice, Value x,
                        ArrayRef<int64_t> p) {
  SmallVector<int64_t> toX = invertPermutationVector(p);
  return tensor::ExtractSliceOp::create(
      rw, slice.getLoc(), x, applyPermutation(slice.getMixedOffsets(), toX),
      applyPermutation(slice.getMixedSizes(), toX), applyPermutation(slice.getMixedStrides(), toX));
}

/// transpose(transpose(x, p), q) = x when q undoes p (left by the attention rewrite).
struct FoldTransposePair : public OpRewritePattern<linalg::TransposeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(linalg::TransposeOp t, PatternRewriter &rw) const override {
    auto inner = t.getInput().getDefiningOp<linalg::TransposeOp>();
    if (!inner || !undoes(inner.getPermutation(), t.getPermutation()))
      return failure();
    Value x = inner.getInput();
    if (x.getType() != t.getResult()[0].getType())
      x = tensor::CastOp::create(rw, t.getLoc(), t.getResult()[0].getType(), x);
    rw.replaceOp(t, x);
    return success();
  }
};

/// transpose(extract_slice(transpose(x, p)), q) = extract_slice(x, ...) when q undoes p: the
/// slice taken of x itself. GPT-NeoX's q/k/v, interleaved per head in one projection, are
/// viewed as [B, S, H, 3 * Dh], transposed to [B, H, S, 3 * Dh], split, and q and k transposed
/// back for RoPE: they become slices of the projection. Rank-reducing slices are left alone.
struct FoldTransposeSliceTranspose : public OpRewritePattern<linalg::TransposeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(linalg::TransposeOp outer, PatternRewriter &rw) const override {
    auto op = outer.getInput().getDefiningOp<tensor::ExtractSliceOp>();
    if (!op || op.getType().getRank() != op.getSourceType().getRank())
      return failure();
    auto inner = op.getSource().getDefiningOp<linalg::TransposeOp>();
    if (!inner || !undoes(inner.getPermutation(), outer.getPermutation()))
      return failure();
    Value y = sliceOfTransposed(rw, op, inner.getInput(), inner.getPermutation());
    Type resTy = outer.getResult()[0].getType();
    if (y.getType() != resTy)
      y = tensor::CastOp::create(rw, outer.getLoc(), resTy, y);
    rw.replaceOp(outer, y);
    return success();
  }
};

/// extract_slice(transpose(x, p)) = transpose(extract_slice(x, ...), p) when every user of the
/// transpose is such a slice: only the slices' elements are moved (GPT-NeoX's values, the last
/// third of each head's [q, k, v], go from the projection into the cache's layout without a
/// transpose of the whole projection). Rank-reducing slices are left alone.
struct SliceBeforeTranspose : public OpRewritePattern<tensor::ExtractSliceOp> {
  using OpRewritePattern::OpRewritePattern;
  static bool isSameRankSlice(Operation *op) {
    auto s = dyn_cast<tensor::ExtractSliceOp>(op);
    return s && s.getType().getRank() == s.getSourceType().getRank();
  }
  LogicalResult matchAndRewrite(tensor::ExtractSliceOp op, PatternRewriter &rw) const override {
    auto t = op.getSource().getDefiningOp<linalg::TransposeOp>();
    if (!t || !llvm::all_of(t->getUsers(), isSameRankSlice))
      return failure();
    Location loc = op.getLoc();
    Value slice = sliceOfTransposed(rw, op, t.getInput(), t.getPermutation());
    Value init =
        tensor::EmptyOp::create(rw, loc, op.getMixedSizes(), op.getType().getElementType());
    Value y =
        linalg::TransposeOp::create(rw, loc, slice, init, t.getPermutation()).getResult()[0];
    if (y.getType() != op.getType())
      y = tensor::CastOp::create(rw, loc, op.getType(), y);
    rw.replaceOp(op, y);
    return success();
  }
};

struct RaiseONNXPass : public mlir::decoda::impl::RaiseONNXPassBase<RaiseONNXPass> {
  using Base::Base;
  void runOnOperation() override {
    Counters c;
    MLIRContext *ctx = &getContext();
    // Residual adds first (their sums are the inputs of the next norm, which must then be one
    // value), then norms, attention, GLUs and softcaps, then the MLPs that consume the GLUs.
    auto run = [&](auto fill) {
      RewritePatternSet patterns(ctx);
      fill(patterns);
      return applyPatternsGreedily(getOperation(), std::move(patterns));
    };
    if (failed(run([&](RewritePatternSet &p) { p.add<SinkTokenExpand, FoldReshapeRoundTrip>(ctx); })) ||
        failed(run([&](RewritePatternSet &p) { p.add<RaiseLinearBias>(ctx, c); })) ||
        failed(run([&](RewritePatternSet &p) { p.add<RaiseResidual>(ctx, c); })) ||
        failed(run([&](RewritePatternSet &p) {
          p.add<RaiseAttention, RaiseNorm, RaiseNarrowNorm, RaiseGlu, RaiseSoftcap, RaiseRope,
                RaiseInterleavedRope, RaisePartialRope>(ctx, c);
          p.add<FoldTransposePair, FoldTransposeSliceTranspose>(ctx);
        })) ||
        failed(run([&](RewritePatternSet &p) { p.add<RaiseMLP>(ctx, c); })) ||
        failed(run([&](RewritePatternSet &p) { p.add<SliceBeforeTranspose>(ctx); })))
      return signalPassFailure();
    numRMSNorm += c.rms;
    numLayerNorm += c.layer;
    numGlu += c.glu;
    numMLP += c.mlp;
    numGatedMLP += c.gatedMlp;
    numSoftcap += c.softcap;
    numAttention += c.attention;
    numCausal += c.causal;
    numResidual += c.residual;
    numLinearBias += c.bias;
    numRope += c.rope;
    if (report) {
      InFlightDiagnostic d = emitRemark(getOperation()->getLoc());
      d << "decoda-raise-onnx: rms_norm " << c.rms << ", layer_norm " << c.layer << ", glu "
        << c.glu << ", mlp " << c.mlp << ", gated_mlp " << c.gatedMlp << ", softcap "
        << c.softcap << ", attention " << c.attention << " (causal " << c.causal
        << "), residual_add " << c.residual << ", linear bias " << c.bias << ", rope " << c.rope;
    }
  }
};

} // namespace
