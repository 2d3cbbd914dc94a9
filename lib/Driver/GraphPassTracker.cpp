//===- GraphPassTracker.cpp - what each graph pass of a compile changed ---===//

#include "decoda/Driver/GraphPassTracker.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Pass/Pass.h"

#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mlir::decoda;

IRCensus mlir::decoda::takeCensus(Operation *root) {
  IRCensus census;
  root->walk([&](Operation *op) {
    if (op == root)
      return;
    ++census.ops[op->getName().getStringRef().str()];
    // Splat constants are fills once lowered; only dense data is a weight the model stores.
    if (!op->hasTrait<OpTrait::ConstantLike>() || op->getNumResults() != 1)
      return;
    auto type = dyn_cast<RankedTensorType>(op->getResult(0).getType());
    Attribute value;
    if (!type || !type.hasStaticShape() || !matchPattern(op, m_Constant(&value)))
      return;
    if (auto dense = dyn_cast<DenseElementsAttr>(value); dense && dense.isSplat())
      return;
    ++census.constantTensors;
    census.constantBytes +=
        type.getNumElements() * ((type.getElementTypeBitWidth() + 7) / 8);
  });
  return census;
}

std::string mlir::decoda::passLabel(Pass &pass) {
  if (!pass.getArgument().empty())
    return pass.getArgument().str();
  std::string text;
  llvm::raw_string_ostream os(text);
  pass.printAsTextualPipeline(os);
  return text;
}

void GraphPassTracker::runBeforePass(Pass *pass, Operation *op) {
  if (!isa<ModuleOp>(op) || !graphPasses.contains(pass))
    return;
  pendingCensus = takeCensus(op);
  pendingFingerPrint.emplace(op);
}

void GraphPassTracker::runAfterPass(Pass *pass, Operation *op) {
  if (!isa<ModuleOp>(op) || !graphPasses.contains(pass))
    return;
  GraphPassRecord record;
  record.pass = passLabel(*pass);
  record.before = std::move(pendingCensus);
  record.after = takeCensus(op);
  record.changed = !pendingFingerPrint || *pendingFingerPrint != OperationFingerPrint(op);
  if (keepSnapshots)
    record.snapshot = cast<ModuleOp>(op->clone());
  records.push_back(std::move(record));
}

llvm::SmallPtrSet<Pass *, 8> mlir::decoda::topLevelPasses(OpPassManager &pm, size_t begin,
                                                           size_t end) {
  llvm::SmallPtrSet<Pass *, 8> passes;
  size_t index = 0;
  for (Pass &pass : pm.getPasses()) {
    if (index >= begin && index < end)
      passes.insert(&pass);
    ++index;
  }
  return passes;
}

void mlir::decoda::printGraphPassChanges(ArrayRef<GraphPassRecord> records,
                                         llvm::raw_ostream &os) {
  if (records.empty()) {
    os << "  (no graph pass ran)\n";
    return;
  }
  for (const GraphPassRecord &r : records) {
    os << "  " << r.pass << ": ";
    if (!r.changed) {
      os << "no change\n";
      continue;
    }
    // Removals first, then additions, each by op name: what was fused away, then what replaced it.
    SmallVector<std::string> removed, added;
    std::map<std::string, int64_t> all = r.before.ops;
    for (auto &[name, n] : r.after.ops)
      all.emplace(name, 0);
    for (auto &[name, unused] : all) {
      auto b = r.before.ops.find(name), a = r.after.ops.find(name);
      int64_t delta = (a == r.after.ops.end() ? 0 : a->second) -
                      (b == r.before.ops.end() ? 0 : b->second);
      if (delta < 0)
        removed.push_back(llvm::formatv("{0} {1}", delta, name).str());
      else if (delta > 0)
        added.push_back(llvm::formatv("+{0} {1}", delta, name).str());
    }
    if (removed.empty() && added.empty())
      os << "rewrote ops, counts unchanged";
    llvm::interleave(llvm::concat<std::string>(removed, added), os, ", ");
    if (r.before.constantTensors != r.after.constantTensors ||
        r.before.constantBytes != r.after.constantBytes)
      os << llvm::formatv("; constant tensors {0} -> {1} ({2} -> {3} bytes)",
                          r.before.constantTensors, r.after.constantTensors,
                          r.before.constantBytes, r.after.constantBytes);
    os << "\n";
  }
}

std::vector<std::string> mlir::decoda::passArgumentsOf(OpPassManager &pm) {
  std::string text;
  llvm::raw_string_ostream os(text);
  pm.printAsTextualPipeline(os);
  // The textual form is `anchor(pass{options}, pass, anchor(pass, ...), ...)`: a name followed
  // by `(` is an op anchor, anything inside braces is an option value.
  std::vector<std::string> names;
  std::string current;
  int braces = 0;
  auto flush = [&] {
    if (!current.empty())
      names.push_back(current);
    current.clear();
  };
  for (char c : text) {
    if (braces > 0) {
      braces += c == '{' ? 1 : c == '}' ? -1 : 0;
      continue;
    }
    if (std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.') {
      current += c;
    } else if (c == '(') {
      current.clear();
    } else if (c == '{') {
      flush();
      braces = 1;
    } else {
      flush();
    }
  }
  flush();
  return names;
}
