//===- CPUContractionCodegen.cpp - tiled AVX-512 code for contractions ----===//
//
// After bufferization, every projection-shaped contraction generic (the output of
// buildProjection, and the QK^T / PV generics of the attention lowering) is rewritten into
//
//   scf.parallel (outer leading dims, n panels of 32) {          // OpenMP work items
//     %bp = memref.alloca() : memref<KTx32xf32>   // packed B panel (one per thread, see
//                                                 // decoda-cpu-private-allocas)
//     scf.for %k0 = 0 to K step KT {
//       pack B[.., n0:n0+32, k0:k0+kt] into %bp[k][n] (zero padded past N)
//       scf.for %m0 = 0 to M - M % MT step MT { MT x 32 register tile }
//       then 2 x 32 tiles and at most one 1 x 32 tile for the leftover rows
//     }
//   }
//
// A register tile loads its 2*rows accumulators (vector<16xf32>, masked on the last panel)
// from C, runs the k block with one broadcast of A and two panel loads per row step
// (vector.fma), and stores them back. C keeps its initial value (the fill before the
// generic), so every element still sums its k terms in order.
//
// The pack: when B is contiguous along k (out_in weights, attention keys) 16 x 16 blocks are
// loaded with masked vector loads and transposed with four rounds of interleaving
// vector.shuffles (LLVM would otherwise turn the scalar transposing copy into scatters, which
// cost about a fifth of the GEMM time at M = 128); otherwise a scalar copy in B's order.
//
// With a static row count of at most gemv-max-rows (decode) and A, B contiguous along k, the
// contraction is instead a set of dot products along k (no packing; B is read once).
//
//===----------------------------------------------------------------------===//

#include "decoda/Transforms/Passes.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/AsmState.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"

namespace mlir::decoda {
#define GEN_PASS_DEF_CPUCONTRACTIONCODEGENPASS
#include "decoda/Transforms/Passes.h.inc"
} // namespace mlir::decoda

using namespace mlir;

namespace {
constexpr int64_t kLanes = 16;         // f32 lanes of an AVX-512 register
constexpr int64_t kPanel = 2 * kLanes; // n columns of a register tile / packed panel
constexpr llvm::StringLiteral kCollapseAttr = "decoda.parallel_all_dims";

/// What the matcher found out about a contraction generic.
struct Contraction {
  linalg::GenericOp op;
  unsigned numLoops = 0; // lead dims, then n, then k
  unsigned nDim = 0, kDim = 0;
  unsigned mDim = 0;                 // the lead dim that is tiled by register tiles
  SmallVector<unsigned> outerDims;   // the other lead dims (parallel loops)
  bool extA = false, extB = false;   // operands widened to f32 in the body
  bool gemv = false;                 // few rows: dot products along k, no packing
};

/// The memref is contiguous along its last dim.
bool unitInnerStride(Value v) {
  auto type = cast<MemRefType>(v.getType());
  SmallVector<int64_t> strides;
  int64_t offset;
  return type.getRank() > 0 && succeeded(type.getStridesAndOffset(strides, offset)) &&
         strides.back() == 1;
}

/// `v` is block argument `idx` of `body`, possibly through an arith.extf to f32.
bool isArgMaybeExt(Value v, Block &body, unsigned idx, bool &ext) {
  ext = false;
  if (auto e = v.getDefiningOp<arith::ExtFOp>()) {
    v = e.getIn();
    ext = true;
  }
  auto arg = dyn_cast<BlockArgument>(v);
  return arg && arg.getOwner() == &body && arg.getArgNumber() == idx;
}

bool usesDim(AffineMap map, unsigned dim) { return map.isFunctionOfDim(dim); }

/// Matches `out + ext?(a) * ext?(b)` with the projection-like maps; see the pass description.
FailureOr<Contraction> match(linalg::GenericOp op, int64_t gemvMaxRows) {
  if (!op.hasPureBufferSemantics() || op.getNumDpsInputs() != 2 || op.getNumDpsInits() != 1)
    return failure();
  unsigned numLoops = op.getNumLoops();
  if (numLoops < 3)
    return failure();
  auto iters = op.getIteratorTypesArray();
  for (unsigned i = 0; i + 1 < numLoops; ++i)
    if (iters[i] != utils::IteratorType::parallel)
      return failure();
  if (iters.back() != utils::IteratorType::reduction)
    return failure();

  Contraction c;
  c.op = op;
  c.numLoops = numLoops;
  c.nDim = numLoops - 2;
  c.kDim = numLoops - 1;

  // Element types: f32 output; f32 inputs or ones the body widens with extf.
  auto outType = dyn_cast<MemRefType>(op.getDpsInitOperand(0)->get().getType());
  auto aType = dyn_cast<MemRefType>(op.getDpsInputOperand(0)->get().getType());
  auto bType = dyn_cast<MemRefType>(op.getDpsInputOperand(1)->get().getType());
  if (!outType || !aType || !bType || !outType.getElementType().isF32())
    return failure();

  // Body: yield(addf(out, mulf(x, y))) with x/y the inputs (either order of each operand).
  Block &body = op.getRegion().front();
  if (body.getOperations().size() > 5)
    return failure();
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  auto add = yield.getValues()[0].getDefiningOp<arith::AddFOp>();
  if (!add)
    return failure();
  Value lhs = add.getLhs(), rhs = add.getRhs();
  auto isOut = [&](Value v) {
    auto arg = dyn_cast<BlockArgument>(v);
    return arg && arg.getOwner() == &body && arg.getArgNumber() == 2;
  };
  if (!isOut(lhs))
    std::swap(lhs, rhs);
  if (!isOut(lhs))
    return failure();
  auto mul = rhs.getDefiningOp<arith::MulFOp>();
  if (!mul || mul->getBlock() != &body)
    return failure();
  Value x = mul.getLhs(), y = mul.getRhs();
  if (!isArgMaybeExt(x, body, 0, c.extA))
    std::swap(x, y);
  if (!isArgMaybeExt(x, body, 0, c.extA) || !isArgMaybeExt(y, body, 1, c.extB))
    return failure();
  if (!x.getType().isF32() || !y.getType().isF32())
    return failure();
  if ((!c.extA && !aType.getElementType().isF32()) || (!c.extB && !bType.getElementType().isF32()))
    return failure();
  // No fastmath or other flags that the vector code would drop.
  if (add.getFastmath() != arith::FastMathFlags::none ||
      mul.getFastmath() != arith::FastMathFlags::none)
    return failure();

  // Maps.
  AffineMap aMap = op.getMatchingIndexingMap(op.getDpsInputOperand(0));
  AffineMap bMap = op.getMatchingIndexingMap(op.getDpsInputOperand(1));
  AffineMap outMap = op.getMatchingIndexingMap(op.getDpsInitOperand(0));
  if (!outMap.isProjectedPermutation() || outMap.getNumResults() != numLoops - 1)
    return failure();
  for (unsigned i = 0; i + 1 < numLoops; ++i)
    if (outMap.getDimPosition(i) != i)
      return failure();
  // A: the last result is k, nothing depends on n.
  if (aMap.getNumResults() == 0 || aMap.getResults().back() != getAffineDimExpr(c.kDim, op.getContext()) ||
      usesDim(aMap, c.nDim))
    return failure();
  for (unsigned i = 0; i + 1 < aMap.getNumResults(); ++i)
    if (aMap.getResult(i).isFunctionOfDim(c.kDim))
      return failure();
  // B: n and k each appear as one plain result; the rest depends on lead dims only.
  int nPos = -1, kPos = -1;
  for (auto [i, e] : llvm::enumerate(bMap.getResults())) {
    if (auto d = dyn_cast<AffineDimExpr>(e)) {
      if (d.getPosition() == c.nDim) {
        if (nPos >= 0)
          return failure();
        nPos = i;
        continue;
      }
      if (d.getPosition() == c.kDim) {
        if (kPos >= 0)
          return failure();
        kPos = i;
        continue;
      }
    }
    if (e.isFunctionOfDim(c.nDim) || e.isFunctionOfDim(c.kDim))
      return failure();
  }
  if (nPos < 0 || kPos < 0)
    return failure();

  // The output must be contiguous along n for the vector loads and stores.
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(outType.getStridesAndOffset(strides, offset)) || strides.back() != 1)
    return failure();

  // Rows: a lead dim that A ranges over and B does not; the longest one (dynamic counts as
  // longest), the innermost among equals. (With one KV head, attention's K no longer depends
  // on the query head, and the query position is still the better row dim.)
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  int mDim = -1;
  int64_t best = -1;
  for (int d = static_cast<int>(c.nDim) - 1; d >= 0; --d) {
    if (!usesDim(aMap, d) || usesDim(bMap, d))
      continue;
    int64_t extent = ShapedType::isDynamic(ranges[d]) ? INT64_MAX : ranges[d];
    if (extent > best) {
      best = extent;
      mDim = d;
    }
  }
  if (mDim < 0)
    return failure();
  c.mDim = mDim;
  for (unsigned d = 0; d < c.nDim; ++d)
    if (d != c.mDim)
      c.outerDims.push_back(d);
  // A statically small row count (decode: one token) with A and B both contiguous along k:
  // packing would cost as much as the product, so dot products along k read B once instead.
  auto bLast = dyn_cast<AffineDimExpr>(bMap.getResults().back());
  c.gemv = !ShapedType::isDynamic(ranges[mDim]) && ranges[mDim] <= gemvMaxRows && bLast &&
           bLast.getPosition() == c.kDim && unitInnerStride(op.getDpsInputOperand(0)->get()) &&
           unitInnerStride(op.getDpsInputOperand(1)->get());
  return c;
}

/// A 2-D f32 weight read straight from a constant `memref.global` (an `arith.constant` weight,
/// `dense` or `dense_resource`,
/// after bufferization) with map (n, k) or (k, n): the dense value and whether k is the minor
/// dim. Such weights are packed at compile time.
struct ConstantWeight {
  memref::GlobalOp global;
  ArrayRef<float> values; // one element when `splat`
  bool splat;
  bool kMinor;
};

/// The f32 elements of a constant global's initial value, from a `dense` or a `dense_resource`
/// attribute (the ONNX importer's form for large initializers). Nothing when the blob is
/// elided, not loaded, or of the wrong size.
std::optional<std::pair<ArrayRef<float>, bool>> constantF32Values(Attribute init,
                                                                  int64_t numElements) {
  if (auto dense = dyn_cast<DenseElementsAttr>(init)) {
    if (!dense.getElementType().isF32())
      return std::nullopt;
    ArrayRef<char> raw = dense.getRawData();
    bool splat = dense.isSplat();
    if (raw.size() != (splat ? 1 : numElements) * sizeof(float))
      return std::nullopt;
    return std::make_pair(ArrayRef<float>(reinterpret_cast<const float *>(raw.data()),
                                          raw.size() / sizeof(float)),
                          splat);
  }
  if (auto resource = dyn_cast<DenseResourceElementsAttr>(init)) {
    ArrayRef<char> raw = resource.getData();
    if (!resource.getElementType().isF32() ||
        raw.size() != static_cast<size_t>(numElements) * sizeof(float) ||
        reinterpret_cast<uintptr_t>(raw.data()) % alignof(float) != 0)
      return std::nullopt;
    return std::make_pair(
        ArrayRef<float>(reinterpret_cast<const float *>(raw.data()), numElements), false);
  }
  return std::nullopt;
}

std::optional<ConstantWeight> constantWeight(const Contraction &c) {
  linalg::GenericOp op = c.op;
  Value w = op.getDpsInputOperand(1)->get();
  auto get = w.getDefiningOp<memref::GetGlobalOp>();
  auto type = cast<MemRefType>(w.getType());
  if (!get || c.extB || !type.getElementType().isF32() || type.getRank() != 2 ||
      !type.hasStaticShape() || !type.getLayout().isIdentity())
    return std::nullopt;
  auto global = SymbolTable::lookupNearestSymbolFrom<memref::GlobalOp>(get, get.getNameAttr());
  if (!global || !global.getConstant() || !global.getInitialValue())
    return std::nullopt;
  auto values = constantF32Values(*global.getInitialValue(), type.getNumElements());
  if (!values)
    return std::nullopt;
  AffineMap bMap = op.getMatchingIndexingMap(op.getDpsInputOperand(1));
  auto d0 = dyn_cast<AffineDimExpr>(bMap.getResult(0));
  auto d1 = dyn_cast<AffineDimExpr>(bMap.getResult(1));
  if (!d0 || !d1)
    return std::nullopt;
  if (d0.getPosition() == c.nDim && d1.getPosition() == c.kDim)
    return ConstantWeight{global, values->first, values->second, true};
  if (d0.getPosition() == c.kDim && d1.getPosition() == c.nDim)
    return ConstantWeight{global, values->first, values->second, false};
  return std::nullopt;
}

/// The global `<weight>_packed32` : memref<ceil(N/32) x K x 32 x f32> with
/// packed[p][k][j] = W[32p + j][k] (0 past N); created once per weight.
memref::GlobalOp packedGlobal(ConstantWeight w) {
  ModuleOp module = w.global->getParentOfType<ModuleOp>();
  std::string name = (w.global.getSymName() + "_packed32").str();
  if (auto existing = module.lookupSymbol<memref::GlobalOp>(name))
    return existing;
  auto shape = cast<MemRefType>(w.global.getType()).getShape();
  int64_t n = w.kMinor ? shape[0] : shape[1], k = w.kMinor ? shape[1] : shape[0];
  int64_t panels = (n + kPanel - 1) / kPanel;
  std::vector<float> packed(panels * k * kPanel, 0.0f);
  if (w.splat) {
    float v = w.values.front();
    for (int64_t p = 0; p < panels; ++p)
      for (int64_t kk = 0; kk < k; ++kk)
        for (int64_t j = 0; j < kPanel && p * kPanel + j < n; ++j)
          packed[(p * k + kk) * kPanel + j] = v;
  } else {
    ArrayRef<float> values = w.values;
    for (int64_t row = 0; row < (w.kMinor ? n : k); ++row)
      for (int64_t col = 0; col < (w.kMinor ? k : n); ++col) {
        int64_t nn = w.kMinor ? row : col, kk = w.kMinor ? col : row;
        packed[((nn / kPanel) * k + kk) * kPanel + nn % kPanel] = values[row * shape[1] + col];
      }
  }
  MLIRContext *ctx = module.getContext();
  auto type = MemRefType::get({panels, k, kPanel}, Float32Type::get(ctx));
  auto tensorType = RankedTensorType::get({panels, k, kPanel}, Float32Type::get(ctx));
  OpBuilder b(w.global);
  // Weights from a dense_resource stay resources (one copy of the packed bytes, not a second one
  // uniqued in the context); small dense weights stay dense.
  Attribute init;
  if (isa<DenseResourceElementsAttr>(*w.global.getInitialValue()))
    init = DenseResourceElementsAttr::get(
        tensorType, name, HeapAsmResourceBlob::allocateAndCopyInferAlign<float>(packed));
  else
    init = DenseElementsAttr::get(tensorType, ArrayRef<float>(packed));
  return memref::GlobalOp::create(b, w.global.getLoc(), b.getStringAttr(name),
                                  b.getStringAttr("private"), TypeAttr::get(type), init,
                                  b.getUnitAttr(), b.getI64IntegerAttr(64));
}

/// Builds the tiled loop nest that replaces `c.op`.
class Emitter {
public:
  Emitter(const Contraction &c, int64_t mTile, int64_t kTile)
      : c(c), op(c.op), mTile(mTile), kTile(llvm::alignTo(kTile, kLanes)), b(op),
        loc(op.getLoc()) {}

  void emit() {
    a = op.getDpsInputOperand(0)->get();
    bmat = op.getDpsInputOperand(1)->get();
    out = op.getDpsInitOperand(0)->get();
    aMap = op.getMatchingIndexingMap(op.getDpsInputOperand(0));
    bMap = op.getMatchingIndexingMap(op.getDpsInputOperand(1));

    SmallVector<Range> ranges = cast<linalg::LinalgOp>(op.getOperation()).createLoopRanges(b, loc);
    for (Range &r : ranges)
      sizes.push_back(getValueOrCreateConstantIndexOp(b, loc, r.size));
    c0 = idx(0);
    c1 = idx(1);
    f32 = b.getF32Type();
    vecType = VectorType::get({kLanes}, f32);
    maskType = VectorType::get({kLanes}, b.getI1Type());

    Value n = sizes[c.nDim];
    if (c.gemv)
      return emitGemv();
    if (std::optional<ConstantWeight> w = constantWeight(c)) {
      memref::GlobalOp g = packedGlobal(*w);
      prepacked = memref::GetGlobalOp::create(b, loc, g.getType(), g.getSymName());
    }
    Value numPanels = arith::CeilDivUIOp::create(b, loc, n, idx(kPanel));
    SmallVector<Value> lbs, ubs, steps;
    parallelBounds(numPanels, lbs, ubs, steps);
    auto par = scf::ParallelOp::create(b, loc, lbs, ubs, steps,
                            [&](OpBuilder &nb, Location, ValueRange ivs) {
                              OpBuilder::InsertionGuard g(b);
                              b.setInsertionPoint(nb.getInsertionBlock(),
                                                  nb.getInsertionPoint());
                              emitPanel(ivs);
                            });
    // Every dim of this loop is worth distributing: decoda-cpu-parallel-loops keeps them all.
    par->setAttr(kCollapseAttr, b.getUnitAttr());
  }

  bool usedPrepackedWeight() const { return static_cast<bool>(prepacked); }

private:
  /// Unit-step bounds over the outer dims, then [0, last).
  void parallelBounds(Value last, SmallVectorImpl<Value> &lbs, SmallVectorImpl<Value> &ubs,
                      SmallVectorImpl<Value> &steps) {
    for (unsigned d : c.outerDims) {
      lbs.push_back(c0);
      ubs.push_back(sizes[d]);
      steps.push_back(c1);
    }
    lbs.push_back(c0);
    ubs.push_back(last);
    steps.push_back(c1);
  }

  /// Few rows: scf.parallel over (outer dims, blocks of kGemvRows columns); per column n and
  /// row m, a vector<16xf32> of partial sums along k (masked tail), reduced and added to C.
  void emitGemv() {
    constexpr int64_t kGemvRows = 16;
    int64_t rows = *getConstantIntValue(sizes[c.mDim]);
    Value n = sizes[c.nDim], k = sizes[c.kDim];
    Value numBlocks = arith::CeilDivUIOp::create(b, loc, n, idx(kGemvRows));
    SmallVector<Value> lbs, ubs, steps;
    parallelBounds(numBlocks, lbs, ubs, steps);
    Value kFull = arith::SubIOp::create(b, loc, k, arith::RemUIOp::create(b, loc, k, idx(kLanes)));
    Value tailMask = vector::CreateMaskOp::create(
        b, loc, maskType, ValueRange{arith::SubIOp::create(b, loc, k, kFull)});
    Value zeroVec = arith::ConstantOp::create(b, loc, DenseElementsAttr::get(vecType, 0.0f));
    auto par = scf::ParallelOp::create(b, loc, lbs, ubs, steps, [&](OpBuilder &nb, Location,
                                                                    ValueRange ivs) {
      OpBuilder::InsertionGuard g(b);
      b.setInsertionPoint(nb.getInsertionBlock(), nb.getInsertionPoint());
      SmallVector<Value> point(c.numLoops, Value());
      for (auto [d, iv] : llvm::zip(c.outerDims, ivs.drop_back()))
        point[d] = iv;
      Value nStart = arith::MulIOp::create(b, loc, ivs.back(), idx(kGemvRows));
      Value nEnd = arith::MinSIOp::create(
          b, loc, n, arith::AddIOp::create(b, loc, nStart, idx(kGemvRows)));
      auto cols = scf::ForOp::create(b, loc, nStart, nEnd, c1);
      b.setInsertionPoint(cols.getBody()->getTerminator());
      point[c.nDim] = cols.getInductionVar();
      auto loadVec = [&](Value memref, AffineMap map, ArrayRef<Value> p, bool ext, Value mask) {
        Type elem = cast<MemRefType>(memref.getType()).getElementType();
        auto type = VectorType::get({kLanes}, elem);
        SmallVector<Value> indices = apply(map, p);
        Value v;
        if (mask) {
          Value pass = ext ? arith::ConstantOp::create(b, loc, DenseElementsAttr::get(
                                                                   type, b.getFloatAttr(elem, 0.0)))
                                 .getResult()
                           : zeroVec;
          v = vector::MaskedLoadOp::create(b, loc, type, memref, indices, mask, pass);
        } else {
          v = vector::LoadOp::create(b, loc, type, memref, indices);
        }
        return ext ? arith::ExtFOp::create(b, loc, vecType, v).getResult() : v;
      };
      auto step = [&](Value k0, ValueRange accs, Value mask) {
        SmallVector<Value> p(point);
        p[c.kDim] = k0;
        Value w = loadVec(bmat, bMap, p, c.extB, mask);
        SmallVector<Value> next;
        for (int64_t i = 0; i < rows; ++i) {
          p[c.mDim] = idx(i);
          Value av = loadVec(a, aMap, p, c.extA, mask);
          next.push_back(vector::FMAOp::create(b, loc, av, w, accs[i]));
        }
        return next;
      };
      SmallVector<Value> init(rows, zeroVec);
      auto kLoop = scf::ForOp::create(b, loc, c0, kFull, idx(kLanes), init,
                                      [&](OpBuilder &lb, Location, Value k0, ValueRange accs) {
                                        OpBuilder::InsertionGuard g2(b);
                                        b.setInsertionPoint(lb.getInsertionBlock(),
                                                            lb.getInsertionPoint());
                                        scf::YieldOp::create(b, loc, step(k0, accs, Value()));
                                      });
      // The k tail (all lanes off when K is a multiple of 16).
      SmallVector<Value> accs = step(kFull, kLoop.getResults(), tailMask);
      for (int64_t i = 0; i < rows; ++i) {
        point[c.mDim] = idx(i);
        SmallVector<Value> ci;
        for (unsigned d = 0; d <= c.nDim; ++d)
          ci.push_back(point[d]);
        Value sum = vector::ReductionOp::create(b, loc, vector::CombiningKind::ADD, accs[i]);
        Value old = memref::LoadOp::create(b, loc, out, ci);
        memref::StoreOp::create(b, loc, arith::AddFOp::create(b, loc, old, sum), out, ci);
      }
    });
    par->setAttr(kCollapseAttr, b.getUnitAttr());
  }

  Value idx(int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); }

  /// Indices of `map` at the loop point `point` (one value per loop; unused dims may be null).
  SmallVector<Value> apply(AffineMap map, ArrayRef<Value> point) {
    SmallVector<Value> operands;
    for (Value v : point)
      operands.push_back(v ? v : c0);
    SmallVector<Value> result;
    for (unsigned i = 0; i < map.getNumResults(); ++i) {
      AffineExpr e = map.getResult(i);
      if (auto d = dyn_cast<AffineDimExpr>(e)) {
        result.push_back(operands[d.getPosition()]);
        continue;
      }
      if (auto cst = dyn_cast<AffineConstantExpr>(e)) {
        result.push_back(idx(cst.getValue()));
        continue;
      }
      result.push_back(
          affine::AffineApplyOp::create(b, loc, map.getSubMap({i}), operands).getResult());
    }
    return result;
  }

  Value loadScalar(Value memref, ArrayRef<Value> indices, bool ext) {
    Value v = memref::LoadOp::create(b, loc, memref, indices);
    if (ext)
      v = arith::ExtFOp::create(b, loc, f32, v);
    return v;
  }

  void emitPanel(ValueRange ivs) {
    // The loop point with the outer dims fixed.
    SmallVector<Value> point(c.numLoops, Value());
    for (auto [d, iv] : llvm::zip(c.outerDims, ivs.drop_back()))
      point[d] = iv;
    Value panel = ivs.back();
    Value n0 = arith::MulIOp::create(b, loc, panel, idx(kPanel));
    Value nValid = arith::MinSIOp::create(
        b, loc, idx(kPanel), arith::SubIOp::create(b, loc, sizes[c.nDim], n0));
    masks[0] = vector::CreateMaskOp::create(b, loc, maskType, ValueRange{nValid});
    masks[1] = vector::CreateMaskOp::create(
        b, loc, maskType, ValueRange{arith::SubIOp::create(b, loc, nValid, idx(kLanes))});

    // The packed panel: a per-iteration alloca; after convert-scf-to-openmp,
    // decoda-cpu-private-allocas makes it one buffer per thread. Constant weights were packed
    // at compile time: the panel is a view of the packed global instead.
    auto panelType = MemRefType::get({kTile, kPanel}, f32);
    if (!prepacked)
      bp = memref::AllocaOp::create(b, loc, panelType, ValueRange{}, b.getI64IntegerAttr(64));
    Value kSize = sizes[c.kDim];
    auto kLoop = scf::ForOp::create(b, loc, c0, kSize, idx(kTile));
    {
      OpBuilder::InsertionGuard g(b);
      b.setInsertionPoint(kLoop.getBody()->getTerminator());
      Value k0 = kLoop.getInductionVar();
      Value kc = arith::MinSIOp::create(b, loc, idx(kTile),
                                        arith::SubIOp::create(b, loc, kSize, k0));
      if (prepacked)
        bp = memref::SubViewOp::create(
            b, loc, MemRefType::get({ShapedType::kDynamic, kPanel}, f32,
                                    StridedLayoutAttr::get(b.getContext(), ShapedType::kDynamic,
                                                           {kPanel, 1})),
            prepacked, ArrayRef<OpFoldResult>{panel, k0, b.getIndexAttr(0)},
            ArrayRef<OpFoldResult>{b.getIndexAttr(1), kc, b.getIndexAttr(kPanel)},
            ArrayRef<OpFoldResult>{b.getIndexAttr(1), b.getIndexAttr(1), b.getIndexAttr(1)});
      else
        emitPack(point, n0, nValid, k0, kc);
      Value m = sizes[c.mDim];
      Value mFull = arith::SubIOp::create(b, loc, m, arith::RemUIOp::create(b, loc, m, idx(mTile)));
      auto full = scf::ForOp::create(b, loc, c0, mFull, idx(mTile));
      {
        OpBuilder::InsertionGuard g2(b);
        b.setInsertionPoint(full.getBody()->getTerminator());
        emitTile(point, full.getInductionVar(), mTile, n0, k0, kc);
      }
      // Leftover rows: 2-row tiles, then at most one single row.
      Value mPairs = arith::SubIOp::create(
          b, loc, m, arith::RemUIOp::create(b, loc, arith::SubIOp::create(b, loc, m, mFull), idx(2)));
      auto pairs = scf::ForOp::create(b, loc, mFull, mPairs, idx(2));
      {
        OpBuilder::InsertionGuard g2(b);
        b.setInsertionPoint(pairs.getBody()->getTerminator());
        emitTile(point, pairs.getInductionVar(), 2, n0, k0, kc);
      }
      auto rest = scf::ForOp::create(b, loc, mPairs, m, c1);
      {
        OpBuilder::InsertionGuard g2(b);
        b.setInsertionPoint(rest.getBody()->getTerminator());
        emitTile(point, rest.getInductionVar(), 1, n0, k0, kc);
      }
    }
  }

  /// bp[k][j] = B[.., n0 + j, k0 + k] for j < nValid, k < kc; 0 for nValid <= j < 32.
  void emitPack(ArrayRef<Value> outerPoint, Value n0, Value nValid, Value k0, Value kc) {
    SmallVector<Value> point(outerPoint);
    // Loop order: the one that walks B contiguously innermost.
    bool kInner = false;
    if (auto d = dyn_cast<AffineDimExpr>(bMap.getResults().back()))
      kInner = d.getPosition() == c.kDim;
    auto copy = [&](Value j, Value k) {
      point[c.nDim] = arith::AddIOp::create(b, loc, n0, j);
      point[c.kDim] = arith::AddIOp::create(b, loc, k0, k);
      Value v = loadScalar(bmat, apply(bMap, point), c.extB);
      memref::StoreOp::create(b, loc, v, bp, ValueRange{k, j});
    };
    auto nest = [&](Value ub0, Value ub1, bool swap,
                    function_ref<void(Value, Value)> fn, Value lb0) {
      auto outer = scf::ForOp::create(b, loc, lb0, ub0, c1);
      OpBuilder::InsertionGuard g(b);
      b.setInsertionPoint(outer.getBody()->getTerminator());
      auto inner = scf::ForOp::create(b, loc, c0, ub1, c1);
      b.setInsertionPoint(inner.getBody()->getTerminator());
      if (swap)
        fn(inner.getInductionVar(), outer.getInductionVar());
      else
        fn(outer.getInductionVar(), inner.getInductionVar());
    };
    if (kInner && unitInnerStride(bmat)) {
      emitTransposingPack(outerPoint, n0, nValid, k0, kc);
      return;
    }
    if (kInner)
      nest(nValid, kc, false, copy, c0);
    else
      nest(kc, nValid, true, [&](Value j, Value k) { copy(j, k); }, c0);
    // Zero padding of the last panel.
    Value zero = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(0.0));
    nest(idx(kPanel), kc, false,
         [&](Value j, Value k) { memref::StoreOp::create(b, loc, zero, bp, ValueRange{k, j}); },
         nValid);
  }

  /// The pack of a B contiguous along k (out_in weights, attention keys) with vectors: per
  /// 16 x 16 block, 16 masked row loads (rows past nValid and k past kc read as 0), a transpose
  /// by four rounds of interleaving shuffles, 16 stores into bp. Rows of bp past kc receive
  /// zeros (bp has room: kTile is a multiple of 16) and are never read.
  void emitTransposingPack(ArrayRef<Value> outerPoint, Value n0, Value nValid, Value k0,
                           Value kc) {
    SmallVector<int64_t> lo, hi;
    for (int64_t i = 0; i < kLanes / 2; ++i) {
      lo.append({i, i + kLanes});
      hi.append({i + kLanes / 2, i + kLanes / 2 + kLanes});
    }
    Type elem = cast<MemRefType>(bmat.getType()).getElementType();
    auto loadType = VectorType::get({kLanes}, elem);
    Value passThru = arith::ConstantOp::create(
        b, loc, DenseElementsAttr::get(loadType, b.getFloatAttr(elem, 0.0)));
    auto kLoop = scf::ForOp::create(b, loc, c0, kc, idx(kLanes));
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPoint(kLoop.getBody()->getTerminator());
    Value kk = kLoop.getInductionVar();
    Value kRem = arith::MinSIOp::create(b, loc, idx(kLanes),
                                        arith::SubIOp::create(b, loc, kc, kk));
    SmallVector<Value> point(outerPoint);
    point[c.kDim] = arith::AddIOp::create(b, loc, k0, kk);
    for (int64_t group = 0; group < kPanel / kLanes; ++group) {
      SmallVector<Value> rowsV;
      for (int64_t r = 0; r < kLanes; ++r) {
        Value j = idx(group * kLanes + r);
        // Rows past N are masked off entirely (their index is clamped to stay in bounds).
        Value valid = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, j, nValid);
        Value count = arith::SelectOp::create(b, loc, valid, kRem, c0);
        Value mask = vector::CreateMaskOp::create(b, loc, maskType, ValueRange{count});
        Value row = arith::AddIOp::create(b, loc, n0, j);
        Value last = arith::SubIOp::create(b, loc, sizes[c.nDim], c1);
        point[c.nDim] = arith::MinSIOp::create(b, loc, row, last);
        Value v = vector::MaskedLoadOp::create(b, loc, loadType, bmat, apply(bMap, point), mask,
                                               passThru);
        if (c.extB)
          v = arith::ExtFOp::create(b, loc, vecType, v);
        rowsV.push_back(v);
      }
      for (int round = 0; round < 4; ++round) {
        SmallVector<Value> next;
        for (int64_t i = 0; i < kLanes / 2; ++i) {
          next.push_back(vector::ShuffleOp::create(b, loc, rowsV[i], rowsV[i + kLanes / 2], lo));
          next.push_back(vector::ShuffleOp::create(b, loc, rowsV[i], rowsV[i + kLanes / 2], hi));
        }
        rowsV = next;
      }
      for (int64_t i = 0; i < kLanes; ++i)
        vector::StoreOp::create(b, loc, rowsV[i], bp,
                                ValueRange{arith::AddIOp::create(b, loc, kk, idx(i)),
                                           idx(group * kLanes)});
    }
  }

  /// A rows x 32 register tile at rows m0 .. m0 + rows of the current panel and k block.
  void emitTile(ArrayRef<Value> outerPoint, Value m0, int64_t rows, Value n0, Value k0,
                Value kc) {
    SmallVector<Value> point(outerPoint);
    Value zeroVec = arith::ConstantOp::create(b, loc, DenseElementsAttr::get(vecType, 0.0f));
    SmallVector<SmallVector<Value>> cIdx;
    SmallVector<Value> init;
    for (int64_t i = 0; i < rows; ++i) {
      point[c.mDim] = i ? arith::AddIOp::create(b, loc, m0, idx(i)).getResult() : m0;
      for (int64_t j = 0; j < 2; ++j) {
        SmallVector<Value> ci;
        for (unsigned d = 0; d < c.nDim; ++d)
          ci.push_back(point[d]);
        ci.push_back(j ? arith::AddIOp::create(b, loc, n0, idx(kLanes)).getResult() : n0);
        init.push_back(
            vector::MaskedLoadOp::create(b, loc, vecType, out, ci, masks[j], zeroVec));
        cIdx.push_back(ci);
      }
    }
    auto loop = scf::ForOp::create(
        b, loc, c0, kc, c1, init, [&](OpBuilder &nb, Location, Value kk, ValueRange accs) {
          OpBuilder::InsertionGuard g(b);
          b.setInsertionPoint(nb.getInsertionBlock(), nb.getInsertionPoint());
          Value bv[2];
          for (int64_t j = 0; j < 2; ++j)
            bv[j] = vector::LoadOp::create(b, loc, vecType, bp, ValueRange{kk, idx(j * kLanes)});
          SmallVector<Value> next;
          SmallVector<Value> p(point);
          p[c.kDim] = arith::AddIOp::create(b, loc, k0, kk);
          for (int64_t i = 0; i < rows; ++i) {
            p[c.mDim] = i ? arith::AddIOp::create(b, loc, m0, idx(i)).getResult() : m0;
            Value av = loadScalar(a, apply(aMap, p), c.extA);
            Value splat = vector::BroadcastOp::create(b, loc, vecType, av);
            for (int64_t j = 0; j < 2; ++j)
              next.push_back(vector::FMAOp::create(b, loc, splat, bv[j], accs[i * 2 + j]));
          }
          scf::YieldOp::create(b, loc, next);
        });
    for (auto [ci, acc, k] : llvm::zip(cIdx, loop.getResults(), llvm::seq<int64_t>(0, 2 * rows)))
      vector::MaskedStoreOp::create(b, loc, out, ci, masks[k % 2], acc);
  }

  const Contraction &c;
  linalg::GenericOp op;
  int64_t mTile, kTile;
  OpBuilder b;
  Location loc;
  Value a, bmat, out, bp, c0, c1;
  Value prepacked; // the compile-time packed constant weight, if any
  AffineMap aMap, bMap;
  SmallVector<Value> sizes;
  Type f32;
  VectorType vecType, maskType;
  Value masks[2];
};

struct CPUContractionCodegenPass
    : public mlir::decoda::impl::CPUContractionCodegenPassBase<CPUContractionCodegenPass> {
  using Base::Base;

  void runOnOperation() override {
    if (mTile < 1 || mTile > 14 || kTile < 1) {
      getOperation().emitError() << "decoda-cpu-contraction-codegen: m-tile must be in [1, 14] "
                                    "(2 accumulators a row, 32 registers) and k-tile positive";
      return signalPassFailure();
    }
    SmallVector<linalg::GenericOp> generics;
    getOperation().walk([&](linalg::GenericOp op) { generics.push_back(op); });
    for (linalg::GenericOp op : generics) {
      FailureOr<Contraction> c = match(op, gemvMaxRows);
      if (failed(c)) {
        if (op.getNumReductionLoops() > 0)
          ++numSkipped;
        continue;
      }
      Emitter emitter(*c, mTile, kTile);
      emitter.emit();
      if (c->gemv)
        ++numDotProducts;
      if (emitter.usedPrepackedWeight())
        ++numPrepacked;
      op.erase();
      ++numRewritten;
    }
  }
};
} // namespace
