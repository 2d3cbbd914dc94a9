//===- GPUMmaFragments.h - ldmatrix / mma.sync m16n8k16 fragment helpers --===//
//
// Shared by the tensor-core kernels (GPUFlashAttention.cpp, GPUTensorCoreMatmul.cpp): the
// nvgpu ops on the fragments of mma.sync.m16n8k16 with .bf16/.f16 operands and f32
// accumulators (PTX ISA, "Matrix fragments for mma.m16n8k16"): A is vector<4x2xT> (four
// 32-bit registers), B vector<2x2xT>, C/D vector<2x2xf32> (rows g and g + 8 of a 16x8 tile).
//
//===----------------------------------------------------------------------===//

#ifndef DECODA_LIB_TRANSFORMS_GPUMMAFRAGMENTS_H
#define DECODA_LIB_TRANSFORMS_GPUMMAFRAGMENTS_H

#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Builders.h"

#include <utility>

namespace mlir::decoda::gpu_mma {

/// On an i8 nvgpu.mma.sync: A holds u8 (decoda-gpu-lower-bf16-mma emits mma.sync.m16n8k32
/// .u8.s8 for it; nvgpu has no unsigned operand types).
constexpr llvm::StringLiteral kUnsignedAAttr = "decoda.unsigned_a";

/// ldmatrix.sync.aligned.m8n8.x`tiles`{.trans}.shared.b16 at `mem[indices]` (lane l gives the
/// address of row l % 8 of matrix l / 8).
inline Value ldmatrix(OpBuilder &b, Location loc, Type type, Value mem, ValueRange indices,
                      bool transpose, int64_t tiles) {
  return nvgpu::LdMatrixOp::create(b, loc, type, mem, indices, transpose, tiles);
}

/// The two B fragments (registers 0-1 and 2-3) of an x4 load of two adjacent n8 tiles, as
/// row extracts and inserts (a 2-D strided slice has no LLVM lowering).
inline std::pair<Value, Value> splitX4(OpBuilder &b, Location loc, Value x4) {
  auto type = cast<VectorType>(x4.getType());
  auto fragType = VectorType::get({2, type.getDimSize(1)}, type.getElementType());
  Value zero = arith::ConstantOp::create(b, loc, fragType, b.getZeroAttr(fragType));
  Value frags[2];
  for (int64_t h = 0; h < 2; ++h) {
    Value frag = zero;
    for (int64_t r = 0; r < 2; ++r) {
      Value reg = vector::ExtractOp::create(b, loc, x4, ArrayRef<int64_t>{2 * h + r});
      frag = vector::InsertOp::create(b, loc, reg, frag, ArrayRef<int64_t>{r});
    }
    frags[h] = frag;
  }
  return {frags[0], frags[1]};
}

/// D = A·B + C with mma.sync.aligned.m16n8k16.row.col.f32.{bf16,f16}.
inline Value mma16816(OpBuilder &b, Location loc, Value a, Value bFrag, Value c) {
  return nvgpu::MmaSyncOp::create(b, loc, a, bFrag, c, ArrayRef<int64_t>{16, 8, 16});
}

} // namespace mlir::decoda::gpu_mma

#endif // DECODA_LIB_TRANSFORMS_GPUMMAFRAGMENTS_H
