//===- GPULowerBF16Mma.cpp - bf16 and s8 nvgpu.mma.sync to nvvm.mma.sync -===//
//
// Upstream convert-nvgpu-to-nvvm (LLVM 22) cannot deduce PTX types for bf16 operands; the
// intrinsic (mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32) takes each pair of bf16 of
// A and B as one i32 register and returns four f32. For i8 it lowers only to the .satfinite
// form (the accumulator clamps at the i32 range); the INT8 contraction's reference (the
// linalg body, the CPU kernels) wraps, so i8 m16n8k32 is lowered here as well, to
// mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32 (four i8 per i32 register, four i32
// results), or .u8.s8 where the op carries decoda.unsigned_a (the INT8 attention's
// probabilities). Within the range decoda.qlinear calls exact (K < 2^17) the two forms agree.
//
//===----------------------------------------------------------------------===//

#include "decoda/Transforms/Passes.h"

#include "GPUMmaFragments.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

namespace mlir::decoda {
#define GEN_PASS_DEF_GPULOWERBF16MMAPASS
#include "decoda/Transforms/Passes.h.inc"
} // namespace mlir::decoda

using namespace mlir;

namespace {
struct GPULowerBF16MmaPass
    : public mlir::decoda::impl::GPULowerBF16MmaPassBase<GPULowerBF16MmaPass> {
  using Base::Base;

  /// The i32 registers of a vector<Rx2xbf16> or vector<Rx4xi8> fragment, in register order.
  static SmallVector<Value> registers(OpBuilder &b, Location loc, Value fragment) {
    auto type = cast<VectorType>(fragment.getType());
    auto i32x1 = VectorType::get({1}, b.getI32Type());
    SmallVector<Value> regs;
    for (int64_t r = 0; r < type.getDimSize(0); ++r) {
      Value pair = vector::ExtractOp::create(b, loc, fragment, ArrayRef<int64_t>{r});
      Value bits = vector::BitCastOp::create(b, loc, i32x1, pair);
      regs.push_back(vector::ExtractOp::create(b, loc, bits, ArrayRef<int64_t>{0}));
    }
    return regs;
  }

  void runOnOperation() override {
    SmallVector<nvgpu::MmaSyncOp> ops;
    getOperation().walk([&](nvgpu::MmaSyncOp op) {
      Type el = cast<VectorType>(op.getMatrixA().getType()).getElementType();
      if (el.isBF16() || el.isInteger(8))
        ops.push_back(op);
    });
    for (nvgpu::MmaSyncOp op : ops) {
      auto aType = cast<VectorType>(op.getMatrixA().getType());
      auto bType = cast<VectorType>(op.getMatrixB().getType());
      auto cType = cast<VectorType>(op.getMatrixC().getType());
      SmallVector<int64_t> shape = llvm::to_vector(llvm::map_range(
          op.getMmaShape(), [](Attribute a) { return cast<IntegerAttr>(a).getInt(); }));
      Type el = aType.getElementType();
      bool s8 = el.isInteger(8);
      int64_t perReg = s8 ? 4 : 2;
      OpBuilder b(op);
      Type acc = s8 ? Type(b.getI32Type()) : Type(b.getF32Type());
      if (shape != SmallVector<int64_t>{16, 8, s8 ? 32 : 16} ||
          aType != VectorType::get({4, perReg}, el) ||
          bType != VectorType::get({2, perReg}, el) || cType != VectorType::get({2, 2}, acc)) {
        if (s8)
          op.emitError() << "decoda-gpu-lower-bf16-mma: only m16n8k32 with vector<4x4xi8>, "
                            "vector<2x4xi8> and vector<2x2xi32> operands is supported, found "
                         << aType << ", " << bType << ", " << cType;
        else
          op.emitError() << "decoda-gpu-lower-bf16-mma: only m16n8k16 with vector<4x2xbf16>, "
                            "vector<2x2xbf16> and vector<2x2xf32> operands is supported, found "
                         << aType << ", " << bType << ", " << cType;
        return signalPassFailure();
      }
      Location loc = op.getLoc();
      SmallVector<Value> a = registers(b, loc, op.getMatrixA());
      SmallVector<Value> bRegs = registers(b, loc, op.getMatrixB());
      SmallVector<Value> c;
      for (int64_t r = 0; r < 2; ++r)
        for (int64_t i = 0; i < 2; ++i)
          c.push_back(vector::ExtractOp::create(b, loc, op.getMatrixC(), ArrayRef<int64_t>{r, i}));
      auto resultType = LLVM::LLVMStructType::getLiteral(&getContext(), {acc, acc, acc, acc});
      NVVM::MMATypes ptxType = s8 ? NVVM::MMATypes::s8 : NVVM::MMATypes::bf16;
      // u8 x s8 (the INT8 attention's P·V): A's bytes are unsigned.
      NVVM::MMATypes aPtxType =
          s8 && op->hasAttr(mlir::decoda::gpu_mma::kUnsignedAAttr) ? NVVM::MMATypes::u8 : ptxType;
      // s8: the wrapping (not .satfinite) form.
      std::optional<NVVM::MMAIntOverflow> overflow;
      if (s8)
        overflow = NVVM::MMAIntOverflow::wrapped;
      auto mma = NVVM::MmaOp::create(
          b, loc, resultType, a, bRegs, c, ArrayRef<int64_t>{16, 8, s8 ? 32 : 16}, std::nullopt,
          overflow, std::array<NVVM::MMATypes, 2>{aPtxType, ptxType},
          std::array<NVVM::MMALayout, 2>{NVVM::MMALayout::row, NVVM::MMALayout::col});
      SmallVector<Value> d;
      for (int64_t i = 0; i < 4; ++i)
        d.push_back(LLVM::ExtractValueOp::create(b, loc, mma.getResult(), ArrayRef<int64_t>{i}));
      Value result = vector::FromElementsOp::create(b, loc, cType, d);
      op.getResult().replaceAllUsesWith(result);
      op.erase();
      ++numLowered;
    }
  }
};
} // namespace
