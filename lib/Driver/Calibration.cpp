//===- Calibration.cpp - INT8 calibration and the quantisation stage ------===//

#include "decoda/Driver/Calibration.h"

#include "decoda/Dialect/Decoda/IR/DecodaOps.h"
#include "decoda/Driver/JitRun.h"
#include "decoda/Support/NumpyIO.h"
#include "decoda/Transforms/Passes.h"
#include "decoda/Transforms/Quantization.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <cstring>

using namespace mlir;
using namespace mlir::decoda;
namespace npy = ::decoda::npy;

namespace {
constexpr const char *kFormat = "decoda-calibration-1";

bool isEntry(func::FuncOp fn) { return fn.isPublic() && !fn.isExternal(); }

/// The ops that get statistics, top-level in `fn`'s body, in program order, with the values
/// whose maxima are recorded: a linear's input (per channel), an attention's q, k, v (per
/// tensor). For a cached_attention, k and v are the updated caches, of which only the entries
/// attended to, [0, offset + T), are probed (see cacheProbes).
struct Target {
  Operation *op;
  SmallVector<Value> values;
  bool perChannel;
};

SmallVector<Target> targetsOf(func::FuncOp fn) {
  SmallVector<Target> targets;
  if (!fn.getBody().hasOneBlock())
    return targets;
  for (Operation &op : fn.getBody().front()) {
    if (auto linear = dyn_cast<LinearOp>(op))
      targets.push_back({&op, {linear.getInput()}, true});
    else if (auto attn = dyn_cast<AttentionOp>(op))
      targets.push_back({&op, {attn.getQuery(), attn.getKey(), attn.getValue()}, false});
    else if (auto cached = dyn_cast<CachedAttentionOp>(op))
      targets.push_back({&op,
                         {cached.getQuery(), cached.getKeyCacheOut(), cached.getValueCacheOut()},
                         false});
  }
  return targets;
}

/// The probes of a cached_attention target in the clone: its query and the prefixes
/// [0, offset + T) of the updated caches (slices after the op), so that cache entries nobody
/// attends to (past the tokens written so far) do not count.
SmallVector<Value> cacheProbes(CachedAttentionOp op) {
  OpBuilder b(op->getContext());
  b.setInsertionPointAfter(op);
  Location loc = op.getLoc();
  Value t = tensor::DimOp::create(b, loc, op.getKey(), 1);
  Value len = arith::AddIOp::create(b, loc, op.getOffset(), t);
  SmallVector<Value> probes{op.getQuery()};
  for (Value cache : {op.getKeyCacheOut(), op.getValueCacheOut()}) {
    SmallVector<OpFoldResult> offsets(4, b.getIndexAttr(0)), strides(4, b.getIndexAttr(1));
    SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, cache);
    sizes[1] = len;
    probes.push_back(tensor::ExtractSliceOp::create(b, loc, cache, offsets, sizes, strides));
  }
  return probes;
}

std::string locString(Operation *op) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << op->getLoc();
  return text;
}

const char *npyName(Type t) {
  if (t.isF32())
    return "float32";
  if (t.isF16())
    return "float16";
  if (t.isBF16())
    return "bfloat16 (uint16 bit patterns)";
  if (t.isF64())
    return "float64";
  return "an unsupported type";
}

std::optional<npy::Kind> kindFor(Type t) {
  if (t.isF32())
    return npy::Kind::F32;
  if (t.isF64())
    return npy::Kind::F64;
  if (t.isF16())
    return npy::Kind::F16;
  if (t.isInteger(32))
    return npy::Kind::I32;
  if (t.isInteger(64))
    return npy::Kind::I64;
  if (t.isInteger(8))
    return npy::Kind::I8;
  return std::nullopt;
}

double readValue(npy::Kind kind, const char *p) {
  switch (kind) {
  case npy::Kind::F32: {
    float v;
    std::memcpy(&v, p, 4);
    return v;
  }
  case npy::Kind::F64: {
    double v;
    std::memcpy(&v, p, 8);
    return v;
  }
  case npy::Kind::F16: {
    uint16_t bits;
    std::memcpy(&bits, p, 2);
    llvm::APFloat f(llvm::APFloat::IEEEhalf(), llvm::APInt(16, bits));
    bool lost;
    f.convert(llvm::APFloat::IEEEdouble(), llvm::APFloat::rmNearestTiesToEven, &lost);
    return f.convertToDouble();
  }
  case npy::Kind::I8:
    return double(*reinterpret_cast<const int8_t *>(p));
  case npy::Kind::I32: {
    int32_t v;
    std::memcpy(&v, p, 4);
    return v;
  }
  case npy::Kind::I64: {
    int64_t v;
    std::memcpy(&v, p, 8);
    return double(v);
  }
  default:
    return 0;
  }
}

std::string shapeString(ArrayRef<int64_t> shape) {
  std::string text = "[";
  llvm::raw_string_ostream os(text);
  llvm::interleaveComma(shape, os, [&](int64_t d) {
    if (ShapedType::isDynamic(d) || d < 0)
      os << "?";
    else
      os << d;
  });
  os << "]";
  return text;
}
} // namespace

//===----------------------------------------------------------------------===//
// Running the float program on the calibration samples
//===----------------------------------------------------------------------===//

FailureOr<CalibrationStats> mlir::decoda::runCalibration(ModuleOp module,
                                                         ArrayRef<EntrySignature> signature,
                                                         StringRef npzPath) {
  Location loc = module.getLoc();
  std::vector<std::pair<std::string, npy::Array>> members;
  std::string error;
  if (!npy::readNpz(npzPath.str(), members, error))
    return emitError(loc) << "--calibration: cannot read '" << npzPath << "': " << error;
  llvm::StringMap<const npy::Array *> arrays;
  for (auto &[name, array] : members)
    arrays[name] = &array;

  // Every key must be an input of some entry point.
  llvm::StringSet<> inputNames;
  for (const EntrySignature &e : signature)
    for (const TensorSignature &t : e.inputs)
      inputNames.insert(t.name);
  for (auto &[name, array] : members)
    if (!inputNames.contains(name)) {
      InFlightDiagnostic diag = emitError(loc)
                                << "--calibration: '" << npzPath << "' has an array '" << name
                                << "', which is not an input of the model; the inputs are: ";
      SmallVector<StringRef> names;
      for (const EntrySignature &e : signature)
        for (const TensorSignature &t : e.inputs)
          names.push_back(t.name);
      llvm::interleaveComma(names, diag);
      return failure();
    }

  OwningOpRef<ModuleOp> clone = cast<ModuleOp>(module->clone());
  struct Entry {
    std::string name;
    Location loc;
    std::vector<std::vector<jit::HostTensor>> samples; // per sample, per input
    SmallVector<RankedTensorType> resultTypes;          // outputs, then probes
    size_t numOutputs = 0;
    SmallVector<Target> targets;                        // in `module`
    std::vector<size_t> firstProbe;                     // per target: its first probe result
  };
  std::vector<Entry> entries;
  CalibrationStats stats;
  // `<name>_decode` entries (decoda-compile --decode-entries) are one-token copies of `<name>`:
  // they take its statistics (the same static scales for prefill and decode), since the
  // samples have the prefill's shapes.
  SmallVector<std::pair<std::string, std::string>> decodeCopies; // (copy, original)
  auto sameTargets = [](ArrayRef<Target> a, ArrayRef<Target> b) {
    if (a.size() != b.size())
      return false;
    for (auto [x, y] : llvm::zip_equal(a, b))
      if (x.op->getName() != y.op->getName())
        return false;
    return true;
  };
  for (auto [fnOriginal, fn] : llvm::zip_equal(module.getOps<func::FuncOp>(),
                                               clone->getOps<func::FuncOp>())) {
    if (!isEntry(fn))
      continue;
    SmallVector<Target> targets = targetsOf(fnOriginal);
    if (targets.empty())
      continue;
    StringRef symName = fnOriginal.getSymName();
    if (symName.ends_with("_decode")) {
      StringRef base = symName.drop_back(strlen("_decode"));
      auto original = module.lookupSymbol<func::FuncOp>(base);
      if (original && isEntry(original) && sameTargets(targetsOf(original), targets)) {
        decodeCopies.push_back({symName.str(), base.str()});
        continue;
      }
    }
    const EntrySignature *sig = nullptr;
    for (const EntrySignature &e : signature)
      if (e.name == fn.getSymName())
        sig = &e;
    if (!sig)
      return emitError(fn.getLoc()) << "--calibration: no signature for @" << fn.getSymName();
    Entry entry{fn.getSymName().str(), fnOriginal.getLoc(), {}, {}, 0, targets, {}};

    // The samples: inputs stacked along the first axis.
    int64_t samples = -1;
    std::string firstKey;
    for (auto [i, argType] : llvm::enumerate(fn.getArgumentTypes())) {
      const std::string &name = sig->inputs[i].name;
      auto type = cast<RankedTensorType>(argType);
      auto it = arrays.find(name);
      if (it == arrays.end())
        return emitError(entry.loc) << "--calibration: '" << npzPath << "' has no array for input '"
                                    << name << "' of @" << entry.name << " (expected "
                                    << shapeString(type.getShape()) << " "
                                    << npyName(type.getElementType())
                                    << ", samples stacked along the first axis)";
      const npy::Array &a = *it->second;
      std::optional<npy::Kind> kind = kindFor(type.getElementType());
      if (!kind || a.kind != *kind)
        return emitError(entry.loc)
               << "--calibration: array '" << name << "' in '" << npzPath << "' is "
               << npy::kindName(a.kind) << "; input '" << name << "' of @" << entry.name
               << " takes " << npyName(type.getElementType());
      int64_t rank = type.getRank();
      bool shapeOk = int64_t(a.shape.size()) == rank && rank > 0;
      int64_t count = 0;
      if (shapeOk) {
        int64_t b0 = type.getDimSize(0);
        if (ShapedType::isDynamic(b0))
          count = 1;
        else if (b0 > 0 && a.shape[0] % b0 == 0 && a.shape[0] > 0)
          count = a.shape[0] / b0;
        else
          shapeOk = false;
        for (int64_t d = 1; d < rank && shapeOk; ++d)
          if (!type.isDynamicDim(d) && a.shape[d] != type.getDimSize(d))
            shapeOk = false;
          else if (a.shape[d] <= 0)
            shapeOk = false;
      }
      if (!shapeOk) {
        InFlightDiagnostic diag = emitError(entry.loc)
                                  << "--calibration: array '" << name << "' in '" << npzPath
                                  << "' has shape " << shapeString(a.shape) << "; input '"
                                  << name << "' of @" << entry.name << " is "
                                  << shapeString(type.getShape());
        if (rank > 0 && !type.isDynamicDim(0))
          diag << " (one or more samples stacked along the first axis: its size a multiple of "
               << type.getDimSize(0) << ")";
        return failure();
      }
      if (samples < 0) {
        samples = count;
        firstKey = name;
      } else if (count != samples) {
        return emitError(entry.loc)
               << "--calibration: array '" << name << "' in '" << npzPath << "' holds " << count
               << " samples but '" << firstKey << "' holds " << samples
               << "; every input needs the same number";
      }
    }
    for (int64_t s = 0; s < samples; ++s) {
      std::vector<jit::HostTensor> inputs;
      for (auto [i, argType] : llvm::enumerate(fn.getArgumentTypes())) {
        const npy::Array &a = *arrays[sig->inputs[i].name];
        auto type = cast<RankedTensorType>(argType);
        jit::HostTensor t;
        t.elementType = type.getElementType();
        t.shape.assign(a.shape.begin(), a.shape.end());
        t.shape[0] = ShapedType::isDynamic(type.getDimSize(0)) ? a.shape[0] : type.getDimSize(0);
        int64_t n = 1;
        for (int64_t d : t.shape)
          n *= d;
        size_t bytes = npy::itemSize(a.kind);
        const char *base = a.data.data() + size_t(s) * size_t(n) * bytes;
        t.values.resize(n);
        for (int64_t k = 0; k < n; ++k)
          t.values[k] = readValue(a.kind, base + size_t(k) * bytes);
        inputs.push_back(std::move(t));
      }
      entry.samples.push_back(std::move(inputs));
    }
    stats.samples = std::max(stats.samples, samples);

    // Probes: the recorded values become extra results of the clone.
    SmallVector<Target> cloneTargets = targetsOf(fn);
    auto ret = cast<func::ReturnOp>(fn.getBody().front().getTerminator());
    entry.numOutputs = ret.getNumOperands();
    for (Type t : fn.getResultTypes())
      entry.resultTypes.push_back(cast<RankedTensorType>(t));
    SmallVector<Value> probes;
    for (Target &t : cloneTargets) {
      entry.firstProbe.push_back(entry.numOutputs + probes.size());
      if (auto cached = dyn_cast<CachedAttentionOp>(t.op))
        t.values = cacheProbes(cached);
      for (Value v : t.values) {
        probes.push_back(v);
        entry.resultTypes.push_back(cast<RankedTensorType>(v.getType()));
      }
    }
    ret->insertOperands(ret->getNumOperands(), probes);
    SmallVector<Type> results(fn.getResultTypes());
    for (Value v : probes)
      results.push_back(v.getType());
    fn.setType(FunctionType::get(fn.getContext(), fn.getArgumentTypes(), results));
    fn.removeResAttrsAttr();
    entries.push_back(std::move(entry));
  }

  FailureOr<std::unique_ptr<jit::JitProgram>> program =
      jit::JitProgram::create(*clone, "--calibration", "after the graph passes");
  if (failed(program))
    return failure();
  for (Entry &entry : entries) {
    std::vector<std::vector<float>> maxima(entry.targets.size());
    for (auto [s, inputs] : llvm::enumerate(entry.samples)) {
      std::string checkFailure;
      FailureOr<std::vector<jit::HostTensor>> results =
          (*program)->call(entry.name, inputs, entry.resultTypes, checkFailure, entry.loc);
      if (failed(results)) {
        if (!checkFailure.empty())
          return emitError(entry.loc) << "--calibration: @" << entry.name << " fails a run-time "
                                      << "check on sample " << s << " of '" << npzPath
                                      << "': " << checkFailure;
        return failure();
      }
      for (auto [t, target] : llvm::enumerate(entry.targets)) {
        std::vector<float> &m = maxima[t];
        for (size_t v = 0; v < target.values.size(); ++v) {
          const jit::HostTensor &x = (*results)[entry.firstProbe[t] + v];
          if (target.perChannel) {
            int64_t k = x.shape.empty() ? 1 : x.shape.back();
            m.resize(k, 0.0f);
            for (size_t i = 0; i < x.values.size(); ++i)
              m[i % k] = std::max(m[i % k], float(std::fabs(x.values[i])));
          } else {
            m.resize(target.values.size(), 0.0f);
            for (double e : x.values)
              m[v] = std::max(m[v], float(std::fabs(e)));
          }
        }
      }
    }
    for (auto [t, target] : llvm::enumerate(entry.targets))
      stats.records.push_back({entry.name, int64_t(t), target.op->getName().getStringRef().str(),
                               locString(target.op), maxima[t]});
  }
  for (auto &[copy, original] : decodeCopies) {
    size_t n = stats.records.size();
    for (size_t i = 0; i < n; ++i)
      if (stats.records[i].function == original) {
        CalibrationRecord r = stats.records[i];
        r.function = copy;
        stats.records.push_back(std::move(r));
      }
  }
  return stats;
}

//===----------------------------------------------------------------------===//
// Statistics onto ops, to and from JSON
//===----------------------------------------------------------------------===//

LogicalResult mlir::decoda::applyCalibration(ModuleOp module, const CalibrationStats &stats,
                                             StringRef source) {
  llvm::StringMap<SmallVector<Target>> targets;
  for (auto fn : module.getOps<func::FuncOp>())
    if (isEntry(fn))
      targets[fn.getSymName()] = targetsOf(fn);
  for (const CalibrationRecord &r : stats.records) {
    auto it = targets.find(r.function);
    if (it == targets.end() || r.index < 0 || r.index >= int64_t(it->second.size()) ||
        it->second[r.index].op->getName().getStringRef() != r.op)
      return emitError(module.getLoc())
             << "calibration statistics from '" << source << "' do not match this program: "
             << "no " << r.op << " number " << r.index << " in @" << r.function
             << " (recorded at " << r.loc << ")";
    Target &t = it->second[r.index];
    size_t expected = 3;
    if (t.perChannel)
      expected = size_t(cast<RankedTensorType>(t.values[0].getType()).getShape().back());
    if (r.absmax.size() != expected)
      return emitError(t.op->getLoc())
             << "calibration statistics from '" << source << "' do not match this program: "
             << r.absmax.size() << " values for this " << r.op << ", which needs " << expected;
    t.op->setAttr(quant::kCalibAbsmax, DenseF32ArrayAttr::get(module.getContext(), r.absmax));
  }
  return success();
}

LogicalResult mlir::decoda::saveCalibration(const CalibrationStats &stats, StringRef path,
                                            Location loc) {
  llvm::json::Array ops;
  for (const CalibrationRecord &r : stats.records) {
    llvm::json::Array values;
    for (float v : r.absmax)
      values.push_back(double(v));
    ops.push_back(llvm::json::Object{{"function", r.function},
                                     {"index", r.index},
                                     {"op", r.op},
                                     {"loc", r.loc},
                                     {"absmax", std::move(values)}});
  }
  llvm::json::Object root{{"format", kFormat}, {"samples", stats.samples}, {"ops", std::move(ops)}};
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec);
  if (ec)
    return emitError(loc) << "--save-calibration: cannot write '" << path << "': "
                          << ec.message();
  os << llvm::formatv("{0:2}", llvm::json::Value(std::move(root))) << "\n";
  return success();
}

FailureOr<CalibrationStats> mlir::decoda::loadCalibration(StringRef path, Location loc) {
  auto buffer = llvm::MemoryBuffer::getFile(path);
  if (!buffer)
    return emitError(loc) << "--calibration: cannot read '" << path << "': "
                          << buffer.getError().message();
  llvm::Expected<llvm::json::Value> parsed = llvm::json::parse((*buffer)->getBuffer());
  if (!parsed)
    return emitError(loc) << "--calibration: '" << path << "' is not valid JSON: "
                          << llvm::toString(parsed.takeError());
  auto bad = [&](const Twine &what) {
    return emitError(loc) << "--calibration: '" << path << "' is not a calibration file of "
                          << "this version (" << kFormat << "): " << what;
  };
  const llvm::json::Object *root = parsed->getAsObject();
  if (!root || root->getString("format") != std::optional<StringRef>(kFormat))
    return bad("no \"format\": \"" + Twine(kFormat) + "\"");
  CalibrationStats stats;
  stats.samples = root->getInteger("samples").value_or(0);
  const llvm::json::Array *ops = root->getArray("ops");
  if (!ops)
    return bad("no \"ops\" array");
  for (const llvm::json::Value &v : *ops) {
    const llvm::json::Object *o = v.getAsObject();
    const llvm::json::Array *absmax = o ? o->getArray("absmax") : nullptr;
    if (!o || !o->getString("function") || !o->getInteger("index") || !o->getString("op") ||
        !absmax)
      return bad("an entry of \"ops\" lacks function, index, op or absmax");
    CalibrationRecord r;
    r.function = o->getString("function")->str();
    r.index = *o->getInteger("index");
    r.op = o->getString("op")->str();
    r.loc = o->getString("loc").value_or("?").str();
    for (const llvm::json::Value &x : *absmax) {
      std::optional<double> d = x.getAsNumber();
      if (!d || !std::isfinite(*d) || *d < 0)
        return bad("absmax values must be finite non-negative numbers");
      r.absmax.push_back(float(*d));
    }
    stats.records.push_back(std::move(r));
  }
  return stats;
}

//===----------------------------------------------------------------------===//
// The quantisation stage
//===----------------------------------------------------------------------===//

bool mlir::decoda::quantizationNeedsCalibration(const QuantizeOptions &options) {
  return options.smooth || options.scales == "static" || options.attention;
}

void mlir::decoda::buildQuantizePassPipeline(OpPassManager &pm, const QuantizeOptions &options) {
  if (options.smooth) {
    SmoothQuantPassOptions smooth;
    smooth.alpha = options.alpha;
    pm.addPass(createSmoothQuantPass(smooth));
  }
  InsertQDQPassOptions qdq;
  qdq.activations = options.activations;
  qdq.scales = options.scales;
  qdq.attention = options.attention;
  qdq.keepFloat.assign(options.keepFloat.begin(), options.keepFloat.end());
  pm.addPass(createInsertQDQPass(qdq));
  pm.addPass(createFoldQLinearPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
}

namespace {
class QuantizeStagePass : public PassWrapper<QuantizeStagePass, OperationPass<ModuleOp>> {
public:
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(QuantizeStagePass)
  explicit QuantizeStagePass(QuantizeStageConfig config) : config(std::move(config)) {}
  StringRef getArgument() const override { return "decoda-quantize-stage"; }
  StringRef getDescription() const override {
    return "decoda-compile's INT8 stage: calibration, then the INT8 graph passes";
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (!config.calibration.empty()) {
      FailureOr<CalibrationStats> stats =
          llvm::sys::path::extension(config.calibration) == ".json"
              ? loadCalibration(config.calibration, module.getLoc())
              : runCalibration(module, config.signature, config.calibration);
      if (failed(stats))
        return signalPassFailure();
      if (!config.saveCalibration.empty() &&
          failed(saveCalibration(*stats, config.saveCalibration, module.getLoc())))
        return signalPassFailure();
      if (failed(applyCalibration(module, *stats, config.calibration)))
        return signalPassFailure();
    }
    if (config.quantize) {
      OpPassManager pm(ModuleOp::getOperationName());
      buildQuantizePassPipeline(pm, config.options);
      if (failed(runPipeline(pm, module)))
        return signalPassFailure();
    }
    if (config.snapshot)
      *config.snapshot = cast<ModuleOp>(module->clone());
  }

private:
  QuantizeStageConfig config;
};
} // namespace

std::unique_ptr<Pass> mlir::decoda::createQuantizeStagePass(QuantizeStageConfig config) {
  return std::make_unique<QuantizeStagePass>(std::move(config));
}
