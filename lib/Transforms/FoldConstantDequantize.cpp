//===- FoldConstantDequantize.cpp - constant block-quantised weights as floats -===//
//
// decoda-fold-constant-dequantize (Passes.td): a decoda.dequantize_blocks whose codes, scales
// and zero points are constants with their data becomes a float constant [N, K], computed as
// the op states: (code - zero point) · scale in f32, rounded once to the result's type (round
// to nearest even). A `dense_resource` codes operand gives a resource, else `dense`.
//
//===----------------------------------------------------------------------===//

#include "decoda/Transforms/Passes.h"

#include "ConstantData.h"

#include "decoda/Dialect/Decoda/IR/DecodaOps.h"
#include "decoda/Support/FloatBits.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/AsmState.h"
#include "mlir/IR/Builders.h"

#include <cstring>

namespace mlir::decoda {
#define GEN_PASS_DEF_FOLDCONSTANTDEQUANTIZEPASS
#include "decoda/Transforms/Passes.h.inc"
} // namespace mlir::decoda

using namespace mlir;
using namespace mlir::decoda;

namespace {
/// Element i of a float constant's bytes (f32, f16 or bf16) as f32; a splat's one element.
float floatAt(const ConstantView &view, Type et, int64_t i) {
  if (view.splat)
    i = 0;
  if (et.isF32()) {
    float f;
    std::memcpy(&f, view.raw.data() + 4 * i, 4);
    return f;
  }
  uint16_t h;
  std::memcpy(&h, view.raw.data() + 2 * i, 2);
  return et.isF16() ? ::decoda::float_bits::fromF16(h) : ::decoda::float_bits::fromBF16(h);
}

/// The folded constant of `op`, or null when an operand is not a constant with its data.
Value fold(OpBuilder &b, DequantizeBlocksOp op) {
  std::optional<ConstantView> codes = constantView(op.getCodes());
  std::optional<ConstantView> scales = constantView(op.getScales());
  std::optional<ConstantView> zps;
  if (Value zp = op.getZeroPoints())
    zps = constantView(zp);
  if (!codes || !scales || (op.getZeroPoints() && !zps))
    return nullptr;
  RankedTensorType type = op.getResult().getType();
  Type et = type.getElementType();
  int64_t n = type.getDimSize(0), k = type.getDimSize(1);
  int64_t bits = op.getBits(), bs = op.getBlockSize(), per = 8 / bits, mask = (1 << bits) - 1;
  int64_t blocks = (k + bs - 1) / bs, rowBytes = blocks * bs * bits / 8;
  int64_t eb = et.getIntOrFloatBitWidth() / 8;
  SmallVector<char> data(n * k * eb);
  for (int64_t r = 0; r < n; ++r)
    for (int64_t c = 0; c < k; ++c) {
      int64_t blk = r * blocks + c / bs;
      uint8_t byte = static_cast<uint8_t>(
          codes->raw[codes->splat ? 0 : r * rowBytes + c / per]);
      float code = static_cast<float>((byte >> (bits * (c % per))) & mask);
      float zp = zps ? floatAt(*zps, et, blk) : static_cast<float>(1 << (bits - 1));
      float w = (code - zp) * floatAt(*scales, et, blk);
      char *dst = data.data() + (r * k + c) * eb;
      if (et.isF32()) {
        std::memcpy(dst, &w, 4);
      } else {
        uint16_t h = et.isF16() ? ::decoda::float_bits::toF16(w) : ::decoda::float_bits::toBF16(w);
        std::memcpy(dst, &h, 2);
      }
    }
  TypedAttr value;
  if (codes->isResource)
    value = DenseResourceElementsAttr::get(
        type, "decoda_dequantized",
        HeapAsmResourceBlob::allocateAndCopyWithAlign(data, alignof(std::max_align_t)));
  else
    value = DenseElementsAttr::getFromRawBuffer(type, data);
  return arith::ConstantOp::create(b, op.getLoc(), type, value);
}

struct FoldConstantDequantizePass
    : public mlir::decoda::impl::FoldConstantDequantizePassBase<FoldConstantDequantizePass> {
  using Base::Base;
  void runOnOperation() override {
    SmallVector<DequantizeBlocksOp> ops;
    getOperation()->walk([&](DequantizeBlocksOp op) { ops.push_back(op); });
    for (DequantizeBlocksOp op : ops) {
      OpBuilder b(op);
      Value folded = fold(b, op);
      if (!folded) {
        if (report)
          op.emitRemark() << "decoda-fold-constant-dequantize: left alone: an operand is not a "
                             "constant with its data";
        continue;
      }
      SmallVector<Operation *> operands;
      for (Value v : op->getOperands())
        operands.push_back(v.getDefiningOp());
      op.getResult().replaceAllUsesWith(folded);
      op.erase();
      ++numFolded;
      // The codes, scales and zero points, once nothing else reads them.
      for (Operation *def : operands)
        if (def && def->use_empty())
          def->erase();
    }
  }
};
} // namespace
