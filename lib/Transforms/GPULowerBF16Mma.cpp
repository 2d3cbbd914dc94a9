//===- GPULowerBF16Mma.cpp - bf16 nvgpu.mma.sync to nvvm.mma.sync ---------===//
//
// Upstream convert-nvgpu-to-nvvm (LLVM 22) cannot deduce PTX types for bf16 operands; the
// intrinsic (mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32) takes each pair of bf16 of
// A and B as one i32 register and returns four f32.
//
//===----------------------------------------------------------------------===//

#include "decoda/Transforms/Passes.h"

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

  /// The i32 registers of a vector<Rx2xbf16> fragment, in register order.
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
      if (cast<VectorType>(op.getMatrixA().getType()).getElementType().isBF16())
        ops.push_back(op);
    });
    for (nvgpu::MmaSyncOp op : ops) {
      auto aType = cast<VectorType>(op.getMatrixA().getType());
      auto bType = cast<VectorType>(op.getMatrixB().getType());
      auto cType = cast<VectorType>(op.getMatrixC().getType());
      SmallVector<int64_t> shape = llvm::to_vector(llvm::map_range(
          op.getMmaShape(), [](Attribute a) { return cast<IntegerAttr>(a).getInt(); }));
      if (shape != SmallVector<int64_t>{16, 8, 16} || aType != VectorType::get({4, 2}, aType.getElementType()) ||
          bType != VectorType::get({2, 2}, aType.getElementType()) ||
          cType != VectorType::get({2, 2}, Float32Type::get(&getContext()))) {
        op.emitError() << "decoda-gpu-lower-bf16-mma: only m16n8k16 with vector<4x2xbf16>, "
                          "vector<2x2xbf16> and vector<2x2xf32> operands is supported, found "
                       << aType << ", " << bType << ", " << cType;
        return signalPassFailure();
      }
      OpBuilder b(op);
      Location loc = op.getLoc();
      SmallVector<Value> a = registers(b, loc, op.getMatrixA());
      SmallVector<Value> bRegs = registers(b, loc, op.getMatrixB());
      SmallVector<Value> c;
      for (int64_t r = 0; r < 2; ++r)
        for (int64_t i = 0; i < 2; ++i)
          c.push_back(vector::ExtractOp::create(b, loc, op.getMatrixC(), ArrayRef<int64_t>{r, i}));
      Type f32 = b.getF32Type();
      auto resultType = LLVM::LLVMStructType::getLiteral(&getContext(), {f32, f32, f32, f32});
      auto mma = NVVM::MmaOp::create(
          b, loc, resultType, a, bRegs, c, ArrayRef<int64_t>{16, 8, 16}, std::nullopt,
          std::nullopt,
          std::array<NVVM::MMATypes, 2>{NVVM::MMATypes::bf16, NVVM::MMATypes::bf16},
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
