//===- ConvertFloatType.cpp - f32 models stored and run in bf16 or f16 ----===//
//
// decoda-convert-float-type (Passes.td; decoda-compile --float-type): the f32 tensors between
// the decoda ops of a function become bf16 (or f16). Ops are rebuilt with the new types where
// they verify so; f32 constants they read are converted at compile time; so are the linalg ops
// that only move elements (an exported graph's Transposes and Expands: linalg.transpose,
// broadcast, copy, a generic yielding its inputs' elements); every other op keeps its f32
// values, with arith.truncf / arith.extf between the two worlds. Function signatures
// do not change (the casts are the boundary), except with `io`: then a public function's f32
// tensor arguments and results take the 16-bit type as well.
//
//===----------------------------------------------------------------------===//

#include "decoda/Transforms/Passes.h"

#include "decoda/Support/FloatBits.h"

#include "ConstantData.h"

#include "decoda/Dialect/Decoda/IR/DecodaOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/AsmState.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Verifier.h"

#include "llvm/ADT/SmallPtrSet.h"

#include <cstring>

namespace mlir::decoda {
#define GEN_PASS_DEF_CONVERTFLOATTYPEPASS
#include "decoda/Transforms/Passes.h.inc"
} // namespace mlir::decoda

using namespace mlir;
using namespace mlir::decoda;

namespace {

bool isF32Tensor(Type t) {
  auto rt = dyn_cast<RankedTensorType>(t);
  return rt && rt.getElementType().isF32();
}

Type lowered(Type t, FloatType to) {
  if (!isF32Tensor(t))
    return t;
  auto rt = cast<RankedTensorType>(t);
  return RankedTensorType::get(rt.getShape(), to, rt.getEncoding());
}

/// A linalg op that only moves elements, the same op in any element type: a transpose,
/// broadcast or copy, or a generic whose body yields elements of its inputs as they are (ONNX
/// Expand, Tile, Gather-free Transposes as the importer writes them). Kept in f32 such an op
/// cost two conversions and a copy each, a kernel apiece on the GPU: Hugging Face exports
/// transpose every layer's new keys and values and their presents (4 more launches a layer
/// at decode in bf16).
bool movesOnly(Operation *op) {
  if (isa<linalg::TransposeOp, linalg::BroadcastOp, linalg::CopyOp>(op))
    return true;
  auto generic = dyn_cast<linalg::GenericOp>(op);
  if (!generic || generic.getRegion().empty())
    return false;
  Block &body = generic.getRegion().front();
  if (!llvm::hasSingleElement(body))
    return false; // more than the yield
  for (Value v : body.getTerminator()->getOperands()) {
    auto arg = dyn_cast<BlockArgument>(v);
    if (!arg || arg.getOwner() != &body || arg.getArgNumber() >= generic.getNumDpsInputs())
      return false;
  }
  return true;
}

/// Ops rebuilt with 16-bit tensors when they verify so: the decoda ops without regions (the
/// INT8 ones do not verify: their scales are f32), the tensor ops that only move or view
/// data, and the linalg ops that only move elements.
bool convertible(Operation *op) {
  if (op->getNumRegions() != 0)
    return movesOnly(op);
  // Caches of the f32 signature: converting them would cost two passes over the whole cache
  // on every call (in and out), far more than attention in f32 reads. (With `io` the caches
  // arrive in 16 bits: the op reads the arguments' widenings, not the arguments, and converts.)
  if (auto cached = dyn_cast<CachedAttentionOp>(op))
    return !isa<BlockArgument>(cached.getKeyCache()) &&
           !isa<BlockArgument>(cached.getValueCache());
  if (isa<DecodaDialect>(op->getDialect()))
    return true;
  return isa<tensor::ExtractSliceOp, tensor::InsertSliceOp, tensor::ExpandShapeOp,
             tensor::CollapseShapeOp, tensor::CastOp, tensor::ConcatOp>(op);
}

struct ConvertFloatTypePass
    : public mlir::decoda::impl::ConvertFloatTypePassBase<ConvertFloatTypePass> {
  using Base::Base;

  void runOnOperation() override {
    func::FuncOp fn = getOperation();
    if (fn.isExternal())
      return;
    MLIRContext *ctx = &getContext();
    FloatType to;
    if (this->to == "bf16")
      to = BFloat16Type::get(ctx);
    else if (this->to == "f16")
      to = Float16Type::get(ctx);
    else {
      fn.emitError() << "decoda-convert-float-type: to must be bf16 or f16, found '" << this->to
                     << "'";
      return signalPassFailure();
    }
    if (fn.getBody().getBlocks().size() != 1) {
      fn.emitError() << "decoda-convert-float-type: '" << fn.getSymName()
                     << "' has more than one block";
      return signalPassFailure();
    }
    Block &body = fn.getBody().front();
    OpBuilder b(ctx);

    DenseMap<Value, Value> low; // an f32 value -> its 16-bit counterpart
    // io: a public function's f32 tensor arguments become 16-bit; what is not rebuilt reads
    // them widened (an extf at the start, erased below if nothing reads it).
    bool changeSignature = io && fn.isPublic();
    llvm::SmallPtrSet<Operation *, 8> argumentWidenings;
    if (changeSignature) {
      b.setInsertionPointToStart(&body);
      for (BlockArgument arg : body.getArguments()) {
        if (!isF32Tensor(arg.getType()))
          continue;
        Type wideType = arg.getType();
        arg.setType(lowered(wideType, to));
        auto wide = arith::ExtFOp::create(b, arg.getLoc(), wideType, arg);
        arg.replaceAllUsesExcept(wide, wide);
        low[wide] = arg;
        argumentWidenings.insert(wide);
      }
    }
    // The 16-bit form of `v` for a converted op: a converted result, a converted constant, a
    // new empty tensor, or a truncf after v's definition.
    auto lowOf = [&](Value v) -> Value {
      if (Value l = low.lookup(v))
        return l;
      OpBuilder::InsertionGuard guard(b);
      Location loc = v.getLoc();
      Type type = lowered(v.getType(), to);
      Value l;
      if (Operation *def = v.getDefiningOp()) {
        b.setInsertionPointAfter(def);
        if (auto empty = dyn_cast<tensor::EmptyOp>(def)) {
          l = tensor::EmptyOp::create(b, loc, cast<RankedTensorType>(type).getShape(), to,
                                      empty.getDynamicSizes());
        } else if (std::optional<ConstantView> view = constantView(v)) {
          l = convertConstant(b, loc, cast<RankedTensorType>(type), *view, to);
          ++numConstants;
        }
      } else {
        b.setInsertionPointToStart(&body);
      }
      if (!l) {
        l = arith::TruncFOp::create(b, loc, type, v);
        ++numCasts;
      }
      low[v] = l;
      return l;
    };

    SmallVector<Operation *> replaced;
    for (Operation &opRef : llvm::make_early_inc_range(body)) {
      Operation *op = &opRef;
      bool touchesF32 = llvm::any_of(op->getOperandTypes(), isF32Tensor) ||
                        llvm::any_of(op->getResultTypes(), isF32Tensor);
      if (!touchesF32 || isa<arith::ConstantOp, tensor::EmptyOp, func::ReturnOp>(op))
        continue; // constants and empty tensors on demand; the return is the boundary
      if (argumentWidenings.contains(op))
        continue;
      if (!convertible(op) || !tryConvert(b, op, to, lowOf, low)) {
        ++numKept;
        if (report)
          op->emitRemark() << "decoda-convert-float-type: kept in f32";
        continue;
      }
      replaced.push_back(op);
    }
    // io: the return gives the 16-bit values (a converted op's result, or a kept op's narrowed).
    if (changeSignature) {
      auto ret = cast<func::ReturnOp>(body.getTerminator());
      for (OpOperand &operand : ret->getOpOperands())
        if (isF32Tensor(operand.get().getType()))
          operand.set(lowOf(operand.get()));
      fn.setFunctionType(FunctionType::get(ctx, body.getArgumentTypes(), ret.getOperandTypes()));
    }
    // What still reads a replaced op's f32 results (kept ops, the return) reads them widened;
    // last op first, so that replaced readers are gone.
    for (Operation *op : llvm::reverse(replaced)) {
      for (OpResult r : op->getResults()) {
        if (r.use_empty())
          continue;
        Value l = low.lookup(r);
        Value wide = l;
        if (l.getType() != r.getType()) {
          b.setInsertionPointAfter(l.getDefiningOp());
          wide = arith::ExtFOp::create(b, r.getLoc(), r.getType(), l);
          ++numCasts;
        }
        r.replaceAllUsesWith(wide);
      }
      op->erase();
    }
    // f32 constants and empty tensors only the converted ops read; argument widenings nothing
    // reads.
    for (Operation &op : llvm::make_early_inc_range(llvm::reverse(body)))
      if ((isa<arith::ConstantOp, tensor::EmptyOp>(op) ||
           argumentWidenings.contains(&op)) &&
          op.use_empty() && isF32Tensor(op.getResult(0).getType()))
        op.erase();
  }

  /// Rebuilds `op` before itself with 16-bit operands and results; false (nothing changed)
  /// when the rebuilt op does not verify.
  bool tryConvert(OpBuilder &b, Operation *op, FloatType to,
                  llvm::function_ref<Value(Value)> lowOf, DenseMap<Value, Value> &low) {
    IRMapping mapping;
    SmallVector<Operation *> created; // casts made for this op, removed if it fails
    // An attention's additive mask stays f32: the op adds it to f32 scores, and in 16 bits
    // large biases would round (ALiBi's at key 4096 to multiples of 16 in bf16) and the f32
    // lowest value, which exporters put on padded keys, would become -inf, turning a row
    // whose keys are all padding from the f32 model's uniform average into zeros.
    Value keepF32;
    if (auto attention = dyn_cast<AttentionOp>(op))
      keepF32 = attention.getMask();
    for (Value v : op->getOperands()) {
      if (!isF32Tensor(v.getType()) || mapping.contains(v) || v == keepF32)
        continue;
      bool known = low.count(v);
      Value l = lowOf(v);
      if (!known)
        created.push_back(l.getDefiningOp());
      mapping.map(v, l);
    }
    b.setInsertionPoint(op);
    Operation *clone = b.clone(*op, mapping);
    for (OpResult r : clone->getResults())
      r.setType(lowered(r.getType(), to));
    // A linalg op's body takes one scalar per operand: those of converted operands change too.
    if (clone->getNumRegions() == 1 && !clone->getRegion(0).empty()) {
      Block &body = clone->getRegion(0).front();
      if (body.getNumArguments() == clone->getNumOperands())
        for (auto [arg, operand] : llvm::zip(body.getArguments(), clone->getOperands()))
          if (arg.getType().isF32() && getElementTypeOrSelf(operand.getType()) == to)
            arg.setType(to);
    }
    bool ok;
    {
      // A failed try is not an error: the op stays f32.
      ScopedDiagnosticHandler quiet(op->getContext(), [](Diagnostic &) { return success(); });
      ok = succeeded(verify(clone, /*verifyRecursively=*/false));
    }
    if (!ok) {
      clone->erase();
      for (Operation *c : created) {
        if (!c || !c->use_empty())
          continue;
        for (auto it = low.begin(); it != low.end(); ++it)
          if (it->second.getDefiningOp() == c) {
            low.erase(it);
            break;
          }
        if (isa<arith::TruncFOp>(c))
          --numCasts;
        else if (isa<arith::ConstantOp>(c))
          --numConstants;
        c->erase();
      }
      return false;
    }
    for (auto [r, n] : llvm::zip_equal(op->getResults(), clone->getResults()))
      low[r] = n;
    ++numConverted;
    return true;
  }

  /// The constant `view` (f32) as a constant of `type` (16-bit): `dense` stays `dense`, a
  /// resource becomes a new resource.
  static Value convertConstant(OpBuilder &b, Location loc, RankedTensorType type,
                               const ConstantView &view, FloatType to) {
    size_t n = view.raw.size() / 4;
    SmallVector<char> bytes(n * 2);
    bool bf16 = to.isBF16();
    for (size_t i = 0; i < n; ++i) {
      float f;
      std::memcpy(&f, view.raw.data() + i * 4, 4);
      uint16_t h = bf16 ? ::decoda::float_bits::toBF16(f) : ::decoda::float_bits::toF16(f);
      std::memcpy(bytes.data() + i * 2, &h, 2);
    }
    TypedAttr value;
    if (view.isResource)
      value = DenseResourceElementsAttr::get(
          type, bf16 ? "decoda_bf16" : "decoda_f16",
          HeapAsmResourceBlob::allocateAndCopyWithAlign(bytes, alignof(std::max_align_t)));
    else
      value = DenseElementsAttr::getFromRawBuffer(type, bytes);
    return arith::ConstantOp::create(b, loc, type, value);
  }
};
} // namespace
