//===- MemoryLedger.cpp - parameter, activation and KV-cache bytes --------===//

#include "decoda/Driver/MemoryLedger.h"

#include "decoda/Dialect/Decoda/IR/DecodaOps.h"
#include "decoda/Dialect/Decoda/IR/Semantics.h"
#include "decoda/Driver/ReportFormat.h"
#include "decoda/Transforms/AbsorbMLA.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Matchers.h"

#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mlir::decoda;

namespace {
int64_t elementBytes(Type t) {
  if (t.isIndex())
    return 8;
  if (t.isIntOrFloat())
    return (t.getIntOrFloatBitWidth() + 7) / 8;
  return 0; // complex and others do not appear in decoda programs
}

int64_t dimOr(int64_t d, int64_t seqLen) { return ShapedType::isDynamic(d) ? seqLen : d; }

/// Bytes of a ranked tensor with every dynamic dimension taken as `seqLen`; 0 otherwise.
int64_t tensorBytes(Type type, int64_t seqLen) {
  auto t = dyn_cast<RankedTensorType>(type);
  if (!t)
    return 0;
  int64_t n = elementBytes(t.getElementType());
  for (int64_t d : t.getShape())
    n *= dimOr(d, seqLen);
  return n;
}

/// Reshapes, slices and casts: views of their source once bufferized.
bool isView(Operation *op) {
  return isa<tensor::ExpandShapeOp, tensor::CollapseShapeOp, tensor::ExtractSliceOp,
             tensor::CastOp, tensor::ReshapeOp, tensor::BitcastOp>(op);
}

/// The operands of a decoda op that hold model parameters rather than activations.
SmallVector<Value> parameterOperands(Operation *op) {
  SmallVector<Value> params;
  if (auto norm = dyn_cast<NormOpInterface>(op)) {
    params = {norm.getNormWeight(), norm.getNormBias()};
  } else {
    llvm::TypeSwitch<Operation *>(op)
        .Case([&](HyperConnectionOp o) {
          params = {o.getReadLogits(), o.getMixLogits(), o.getWriteLogits()};
        })
        .Case([&](LinearOp o) { params = {o.getWeight(), o.getBias()}; })
        .Case([&](EmbeddingOp o) { params = {o.getTable()}; })
        .Case([&](MLPOp o) { params = {o.getWUp(), o.getWDown(), o.getBUp(), o.getBDown()}; })
        .Case([&](GatedMLPOp o) {
          params = {o.getWGate(), o.getWUp(), o.getWDown(),
                    o.getBGate(), o.getBUp(), o.getBDown()};
        })
        .Case([&](AttentionOp o) { params = {o.getSinks()}; })
        .Case([&](CachedAttentionOp o) { params = {o.getSinks()}; })
        .Case([&](MLAOp o) { params = {o.getWUk(), o.getWUv()}; })
        .Case([&](MoEOp o) {
          params = {o.getRouter(),       o.getWGate(),      o.getWUp(),
                    o.getWDown(),        o.getSelectionBias(), o.getSharedGate(),
                    o.getSharedUp(),     o.getSharedDown()};
        })
        .Case([&](QuantizeOp o) { params = {o.getScale(), o.getZeroPoint()}; })
        .Case([&](DequantizeOp o) { params = {o.getScale(), o.getZeroPoint()}; })
        .Case([&](QLinearOp o) {
          params = {o.getWeight(), o.getXScale(),  o.getWScale(),
                    o.getXZeroPoint(), o.getBias(), o.getOutScale()};
        });
  }
  llvm::erase(params, Value());
  return params;
}

/// The function arguments `v` is made of through views and concatenations (a parameter may be
/// reshaped, sliced or concatenated with others, as decoda-fuse-projections does).
void collectArguments(Value v, Block &entry, llvm::SmallSetVector<BlockArgument, 4> &args) {
  if (auto arg = dyn_cast<BlockArgument>(v)) {
    if (arg.getOwner() == &entry)
      args.insert(arg);
    return;
  }
  Operation *def = v.getDefiningOp();
  if (isView(def))
    collectArguments(def->getOperand(0), entry, args);
  else if (auto concat = dyn_cast<tensor::ConcatOp>(def))
    for (Value in : concat.getInputs())
      collectArguments(in, entry, args);
}

/// The value a view chain starts from.
Value viewRoot(Value v) {
  while (Operation *def = v.getDefiningOp()) {
    if (!isView(def))
      break;
    v = def->getOperand(0);
  }
  return v;
}

/// The values a key is assembled from: its view root, or the roots of a concatenation's inputs.
llvm::SmallPtrSet<Value, 4> keyRoots(Value key) {
  llvm::SmallPtrSet<Value, 4> roots;
  Value root = viewRoot(key);
  roots.insert(root);
  if (auto concat = root.getDefiningOp<tensor::ConcatOp>())
    for (Value in : concat.getInputs())
      roots.insert(viewRoot(in));
  return roots;
}

int64_t dim(Value v, unsigned i, int64_t seqLen) {
  return dimOr(cast<RankedTensorType>(v.getType()).getDimSize(i), seqLen);
}

int64_t bytesOfElement(Value v) {
  return elementBytes(cast<RankedTensorType>(v.getType()).getElementType());
}

/// `2 x 4 B x 2 KV heads x 32` or `4 B x 2 KV heads x (32 + 16)`.
std::string kvFormula(int64_t bytes, int64_t kvHeads, int64_t dk, int64_t dv) {
  std::string heads = llvm::formatv("{0} KV head{1}", kvHeads, kvHeads == 1 ? "" : "s").str();
  if (dk == dv)
    return llvm::formatv("2 x {0} B x {1} x {2}", bytes, heads, dk).str();
  return llvm::formatv("{0} B x {1} x ({2} + {3})", bytes, heads, dk, dv).str();
}

int64_t kvBytes(int64_t bytes, int64_t kvHeads, int64_t dk, int64_t dv) {
  return dk == dv ? kvCacheBytesPerToken(bytes, kvHeads, dk) : bytes * kvHeads * (dk + dv);
}

std::optional<KVCacheLayer> kvCacheLayer(Operation *op, int64_t seqLen) {
  KVCacheLayer layer{op->getName().getStringRef().str(), op->getLoc()};
  if (auto attn = dyn_cast<AttentionOp>(op)) {
    int64_t b = bytesOfElement(attn.getKey()), h = attn.getNumKvHeads();
    int64_t dk = dim(attn.getKey(), 3, seqLen), dv = dim(attn.getValue(), 3, seqLen);
    layer.bytesPerToken = kvBytes(b, h, dk, dv);
    layer.formula = kvFormula(b, h, dk, dv);
    // Absorbed MLA attends with value = the latent, which is also part of the key: a cache
    // holds the key only.
    if (keyRoots(attn.getKey()).contains(viewRoot(attn.getValue()))) {
      layer.otherBytesPerToken = layer.bytesPerToken;
      layer.otherFormula = layer.formula + " if K and V were cached apart";
      layer.bytesPerToken = b * h * dk;
      layer.formula = llvm::formatv("{0} B x {1} KV head{2} x {3}, the key alone: the value is "
                                    "part of it (a shared latent)",
                                    b, h, h == 1 ? "" : "s", dk)
                          .str();
    }
    return layer;
  }
  if (auto cached = dyn_cast<CachedAttentionOp>(op)) {
    int64_t b = bytesOfElement(cached.getKeyCache()), h = cached.getNumKvHeads();
    int64_t dk = dim(cached.getKeyCache(), 3, seqLen);
    int64_t dv = dim(cached.getValueCache(), 3, seqLen);
    layer.bytesPerToken = kvBytes(b, h, dk, dv);
    layer.formula = kvFormula(b, h, dk, dv);
    return layer;
  }
  if (auto mla = dyn_cast<MLAOp>(op)) {
    // The same figures decoda-absorb-mla reports (one formula for both).
    MLACacheFigures f = computeMLACacheFigures(mla);
    int64_t b = f.bytesPerNumber;
    layer.bytesPerToken = b * f.absorbedPerToken();
    layer.formula = llvm::formatv("{0} B x ({1} + {2}), the latent and the RoPE key", b,
                                  f.latentDim, f.ropeDim);
    layer.otherBytesPerToken = b * f.decompressedPerToken();
    layer.otherFormula = llvm::formatv("{0} B x {1} heads x ({2} + {3} + {4}) if per-head K and "
                                       "V were cached",
                                       b, f.numHeads, f.nopeDim, f.ropeDim, f.valueDim)
                             .str();
    return layer;
  }
  return std::nullopt;
}
} // namespace

int64_t MemoryLedger::kvBytesPerToken() const {
  int64_t n = 0;
  for (const KVCacheLayer &l : kvLayers)
    n += l.bytesPerToken;
  return n;
}

MemoryLedger mlir::decoda::computeMemoryLedger(func::FuncOp fn, int64_t seqLen) {
  MemoryLedger ledger;
  ledger.function = fn.getSymName().str();
  ledger.seqLen = seqLen;
  for (Type t : fn.getFunctionType().getResults())
    ledger.outputBytes += tensorBytes(t, seqLen);

  // Constants anywhere in the function.
  fn.walk([&](Operation *op) {
    if (!op->hasTrait<OpTrait::ConstantLike>() || op->getNumResults() != 1)
      return;
    auto type = dyn_cast<RankedTensorType>(op->getResult(0).getType());
    Attribute value;
    if (!type || !matchPattern(op, m_Constant(&value)))
      return;
    if (auto dense = dyn_cast<DenseElementsAttr>(value); dense && dense.isSplat())
      return;
    ++ledger.constantCount;
    ledger.constantBytes += tensorBytes(type, seqLen);
  });

  Block &entry = fn.getBody().front();
  llvm::SmallSetVector<BlockArgument, 4> weightArgs, cacheArgs;
  fn.walk([&](Operation *op) {
    for (Value p : parameterOperands(op))
      collectArguments(p, entry, weightArgs);
    if (auto cached = dyn_cast<CachedAttentionOp>(op)) {
      collectArguments(cached.getKeyCache(), entry, cacheArgs);
      collectArguments(cached.getValueCache(), entry, cacheArgs);
    }
    if (std::optional<KVCacheLayer> layer = kvCacheLayer(op, seqLen))
      ledger.kvLayers.push_back(std::move(*layer));
  });

  // Liveness over the top-level ops in program order; roots are activation inputs and
  // intermediates (views resolve to the value they view).
  struct Live {
    int64_t bytes, def, lastUse;
  };
  llvm::MapVector<Value, Live> live;
  for (BlockArgument arg : entry.getArguments()) {
    auto type = dyn_cast<RankedTensorType>(arg.getType());
    if (!type)
      continue;
    int64_t bytes = tensorBytes(type, seqLen);
    bool isWeight = weightArgs.contains(arg) && type.hasStaticShape();
    if (isWeight) {
      ++ledger.weightArgCount;
      ledger.weightArgBytes += bytes;
    } else if (cacheArgs.contains(arg)) {
      ++ledger.cacheInputCount;
      ledger.cacheInputBytes += bytes;
    } else {
      ++ledger.activationInputCount;
      ledger.activationInputBytes += bytes;
      live[arg] = {bytes, -1, -1};
    }
  }

  int64_t index = 0;
  SmallVector<Operation *> order;
  for (Block &block : fn.getBody())
    for (Operation &op : block)
      order.push_back(&op);
  for (Operation *op : order) {
    op->walk([&](Operation *inner) {
      for (Value v : inner->getOperands()) {
        auto it = live.find(viewRoot(v));
        if (it != live.end())
          it->second.lastUse = std::max(it->second.lastUse, index);
      }
    });
    // tensor.empty only names the shape of an op's output; that output is counted.
    if (!isView(op) && !op->hasTrait<OpTrait::ConstantLike>() && !isa<tensor::EmptyOp>(op)) {
      for (OpResult r : op->getResults()) {
        if (!isa<RankedTensorType>(r.getType()))
          continue;
        // The updated caches of cached_attention are the cache, not an activation.
        if (isa<CachedAttentionOp>(op) && r.getResultNumber() > 0)
          continue;
        int64_t bytes = tensorBytes(r.getType(), seqLen);
        ++ledger.intermediateCount;
        ledger.intermediateBytes += bytes;
        live[r] = {bytes, index, index};
      }
    }
    ++index;
  }
  for (int64_t i = 0; i < index; ++i) {
    int64_t sum = 0;
    for (auto &[value, l] : live)
      if (l.def <= i && i <= l.lastUse)
        sum += l.bytes;
    ledger.peakLiveBytes = std::max(ledger.peakLiveBytes, sum);
  }
  return ledger;
}

std::vector<MemoryLedger> mlir::decoda::computeMemoryLedgers(ModuleOp module, int64_t seqLen) {
  std::vector<MemoryLedger> ledgers;
  for (auto fn : module.getOps<func::FuncOp>())
    if (fn.isPublic() && !fn.isExternal())
      ledgers.push_back(computeMemoryLedger(fn, seqLen));
  return ledgers;
}

namespace {

void printLayers(ArrayRef<KVCacheLayer> layers, llvm::raw_ostream &os) {
  if (layers.empty())
    os << "    (no attention layer)\n";
  for (const KVCacheLayer &l : layers) {
    os << "    " << l.opName << " at " << formatLocation(l.loc) << ": " << l.bytesPerToken
       << " = " << l.formula << "\n";
    if (l.otherBytesPerToken)
      os << "      (" << *l.otherBytesPerToken << " = " << l.otherFormula << ")\n";
  }
}

bool sameLayers(ArrayRef<KVCacheLayer> a, ArrayRef<KVCacheLayer> b) {
  if (a.size() != b.size())
    return false;
  for (auto [x, y] : llvm::zip(a, b))
    if (x.opName != y.opName || x.bytesPerToken != y.bytesPerToken || x.formula != y.formula)
      return false;
  return true;
}
} // namespace

void mlir::decoda::printMemoryLedgers(ArrayRef<MemoryLedger> before,
                                      ArrayRef<MemoryLedger> after, llvm::raw_ostream &os) {
  for (auto [b, a] : llvm::zip(before, after)) {
    os << llvm::formatv("memory of @{0}, bytes, every dynamic dimension = T = {1}:\n",
                        a.function, a.seqLen);
    os << llvm::formatv("  {0,-44}{1,14}{2,22}\n", "", "as written", "after graph passes");
    auto row = [&](StringRef label, int64_t x, int64_t y) {
      os << llvm::formatv("  {0,-44}{1,14}{2,22}\n", label, x, y);
    };
    row("parameters", b.parameterBytes(), a.parameterBytes());
    row("  weight arguments", b.weightArgBytes, a.weightArgBytes);
    row("    tensors", b.weightArgCount, a.weightArgCount);
    row("  constants", b.constantBytes, a.constantBytes);
    row("    tensors", b.constantCount, a.constantCount);
    row("KV-cache inputs", b.cacheInputBytes, a.cacheInputBytes);
    row("activation inputs", b.activationInputBytes, a.activationInputBytes);
    row("outputs", b.outputBytes, a.outputBytes);
    row("intermediates (sum of op results)", b.intermediateBytes, a.intermediateBytes);
    row("  tensors", b.intermediateCount, a.intermediateCount);
    row("peak live activations (program order)", b.peakLiveBytes, a.peakLiveBytes);
    row("KV cache per token, all layers", b.kvBytesPerToken(), a.kvBytesPerToken());
    if (sameLayers(b.kvLayers, a.kvLayers)) {
      os << "  KV cache per token and layer:\n";
      printLayers(a.kvLayers, os);
    } else {
      os << "  KV cache per token and layer, as written:\n";
      printLayers(b.kvLayers, os);
      os << "  KV cache per token and layer, after graph passes:\n";
      printLayers(a.kvLayers, os);
    }
  }
}
