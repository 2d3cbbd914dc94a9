//===- GPURowNorm.h - the configuration of a tagged norm -------*- C++ -*-===//
//
// What decoda-gpu-row-norm reads from a function tagged decoda.gpu_norm (its attributes and
// signature), shared with decoda-gpu-gemv, which folds an RMSNorm into the GEMV kernels that
// read its result.
//
//===----------------------------------------------------------------------===//

#ifndef DECODA_LIB_TRANSFORMS_GPUROWNORM_H
#define DECODA_LIB_TRANSFORMS_GPUROWNORM_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/Support/LLVM.h"

#include <algorithm>
#include <string>

namespace mlir::decoda::row_norm {
inline constexpr int64_t kMaxPerThread = 16; // features per thread kept in registers

struct Config {
  bool centered = false, add = false, bias = false;
  double eps = 0, weightOffset = 0, scale = 1;
  int64_t d = 0, threads = 0;
  // Each thread takes perThread chunks of vec consecutive features (vec: 16 bytes of the
  // storage type, halved until it divides D): chunk tid + i · threads for i < perThread.
  int64_t vec = 1, chunks = 0, perThread = 0;
  Type elem;
};

inline bool identityMemRef(Type t) {
  auto m = dyn_cast<MemRefType>(t);
  return m && m.getLayout().isIdentity();
}

inline FailureOr<Config> readConfig(func::FuncOp fn, DictionaryAttr dict, std::string &why) {
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
  c.vec = 128 / c.elem.getIntOrFloatBitWidth();
  while (c.d % c.vec)
    c.vec /= 2;
  c.chunks = c.d / c.vec;
  c.perThread = (c.chunks + c.threads - 1) / c.threads;
  if (c.perThread * c.vec > kMaxPerThread) {
    why = "D = " + std::to_string(c.d) + " is over " +
          std::to_string(1024 * kMaxPerThread) + " features";
    return failure();
  }
  return c;
}

} // namespace mlir::decoda::row_norm

#endif // DECODA_LIB_TRANSFORMS_GPUROWNORM_H
