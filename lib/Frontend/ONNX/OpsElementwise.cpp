//===- OpsElementwise.cpp - ONNX elementwise ops --------------------------===//
//
// One table entry per op: the scalar IR body (inside a broadcasting linalg.generic), an
// evaluator for compile-time constants (so constant subgraphs such as RoPE frequency tables fold
// at import), and for integer ops the symbolic form used on shape values.
//
//===----------------------------------------------------------------------===//

#include "ImporterImpl.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

#include <onnx/onnx_pb.h>

#include <cmath>

using namespace mlir;
using namespace mlir::decoda;
using namespace mlir::decoda::onnx_import;

namespace {

/// Builds the scalar result from the (already element-typed) operands.
using Body = std::function<Value(OpBuilder &, Location, ValueRange, Type /*result*/)>;
/// Evaluates one element at import: doubles for floats, int64 for integers (bool as 0/1).
using EvalF = std::function<double(ArrayRef<double>)>;
using EvalI = std::function<int64_t(ArrayRef<int64_t>)>;

enum class ResultType { SameAsFirst, SameAsSecond, Bool };

struct Elementwise {
  Body body;
  EvalF evalF;
  EvalI evalI;
  ResultType result = ResultType::SameAsFirst;
  char shapeOp = 0; // symbolic op on shape values: + - * / M m
  bool floatOnly = false;
};

bool isF(Type t) { return isa<FloatType>(t); }

/// Evaluates at import when every operand is a small dense constant.
std::optional<OnnxValue> foldConstants(NodeContext &n, ArrayRef<OnnxValue> ins, Type resultType,
                                       const Elementwise &ew) {
  SmallVector<DenseElementsAttr> attrs;
  for (const OnnxValue &v : ins) {
    if (!v.isConst())
      return std::nullopt;
    auto d = dyn_cast<DenseElementsAttr>(v.cst);
    if (!d || d.getNumElements() > 65536)
      return std::nullopt;
    attrs.push_back(d);
  }
  SmallVector<int64_t> outShape;
  for (DenseElementsAttr a : attrs) {
    ArrayRef<int64_t> s = a.getType().getShape();
    if (s.size() > outShape.size())
      outShape.insert(outShape.begin(), s.size() - outShape.size(), 1);
    for (size_t i = 0; i < s.size(); ++i) {
      int64_t &o = outShape[outShape.size() - s.size() + i];
      if (s[i] == o || s[i] == 1)
        continue;
      if (o != 1)
        return std::nullopt; // the run-time path reports the mismatch
      o = s[i];
    }
  }
  int64_t numel = 1;
  for (int64_t d : outShape)
    numel *= d;
  if (numel > 65536)
    return std::nullopt;
  bool floatMath = llvm::any_of(attrs, [](DenseElementsAttr a) { return isF(a.getElementType()); }) ||
                   isF(resultType);
  if (ew.result == ResultType::Bool)
    floatMath = llvm::any_of(attrs, [](DenseElementsAttr a) { return isF(a.getElementType()); });
  if ((floatMath && !ew.evalF) || (!floatMath && !ew.evalI))
    return std::nullopt;
  // Element values as doubles / ints.
  SmallVector<SmallVector<double>> fv;
  SmallVector<SmallVector<int64_t>> iv;
  for (DenseElementsAttr a : attrs) {
    SmallVector<double> f;
    SmallVector<int64_t> i;
    if (isF(a.getElementType())) {
      for (APFloat x : a.getValues<APFloat>()) {
        f.push_back(x.convertToDouble());
        i.push_back((int64_t)x.convertToDouble());
      }
    } else {
      bool isBool = a.getElementType().isInteger(1);
      for (APInt x : a.getValues<APInt>()) {
        int64_t v = isBool ? (int64_t)x.getZExtValue() : x.getSExtValue();
        f.push_back((double)v);
        i.push_back(v);
      }
    }
    fv.push_back(f);
    iv.push_back(i);
  }
  auto indexOf = [&](DenseElementsAttr a, int64_t flat) {
    ArrayRef<int64_t> s = a.getType().getShape();
    int64_t idx = 0, stride = 1;
    for (int64_t d = (int64_t)outShape.size() - 1, k = (int64_t)s.size() - 1; k >= 0; --d, --k) {
      int64_t coord = (flat / [&] {
        int64_t p = 1;
        for (size_t q = d + 1; q < outShape.size(); ++q)
          p *= outShape[q];
        return p;
      }()) % outShape[d];
      if (s[k] != 1)
        idx += coord * stride;
      stride *= s[k];
    }
    return idx;
  };
  auto outType = RankedTensorType::get(outShape, resultType);
  if (isF(resultType)) {
    SmallVector<APFloat> out;
    const llvm::fltSemantics &sem = cast<FloatType>(resultType).getFloatSemantics();
    for (int64_t f = 0; f < numel; ++f) {
      SmallVector<double> args;
      SmallVector<int64_t> iargs;
      for (size_t k = 0; k < attrs.size(); ++k) {
        args.push_back(fv[k][indexOf(attrs[k], f)]);
        iargs.push_back(iv[k][indexOf(attrs[k], f)]);
      }
      double r = floatMath ? ew.evalF(args) : (double)ew.evalI(iargs);
      APFloat x(r);
      bool lost;
      x.convert(sem, APFloat::rmNearestTiesToEven, &lost);
      out.push_back(x);
    }
    return OnnxValue::constant(DenseElementsAttr::get(outType, out));
  }
  SmallVector<APInt> out;
  unsigned w = resultType.getIntOrFloatBitWidth();
  for (int64_t f = 0; f < numel; ++f) {
    SmallVector<double> args;
    SmallVector<int64_t> iargs;
    for (size_t k = 0; k < attrs.size(); ++k) {
      args.push_back(fv[k][indexOf(attrs[k], f)]);
      iargs.push_back(iv[k][indexOf(attrs[k], f)]);
    }
    int64_t r = floatMath ? (int64_t)ew.evalF(args) : ew.evalI(iargs);
    out.push_back(APInt(w, (uint64_t)r, /*isSigned=*/w > 1, /*implicitTrunc=*/true));
  }
  return OnnxValue::constant(DenseElementsAttr::get(outType, out));
}

/// Symbolic evaluation on shape values (rank 0/1 integers with index elements).
std::optional<OnnxValue> foldShapes(NodeContext &n, ArrayRef<OnnxValue> ins,
                                    const Elementwise &ew) {
  if (!ew.shapeOp || ins.size() != 2)
    return std::nullopt;
  if (!ins[0].isShape() && !ins[1].isShape())
    return std::nullopt;
  OnnxValue a = ins[0], c = ins[1];
  auto ea = shapeElements(a), ec = shapeElements(c);
  if (!ea || !ec)
    return std::nullopt;
  size_t len = std::max(ea->size(), ec->size());
  if ((ea->size() != len && ea->size() != 1) || (ec->size() != len && ec->size() != 1))
    return std::nullopt;
  SmallVector<OpFoldResult> out;
  if (ew.shapeOp == '=') {
    // Equality of shape elements: decidable when both are constants, the same symbolic dim, or
    // a symbolic dim (never negative) against a negative constant (exporters compare with -1).
    for (size_t i = 0; i < len; ++i) {
      OpFoldResult x = (*ea)[ea->size() == 1 ? 0 : i], y = (*ec)[ec->size() == 1 ? 0 : i];
      std::optional<int64_t> cx = getConstantIntValue(x), cy = getConstantIntValue(y);
      bool eq;
      if (cx && cy)
        eq = *cx == *cy;
      else if (!cx && !cy && cast<Value>(x) == cast<Value>(y))
        eq = true;
      else if ((cx && *cx < 0) || (cy && *cy < 0))
        eq = false;
      else
        return std::nullopt;
      out.push_back(n.b.getIndexAttr(eq ? 1 : 0));
    }
  } else {
    for (size_t i = 0; i < len; ++i)
      out.push_back(foldIndexBinary(n.b, n.loc, ew.shapeOp, (*ea)[ea->size() == 1 ? 0 : i],
                                    (*ec)[ec->size() == 1 ? 0 : i]));
  }
  bool scalar = (a.isShape() ? a.scalar : cast<ShapedType>(a.cst.getType()).getRank() == 0) &&
                (c.isShape() ? c.scalar : cast<ShapedType>(c.cst.getType()).getRank() == 0);
  Type it = a.isShape() ? a.elementType : c.elementType;
  if (ew.shapeOp == '=')
    it = n.b.getI1Type();
  return makeShapeValue(n.b.getContext(), out, scalar, it);
}

LogicalResult lowerElementwise(NodeContext &n, const Elementwise &ew, unsigned firstInput,
                               unsigned numInputs) {
  SmallVector<OnnxValue> ins;
  for (unsigned i = firstInput; i < firstInput + numInputs; ++i) {
    if (!n.hasInput(i))
      return n.error() << "input " << i << " is required";
    ins.push_back(n.input(i));
  }
  Type first = n.inputType(firstInput).getElementType();
  Type resultType = first;
  if (ew.result == ResultType::Bool)
    resultType = n.b.getI1Type();
  else if (ew.result == ResultType::SameAsSecond)
    resultType = n.inputType(firstInput + 1).getElementType();
  if (ew.floatOnly && !isF(first))
    return n.error() << "expects a floating-point input, got " << first;
  if (auto folded = foldShapes(n, ins, ew)) {
    n.setOutput(0, *folded);
    return success();
  }
  if (auto folded = foldConstants(n, ins, resultType, ew)) {
    n.setOutput(0, *folded);
    return success();
  }
  FailureOr<OnnxValue> r = emitElementwise(
      n, ins, resultType,
      [&](OpBuilder &b, Location loc, ValueRange args) { return ew.body(b, loc, args, resultType); });
  if (failed(r))
    return failure();
  n.setOutput(0, *r);
  return success();
}

// Scalar builders --------------------------------------------------------------

Value fconst(OpBuilder &b, Location loc, Type t, double v) { return scalarConst(b, loc, t, v); }

Value sigmoidOf(OpBuilder &b, Location loc, Value x) {
  Type t = x.getType();
  Value one = fconst(b, loc, t, 1.0);
  Value e = math::ExpOp::create(b, loc, arith::NegFOp::create(b, loc, x));
  return arith::DivFOp::create(b, loc, one, arith::AddFOp::create(b, loc, one, e));
}

Value geluErfOf(OpBuilder &b, Location loc, Value x) {
  Type t = x.getType();
  Value erf = math::ErfOp::create(b, loc, arith::MulFOp::create(b, loc, x, fconst(b, loc, t, M_SQRT1_2)));
  Value s = arith::AddFOp::create(b, loc, fconst(b, loc, t, 1.0), erf);
  return arith::MulFOp::create(b, loc, arith::MulFOp::create(b, loc, fconst(b, loc, t, 0.5), x), s);
}

Value geluTanhOf(OpBuilder &b, Location loc, Value x) {
  Type t = x.getType();
  Value x3 = arith::MulFOp::create(b, loc, x, arith::MulFOp::create(b, loc, x, x));
  Value inner = arith::AddFOp::create(
      b, loc, x, arith::MulFOp::create(b, loc, fconst(b, loc, t, 0.044715), x3));
  Value th = math::TanhOp::create(
      b, loc, arith::MulFOp::create(b, loc, fconst(b, loc, t, std::sqrt(2.0 / M_PI)), inner));
  Value s = arith::AddFOp::create(b, loc, fconst(b, loc, t, 1.0), th);
  return arith::MulFOp::create(b, loc, arith::MulFOp::create(b, loc, fconst(b, loc, t, 0.5), x), s);
}

double geluErfD(double x) { return 0.5 * x * (1.0 + std::erf(x * M_SQRT1_2)); }
double geluTanhD(double x) {
  return 0.5 * x * (1.0 + std::tanh(std::sqrt(2.0 / M_PI) * (x + 0.044715 * x * x * x)));
}

Elementwise binaryArith(
    std::function<Value(OpBuilder &, Location, Value, Value)> f,
    std::function<Value(OpBuilder &, Location, Value, Value)> i, EvalF ef, EvalI ei, char shapeOp) {
  Elementwise e;
  e.body = [f, i](OpBuilder &b, Location loc, ValueRange a, Type t) {
    Value x = castScalar(b, loc, a[0], t), y = castScalar(b, loc, a[1], t);
    return isF(t) ? f(b, loc, x, y) : i(b, loc, x, y);
  };
  e.evalF = ef;
  e.evalI = ei;
  e.shapeOp = shapeOp;
  return e;
}

Elementwise compare(arith::CmpFPredicate fp, arith::CmpIPredicate ip,
                    std::function<bool(double, double)> f) {
  Elementwise e;
  e.result = ResultType::Bool;
  e.body = [fp, ip](OpBuilder &b, Location loc, ValueRange a, Type) -> Value {
    if (isF(a[0].getType()))
      return arith::CmpFOp::create(b, loc, fp, a[0], a[1]);
    return arith::CmpIOp::create(b, loc, ip, a[0], a[1]);
  };
  e.evalF = [f](ArrayRef<double> x) { return f(x[0], x[1]) ? 1.0 : 0.0; };
  e.evalI = [f](ArrayRef<int64_t> x) { return f((double)x[0], (double)x[1]) ? 1 : 0; };
  return e;
}

Elementwise unaryFloat(std::function<Value(OpBuilder &, Location, Value)> f,
                       std::function<double(double)> ef) {
  Elementwise e;
  e.floatOnly = true;
  e.body = [f](OpBuilder &b, Location loc, ValueRange a, Type) { return f(b, loc, a[0]); };
  e.evalF = [ef](ArrayRef<double> x) { return ef(x[0]); };
  return e;
}


/// A one-op math function of a float.
template <typename OpTy>
Elementwise unaryMath(double (*f)(double)) {
  return unaryFloat([](OpBuilder &b, Location l, Value x) -> Value { return OpTy::create(b, l, x); },
                    f);
}

void addSimple(std::vector<OpEntry> &t, const char *op, Elementwise ew, unsigned arity) {
  addOp(t, "", op, 1, [ew, arity](NodeContext &n) { return lowerElementwise(n, ew, 0, arity); });
}

} // namespace

void onnx_import::registerElementwiseOps(std::vector<OpEntry> &t) {
  using B = OpBuilder;
  addSimple(t, "Add",
            binaryArith([](B &b, Location l, Value x, Value y) -> Value { return arith::AddFOp::create(b, l, x, y); },
                        [](B &b, Location l, Value x, Value y) -> Value { return arith::AddIOp::create(b, l, x, y); },
                        [](ArrayRef<double> a) { return a[0] + a[1]; },
                        [](ArrayRef<int64_t> a) { return a[0] + a[1]; }, '+'),
            2);
  addSimple(t, "Sub",
            binaryArith([](B &b, Location l, Value x, Value y) -> Value { return arith::SubFOp::create(b, l, x, y); },
                        [](B &b, Location l, Value x, Value y) -> Value { return arith::SubIOp::create(b, l, x, y); },
                        [](ArrayRef<double> a) { return a[0] - a[1]; },
                        [](ArrayRef<int64_t> a) { return a[0] - a[1]; }, '-'),
            2);
  addSimple(t, "Mul",
            binaryArith([](B &b, Location l, Value x, Value y) -> Value { return arith::MulFOp::create(b, l, x, y); },
                        [](B &b, Location l, Value x, Value y) -> Value { return arith::MulIOp::create(b, l, x, y); },
                        [](ArrayRef<double> a) { return a[0] * a[1]; },
                        [](ArrayRef<int64_t> a) { return a[0] * a[1]; }, '*'),
            2);
  // Integer Div truncates (C semantics, as ONNX Runtime does); shapes are non-negative, so the
  // symbolic floor division agrees.
  addSimple(t, "Div",
            binaryArith([](B &b, Location l, Value x, Value y) -> Value { return arith::DivFOp::create(b, l, x, y); },
                        [](B &b, Location l, Value x, Value y) -> Value { return arith::DivSIOp::create(b, l, x, y); },
                        [](ArrayRef<double> a) { return a[0] / a[1]; },
                        [](ArrayRef<int64_t> a) { return a[1] ? a[0] / a[1] : 0; }, '/'),
            2);
  {
    Elementwise mx = binaryArith(
        [](B &b, Location l, Value x, Value y) -> Value { return arith::MaximumFOp::create(b, l, x, y); },
        [](B &b, Location l, Value x, Value y) -> Value { return arith::MaxSIOp::create(b, l, x, y); },
        [](ArrayRef<double> a) { return std::max(a[0], a[1]); },
        [](ArrayRef<int64_t> a) { return std::max(a[0], a[1]); }, 'M');
    Elementwise mn = binaryArith(
        [](B &b, Location l, Value x, Value y) -> Value { return arith::MinimumFOp::create(b, l, x, y); },
        [](B &b, Location l, Value x, Value y) -> Value { return arith::MinSIOp::create(b, l, x, y); },
        [](ArrayRef<double> a) { return std::min(a[0], a[1]); },
        [](ArrayRef<int64_t> a) { return std::min(a[0], a[1]); }, 'm');
    // Variadic Max/Min: fold left pairwise.
    for (auto [name, ew] : {std::pair<const char *, Elementwise>{"Max", mx}, {"Min", mn}}) {
      addOp(t, "", name, 1, [ew = ew](NodeContext &n) -> LogicalResult {
        if (n.numInputs() == 0)
          return n.error() << "needs at least one input";
        OnnxValue acc = n.input(0);
        for (unsigned i = 1; i < n.numInputs(); ++i) {
          // Reuse the two-operand path through a temporary node view.
          SmallVector<OnnxValue> ins = {acc, n.input(i)};
          Type et = n.inputType(0).getElementType();
          if (auto f = foldShapes(n, ins, ew)) {
            acc = *f;
            continue;
          }
          if (auto f = foldConstants(n, ins, et, ew)) {
            acc = *f;
            continue;
          }
          FailureOr<OnnxValue> r = emitElementwise(
              n, ins, et, [&](OpBuilder &b, Location loc, ValueRange a) { return ew.body(b, loc, a, et); });
          if (failed(r))
            return failure();
          acc = *r;
        }
        n.setOutput(0, acc);
        return success();
      });
    }
  }
  {
    // Pow: small constant integer exponents become multiplications (exact, and safe for
    // negative bases); others use math.powf.
    addOp(t, "", "Pow", 1, [](NodeContext &n) -> LogicalResult {
      Type et = n.inputType(0).getElementType();
      if (!isF(et))
        return n.error() << "integer Pow is not supported";
      std::optional<double> e = n.constFloat(1);
      Elementwise ew;
      ew.evalF = [](ArrayRef<double> a) { return std::pow(a[0], a[1]); };
      if (e && (*e == 1.0 || *e == 2.0 || *e == 3.0 || *e == 0.5)) {
        double p = *e;
        Elementwise un;
        un.evalF = ew.evalF;
        un.body = [p](OpBuilder &b, Location loc, ValueRange a, Type) -> Value {
          Value x = a[0];
          if (p == 0.5)
            return math::SqrtOp::create(b, loc, x);
          if (p == 1.0)
            return x;
          Value x2 = arith::MulFOp::create(b, loc, x, x);
          return p == 2.0 ? x2 : arith::MulFOp::create(b, loc, x2, x).getResult();
        };
        if (auto f = foldConstants(n, {n.input(0), n.input(1)}, et, ew)) {
          n.setOutput(0, *f);
          return success();
        }
        FailureOr<OnnxValue> r = emitElementwise(
            n, {n.input(0)}, et,
            [&](OpBuilder &b, Location loc, ValueRange a) { return un.body(b, loc, a, et); });
        if (failed(r))
          return failure();
        n.setOutput(0, *r);
        return success();
      }
      ew.body = [](OpBuilder &b, Location loc, ValueRange a, Type t) -> Value {
        return math::PowFOp::create(b, loc, a[0], castScalar(b, loc, a[1], t));
      };
      return lowerElementwise(n, ew, 0, 2);
    });
  }
  {
    Elementwise eq = compare(arith::CmpFPredicate::OEQ, arith::CmpIPredicate::eq,
                             [](double a, double b) { return a == b; });
    eq.shapeOp = '=';
    addSimple(t, "Equal", eq, 2);
  }
  addSimple(t, "Less",
            compare(arith::CmpFPredicate::OLT, arith::CmpIPredicate::slt,
                    [](double a, double b) { return a < b; }),
            2);
  addSimple(t, "LessOrEqual",
            compare(arith::CmpFPredicate::OLE, arith::CmpIPredicate::sle,
                    [](double a, double b) { return a <= b; }),
            2);
  addSimple(t, "Greater",
            compare(arith::CmpFPredicate::OGT, arith::CmpIPredicate::sgt,
                    [](double a, double b) { return a > b; }),
            2);
  addSimple(t, "GreaterOrEqual",
            compare(arith::CmpFPredicate::OGE, arith::CmpIPredicate::sge,
                    [](double a, double b) { return a >= b; }),
            2);
  {
    auto logical = [](std::function<Value(OpBuilder &, Location, Value, Value)> f,
                      std::function<int64_t(int64_t, int64_t)> ev) {
      Elementwise e;
      e.result = ResultType::Bool;
      e.body = [f](OpBuilder &b, Location loc, ValueRange a, Type) { return f(b, loc, a[0], a[1]); };
      e.evalI = [ev](ArrayRef<int64_t> a) { return ev(a[0] != 0, a[1] != 0); };
      return e;
    };
    addSimple(t, "And", logical([](B &b, Location l, Value x, Value y) -> Value { return arith::AndIOp::create(b, l, x, y); },
                                [](int64_t a, int64_t c) { return a & c; }), 2);
    addSimple(t, "Or", logical([](B &b, Location l, Value x, Value y) -> Value { return arith::OrIOp::create(b, l, x, y); },
                               [](int64_t a, int64_t c) { return a | c; }), 2);
    addSimple(t, "Xor", logical([](B &b, Location l, Value x, Value y) -> Value { return arith::XOrIOp::create(b, l, x, y); },
                                [](int64_t a, int64_t c) { return a ^ c; }), 2);
    Elementwise notE;
    notE.result = ResultType::Bool;
    notE.body = [](OpBuilder &b, Location loc, ValueRange a, Type) -> Value {
      Value one = arith::ConstantOp::create(b, loc, b.getBoolAttr(true));
      return arith::XOrIOp::create(b, loc, a[0], one);
    };
    notE.evalI = [](ArrayRef<int64_t> a) -> int64_t { return a[0] ? 0 : 1; };
    addSimple(t, "Not", notE, 1);
  }
  {
    Elementwise where;
    where.result = ResultType::SameAsSecond;
    where.body = [](OpBuilder &b, Location loc, ValueRange a, Type) -> Value {
      return arith::SelectOp::create(b, loc, a[0], a[1], a[2]);
    };
    where.evalF = [](ArrayRef<double> a) { return a[0] != 0 ? a[1] : a[2]; };
    where.evalI = [](ArrayRef<int64_t> a) { return a[0] != 0 ? a[1] : a[2]; };
    addOp(t, "", "Where", 1, [where](NodeContext &n) -> LogicalResult {
      // Where(cond, shape, shape) with a constant condition selects shape elements symbolically.
      if (n.input(0).isConst() && (n.input(1).isShape() || n.input(2).isShape())) {
        std::optional<SmallVector<int64_t>> c;
        if (auto d = dyn_cast<DenseElementsAttr>(n.input(0).cst); d && d.getType().getRank() <= 1) {
          c.emplace();
          for (APInt x : d.getValues<APInt>())
            c->push_back(x.isZero() ? 0 : 1);
        }
        auto x = shapeElements(n.input(1)), y = shapeElements(n.input(2));
        if (c && x && y && x->size() == y->size() && c->size() == x->size()) {
          SmallVector<OpFoldResult> out;
          for (size_t i = 0; i < c->size(); ++i)
            out.push_back((*c)[i] ? (*x)[i] : (*y)[i]);
          n.setOutput(0, makeShapeValue(n.b.getContext(), out, false,
                                        n.inputType(1).getElementType()));
          return success();
        }
      }
      return lowerElementwise(n, where, 0, 3);
    });
  }

  // Unary float ops.
  addSimple(t, "Sqrt", unaryMath<math::SqrtOp>([](double x) { return std::sqrt(x); }), 1);
  addSimple(t, "Reciprocal",
            unaryFloat([](B &b, Location l, Value x) -> Value {
                         return arith::DivFOp::create(b, l, fconst(b, l, x.getType(), 1.0), x);
                       },
                       [](double x) { return 1.0 / x; }), 1);
  addSimple(t, "Exp", unaryMath<math::ExpOp>([](double x) { return std::exp(x); }), 1);
  addSimple(t, "Log", unaryMath<math::LogOp>([](double x) { return std::log(x); }), 1);
  addSimple(t, "Tanh", unaryMath<math::TanhOp>([](double x) { return std::tanh(x); }), 1);
  addSimple(t, "Erf", unaryMath<math::ErfOp>([](double x) { return std::erf(x); }), 1);
  addSimple(t, "Cos", unaryMath<math::CosOp>([](double x) { return std::cos(x); }), 1);
  addSimple(t, "Sin", unaryMath<math::SinOp>([](double x) { return std::sin(x); }), 1);
  addSimple(t, "Floor", unaryMath<math::FloorOp>([](double x) { return std::floor(x); }), 1);
  addSimple(t, "Ceil", unaryMath<math::CeilOp>([](double x) { return std::ceil(x); }), 1);
  addSimple(t, "Sigmoid", unaryFloat([](B &b, Location l, Value x) { return sigmoidOf(b, l, x); },
                                     [](double x) { return 1.0 / (1.0 + std::exp(-x)); }), 1);
  addSimple(t, "Softplus",
            unaryFloat([](B &b, Location l, Value x) -> Value {
                         return math::Log1pOp::create(b, l, math::ExpOp::create(b, l, x));
                       },
                       [](double x) { return std::log1p(std::exp(x)); }), 1);
  {
    Elementwise neg;
    neg.body = [](OpBuilder &b, Location loc, ValueRange a, Type t) -> Value {
      if (isF(t))
        return arith::NegFOp::create(b, loc, a[0]);
      return arith::SubIOp::create(b, loc, scalarConst(b, loc, t, 0), a[0]);
    };
    neg.evalF = [](ArrayRef<double> a) { return -a[0]; };
    neg.evalI = [](ArrayRef<int64_t> a) { return -a[0]; };
    addSimple(t, "Neg", neg, 1);
    Elementwise abs;
    abs.body = [](OpBuilder &b, Location loc, ValueRange a, Type t) -> Value {
      if (isF(t))
        return math::AbsFOp::create(b, loc, a[0]);
      return math::AbsIOp::create(b, loc, a[0]);
    };
    abs.evalF = [](ArrayRef<double> a) { return std::fabs(a[0]); };
    abs.evalI = [](ArrayRef<int64_t> a) { return a[0] < 0 ? -a[0] : a[0]; };
    addSimple(t, "Abs", abs, 1);
    Elementwise relu;
    relu.body = [](OpBuilder &b, Location loc, ValueRange a, Type t) -> Value {
      if (isF(t))
        return arith::MaximumFOp::create(b, loc, a[0], scalarConst(b, loc, t, 0.0));
      return arith::MaxSIOp::create(b, loc, a[0], scalarConst(b, loc, t, 0));
    };
    relu.evalF = [](ArrayRef<double> a) { return std::max(a[0], 0.0); };
    relu.evalI = [](ArrayRef<int64_t> a) { return std::max<int64_t>(a[0], 0); };
    addSimple(t, "Relu", relu, 1);
  }
  addOp(t, "", "Gelu", 20, [](NodeContext &n) -> LogicalResult {
    std::string approx = n.stringAttr("approximate", "none");
    if (approx != "none" && approx != "tanh")
      return n.error() << "unknown approximate '" << approx << "' (expected none or tanh)";
    bool tanh = approx == "tanh";
    return lowerElementwise(
        n,
        unaryFloat([tanh](B &b, Location l, Value x) { return tanh ? geluTanhOf(b, l, x) : geluErfOf(b, l, x); },
                   [tanh](double x) { return tanh ? geluTanhD(x) : geluErfD(x); }),
        0, 1);
  });
  addOp(t, "", "Identity", 1, [](NodeContext &n) -> LogicalResult {
    n.setOutput(0, n.input(0));
    return success();
  });
  addOp(t, "", "Cast", 1, [](NodeContext &n) -> LogicalResult {
    FailureOr<Type> to = n.importer.convertElementType(n.intAttr("to", 0), n.loc);
    if (failed(to))
      return n.error() << "unsupported 'to' type";
    OnnxValue in = n.input(0);
    if (n.inputType(0).getElementType() == *to) {
      n.setOutput(0, in);
      return success();
    }
    // Integer casts of shape values stay symbolic.
    if (in.isShape() && isa<IntegerType>(*to) && !to->isInteger(1)) {
      OnnxValue r = in;
      r.elementType = *to;
      r.value = Value();
      n.setOutput(0, r);
      return success();
    }
    Elementwise ew;
    Type target = *to;
    ew.body = [target](OpBuilder &b, Location loc, ValueRange a, Type) {
      return castScalar(b, loc, a[0], target);
    };
    ew.evalF = [](ArrayRef<double> a) { return a[0]; };
    ew.evalI = [](ArrayRef<int64_t> a) { return a[0]; };
    if (auto f = foldConstants(n, {in}, target, ew)) {
      n.setOutput(0, *f);
      return success();
    }
    FailureOr<OnnxValue> r = emitElementwise(
        n, {in}, target, [&](OpBuilder &b, Location loc, ValueRange a) { return ew.body(b, loc, a, target); });
    if (failed(r))
      return failure();
    n.setOutput(0, *r);
    return success();
  });
  addOp(t, "", "Clip", 13, [](NodeContext &n) -> LogicalResult {
    Type et = n.inputType(0).getElementType();
    bool hasMin = n.hasInput(1), hasMax = n.hasInput(2);
    SmallVector<OnnxValue> ins = {n.input(0)};
    if (hasMin)
      ins.push_back(n.input(1));
    if (hasMax)
      ins.push_back(n.input(2));
    for (unsigned i = 1; i < ins.size(); ++i)
      if (n.importer.dimsOf(ins[i], n.loc).size() != 0)
        return n.error() << "min and max must be scalars";
    Elementwise ew;
    ew.body = [hasMin, hasMax](OpBuilder &b, Location loc, ValueRange a, Type t) -> Value {
      Value x = a[0];
      unsigned k = 1;
      if (hasMin)
        x = isF(t) ? arith::MaximumFOp::create(b, loc, x, a[k]).getResult()
                   : arith::MaxSIOp::create(b, loc, x, a[k]).getResult(), ++k;
      if (hasMax)
        x = isF(t) ? arith::MinimumFOp::create(b, loc, x, a[k]).getResult()
                   : arith::MinSIOp::create(b, loc, x, a[k]).getResult();
      return x;
    };
    ew.evalF = [hasMin, hasMax](ArrayRef<double> a) {
      double x = a[0];
      unsigned k = 1;
      if (hasMin)
        x = std::max(x, a[k++]);
      if (hasMax)
        x = std::min(x, a[k]);
      return x;
    };
    if (auto f = foldConstants(n, ins, et, ew)) {
      n.setOutput(0, *f);
      return success();
    }
    FailureOr<OnnxValue> r = emitElementwise(
        n, ins, et, [&](OpBuilder &b, Location loc, ValueRange a) { return ew.body(b, loc, a, et); });
    if (failed(r))
      return failure();
    n.setOutput(0, *r);
    return success();
  });

  // com.microsoft activations.
  addOp(t, "com.microsoft", "FastGelu", 1, [](NodeContext &n) -> LogicalResult {
    Elementwise ew = unaryFloat([](B &b, Location l, Value x) { return geluTanhOf(b, l, x); },
                                [](double x) { return geluTanhD(x); });
    if (!n.hasInput(1))
      return lowerElementwise(n, ew, 0, 1);
    Elementwise biased;
    biased.body = [](OpBuilder &b, Location loc, ValueRange a, Type) {
      return geluTanhOf(b, loc, arith::AddFOp::create(b, loc, a[0], a[1]));
    };
    biased.evalF = [](ArrayRef<double> a) { return geluTanhD(a[0] + a[1]); };
    return lowerElementwise(n, biased, 0, 2);
  });
  addOp(t, "com.microsoft", "BiasGelu", 1, [](NodeContext &n) -> LogicalResult {
    Elementwise biased;
    biased.floatOnly = true;
    biased.body = [](OpBuilder &b, Location loc, ValueRange a, Type) {
      return geluErfOf(b, loc, arith::AddFOp::create(b, loc, a[0], a[1]));
    };
    biased.evalF = [](ArrayRef<double> a) { return geluErfD(a[0] + a[1]); };
    return lowerElementwise(n, biased, 0, 2);
  });
  addOp(t, "com.microsoft", "QuickGelu", 1, [](NodeContext &n) -> LogicalResult {
    double alpha = n.floatAttr("alpha", 1.702);
    return lowerElementwise(
        n,
        unaryFloat(
            [alpha](B &b, Location l, Value x) -> Value {
              Value ax = arith::MulFOp::create(b, l, x, fconst(b, l, x.getType(), alpha));
              return arith::MulFOp::create(b, l, x, sigmoidOf(b, l, ax));
            },
            [alpha](double x) { return x / (1.0 + std::exp(-alpha * x)); }),
        0, 1);
  });
}
