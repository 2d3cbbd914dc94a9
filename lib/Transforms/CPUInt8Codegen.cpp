//===- CPUInt8Codegen.cpp - AVX-512 VNNI code for qlinear contractions ----===//
//
// After bufferization, the i32 contraction generic of a `decoda.qlinear` (tagged
// `decoda.qlinear_acc` by its lowering: acc[lead..., n] += (x[lead..., k] - zp) * w[n, k], x and w
// i8) becomes
//
//   xu = alloc [M, roundup(K, 64)] u8      // xu[m][k] = x[m][k] ^ 0x80 = x + 128 (0x80 past K)
//   scf.parallel (over ceil(N/32) work items) {      // OpenMP, static; each item takes the
//    while ((p = atomic counter++) < ceil(N/32)):    // next panel until none is left
//     panel p:
//     for m tiles of MT rows (then 2-row and 1-row tiles):
//       2*MT accumulators vector<16xi32> = 0
//       for k4 in [0, ceil(K/4)):
//         b0, b1 = packed[p][k4][0:64], [64:128]          // 16 columns x 4 k each (s8)
//         per row: a = broadcast of the 4 bytes xu[m][4k4 : 4k4+4] (u8)
//                  acc = vpdpbusd(acc, a, b)              // Σ of 4 u8*s8 products per lane
//       out[m][n0 + ..] += acc - (128 + zp[m]) * colsum[n]   (masked on the last panel)
//   }
//
// vpdpbusd multiplies unsigned by signed bytes, so the signed activations are offset by 128
// and Σ_k 128 * w[n, k] is taken back out per column (with the zero point: Σ (x - zp) w =
// Σ (x + 128) w - (128 + zp) Σ w). vpdpbusd wraps (no saturation), so the i32 result equals the
// scalar loops' bit for bit whenever those do not overflow. The weight layout is VNNI's: per
// panel of 32 columns and group of 4 k, the 4 bytes of each column in one 32-bit lane; padded
// columns and k are 0. Constant weights are packed at compile time (with their column sums);
// others at run time, once per call, before the panel loop.
//
//===----------------------------------------------------------------------===//

#include "decoda/Transforms/Passes.h"

#include "X86Dot.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/AsmState.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "llvm/ADT/MapVector.h"

namespace mlir::decoda {
#define GEN_PASS_DEF_CPUINT8CODEGENPASS
#include "decoda/Transforms/Passes.h.inc"
} // namespace mlir::decoda

using namespace mlir;
using mlir::decoda::dotU8S8;

namespace {
constexpr int64_t kLanes = 16;                 // i32 lanes of an AVX-512 register
constexpr int64_t kPanel = 2 * kLanes;         // columns of a packed panel / register tile
constexpr int64_t kGroup = 4;                  // k values per 32-bit lane (vpdpbusd)
constexpr int64_t kRowBytes = kPanel * kGroup; // bytes of one k group of a panel
constexpr int64_t kXAlign = 64;                // the u8 activation rows are padded to this
constexpr llvm::StringLiteral kQLinearAttr = "decoda.qlinear_acc";
constexpr llvm::StringLiteral kEpilogueAttr = "decoda.qlinear_epilogue";
constexpr llvm::StringLiteral kCollapseAttr = "decoda.parallel_all_dims";

bool identityLayout(Value v) {
  auto t = dyn_cast<MemRefType>(v.getType());
  return t && t.getLayout().isIdentity();
}

bool hasElementType(Value v, unsigned width) {
  auto t = dyn_cast<MemRefType>(v.getType());
  return t && t.getElementType().isInteger(width);
}

/// What the matcher found: the operands of the tagged i32 contraction.
struct Int8Contraction {
  linalg::GenericOp op;
  Value x, w, zp, out;
  int64_t rank = 0; // of x and out
};

/// The tagged generic with the maps of Quant.cpp's lowering, on identity-layout buffers.
FailureOr<Int8Contraction> match(linalg::GenericOp op) {
  if (!op->hasAttr(kQLinearAttr) || !op.hasPureBufferSemantics() || op.getNumDpsInits() != 1)
    return failure();
  unsigned numIns = op.getNumDpsInputs();
  if (numIns != 2 && numIns != 3)
    return failure();
  Int8Contraction c;
  c.op = op;
  c.x = op.getDpsInputOperand(0)->get();
  c.w = op.getDpsInputOperand(1)->get();
  c.zp = numIns == 3 ? op.getDpsInputOperand(2)->get() : Value();
  c.out = op.getDpsInitOperand(0)->get();
  if (!hasElementType(c.x, 8) || !hasElementType(c.w, 8) || !hasElementType(c.out, 32) ||
      (c.zp && !hasElementType(c.zp, 8)))
    return failure();
  if (!identityLayout(c.x) || !identityLayout(c.w) || !identityLayout(c.out) ||
      (c.zp && !identityLayout(c.zp)))
    return failure();
  c.rank = cast<MemRefType>(c.x.getType()).getRank();
  if (c.rank < 2 || cast<MemRefType>(c.out.getType()).getRank() != c.rank ||
      cast<MemRefType>(c.w.getType()).getRank() != 2 ||
      op.getNumLoops() != static_cast<unsigned>(c.rank + 1))
    return failure();
  // x: (lead..., k); w: (n, k); out: (lead..., n).
  MLIRContext *ctx = op.getContext();
  unsigned numLoops = c.rank + 1;
  SmallVector<AffineExpr> lead;
  for (int64_t i = 0; i + 1 < c.rank; ++i)
    lead.push_back(getAffineDimExpr(i, ctx));
  AffineExpr n = getAffineDimExpr(c.rank - 1, ctx), k = getAffineDimExpr(c.rank, ctx);
  SmallVector<AffineExpr> xe(lead), oe(lead);
  xe.push_back(k);
  oe.push_back(n);
  if (op.getMatchingIndexingMap(op.getDpsInputOperand(0)) != AffineMap::get(numLoops, 0, xe, ctx) ||
      op.getMatchingIndexingMap(op.getDpsInputOperand(1)) !=
          AffineMap::get(numLoops, 0, {n, k}, ctx) ||
      op.getMatchingIndexingMap(op.getDpsInitOperand(0)) != AffineMap::get(numLoops, 0, oe, ctx))
    return failure();
  if (c.zp) {
    auto zt = cast<MemRefType>(c.zp.getType());
    if (zt.getRank() != 0 && (zt.getRank() != c.rank || zt.getDimSize(c.rank - 1) != 1))
      return failure();
  }
  return c;
}

/// The dequantising epilogue generic of the same qlinear (tagged `decoda.qlinear_epilogue`:
/// y = sitofp(acc) * xs * ws[n] (+ bias[n]), rounded to y's type or requantised with os), when
/// it can be computed in the register tiles instead: `acc` is a fresh buffer used only by a zero
/// fill before the contraction, the contraction, this generic after it (nothing writes memory
/// in between) and deallocations. The fused code then runs at the epilogue's place.
struct Epilogue {
  linalg::GenericOp op;
  linalg::FillOp fill;
  memref::AllocOp acc;
  Value xs, ws, bias, os, y;
};

std::optional<Epilogue> matchEpilogue(Int8Contraction c) {
  Epilogue e;
  e.acc = c.out.getDefiningOp<memref::AllocOp>();
  if (!e.acc)
    return std::nullopt;
  for (OpOperand &use : e.acc->getUses()) {
    Operation *user = use.getOwner();
    if (user == c.op.getOperation() || isa<memref::DeallocOp>(user))
      continue;
    if (auto fill = dyn_cast<linalg::FillOp>(user); fill && !e.fill) {
      e.fill = fill;
      continue;
    }
    auto g = dyn_cast<linalg::GenericOp>(user);
    if (g && !e.op && g->hasAttr(kEpilogueAttr) && use.getOperandNumber() == 0 &&
        g.getNumDpsInits() == 1 && g.getNumDpsInputs() >= 3 && g.getNumDpsInputs() <= 5) {
      e.op = g;
      continue;
    }
    return std::nullopt;
  }
  if (!e.fill || !e.op || !matchPattern(e.fill.getInputs()[0], m_Zero()))
    return std::nullopt;
  Block *block = c.op->getBlock();
  if (e.fill->getBlock() != block || e.op->getBlock() != block ||
      !e.fill->isBeforeInBlock(c.op) || !c.op->isBeforeInBlock(e.op))
    return std::nullopt;
  for (Operation *op = c.op->getNextNode(); op != e.op.getOperation(); op = op->getNextNode())
    if (!isMemoryEffectFree(op) && !isa<memref::AllocOp, memref::DeallocOp>(op))
      return std::nullopt;
  // Operands: acc, xs (rank 0 or per token), ws (rank 0 or [N]), then bias [N] and/or os (rank 0).
  auto rankOf = [](Value v) { return cast<MemRefType>(v.getType()).getRank(); };
  e.xs = e.op.getDpsInputOperand(1)->get();
  e.ws = e.op.getDpsInputOperand(2)->get();
  for (unsigned i = 3; i < e.op.getNumDpsInputs(); ++i) {
    Value v = e.op.getDpsInputOperand(i)->get();
    if (rankOf(v) == 1 && !e.bias && !e.os)
      e.bias = v;
    else if (rankOf(v) == 0 && !e.os)
      e.os = v;
    else
      return std::nullopt;
  }
  e.y = e.op.getDpsInitOperand(0)->get();
  for (Value v : {e.xs, e.ws, e.y})
    if (!identityLayout(v))
      return std::nullopt;
  if (e.bias && !identityLayout(e.bias))
    return std::nullopt;
  if (!cast<MemRefType>(e.xs.getType()).getElementType().isF32() ||
      !cast<MemRefType>(e.ws.getType()).getElementType().isF32() ||
      (rankOf(e.xs) != 0 && rankOf(e.xs) != c.rank) || rankOf(e.ws) > 1 ||
      rankOf(e.y) != c.rank)
    return std::nullopt;
  Type yElem = cast<MemRefType>(e.y.getType()).getElementType();
  if (static_cast<bool>(e.os) != yElem.isInteger(8))
    return std::nullopt;
  // The body is the one of Quant.cpp's lowering: only these ops.
  for (Operation &op : e.op.getRegion().front())
    if (!isa<arith::SIToFPOp, arith::MulFOp, arith::AddFOp, arith::ExtFOp, arith::TruncFOp,
             arith::DivFOp, math::RoundEvenOp, arith::MaxNumFOp, arith::MinNumFOp,
             arith::FPToSIOp, linalg::YieldOp>(op))
      return std::nullopt;
  return e;
}

/// The i8 elements of a constant global's initial value (`dense` or `dense_resource`).
std::optional<std::pair<ArrayRef<int8_t>, bool>> constantI8Values(Attribute init,
                                                                  int64_t numElements) {
  if (auto dense = dyn_cast<DenseElementsAttr>(init)) {
    if (!dense.getElementType().isInteger(8))
      return std::nullopt;
    ArrayRef<char> raw = dense.getRawData();
    bool splat = dense.isSplat();
    if (raw.size() != static_cast<size_t>(splat ? 1 : numElements))
      return std::nullopt;
    return std::make_pair(
        ArrayRef<int8_t>(reinterpret_cast<const int8_t *>(raw.data()), raw.size()), splat);
  }
  if (auto resource = dyn_cast<DenseResourceElementsAttr>(init)) {
    ArrayRef<char> raw = resource.getData();
    if (!resource.getElementType().isInteger(8) || raw.size() != static_cast<size_t>(numElements))
      return std::nullopt;
    return std::make_pair(
        ArrayRef<int8_t>(reinterpret_cast<const int8_t *>(raw.data()), numElements), false);
  }
  return std::nullopt;
}

/// For a constant [N, K] i8 weight: the globals `<name>_vnni32` (memref<P x K4 x 128 x i8>) and
/// `<name>_vnni32_colsum` (memref<32P x i32>), created once per weight.
std::optional<std::pair<memref::GlobalOp, memref::GlobalOp>> packedGlobals(Value w) {
  auto get = w.getDefiningOp<memref::GetGlobalOp>();
  auto type = cast<MemRefType>(w.getType());
  if (!get || !type.hasStaticShape())
    return std::nullopt;
  auto global = SymbolTable::lookupNearestSymbolFrom<memref::GlobalOp>(get, get.getNameAttr());
  if (!global || !global.getConstant() || !global.getInitialValue())
    return std::nullopt;
  auto values = constantI8Values(*global.getInitialValue(), type.getNumElements());
  if (!values)
    return std::nullopt;
  ModuleOp module = global->getParentOfType<ModuleOp>();
  std::string name = (global.getSymName() + "_vnni32").str();
  std::string sumName = name + "_colsum";
  auto existing = module.lookupSymbol<memref::GlobalOp>(name);
  auto existingSum = module.lookupSymbol<memref::GlobalOp>(sumName);
  if (existing && existingSum)
    return std::make_pair(existing, existingSum);

  int64_t n = type.getDimSize(0), k = type.getDimSize(1);
  int64_t panels = (n + kPanel - 1) / kPanel, k4 = (k + kGroup - 1) / kGroup;
  std::vector<int8_t> packed(panels * k4 * kRowBytes, 0);
  std::vector<int32_t> colsum(panels * kPanel, 0);
  for (int64_t nn = 0; nn < n; ++nn)
    for (int64_t kk = 0; kk < k; ++kk) {
      int8_t v = values->second ? values->first.front() : values->first[nn * k + kk];
      packed[((nn / kPanel) * k4 + kk / kGroup) * kRowBytes + (nn % kPanel) * kGroup +
             kk % kGroup] = v;
      colsum[nn] += v;
    }
  MLIRContext *ctx = module.getContext();
  Type i8 = IntegerType::get(ctx, 8), i32 = IntegerType::get(ctx, 32);
  auto packedType = RankedTensorType::get({panels, k4, kRowBytes}, i8);
  auto sumType = RankedTensorType::get({panels * kPanel}, i32);
  OpBuilder b(global);
  Attribute init;
  if (isa<DenseResourceElementsAttr>(*global.getInitialValue()))
    init = DenseResourceElementsAttr::get(
        packedType, name, HeapAsmResourceBlob::allocateAndCopyInferAlign<int8_t>(packed));
  else
    init = DenseElementsAttr::get(packedType, ArrayRef<int8_t>(packed));
  auto g = memref::GlobalOp::create(b, global.getLoc(), b.getStringAttr(name),
                                    b.getStringAttr("private"),
                                    TypeAttr::get(MemRefType::get(packedType.getShape(), i8)), init,
                                    b.getUnitAttr(), b.getI64IntegerAttr(64));
  auto s = memref::GlobalOp::create(b, global.getLoc(), b.getStringAttr(sumName),
                                    b.getStringAttr("private"),
                                    TypeAttr::get(MemRefType::get(sumType.getShape(), i32)),
                                    DenseElementsAttr::get(sumType, ArrayRef<int32_t>(colsum)),
                                    b.getUnitAttr(), b.getI64IntegerAttr(64));
  return std::make_pair(g, s);
}

class Emitter {
public:
  Emitter(const Int8Contraction &c, int64_t mTile, bool vnni, std::optional<Epilogue> epi)
      : c(c), mTile(mTile), vnni(vnni), epi(epi),
        b(epi ? epi->op.getOperation() : this->c.op.getOperation()),
        loc(this->c.op.getLoc()) {}

  /// Returns whether the weight was packed at compile time.
  bool emit() {
    i8 = b.getI8Type();
    i32 = b.getI32Type();
    accType = VectorType::get({kLanes}, i32);
    bytesType = VectorType::get({kRowBytes / 2}, i8);
    maskType = VectorType::get({kLanes}, b.getI1Type());
    c0 = idx(0);
    c1 = idx(1);

    // Rows M (the lead dims, flattened), K and N.
    SmallVector<ReassociationIndices> rowsAndLast{{}, {c.rank - 1}};
    for (int64_t i = 0; i + 1 < c.rank; ++i)
      rowsAndLast[0].push_back(i);
    x = c.x;
    out = epi ? epi->y : c.out;
    if (c.rank > 2) {
      x = memref::CollapseShapeOp::create(b, loc, x, rowsAndLast);
      out = memref::CollapseShapeOp::create(b, loc, out, rowsAndLast);
    }
    if (epi) {
      // Per-tensor parameters once; a per-token x_scale as a [M] buffer.
      auto xt = cast<MemRefType>(epi->xs.getType());
      if (xt.getRank() == 0) {
        xsScalar = memref::LoadOp::create(b, loc, epi->xs, ValueRange{});
      } else {
        ReassociationIndices all;
        for (int64_t i = 0; i < xt.getRank(); ++i)
          all.push_back(i);
        xsRows = memref::CollapseShapeOp::create(b, loc, epi->xs,
                                                 ArrayRef<ReassociationIndices>{all});
      }
      if (cast<MemRefType>(epi->ws.getType()).getRank() == 0)
        wsSplat = splat(f32Vec(), memref::LoadOp::create(b, loc, epi->ws, ValueRange{}));
      if (epi->os)
        osSplat = splat(f32Vec(), memref::LoadOp::create(b, loc, epi->os, ValueRange{}));
    }
    m = memref::DimOp::create(b, loc, x, 0);
    k = memref::DimOp::create(b, loc, x, 1);
    n = memref::DimOp::create(b, loc, c.w, 0);
    k4 = arith::CeilDivUIOp::create(b, loc, k, idx(kGroup));
    Value panels = arith::CeilDivUIOp::create(b, loc, n, idx(kPanel));

    // The zero point: one i32 per tensor, or a [M] buffer per token.
    if (c.zp) {
      auto zt = cast<MemRefType>(c.zp.getType());
      if (zt.getRank() == 0) {
        zpScalar =
            arith::ExtSIOp::create(b, loc, i32, memref::LoadOp::create(b, loc, c.zp, ValueRange{}));
      } else {
        ReassociationIndices all;
        for (int64_t i = 0; i < zt.getRank(); ++i)
          all.push_back(i);
        zpRows = memref::CollapseShapeOp::create(b, loc, c.zp, ArrayRef<ReassociationIndices>{all});
      }
    }

    emitOffsetActivations();

    bool prepacked = false;
    if (auto globals = packedGlobals(c.w)) {
      packed = memref::GetGlobalOp::create(b, loc, globals->first.getType(),
                                           globals->first.getSymName());
      colsum = memref::GetGlobalOp::create(b, loc, globals->second.getType(),
                                           globals->second.getSymName());
      prepacked = true;
    } else {
      emitRuntimePack(panels);
    }

    Value counter = panelCounter();
    auto par = scf::ParallelOp::create(
        b, loc, ValueRange{c0}, ValueRange{panels}, ValueRange{c1},
        [&](OpBuilder &nb, Location, ValueRange ivs) {
          OpBuilder::InsertionGuard g(b);
          b.setInsertionPoint(nb.getInsertionBlock(), nb.getInsertionPoint());
          if (!counter) {
            emitPanel(ivs.front());
            return;
          }
          // Take the next panel until none is left (the iterations after a thread's first one
          // find none): the panels go to whichever thread is running.
          auto loop = scf::WhileOp::create(
              b, loc, TypeRange{b.getIndexType()}, ValueRange{},
              [&](OpBuilder &wb, Location wl, ValueRange) {
                Value one = arith::ConstantOp::create(wb, wl, wb.getI64IntegerAttr(1));
                Value old = memref::AtomicRMWOp::create(wb, wl, arith::AtomicRMWKind::addi, one,
                                                        counter, ValueRange{c0});
                Value p = arith::IndexCastOp::create(wb, wl, wb.getIndexType(), old);
                Value more =
                    arith::CmpIOp::create(wb, wl, arith::CmpIPredicate::slt, p, panels);
                scf::ConditionOp::create(wb, wl, more, ValueRange{p});
              },
              [&](OpBuilder &wb, Location wl, ValueRange args) {
                OpBuilder::InsertionGuard g2(b);
                b.setInsertionPoint(wb.getInsertionBlock(), wb.getInsertionPoint());
                emitPanel(args.front());
                scf::YieldOp::create(b, wl);
              });
          (void)loop;
        });
    par->setAttr(kCollapseAttr, b.getUnitAttr());
    memref::DeallocOp::create(b, loc, xu);
    if (!prepacked) {
      memref::DeallocOp::create(b, loc, packed);
      memref::DeallocOp::create(b, loc, colsum);
    }
    return prepacked;
  }

private:
  /// The panel counter of the dynamic schedule, reset to 0 here: a memref<1xi64> on the stack
  /// of the enclosing function (allocated once at its entry, so a contraction in a loop does
  /// not grow the stack). None (panels statically split) inside another parallel loop, whose
  /// iterations would share it.
  Value panelCounter() {
    Operation *op = epi ? epi->op.getOperation() : c.op.getOperation();
    auto fn = op->getParentOfType<FunctionOpInterface>();
    if (!fn || fn.isExternal() || op->getParentOfType<scf::ParallelOp>())
      return Value();
    Value counter;
    {
      OpBuilder::InsertionGuard g(b);
      b.setInsertionPointToStart(&fn.getFunctionBody().front());
      counter = memref::AllocaOp::create(b, loc, MemRefType::get({1}, b.getI64Type()));
    }
    memref::StoreOp::create(b, loc, arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(0)),
                            counter, ValueRange{c0});
    return counter;
  }

  Value idx(int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); }
  Value i32Const(int64_t v) {
    return arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(static_cast<int32_t>(v)));
  }
  Value splat(Type type, Value v) { return vector::BroadcastOp::create(b, loc, type, v); }
  VectorType f32Vec() { return VectorType::get({kLanes}, b.getF32Type()); }
  Value f32Splat(double v) {
    return arith::ConstantOp::create(
        b, loc, DenseElementsAttr::get(f32Vec(), b.getF32FloatAttr(static_cast<float>(v))));
  }

  /// A per-column float vector of the epilogue at columns cols[j] (masked, widened to f32).
  Value columnVector(Value buffer, int64_t j) {
    Type elem = cast<MemRefType>(buffer.getType()).getElementType();
    auto type = VectorType::get({kLanes}, elem);
    Value pass = arith::ConstantOp::create(
        b, loc, DenseElementsAttr::get(type, b.getFloatAttr(elem, 0.0)));
    Value v = vector::MaskedLoadOp::create(b, loc, type, buffer, ValueRange{cols[j]}, masks[j],
                                           pass);
    return elem.isF32() ? v : arith::ExtFOp::create(b, loc, f32Vec(), v).getResult();
  }

  /// The epilogue of Quant.cpp's lowering on 16 accumulators of row `row`, stored into y:
  /// sitofp(acc) * xs * ws (+ bias), rounded to y's type, or requantised with os.
  void storeEpilogue(Value acc, Value row, int64_t j) {
    Value v = arith::SIToFPOp::create(b, loc, f32Vec(), acc);
    Value xs = xsScalar ? xsScalar : memref::LoadOp::create(b, loc, xsRows, ValueRange{row});
    v = arith::MulFOp::create(b, loc, v, splat(f32Vec(), xs));
    v = arith::MulFOp::create(b, loc, v, wsVec[j]);
    if (epi->bias)
      v = arith::AddFOp::create(b, loc, v, biasVec[j]);
    Type elem = cast<MemRefType>(out.getType()).getElementType();
    auto outType = VectorType::get({kLanes}, elem);
    if (epi->os) {
      v = arith::DivFOp::create(b, loc, v, osSplat);
      v = math::RoundEvenOp::create(b, loc, v);
      v = arith::MaxNumFOp::create(b, loc, v, f32Splat(-128.0));
      v = arith::MinNumFOp::create(b, loc, v, f32Splat(127.0));
      v = arith::FPToSIOp::create(b, loc, outType, v);
    } else if (!elem.isF32()) {
      v = arith::TruncFOp::create(b, loc, outType, v);
    }
    vector::MaskedStoreOp::create(b, loc, out, ValueRange{row, cols[j]}, masks[j], v);
  }

  /// xu[m][k] = x[m][k] + 128 as u8 (x ^ 0x80), rows padded to a multiple of 64 bytes with
  /// 0x80 (those bytes meet zero weights).
  void emitOffsetActivations() {
    Value kPad = arith::MulIOp::create(b, loc, arith::CeilDivUIOp::create(b, loc, k, idx(kXAlign)),
                                       idx(kXAlign));
    auto type = MemRefType::get({ShapedType::kDynamic, ShapedType::kDynamic}, i8);
    xu = memref::AllocOp::create(b, loc, type, ValueRange{m, kPad}, b.getI64IntegerAttr(64));
    auto vt = VectorType::get({kXAlign}, i8);
    auto vmask = VectorType::get({kXAlign}, b.getI1Type());
    Value zero =
        arith::ConstantOp::create(b, loc, DenseElementsAttr::get(vt, b.getI8IntegerAttr(0)));
    Value flip = arith::ConstantOp::create(
        b, loc, DenseElementsAttr::get(vt, b.getIntegerAttr(i8, APInt(8, 0x80))));
    auto rows = scf::ForOp::create(b, loc, c0, m, c1);
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPoint(rows.getBody()->getTerminator());
    Value row = rows.getInductionVar();
    auto cols = scf::ForOp::create(b, loc, c0, kPad, idx(kXAlign));
    b.setInsertionPoint(cols.getBody()->getTerminator());
    Value kk = cols.getInductionVar();
    Value mask = vector::CreateMaskOp::create(b, loc, vmask,
                                              ValueRange{arith::SubIOp::create(b, loc, k, kk)});
    Value v = vector::MaskedLoadOp::create(b, loc, vt, x, ValueRange{row, kk}, mask, zero);
    v = arith::XOrIOp::create(b, loc, v, flip);
    vector::StoreOp::create(b, loc, v, xu, ValueRange{row, kk});
  }

  /// Packs a run-time weight: packed[p][k4][4j + r] = w[32p + j][4 k4 + r] (0 outside) and
  /// colsum[32p + j] = Σ_k w[32p + j][k], in a parallel loop over panels (scalar copies).
  void emitRuntimePack(Value panels) {
    auto pt = MemRefType::get({ShapedType::kDynamic, ShapedType::kDynamic, kRowBytes}, i8);
    packed = memref::AllocOp::create(b, loc, pt, ValueRange{panels, k4}, b.getI64IntegerAttr(64));
    auto st = MemRefType::get({ShapedType::kDynamic}, i32);
    colsum = memref::AllocOp::create(b, loc, st,
                                     ValueRange{arith::MulIOp::create(b, loc, panels, idx(kPanel))},
                                     b.getI64IntegerAttr(64));
    auto par = scf::ParallelOp::create(
        b, loc, ValueRange{c0}, ValueRange{panels}, ValueRange{c1},
        [&](OpBuilder &nb, Location, ValueRange ivs) {
          OpBuilder::InsertionGuard g(b);
          b.setInsertionPoint(nb.getInsertionBlock(), nb.getInsertionPoint());
          Value p = ivs.front();
          Value nLast = arith::SubIOp::create(b, loc, n, c1);
          Value kLast = arith::SubIOp::create(b, loc, k, c1);
          Value zero8 = arith::ConstantOp::create(b, loc, b.getI8IntegerAttr(0));
          auto cols = scf::ForOp::create(b, loc, c0, idx(kPanel), c1);
          b.setInsertionPoint(cols.getBody()->getTerminator());
          Value j = cols.getInductionVar();
          Value col =
              arith::AddIOp::create(b, loc, arith::MulIOp::create(b, loc, p, idx(kPanel)), j);
          Value colOk = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, col, n);
          Value colIn = arith::MinSIOp::create(b, loc, col, nLast);
          auto groups = scf::ForOp::create(
              b, loc, c0, k4, c1, ValueRange{i32Const(0)},
              [&](OpBuilder &lb, Location, Value g4, ValueRange iter) {
                OpBuilder::InsertionGuard g2(b);
                b.setInsertionPoint(lb.getInsertionBlock(), lb.getInsertionPoint());
                Value sum = iter.front();
                for (int64_t r = 0; r < kGroup; ++r) {
                  Value kk = arith::AddIOp::create(
                      b, loc, arith::MulIOp::create(b, loc, g4, idx(kGroup)), idx(r));
                  Value ok = arith::AndIOp::create(
                      b, loc, colOk,
                      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, kk, k));
                  Value v = memref::LoadOp::create(
                      b, loc, c.w, ValueRange{colIn, arith::MinSIOp::create(b, loc, kk, kLast)});
                  v = arith::SelectOp::create(b, loc, ok, v, zero8);
                  Value pos = arith::AddIOp::create(
                      b, loc, arith::MulIOp::create(b, loc, j, idx(kGroup)), idx(r));
                  memref::StoreOp::create(b, loc, v, packed, ValueRange{p, g4, pos});
                  sum = arith::AddIOp::create(b, loc, sum, arith::ExtSIOp::create(b, loc, i32, v));
                }
                scf::YieldOp::create(b, loc, ValueRange{sum});
              });
          memref::StoreOp::create(b, loc, groups.getResult(0), colsum, ValueRange{col});
        });
    par->setAttr(kCollapseAttr, b.getUnitAttr());
  }

  void emitPanel(Value p) {
    Value n0 = arith::MulIOp::create(b, loc, p, idx(kPanel));
    Value nValid =
        arith::MinSIOp::create(b, loc, idx(kPanel), arith::SubIOp::create(b, loc, n, n0));
    masks[0] = vector::CreateMaskOp::create(b, loc, maskType, ValueRange{nValid});
    masks[1] = vector::CreateMaskOp::create(
        b, loc, maskType, ValueRange{arith::SubIOp::create(b, loc, nValid, idx(kLanes))});
    // Column sums of the panel (padded to whole panels, so unmasked), and their multiple by
    // 128 + zp when the zero point is one per tensor.
    for (int64_t j = 0; j < 2; ++j) {
      Value col = j ? arith::AddIOp::create(b, loc, n0, idx(kLanes)).getResult() : n0;
      sums[j] = vector::LoadOp::create(b, loc, accType, colsum, ValueRange{col});
      if (!zpRows) {
        Value off = zpScalar ? arith::AddIOp::create(b, loc, zpScalar, i32Const(128)).getResult()
                             : i32Const(128);
        corr[j] = arith::MulIOp::create(b, loc, sums[j], splat(accType, off));
      }
      cols[j] = col;
    }
    if (epi)
      for (int64_t j = 0; j < 2; ++j) {
        wsVec[j] = wsSplat ? wsSplat : columnVector(epi->ws, j);
        if (epi->bias)
          biasVec[j] = columnVector(epi->bias, j);
      }
    Value mFull = arith::SubIOp::create(b, loc, m, arith::RemUIOp::create(b, loc, m, idx(mTile)));
    auto tiles = [&](Value lb, Value ub, int64_t rows) {
      auto loop = scf::ForOp::create(b, loc, lb, ub, idx(rows));
      OpBuilder::InsertionGuard g(b);
      b.setInsertionPoint(loop.getBody()->getTerminator());
      emitTile(p, loop.getInductionVar(), rows);
    };
    tiles(c0, mFull, mTile);
    Value mPairs = arith::SubIOp::create(
        b, loc, m, arith::RemUIOp::create(b, loc, arith::SubIOp::create(b, loc, m, mFull), idx(2)));
    tiles(mFull, mPairs, 2);
    tiles(mPairs, m, 1);
  }

  /// A rows x 32 tile at row m0 of panel p over the whole of k. A single row (decode) keeps two
  /// sets of accumulators over alternate k groups (four independent vpdpbusd chains), summed
  /// at the end (exact: integer addition).
  void emitTile(Value p, Value m0, int64_t rows) {
    Value zero =
        arith::ConstantOp::create(b, loc, DenseElementsAttr::get(accType, b.getI32IntegerAttr(0)));
    SmallVector<Value> rowIdx;
    for (int64_t i = 0; i < rows; ++i)
      rowIdx.push_back(i ? arith::AddIOp::create(b, loc, m0, idx(i)).getResult() : m0);
    auto a4Type = VectorType::get({kGroup}, i8);
    auto a1Type = VectorType::get({1}, i32);
    // accs[2i + j] += row i's 4 bytes at group g4 times panel half j.
    auto step = [&](Value g4, ValueRange accs) {
      Value bv[2];
      for (int64_t j = 0; j < 2; ++j)
        bv[j] = vector::LoadOp::create(b, loc, bytesType, packed,
                                       ValueRange{p, g4, idx(j * kRowBytes / 2)});
      Value kk = arith::MulIOp::create(b, loc, g4, idx(kGroup));
      SmallVector<Value> next;
      for (int64_t i = 0; i < rows; ++i) {
        Value a4 = vector::LoadOp::create(b, loc, a4Type, xu, ValueRange{rowIdx[i], kk});
        Value a1 = vector::BitCastOp::create(b, loc, a1Type, a4);
        Value a = vector::ExtractOp::create(b, loc, a1, ArrayRef<int64_t>{0});
        for (int64_t j = 0; j < 2; ++j)
          next.push_back(dotU8S8(b, loc, accs[2 * i + j], a, bv[j], vnni));
      }
      return next;
    };
    auto kLoop = [&](Value lb, Value ub, Value stepSize, int64_t copies, ValueRange init) {
      return scf::ForOp::create(
          b, loc, lb, ub, stepSize, init, [&](OpBuilder &nb, Location, Value g4, ValueRange accs) {
            OpBuilder::InsertionGuard g(b);
            b.setInsertionPoint(nb.getInsertionBlock(), nb.getInsertionPoint());
            SmallVector<Value> next;
            int64_t per = 2 * rows;
            for (int64_t u = 0; u < copies; ++u) {
              Value gu = u ? arith::AddIOp::create(b, loc, g4, idx(u)).getResult() : g4;
              llvm::append_range(next, step(gu, accs.slice(u * per, per)));
            }
            scf::YieldOp::create(b, loc, next);
          });
    };
    SmallVector<Value> results;
    if (rows == 1) {
      Value k4Even = arith::SubIOp::create(b, loc, k4, arith::RemUIOp::create(b, loc, k4, idx(2)));
      auto pairs = kLoop(c0, k4Even, idx(2), 2, SmallVector<Value>(4, zero));
      auto last = kLoop(k4Even, k4, c1, 1, pairs.getResults().take_front(2));
      for (int64_t j = 0; j < 2; ++j)
        results.push_back(arith::AddIOp::create(b, loc, last.getResult(j), pairs.getResult(2 + j)));
    } else {
      auto loop = kLoop(c0, k4, c1, 1, SmallVector<Value>(2 * rows, zero));
      results.assign(loop.getResults().begin(), loop.getResults().end());
    }
    for (int64_t i = 0; i < rows; ++i) {
      Value rowCorr[2] = {corr[0], corr[1]};
      if (zpRows) {
        Value zp = arith::ExtSIOp::create(
            b, loc, i32, memref::LoadOp::create(b, loc, zpRows, ValueRange{rowIdx[i]}));
        Value off = splat(accType, arith::AddIOp::create(b, loc, zp, i32Const(128)));
        for (int64_t j = 0; j < 2; ++j)
          rowCorr[j] = arith::MulIOp::create(b, loc, sums[j], off);
      }
      for (int64_t j = 0; j < 2; ++j) {
        if (epi) {
          storeEpilogue(arith::SubIOp::create(b, loc, results[2 * i + j], rowCorr[j]),
                        rowIdx[i], j);
          continue;
        }
        SmallVector<Value, 2> at{rowIdx[i], cols[j]};
        Value old = vector::MaskedLoadOp::create(b, loc, accType, out, at, masks[j], zero);
        Value v = arith::SubIOp::create(b, loc, results[2 * i + j], rowCorr[j]);
        vector::MaskedStoreOp::create(b, loc, out, at, masks[j],
                                      arith::AddIOp::create(b, loc, old, v));
      }
    }
  }

  Int8Contraction c;
  int64_t mTile;
  bool vnni;
  std::optional<Epilogue> epi;
  Value xsScalar, xsRows, wsSplat, osSplat, wsVec[2], biasVec[2];
  OpBuilder b;
  Location loc;
  Type i8, i32;
  VectorType accType, bytesType, maskType;
  Value c0, c1, x, out, m, k, n, k4, xu, packed, colsum, zpScalar, zpRows;
  Value masks[2], sums[2], corr[2], cols[2];
};

struct CPUInt8CodegenPass : public mlir::decoda::impl::CPUInt8CodegenPassBase<CPUInt8CodegenPass> {
  using Base::Base;

  void runOnOperation() override {
    if (mTile < 1 || mTile > 14) {
      getOperation().emitError() << "decoda-cpu-int8-codegen: m-tile must be in [1, 14] "
                                    "(2 accumulators a row, 32 registers)";
      return signalPassFailure();
    }
    // Only the tagged contractions: a fused rewrite erases its epilogue generic (and the fill),
    // so a list of every generic would hold erased ops by the time the loop reached them.
    SmallVector<linalg::GenericOp> generics;
    getOperation().walk([&](linalg::GenericOp op) {
      if (op->hasAttr(kQLinearAttr))
        generics.push_back(op);
    });
    llvm::MapVector<Operation *, int64_t> perFunction; // for the remarks
    for (linalg::GenericOp op : generics) {
      FailureOr<Int8Contraction> c = match(op);
      if (failed(c))
        continue;
      Operation *fn = op->getParentOfType<FunctionOpInterface>();
      ++perFunction[fn ? fn : getOperation().getOperation()];
      std::optional<Epilogue> epi = matchEpilogue(*c);
      Emitter emitter(*c, mTile, vnni, epi);
      if (emitter.emit())
        ++numPrepacked;
      op.erase();
      if (epi) {
        // The accumulator buffer is gone: only its fill and deallocations remain.
        epi->op.erase();
        epi->fill.erase();
        for (Operation *user : llvm::make_early_inc_range(epi->acc->getUsers()))
          user->erase();
        epi->acc.erase();
        ++numFusedEpilogues;
      }
      ++numRewritten;
    }
    // At the function's location (an op remark would print the whole function after it).
    for (auto [fn, count] : perFunction)
      emitRemark(fn->getLoc()) << "decoda-cpu-int8-codegen: " << count << " i8 contraction"
                       << (count == 1 ? "" : "s")
                       << (vnni ? " as AVX-512 VNNI vpdpbusd register tiles"
                                : " as i32 vector multiply-adds (vnni=false: the target has no "
                                  "AVX-512 VNNI)");
  }
};
} // namespace

// The vpdpbusd intrinsic, or the same four products in i32 vector ops (X86Dot.h). Each
// product fits 16 bits, so LLVM selects vpmaddwd rather than vpmulld.
Value mlir::decoda::dotU8S8(OpBuilder &b, Location loc, Value acc, Value a, Value w, bool vnni) {
  auto accType = cast<VectorType>(acc.getType());
  auto bytesType = cast<VectorType>(w.getType());
  if (vnni) {
    Value av = vector::BroadcastOp::create(b, loc, accType, a);
    Value aBytes = vector::BitCastOp::create(b, loc, bytesType, av);
    return LLVM::CallIntrinsicOp::create(b, loc, accType,
                                         b.getStringAttr("llvm.x86.avx512.vpdpbusd.512"),
                                         ValueRange{acc, aBytes, w})
        .getResult(0);
  }
  auto vconst = [&](int64_t v) {
    return arith::ConstantOp::create(b, loc,
                                     DenseElementsAttr::get(accType, b.getI32IntegerAttr(v)))
        .getResult();
  };
  auto sconst = [&](int64_t v) {
    return arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(v)).getResult();
  };
  Value lanes = vector::BitCastOp::create(b, loc, accType, w);
  for (int64_t r = 0; r < kGroup; ++r) {
    Value wr = r + 1 < kGroup ? arith::ShLIOp::create(b, loc, lanes, vconst(24 - 8 * r)).getResult()
                              : lanes;
    wr = arith::ShRSIOp::create(b, loc, wr, vconst(24));
    Value ar = r ? arith::ShRUIOp::create(b, loc, a, sconst(8 * r)).getResult() : a;
    if (r + 1 < kGroup)
      ar = arith::AndIOp::create(b, loc, ar, sconst(0xFF));
    Value prod = arith::MulIOp::create(b, loc, wr, vector::BroadcastOp::create(b, loc, accType, ar));
    acc = arith::AddIOp::create(b, loc, acc, prod);
  }
  return acc;
}
