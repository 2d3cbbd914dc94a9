//===- SpecializeDims.cpp - static specialisation of dynamic dims ---------===//
//
// --static-dims of decoda-compile, the `<name>_decode` entry points of cached-attention
// functions, and the pass decoda-specialize-dims that exposes both to decoda-opt.
//
//===----------------------------------------------------------------------===//

#include "decoda/Transforms/SpecializeDims.h"
#include "decoda/Transforms/Donation.h"
#include "decoda/Transforms/Passes.h"

#include "decoda/Dialect/Decoda/IR/DecodaOps.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/SymbolTable.h"

#include "llvm/ADT/StringExtras.h"

namespace mlir::decoda {
#define GEN_PASS_DEF_SPECIALIZEDIMSPASS
#include "decoda/Transforms/Passes.h.inc"
} // namespace mlir::decoda

using namespace mlir;
using namespace mlir::decoda;

bool mlir::decoda::parseDimSpecs(StringRef text, SmallVectorImpl<DimSpec> &specs,
                                 std::string &error) {
  SmallVector<StringRef> items;
  text.split(items, ',', /*MaxSplit=*/-1, /*KeepEmpty=*/false);
  if (items.empty()) {
    error = "expected NAME=N or ARG:DIM=N items separated by commas";
    return false;
  }
  for (StringRef item : items) {
    item = item.trim();
    DimSpec spec;
    spec.text = item.str();
    auto [lhs, rhs] = item.split('=');
    if (rhs.empty() || lhs.empty()) {
      error = "'" + spec.text + "': expected NAME=N or ARG:DIM=N";
      return false;
    }
    if (rhs.getAsInteger(10, spec.size) || spec.size < 1) {
      error = "'" + spec.text + "': the size '" + rhs.str() + "' is not a positive integer";
      return false;
    }
    if (size_t colon = lhs.rfind(':'); colon != StringRef::npos) {
      spec.arg = lhs.take_front(colon).str();
      StringRef dim = lhs.drop_front(colon + 1);
      if (spec.arg.empty() || dim.getAsInteger(10, spec.dim) || spec.dim < 0) {
        error = "'" + spec.text + "': in ARG:DIM=N, DIM must be a dimension index >= 0";
        return false;
      }
    } else {
      spec.name = lhs.str();
    }
    specs.push_back(std::move(spec));
  }
  return true;
}

namespace {
bool isEntryPoint(func::FuncOp fn) { return fn.isPublic() && !fn.isExternal(); }

std::string argName(func::FuncOp fn, unsigned i) {
  if (auto name = fn.getArgAttrOfType<StringAttr>(i, "decoda.name"))
    return name.str();
  return "arg" + std::to_string(i);
}

StringRef dimName(func::FuncOp fn, unsigned i, int64_t d) {
  auto names = fn.getArgAttrOfType<ArrayAttr>(i, kDimNamesAttrName);
  if (!names || d >= static_cast<int64_t>(names.size()))
    return "";
  auto s = dyn_cast<StringAttr>(names[d]);
  return s ? s.getValue() : "";
}

/// Gives the arguments of `fn` the static sizes in `sizes` ((arg, dim) -> size); uses see the
/// old type through a tensor.cast.
void retypeArguments(func::FuncOp fn, const std::map<std::pair<unsigned, int64_t>, int64_t> &sizes) {
  Block &entry = fn.getBody().front();
  OpBuilder b = OpBuilder::atBlockBegin(&entry);
  SmallVector<Type> inputs(fn.getArgumentTypes());
  for (unsigned i = 0; i < fn.getNumArguments(); ++i) {
    auto old = dyn_cast<RankedTensorType>(inputs[i]);
    if (!old)
      continue;
    SmallVector<int64_t> shape(old.getShape());
    bool changed = false;
    for (int64_t d = 0; d < old.getRank(); ++d)
      if (auto it = sizes.find({i, d}); it != sizes.end() && old.isDynamicDim(d)) {
        shape[d] = it->second;
        changed = true;
      }
    if (!changed)
      continue;
    BlockArgument arg = entry.getArgument(i);
    auto type = RankedTensorType::get(shape, old.getElementType(), old.getEncoding());
    arg.setType(type);
    auto cast = tensor::CastOp::create(b, fn.getLoc(), old, arg);
    arg.replaceAllUsesExcept(cast.getResult(), cast);
    inputs[i] = type;
  }
  // A donated argument's result (decoda.donate = N, the argument updated in place: an ONNX
  // model's shared KV buffer) takes the argument's new type, so the donation still holds.
  SmallVector<Type> results(fn.getResultTypes());
  for (unsigned i = 0; i < fn.getNumArguments(); ++i) {
    auto n = fn.getArgAttrOfType<IntegerAttr>(i, kDonateAttrName);
    if (!n || n.getInt() < 0 || n.getInt() >= static_cast<int64_t>(results.size()))
      continue;
    Type want = inputs[i];
    auto have = dyn_cast<RankedTensorType>(results[n.getInt()]);
    if (!have || have == want || !tensor::CastOp::areCastCompatible(have, want))
      continue;
    results[n.getInt()] = want;
    fn.walk([&](func::ReturnOp ret) {
      OpBuilder rb(ret);
      Value v = ret.getOperand(n.getInt());
      ret.setOperand(n.getInt(), tensor::CastOp::create(rb, ret.getLoc(), want, v).getResult());
    });
  }
  fn.setType(FunctionType::get(fn.getContext(), inputs, results));
}
} // namespace

LogicalResult mlir::decoda::specializeDims(ModuleOp module, ArrayRef<DimSpec> specs,
                                           StringRef what) {
  SmallVector<bool> used(specs.size(), false);
  std::set<std::string> knownNames;
  for (auto fn : module.getOps<func::FuncOp>()) {
    if (!isEntryPoint(fn))
      continue;
    std::map<std::pair<unsigned, int64_t>, int64_t> sizes;
    for (unsigned i = 0; i < fn.getNumArguments(); ++i) {
      auto type = dyn_cast<RankedTensorType>(fn.getArgumentTypes()[i]);
      if (!type)
        continue;
      std::string aname = argName(fn, i);
      for (int64_t d = 0; d < type.getRank(); ++d) {
        StringRef dname = dimName(fn, i, d);
        if (!dname.empty())
          knownNames.insert(dname.str());
        for (auto [k, spec] : llvm::enumerate(specs)) {
          bool match = spec.name.empty()
                           ? (spec.arg == aname || spec.arg == std::to_string(i)) && spec.dim == d
                           : spec.name == dname;
          if (!match)
            continue;
          used[k] = true;
          if (!type.isDynamicDim(d) && type.getDimSize(d) != spec.size)
            return fn.emitError() << what << "=" << spec.text << ": dimension " << d
                                  << " of argument '" << aname << "' of '" << fn.getSymName()
                                  << "' is static with size " << type.getDimSize(d);
          auto [it, inserted] = sizes.try_emplace({i, d}, spec.size);
          if (!inserted && it->second != spec.size)
            return fn.emitError() << what << "=" << spec.text << ": dimension " << d
                                  << " of argument '" << aname << "' of '" << fn.getSymName()
                                  << "' is also given size " << it->second;
        }
      }
      // ARG:DIM with DIM past the rank.
      for (auto [k, spec] : llvm::enumerate(specs))
        if (spec.name.empty() && (spec.arg == aname || spec.arg == std::to_string(i)) &&
            spec.dim >= type.getRank())
          return fn.emitError() << what << "=" << spec.text << ": argument '" << aname
                                << "' of '" << fn.getSymName() << "' has rank "
                                << type.getRank();
    }
    retypeArguments(fn, sizes);
    // The sizes through the decoda ops too (else they stay dynamic until inlining). Not
    // converging leaves valid, less static IR.
    (void)refineShapes(fn);
  }
  for (auto [k, spec] : llvm::enumerate(specs)) {
    if (used[k])
      continue;
    InFlightDiagnostic diag = emitError(module.getLoc()) << what << "=" << spec.text << ": ";
    if (!spec.name.empty()) {
      diag << "no argument dimension is named '" << spec.name << "' (named dimensions: ";
      if (knownNames.empty())
        diag << "none; name them with " << kDimNamesAttrName << " or use ARG:DIM=N";
      else
        diag << llvm::join(knownNames, ", ");
      return diag << ")";
    }
    return diag << "no entry point has an argument '" << spec.arg << "'";
  }
  return success();
}

FailureOr<unsigned> mlir::decoda::addDecodeEntries(ModuleOp module) {
  SymbolTable symbols(module);
  SmallVector<func::FuncOp> candidates;
  for (auto fn : module.getOps<func::FuncOp>()) {
    if (!isEntryPoint(fn))
      continue;
    bool dynamicQuery = false;
    fn.walk([&](CachedAttentionOp op) {
      dynamicQuery |= cast<RankedTensorType>(op.getQuery().getType()).isDynamicDim(1);
    });
    if (dynamicQuery)
      candidates.push_back(fn);
  }
  unsigned added = 0;
  for (func::FuncOp fn : candidates) {
    std::string name = (fn.getSymName() + "_decode").str();
    if (symbols.lookup(name))
      return fn.emitError() << "cannot add the decode entry '" << name
                            << "': a function of that name exists (compile with "
                               "--decode-entries=false, or rename it)";
    // Cache operands keep their dims; the query length is dim 1 of the other arguments (or
    // the dims named 'seq').
    llvm::DenseSet<Value> caches;
    fn.walk([&](CachedAttentionOp op) {
      caches.insert(op.getKeyCache());
      caches.insert(op.getValueCache());
    });
    bool named = false;
    for (unsigned i = 0; i < fn.getNumArguments(); ++i)
      if (auto names = fn.getArgAttrOfType<ArrayAttr>(i, kDimNamesAttrName))
        for (Attribute a : names)
          named |= isa<StringAttr>(a) && cast<StringAttr>(a).getValue() == "seq";
    std::map<std::pair<unsigned, int64_t>, int64_t> sizes;
    for (unsigned i = 0; i < fn.getNumArguments(); ++i) {
      auto type = dyn_cast<RankedTensorType>(fn.getArgumentTypes()[i]);
      if (!type)
        continue;
      for (int64_t d = 0; d < type.getRank(); ++d) {
        bool isSeq = named ? dimName(fn, i, d) == "seq"
                           : d == 1 && type.getRank() >= 2 &&
                                 !caches.contains(fn.getArgument(i));
        if (isSeq && type.isDynamicDim(d))
          sizes[{i, d}] = 1;
      }
    }
    if (sizes.empty())
      continue;
    auto clone = cast<func::FuncOp>(fn->clone());
    clone.setSymName(name);
    module.getBody()->getOperations().insertAfter(fn->getIterator(), clone);
    symbols.insert(clone);
    retypeArguments(clone, sizes);
    (void)refineShapes(clone);
    ++added;
  }
  return added;
}

namespace {
struct SpecializeDimsPass : public mlir::decoda::impl::SpecializeDimsPassBase<SpecializeDimsPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (decodeEntries && failed(addDecodeEntries(module)))
      return signalPassFailure();
    if (dims.empty())
      return;
    SmallVector<DimSpec> specs;
    std::string error;
    if (!parseDimSpecs(llvm::join(dims, ","), specs, error)) {
      emitError(module.getLoc()) << "dims: " << error;
      return signalPassFailure();
    }
    if (failed(specializeDims(module, specs, "dims")))
      return signalPassFailure();
  }
};
} // namespace
