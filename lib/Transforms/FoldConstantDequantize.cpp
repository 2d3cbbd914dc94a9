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


namespace mlir::decoda {
#define GEN_PASS_DEF_FOLDCONSTANTDEQUANTIZEPASS
#include "decoda/Transforms/Passes.h.inc"
} // namespace mlir::decoda

using namespace mlir;
using namespace mlir::decoda;

namespace {
using ::decoda::float_bits::Format;

Format formatOf(Type et) {
  return et.isF32() ? Format::F32 : et.isF16() ? Format::F16 : Format::BF16;
}

/// Element i of a float constant's bytes as f32; a splat's one element.
float floatAt(const ConstantView &view, Format format, int64_t i) {
  int64_t bytes = format == Format::F32 ? 4 : 2;
  return ::decoda::float_bits::load(view.raw.data() + (view.splat ? 0 : i) * bytes, format);
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
  Format format = formatOf(et);
  SmallVector<char> data(n * k * eb);
  for (int64_t r = 0; r < n; ++r)
    for (int64_t c = 0; c < k; ++c) {
      int64_t blk = r * blocks + c / bs;
      uint8_t byte = static_cast<uint8_t>(
          codes->raw[codes->splat ? 0 : r * rowBytes + c / per]);
      float code = static_cast<float>((byte >> (bits * (c % per))) & mask);
      float zp = zps ? floatAt(*zps, format, blk) : static_cast<float>(1 << (bits - 1));
      float w = (code - zp) * floatAt(*scales, format, blk);
      ::decoda::float_bits::store(data.data() + (r * k + c) * eb, w, format);
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
