//===- DonateInputs.cpp - donated entry-point inputs written in place -----===//
//
// decoda-donate-inputs (tensors: returned values materialised in the donated argument) and
// decoda-drop-donated-results (memrefs: the result that is the argument's buffer removed), the
// compiler side of docs/ABI.md "Donated inputs".
//
//===----------------------------------------------------------------------===//

#include "decoda/Transforms/Donation.h"
#include "decoda/Transforms/Passes.h"

#include "decoda/Dialect/Decoda/IR/DecodaOps.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Builders.h"

namespace mlir::decoda {
#define GEN_PASS_DEF_DONATEINPUTSPASS
#define GEN_PASS_DEF_DROPDONATEDRESULTSPASS
#include "decoda/Transforms/Passes.h.inc"
} // namespace mlir::decoda

using namespace mlir;
using namespace mlir::decoda;

namespace {
/// The only `func.return` of `fn`, or null.
func::ReturnOp soleReturn(func::FuncOp fn) {
  func::ReturnOp ret;
  for (Block &block : fn.getBody()) {
    auto r = dyn_cast<func::ReturnOp>(block.getTerminator());
    if (!r)
      continue;
    if (ret)
      return nullptr;
    ret = r;
  }
  return ret;
}

bool isEntryPoint(func::FuncOp fn) { return fn.isPublic() && !fn.isExternal(); }
} // namespace

LogicalResult mlir::decoda::verifyDonations(func::FuncOp fn,
                                            SmallVectorImpl<int64_t> &resultOf) {
  resultOf.assign(fn.getNumArguments(), -1);
  SmallVector<int> donor(fn.getNumResults(), -1);
  for (unsigned i = 0; i < fn.getNumArguments(); ++i) {
    Attribute attr = fn.getArgAttr(i, kDonateAttrName);
    if (!attr)
      continue;
    auto where = [&]() {
      return fn.emitError() << "'" << fn.getSymName() << "': argument " << i << " ("
                            << kDonateAttrName << " = " << attr << "): ";
    };
    auto index = dyn_cast<IntegerAttr>(attr);
    if (!index || !index.getType().isInteger())
      return where() << "expected the index of the result it is donated to (an integer)";
    int64_t n = index.getInt();
    if (n < 0 || n >= static_cast<int64_t>(fn.getNumResults()))
      return where() << "no result " << n << " (the function has " << fn.getNumResults()
                     << ")";
    Type argType = fn.getArgument(i).getType(), resType = fn.getResultTypes()[n];
    if (argType != resType)
      return where() << "result " << n << " has type " << resType
                     << ", the argument has type " << argType << "; they must be equal";
    if (donor[n] >= 0)
      return where() << "result " << n << " is already donated from argument " << donor[n];
    donor[n] = static_cast<int>(i);
    resultOf[i] = n;
  }
  return success();
}

unsigned mlir::decoda::markDonatedCaches(ModuleOp module) {
  unsigned marked = 0;
  Builder b(module.getContext());
  for (auto fn : module.getOps<func::FuncOp>()) {
    if (!isEntryPoint(fn))
      continue;
    func::ReturnOp ret = soleReturn(fn);
    if (!ret)
      continue;
    SmallVector<bool> resultTaken(fn.getNumResults(), false);
    for (unsigned i = 0; i < fn.getNumArguments(); ++i)
      if (auto n = dyn_cast_or_null<IntegerAttr>(fn.getArgAttr(i, kDonateAttrName)))
        if (n.getInt() >= 0 && n.getInt() < static_cast<int64_t>(resultTaken.size()))
          resultTaken[n.getInt()] = true;
    fn.walk([&](CachedAttentionOp op) {
      std::pair<Value, Value> caches[] = {{op.getKeyCache(), op.getKeyCacheOut()},
                                          {op.getValueCache(), op.getValueCacheOut()}};
      for (auto [in, out] : caches) {
        auto arg = dyn_cast<BlockArgument>(in);
        if (!arg || arg.getOwner() != &fn.getBody().front() ||
            fn.getArgAttr(arg.getArgNumber(), kDonateAttrName))
          continue;
        for (OpOperand &use : ret->getOpOperands()) {
          unsigned n = use.getOperandNumber();
          if (use.get() != out || resultTaken[n] || fn.getResultTypes()[n] != arg.getType())
            continue;
          fn.setArgAttr(arg.getArgNumber(), kDonateAttrName, b.getI64IntegerAttr(n));
          resultTaken[n] = true;
          ++marked;
          break;
        }
      }
    });
  }
  return marked;
}

namespace {
/// The checked donations of entry point `fn` (`resultOf` as in verifyDonations) and its single
/// return; a null return when nothing is donated; failure (reported) when the donations are
/// invalid or there is not exactly one return to rewrite.
FailureOr<func::ReturnOp> donatingReturn(func::FuncOp fn, SmallVectorImpl<int64_t> &resultOf) {
  if (failed(verifyDonations(fn, resultOf)))
    return failure();
  if (llvm::all_of(resultOf, [](int64_t n) { return n < 0; }))
    return func::ReturnOp();
  if (func::ReturnOp ret = soleReturn(fn))
    return ret;
  return fn.emitError() << "'" << fn.getSymName()
                        << "': a function with donated arguments needs a single return";
}

struct DonateInputsPass : public mlir::decoda::impl::DonateInputsPassBase<DonateInputsPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (autoCaches)
      markDonatedCaches(module);
    for (auto fn : module.getOps<func::FuncOp>()) {
      if (!isEntryPoint(fn))
        continue;
      SmallVector<int64_t> resultOf;
      FailureOr<func::ReturnOp> donating = donatingReturn(fn, resultOf);
      if (failed(donating))
        return signalPassFailure();
      func::ReturnOp ret = *donating;
      if (!ret)
        continue;
      OpBuilder b(ret);
      for (auto [i, n] : llvm::enumerate(resultOf)) {
        if (n < 0)
          continue;
        BlockArgument arg = fn.getArgument(i);
        Value value = ret.getOperand(n);
        if (value != arg) {
          auto m = bufferization::MaterializeInDestinationOp::create(b, ret.getLoc(), value, arg);
          ret.setOperand(n, m.getResult());
        }
        fn.setArgAttr(i, "bufferization.writable", b.getBoolAttr(true));
        ++numDonated;
      }
    }
  }
};

struct DropDonatedResultsPass
    : public mlir::decoda::impl::DropDonatedResultsPassBase<DropDonatedResultsPass> {
  using Base::Base;

  void runOnOperation() override {
    for (auto fn : getOperation().getOps<func::FuncOp>()) {
      if (!isEntryPoint(fn))
        continue;
      SmallVector<int64_t> resultOf;
      FailureOr<func::ReturnOp> donating = donatingReturn(fn, resultOf);
      if (failed(donating))
        return signalPassFailure();
      func::ReturnOp ret = *donating;
      if (!ret)
        continue;
      llvm::BitVector drop(fn.getNumResults());
      for (auto [i, n] : llvm::enumerate(resultOf)) {
        if (n < 0)
          continue;
        Value v = ret.getOperand(n);
        while (auto cast = v.getDefiningOp<memref::CastOp>())
          v = cast.getSource();
        if (v != fn.getArgument(i)) {
          fn.emitError() << "'" << fn.getSymName() << "': result " << n
                         << " is donated from argument " << i
                         << " but is not that argument's buffer after bufferization";
          return signalPassFailure();
        }
        drop.set(n);
        fn.removeArgAttr(i, kDonateAttrName);
        if (markWritten)
          fn.setArgAttr(i, kWrittenAttrName, UnitAttr::get(fn.getContext()));
        ++numDropped;
      }
      ret->eraseOperands(drop);
      if (failed(fn.eraseResults(drop)))
        return signalPassFailure();
    }
  }
};
} // namespace
