//===- X86Dot.h - the u8 x s8 dot product of the VNNI kernels ---*- C++ -*-===//
//
// Shared by decoda-cpu-int8-codegen (qlinear) and decoda-cpu-int8-attention (QK^T, PV), so that
// both follow one `vnni` decision (the target CPU's avx512vnni, set by decoda-lower-to-cpu).
//
//===----------------------------------------------------------------------===//

#ifndef DECODA_LIB_TRANSFORMS_X86DOT_H
#define DECODA_LIB_TRANSFORMS_X86DOT_H

#include "mlir/IR/Builders.h"

namespace mlir::decoda {

/// acc[j] += Σ_{r<4} zext(a byte r) * sext(w[4j + r]) for the 16 i32 lanes j of `acc`
/// (vector<16xi32>): `a` is the i32 holding four u8 values (the same for every lane), `w` 64 s8
/// values (vector<64xi8>, lane j's four bytes). With `vnni` one `vpdpbusd`; otherwise plain i32
/// vector ops any x86-64 CPU runs (LLVM selects vpmaddwd). Both are bit-exact: vpdpbusd adds
/// without saturation, wrapping like addi.
Value dotU8S8(OpBuilder &b, Location loc, Value acc, Value a, Value w, bool vnni);

} // namespace mlir::decoda

#endif // DECODA_LIB_TRANSFORMS_X86DOT_H
