//===- GPURowNorm.cpp - one kernel per norm, one block per row ------------===//
//
// decoda-gpu-row-norm (GPUPasses.td): the body of each function tagged decoda.gpu_norm
// ((x | residual, branch), weight [, bias] over rows of D features) becomes, on [R, D] views,
//
//   gpu.launch blocks (R) threads (T)        T = clamp(32 ceil(D / 256), 32, 1024)
//       workgroup(red [2][T / 32] : f32)
//     v[i] = x[row, tid + i T]  for i < n = ceil(D / T)    (in registers, 0 past D)
//       add forms: s = round(residual + scale · branch); sum[row, .] = s; v = s
//     RMSNorm:   ss = blockSum(v²); rstd = rsqrt(ss / D + eps); y = v · rstd · (w + offset)
//     LayerNorm: mean = blockSum(v) / D; var = blockSum((v - mean)²) / D;
//                y = (v - mean) · rsqrt(var + eps) · w (+ b)
//     out[row, .] = round(y)
//
//   blockSum: a butterfly of gpu.shuffle xor in each warp, lane 0 writes the warp's partial to
//   red[k][warp], one barrier, every thread adds the T / 32 partials.
//
// The formulas (and the order of the f32 operations per element) are those of the linalg
// lowering in Norms.cpp; only the order of the row sums differs.
//
//===----------------------------------------------------------------------===//

#include "decoda/Conversion/DecodaToLinalg/DecodaToLinalg.h"
#include "decoda/Transforms/Passes.h"

#include "TaggedCalls.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"

namespace mlir::decoda {
#define GEN_PASS_DEF_GPUROWNORMPASS
#include "decoda/Transforms/Passes.h.inc"
} // namespace mlir::decoda

using namespace mlir;

namespace {
constexpr int64_t kMaxPerThread = 16; // features per thread kept in registers

struct Config {
  bool centered = false, add = false, bias = false;
  double eps = 0, weightOffset = 0, scale = 1;
  int64_t d = 0, threads = 0, perThread = 0;
  Type elem;
};

bool identityMemRef(Type t) {
  auto m = dyn_cast<MemRefType>(t);
  return m && m.getLayout().isIdentity();
}

FailureOr<Config> readConfig(func::FuncOp fn, DictionaryAttr dict, std::string &why) {
  Config c;
  auto flag = [&](StringRef name) {
    auto a = dict.getAs<BoolAttr>(name);
    return a && a.getValue();
  };
  auto eps = dict.getAs<FloatAttr>("eps"), off = dict.getAs<FloatAttr>("weight_offset"),
       scale = dict.getAs<FloatAttr>("scale");
  if (!eps || !off || !scale) {
    why = "malformed configuration";
    return failure();
  }
  c.eps = eps.getValueAsDouble();
  c.weightOffset = off.getValueAsDouble();
  c.scale = scale.getValueAsDouble();
  c.centered = flag("centered");
  c.add = flag("add");
  c.bias = flag("bias");
  FunctionType type = fn.getFunctionType();
  unsigned inputs = (c.add ? 2 : 1) + 1 + c.bias, results = c.add ? 2 : 1;
  if (type.getNumInputs() != inputs || type.getNumResults() != results || fn.isExternal()) {
    why = "unexpected signature";
    return failure();
  }
  for (Type t : llvm::concat<const Type>(type.getInputs(), type.getResults()))
    if (!identityMemRef(t)) {
      why = "an operand that is not an identity-layout buffer (not yet bufferized?)";
      return failure();
    }
  auto x = cast<MemRefType>(type.getInput(0));
  c.elem = x.getElementType();
  if (!c.elem.isF32() && !c.elem.isF16() && !c.elem.isBF16()) {
    why = "storage type other than f32, f16, bf16";
    return failure();
  }
  if (x.getRank() < 1 || x.isDynamicDim(x.getRank() - 1)) {
    why = "the feature (last) dimension is dynamic";
    return failure();
  }
  c.d = x.getDimSize(x.getRank() - 1);
  for (Type t : llvm::concat<const Type>(type.getInputs().drop_front(c.add ? 2 : 1),
                                         ArrayRef<Type>{})) {
    auto p = cast<MemRefType>(t);
    if (p.getRank() != 1 || p.getDimSize(0) != c.d || !isa<FloatType>(p.getElementType())) {
      why = "weight or bias is not [D] floats";
      return failure();
    }
  }
  for (Type t : llvm::concat<const Type>(type.getInputs().take_front(c.add ? 2 : 1),
                                         type.getResults()))
    if (t != x) {
      why = "rows of different types";
      return failure();
    }
  if (c.d < 1) {
    why = "no features";
    return failure();
  }
  int64_t t = ((c.d + 255) / 256) * 32;
  c.threads = std::clamp<int64_t>(t, 32, 1024);
  c.perThread = (c.d + c.threads - 1) / c.threads;
  if (c.perThread > kMaxPerThread) {
    why = "D = " + std::to_string(c.d) + " is over " +
          std::to_string(1024 * kMaxPerThread) + " features";
    return failure();
  }
  return c;
}

class Kernel {
public:
  Kernel(func::FuncOp fn, const Config &c) : fn(fn), c(c), b(fn.getContext()), loc(fn.getLoc()) {}

  void emit() {
    Block &entry = mlir::decoda::clearTaggedBody(fn);
    b.setInsertionPointToStart(&entry);
    f32 = b.getF32Type();
    auto rowType = cast<MemRefType>(entry.getArgument(0).getType());
    SmallVector<Value> dyn;
    for (int64_t dim = 0; dim < rowType.getRank(); ++dim)
      if (rowType.isDynamicDim(dim))
        dyn.push_back(memref::DimOp::create(b, loc, entry.getArgument(0), dim));
    SmallVector<Value> outs;
    for (unsigned i = 0; i < (c.add ? 2u : 1u); ++i)
      outs.push_back(memref::AllocOp::create(b, loc, rowType, dyn));

    unsigned next = 0;
    Value x, res, br;
    if (c.add) {
      res = rows(entry.getArgument(next++));
      br = rows(entry.getArgument(next++));
    } else {
      x = rows(entry.getArgument(next++));
    }
    weight = entry.getArgument(next++);
    if (c.bias)
      bias = entry.getArgument(next++);
    Value sum = c.add ? rows(outs[0]) : Value();
    Value out = rows(outs.back());
    Value numRows = memref::DimOp::create(b, loc, out, 0);
    auto guard = scf::IfOp::create(b, loc, TypeRange{},
                                   arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sgt,
                                                         numRows, idx(0)),
                                   /*withElseRegion=*/false);
    {
      OpBuilder::InsertionGuard g(b);
      b.setInsertionPointToStart(&guard.getThenRegion().front());
      emitLaunch(numRows, x, res, br, sum, out);
    }
    func::ReturnOp::create(b, loc, outs);
  }

private:
  Value idx(int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); }
  Value fc(double v) {
    return arith::ConstantOp::create(b, loc, f32, b.getF32FloatAttr(static_cast<float>(v)));
  }
  Value fadd(Value x, Value y) { return arith::AddFOp::create(b, loc, x, y); }
  Value fsub(Value x, Value y) { return arith::SubFOp::create(b, loc, x, y); }
  Value fmul(Value x, Value y) { return arith::MulFOp::create(b, loc, x, y); }
  Value widen(Value v) {
    return v.getType() == f32 ? v : arith::ExtFOp::create(b, loc, f32, v).getResult();
  }
  Value narrow(Value v) {
    return c.elem == f32 ? v : arith::TruncFOp::create(b, loc, c.elem, v).getResult();
  }
  /// [R, D] view of a row-major buffer [..., D].
  Value rows(Value v) {
    auto t = cast<MemRefType>(v.getType());
    if (t.getRank() == 2)
      return v;
    SmallVector<ReassociationIndices> re(2);
    for (int64_t d = 0; d + 1 < t.getRank(); ++d)
      re[0].push_back(d);
    re[1].push_back(t.getRank() - 1);
    if (t.getRank() == 1) // one row: [D] -> [1, D]
      return memref::ExpandShapeOp::create(b, loc, MemRefType::get({1, c.d}, t.getElementType()),
                                           v, ArrayRef<ReassociationIndices>{{0, 1}});
    return memref::CollapseShapeOp::create(b, loc, v, re);
  }

  /// Σ over the block of each thread's `x`; `slot` picks the shared row of partials.
  Value blockSum(Value x, int64_t slot) {
    for (int32_t o = 16; o >= 1; o /= 2) {
      Value off = arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(o));
      Value width = arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(32));
      x = fadd(x, gpu::ShuffleOp::create(b, loc, x, off, width, gpu::ShuffleMode::XOR)
                      .getShuffleResult());
    }
    int64_t warps = c.threads / 32;
    if (warps == 1)
      return x;
    Value first = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, lane, idx(0));
    auto write = scf::IfOp::create(b, loc, TypeRange{}, first, false);
    {
      OpBuilder::InsertionGuard g(b);
      b.setInsertionPointToStart(&write.getThenRegion().front());
      memref::StoreOp::create(b, loc, x, red, ValueRange{idx(slot), warp});
    }
    gpu::BarrierOp::create(b, loc);
    Value total = memref::LoadOp::create(b, loc, red, ValueRange{idx(slot), idx(0)});
    for (int64_t w = 1; w < warps; ++w)
      total = fadd(total, memref::LoadOp::create(b, loc, red, ValueRange{idx(slot), idx(w)}));
    return total;
  }

  void emitLaunch(Value numRows, Value x, Value res, Value br, Value sum, Value out) {
    MLIRContext *ctx = b.getContext();
    auto shared = gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Workgroup);
    auto redType = MemRefType::get({2, std::max<int64_t>(c.threads / 32, 1)}, f32,
                                   MemRefLayoutAttrInterface(), shared);
    Value one = idx(1);
    auto launch = gpu::LaunchOp::create(b, loc, numRows, one, one, idx(c.threads), one, one,
                                        /*dynamicSharedMemorySize=*/nullptr,
                                        /*asyncTokenType=*/nullptr, /*asyncDependencies=*/{},
                                        TypeRange{redType});
    red = launch.getWorkgroupAttributions()[0];
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(&launch.getBody().front());
    Value tid = launch.getThreadIds().x;
    Value row = launch.getBlockIds().x;
    warp = arith::DivUIOp::create(b, loc, tid, idx(32));
    lane = arith::RemUIOp::create(b, loc, tid, idx(32));

    // This thread's features, in registers (0 past D).
    SmallVector<Value> cols, inside, v;
    for (int64_t i = 0; i < c.perThread; ++i) {
      Value col = arith::AddIOp::create(b, loc, tid, idx(i * c.threads));
      Value in = (i + 1) * c.threads > c.d
                     ? arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, col, idx(c.d))
                           .getResult()
                     : Value();
      cols.push_back(col);
      inside.push_back(in);
      v.push_back(guarded(in, [&]() -> Value {
        if (!c.add)
          return widen(memref::LoadOp::create(b, loc, x, ValueRange{row, col}));
        Value r = widen(memref::LoadOp::create(b, loc, res, ValueRange{row, col}));
        Value t = widen(memref::LoadOp::create(b, loc, br, ValueRange{row, col}));
        if (c.scale != 1.0)
          t = fmul(t, fc(c.scale));
        Value s = narrow(fadd(r, t));
        memref::StoreOp::create(b, loc, s, sum, ValueRange{row, col});
        return widen(s); // the rounded sum is what the norm reads
      }));
    }

    Value count = fc(static_cast<double>(c.d));
    Value mean;
    if (c.centered) {
      Value s = fc(0.0);
      for (Value e : v)
        s = fadd(s, e);
      mean = arith::DivFOp::create(b, loc, blockSum(s, 0), count);
    }
    Value sq = fc(0.0);
    for (int64_t i = 0; i < c.perThread; ++i) {
      Value e = mean ? fsub(v[i], mean) : v[i];
      Value t = fmul(e, e);
      if (inside[i] && mean) // padding would add mean²
        t = arith::SelectOp::create(b, loc, inside[i], t, fc(0.0));
      sq = fadd(sq, t);
    }
    Value var = arith::DivFOp::create(b, loc, blockSum(sq, 1), count);
    Value rstd = math::RsqrtOp::create(b, loc, fadd(var, fc(c.eps)));

    for (int64_t i = 0; i < c.perThread; ++i) {
      guarded(inside[i], [&]() -> Value {
        Value e = mean ? fsub(v[i], mean) : v[i];
        Value w = widen(memref::LoadOp::create(b, loc, weight, ValueRange{cols[i]}));
        if (c.weightOffset != 0.0)
          w = fadd(w, fc(c.weightOffset));
        Value y = fmul(fmul(e, rstd), w);
        if (bias)
          y = fadd(y, widen(memref::LoadOp::create(b, loc, bias, ValueRange{cols[i]})));
        memref::StoreOp::create(b, loc, narrow(y), out, ValueRange{row, cols[i]});
        return Value();
      });
    }
    gpu::TerminatorOp::create(b, loc);
  }

  /// body() where `in` holds (always when null); its f32 result, 0 elsewhere.
  Value guarded(Value in, function_ref<Value()> body) {
    if (!in)
      return body();
    bool hasResult = true;
    auto ifOp = scf::IfOp::create(b, loc, TypeRange{f32}, in, /*withElseRegion=*/true);
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(&ifOp.getThenRegion().front());
    Value r = body();
    hasResult = static_cast<bool>(r);
    scf::YieldOp::create(b, loc, r ? r : fc(0.0));
    b.setInsertionPointToStart(&ifOp.getElseRegion().front());
    scf::YieldOp::create(b, loc, fc(0.0));
    return hasResult ? ifOp.getResult(0) : Value();
  }

  func::FuncOp fn;
  const Config &c;
  OpBuilder b;
  Location loc;
  Type f32;
  Value weight, bias, red, warp, lane;
};

struct GPURowNormPass : public mlir::decoda::impl::GPURowNormPassBase<GPURowNormPass> {
  using Base::Base;

  void runOnOperation() override {
    for (auto fn : llvm::to_vector(getOperation().getOps<func::FuncOp>())) {
      auto dict = fn->getAttrOfType<DictionaryAttr>(decoda::kGPUNormAttr);
      if (!dict)
        continue;
      std::string why;
      FailureOr<Config> c = readConfig(fn, dict, why);
      if (failed(c)) {
        StringAttr op = dict.getAs<StringAttr>("op");
        mlir::emitRemark(fn.getLoc()) << "decoda-gpu-row-norm: " << (op ? op.getValue() : "norm")
                                      << " keeps the target-neutral lowering: " << why;
        ++numLeft;
        continue;
      }
      Kernel(fn, *c).emit();
      fn->removeAttr(decoda::kGPUNormAttr);
      ++numKernels;
    }
  }
};
} // namespace
