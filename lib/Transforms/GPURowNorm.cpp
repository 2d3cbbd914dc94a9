//===- GPURowNorm.cpp - one kernel per norm, one block per row ------------===//
//
// decoda-gpu-row-norm (GPUPasses.td): the body of each function tagged decoda.gpu_norm
// ((x | residual, branch), weight [, bias] over rows of D features) becomes, on [R, D] views,
//
//   gpu.launch blocks (R) threads (T)        T = clamp(32 ceil(D / 256), 32, 1024)
//       workgroup(red [2][T / 32] : f32)
//     chunk j = tid + i T for i < n = ceil(D / (V T)): V features at j V (V: 16 bytes of the
//     storage type, halved until it divides D), one vector load or store each
//     every load first: v[i] = x[row, jV ..] (0 past D), w[i] = weight[jV ..] (, bias)
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
// lowering in Norms.cpp; only the order of the row sums differs. The loads come before every
// store: a load after a store to a buffer that may alias it waits for the store, and the
// weight loads interleaved with the output stores cost one memory latency each (a one-row
// norm at decode took about 10 µs on an H200 that way).
//
//===----------------------------------------------------------------------===//

#include "decoda/Conversion/DecodaToLinalg/DecodaToLinalg.h"
#include "decoda/Transforms/Passes.h"

#include "GPURowNorm.h"
#include "TaggedCalls.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Builders.h"

namespace mlir::decoda {
#define GEN_PASS_DEF_GPUROWNORMPASS
#include "decoda/Transforms/Passes.h.inc"
} // namespace mlir::decoda

using namespace mlir;

namespace {
using mlir::decoda::row_norm::Config;
using mlir::decoda::row_norm::kMaxPerThread;
using mlir::decoda::row_norm::readConfig;

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
  /// vector<c.vec x T> -> vector<c.vec x f32> and back to the storage type.
  Value widen(Value v) {
    return v.getType() == vf32 ? v : arith::ExtFOp::create(b, loc, vf32, v).getResult();
  }
  Value narrow(Value v) {
    return c.elem == f32 ? v
                         : arith::TruncFOp::create(b, loc, VectorType::get({c.vec}, c.elem), v)
                               .getResult();
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
    vf32 = VectorType::get({c.vec}, f32);

    // Every load of the thread first (its chunks of the row, the weight and the bias), then
    // the stores: a load after a store to a buffer that may alias waits for it, so loads
    // interleaved with the stores would each cost a memory latency in turn.
    SmallVector<Value> cols, inside, v, branch, w, biasv;
    for (int64_t i = 0; i < c.perThread; ++i) {
      Value chunk = arith::AddIOp::create(b, loc, tid, idx(i * c.threads));
      Value in = (i + 1) * c.threads > c.chunks
                     ? arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, chunk,
                                             idx(c.chunks))
                           .getResult()
                     : Value();
      Value col = arith::MulIOp::create(b, loc, chunk, idx(c.vec));
      cols.push_back(col);
      inside.push_back(in);
      // (x | residual, branch | x, weight[, bias]) as f32 vectors.
      SmallVector<Value> loaded = guarded(in, 3 + (bias ? 1 : 0), [&] {
        SmallVector<Value> r;
        if (c.add) {
          r.push_back(widen(load(res, {row, col})));
          r.push_back(widen(load(br, {row, col})));
        } else {
          r.push_back(widen(load(x, {row, col})));
          r.push_back(r.back());
        }
        r.push_back(widen(load(weight, {col})));
        if (bias)
          r.push_back(widen(load(bias, {col})));
        return r;
      });
      v.push_back(loaded[0]);
      branch.push_back(loaded[1]);
      w.push_back(loaded[2]);
      if (bias)
        biasv.push_back(loaded[3]);
    }
    if (c.add) {
      // The rounded sum is stored and is what the norm reads.
      for (int64_t i = 0; i < c.perThread; ++i) {
        Value t = branch[i];
        if (c.scale != 1.0)
          t = fmul(t, splat(c.scale));
        Value s = narrow(fadd(v[i], t));
        guarded(inside[i], 0, [&] {
          store(s, sum, {row, cols[i]});
          return SmallVector<Value>{};
        });
        v[i] = widen(s);
      }
    }

    Value count = fc(static_cast<double>(c.d));
    Value mean, meanv;
    if (c.centered) {
      Value s = fc(0.0);
      for (Value e : v)
        s = fadd(s, reduce(e));
      mean = arith::DivFOp::create(b, loc, blockSum(s, 0), count);
      meanv = vector::BroadcastOp::create(b, loc, vf32, mean);
    }
    Value sq = fc(0.0);
    for (int64_t i = 0; i < c.perThread; ++i) {
      Value e = meanv ? fsub(v[i], meanv) : v[i];
      Value t = reduce(fmul(e, e));
      if (inside[i] && meanv) // padding would add mean²
        t = arith::SelectOp::create(b, loc, inside[i], t, fc(0.0));
      sq = fadd(sq, t);
    }
    Value var = arith::DivFOp::create(b, loc, blockSum(sq, 1), count);
    Value rstd = vector::BroadcastOp::create(
        b, loc, vf32, math::RsqrtOp::create(b, loc, fadd(var, fc(c.eps))));

    for (int64_t i = 0; i < c.perThread; ++i) {
      Value e = meanv ? fsub(v[i], meanv) : v[i];
      Value wi = w[i];
      if (c.weightOffset != 0.0)
        wi = fadd(wi, splat(c.weightOffset));
      Value y = fmul(fmul(e, rstd), wi);
      if (bias)
        y = fadd(y, biasv[i]);
      Value yn = narrow(y);
      guarded(inside[i], 0, [&] {
        store(yn, out, {row, cols[i]});
        return SmallVector<Value>{};
      });
    }
    gpu::TerminatorOp::create(b, loc);
  }

  /// c.vec elements of `buf` at `at` (the last index a multiple of c.vec), as one access of
  /// c.vec · element bytes, at most 16 (rows start at multiples of it: D is a multiple of
  /// c.vec; buffers start 16-byte aligned, as the GEMV kernels assume).
  llvm::MaybeAlign alignOf(Value buf) {
    auto t = cast<MemRefType>(buf.getType());
    return llvm::MaybeAlign(std::min<int64_t>(16, c.vec * t.getElementTypeBitWidth() / 8));
  }
  Value load(Value buf, ValueRange at) {
    auto t = cast<MemRefType>(buf.getType());
    return vector::LoadOp::create(b, loc, VectorType::get({c.vec}, t.getElementType()), buf, at,
                                  /*nontemporal=*/false, alignOf(buf));
  }
  void store(Value v, Value buf, ValueRange at) {
    vector::StoreOp::create(b, loc, v, buf, at, /*nontemporal=*/false, alignOf(buf));
  }
  Value splat(double v) { return vector::BroadcastOp::create(b, loc, vf32, fc(v)); }
  Value reduce(Value v) {
    return vector::ReductionOp::create(b, loc, vector::CombiningKind::ADD, v);
  }

  /// body() where `in` holds (always when null): its `n` vector<c.vec x f32> results, zeros
  /// elsewhere.
  SmallVector<Value> guarded(Value in, unsigned n, function_ref<SmallVector<Value>()> body) {
    if (!in)
      return body();
    SmallVector<Type> types(n, vf32);
    auto ifOp = scf::IfOp::create(b, loc, types, in, /*withElseRegion=*/n > 0);
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(&ifOp.getThenRegion().front());
    SmallVector<Value> r = body();
    if (n == 0)
      return {};
    scf::YieldOp::create(b, loc, r);
    b.setInsertionPointToStart(&ifOp.getElseRegion().front());
    Value zero = splat(0.0);
    scf::YieldOp::create(b, loc, SmallVector<Value>(n, zero));
    return SmallVector<Value>(ifOp.getResults());
  }

  func::FuncOp fn;
  const Config &c;
  OpBuilder b;
  Location loc;
  Type f32;
  Value weight, bias, red, warp, lane;
  VectorType vf32;
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
