//===- NumericsCheck.cpp - run every graph-pass version of a program ------===//

#include "decoda/Driver/NumericsCheck.h"

#include "decoda/Driver/JitRun.h"
#include "decoda/Driver/ReportFormat.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>

using namespace mlir;
using namespace mlir::decoda;

//===----------------------------------------------------------------------===//
// Values, inputs and descriptors
//===----------------------------------------------------------------------===//

namespace {
using Tensor = jit::HostTensor;

/// One probed op result.
struct Probe {
  std::string key;
  std::string opName;
  Location loc;
  unsigned result;
};

struct FunctionRun {
  std::vector<Tensor> outputs;
  std::vector<Probe> probes;
  std::vector<Tensor> probeValues;
};
using ProgramRun = std::map<std::string, FunctionRun>;

/// splitmix64: a fixed generator, so a seed means the same inputs on every machine.
struct Random {
  uint64_t state;
  uint64_t next() {
    uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  double uniform() { return double(next() >> 11) * 0x1.0p-53; } // [0, 1)
};

/// Random values for an argument of `type` (see the header), every dynamic dimension
/// `dynamicSize`.
Tensor makeInput(RankedTensorType type, int64_t dynamicSize, Random &random) {
  Tensor t;
  t.elementType = type.getElementType();
  int64_t n = 1;
  for (int64_t d : type.getShape()) {
    t.shape.push_back(ShapedType::isDynamic(d) ? dynamicSize : d);
    n *= t.shape.back();
  }
  Type et = t.elementType;
  t.values.resize(n);
  for (int64_t i = 0; i < n; ++i) {
    double v = 0;
    if (isa<FloatType>(et))
      v = 2.0 * random.uniform() - 1.0;
    else if (et.isInteger(8))
      v = double(int64_t(random.next() % 255) - 127);
    else if (et.isInteger(1))
      v = double(random.next() & 1);
    t.values[i] = v;
  }
  return t;
}

bool isEntry(func::FuncOp fn) { return fn.isPublic() && !fn.isExternal(); }
} // namespace

//===----------------------------------------------------------------------===//
// Probes, lowering and running one version
//===----------------------------------------------------------------------===//

namespace {
/// Appends the probed op results of `fn` to its results (see the header for which).
std::vector<Probe> addProbes(func::FuncOp fn) {
  if (!fn.getBody().hasOneBlock())
    return {};
  Block &body = fn.getBody().front();
  auto ret = dyn_cast<func::ReturnOp>(body.getTerminator());
  if (!ret)
    return {};
  std::vector<Probe> probes;
  SmallVector<Value> values;
  for (Operation &op : body.without_terminator()) {
    if (op.hasTrait<OpTrait::ConstantLike>() || !op.getDialect())
      continue;
    StringRef ns = op.getDialect()->getNamespace();
    if (ns != "decoda" && ns != "linalg" && ns != "arith" && ns != "math")
      continue;
    for (OpResult r : op.getResults()) {
      auto type = dyn_cast<RankedTensorType>(r.getType());
      if (!type || !isa<FloatType>(type.getElementType()))
        continue;
      std::string key;
      llvm::raw_string_ostream os(key);
      os << op.getLoc() << "|" << op.getName() << "|" << r.getResultNumber() << "|" << type;
      probes.push_back({key, op.getName().getStringRef().str(), op.getLoc(),
                        r.getResultNumber()});
      values.push_back(r);
    }
  }
  ret->insertOperands(ret->getNumOperands(), values);
  SmallVector<Type> results(fn.getResultTypes());
  for (Value v : values)
    results.push_back(v.getType());
  fn.setType(FunctionType::get(fn.getContext(), fn.getArgumentTypes(), results));
  fn.removeResAttrsAttr();
  return probes;
}

class VersionRunner {
public:
  explicit VersionRunner(const NumericsCheckOptions &options) : options(options) {}

  /// Lowers a clone of `module` with probes, JIT-compiles it and runs every entry point, each
  /// on the same inputs in every version (made when the first version runs).
  FailureOr<ProgramRun> run(ModuleOp module, StringRef what);

private:
  /// The inputs of `fn`, made from its argument types on first use; later versions must keep
  /// those types.
  FailureOr<std::vector<Tensor> *> inputsFor(func::FuncOp fn);

  struct Inputs {
    SmallVector<Type> types;
    std::vector<Tensor> inputs;
  };
  const NumericsCheckOptions &options;
  llvm::StringMap<Inputs> inputs;
};

FailureOr<std::vector<Tensor> *> VersionRunner::inputsFor(func::FuncOp fn) {
  auto it = inputs.find(fn.getSymName());
  if (it != inputs.end()) {
    if (it->second.types != fn.getArgumentTypes())
      return emitError(fn.getLoc()) << "--verify-numerics: a graph pass changed the argument "
                                       "types of @"
                                    << fn.getSymName();
    return &it->second.inputs;
  }
  Inputs &ins = inputs[fn.getSymName()];
  ins.types.assign(fn.getArgumentTypes().begin(), fn.getArgumentTypes().end());
  Random random{options.seed * 0x2545F4914F6CDD1Dull};
  for (Type t : fn.getArgumentTypes())
    ins.inputs.push_back(makeInput(cast<RankedTensorType>(t), options.dynamicDimSize, random));
  return &ins.inputs;
}

FailureOr<ProgramRun> VersionRunner::run(ModuleOp original, StringRef what) {
  OwningOpRef<ModuleOp> module = cast<ModuleOp>(original->clone());

  struct EntryInfo {
    std::string name;
    SmallVector<RankedTensorType> results; // outputs, then probes
    size_t numOutputs;
    std::vector<Probe> probes;
  };
  std::vector<EntryInfo> entries;
  for (auto fn : module->getOps<func::FuncOp>()) {
    if (!isEntry(fn))
      continue;
    for (Type t : llvm::concat<const Type>(fn.getArgumentTypes(), fn.getResultTypes()))
      if (!isa<RankedTensorType>(t))
        return emitError(fn.getLoc()) << "--verify-numerics: @" << fn.getSymName()
                                      << " takes or returns " << t
                                      << "; only ranked tensors can be given random values";
    EntryInfo info;
    info.name = fn.getSymName().str();
    info.numOutputs = fn.getNumResults();
    info.probes = addProbes(fn);
    for (Type t : fn.getResultTypes())
      info.results.push_back(cast<RankedTensorType>(t));
    entries.push_back(std::move(info));
  }

  FailureOr<std::unique_ptr<jit::JitProgram>> program =
      jit::JitProgram::create(*module, "--verify-numerics", what);
  if (failed(program))
    return failure();

  ProgramRun result;
  for (EntryInfo &entry : entries) {
    auto fn = original.lookupSymbol<func::FuncOp>(entry.name);
    FailureOr<std::vector<Tensor> *> maybeInputs = inputsFor(fn);
    if (failed(maybeInputs))
      return failure();
    std::vector<Tensor> &ins = **maybeInputs;
    std::string checkFailure;
    FailureOr<std::vector<Tensor>> results =
        (*program)->call(entry.name, ins, entry.results, checkFailure, fn.getLoc());
    if (failed(results)) {
      if (checkFailure.empty())
        return failure();
      return emitError(fn.getLoc())
             << "--verify-numerics: @" << entry.name << " " << what
             << " fails a run-time check on the random inputs (every dynamic dimension "
             << options.dynamicDimSize << "): " << checkFailure;
    }
    FunctionRun &run = result[entry.name];
    run.probes = std::move(entry.probes);
    for (auto [i, value] : llvm::enumerate(*results))
      (i < entry.numOutputs ? run.outputs : run.probeValues).push_back(std::move(value));
  }
  return result;
}
} // namespace

//===----------------------------------------------------------------------===//
// Comparison
//===----------------------------------------------------------------------===//

namespace {
struct Drift {
  double maxAbs = 0, maxRel = 0;
  double tolerance = 0; // the one applied
  int64_t worst = -1;   // flat index of the largest error relative to the tolerance
  bool beyond = false;
  bool shapeMismatch = false;
};

/// The tolerance for values stored as `t`: the user's, or by default about a few roundings of
/// the storage type (a pass may legitimately reassociate sums or round at new op boundaries).
double toleranceFor(Type t, double userTolerance) {
  if (userTolerance > 0)
    return userTolerance;
  if (t.isF16())
    return 1e-2;
  if (t.isBF16())
    return 5e-2;
  return 1e-4;
}

Drift compare(const Tensor &ref, const Tensor &got, double userTolerance) {
  double tol = toleranceFor(ref.elementType, userTolerance);
  Drift d;
  d.tolerance = tol;
  if (ref.shape != got.shape) {
    d.beyond = d.shapeMismatch = true;
    return d;
  }
  double worstRatio = -1;
  for (size_t i = 0; i < ref.values.size(); ++i) {
    double a = got.values[i], b = ref.values[i];
    double err;
    if (std::isnan(a) || std::isnan(b))
      err = std::isnan(a) && std::isnan(b) ? 0 : INFINITY;
    else if (a == b)
      err = 0; // equal infinities too
    else
      err = std::fabs(a - b);
    double rel = b != 0 ? err / std::fabs(b) : (err == 0 ? 0 : INFINITY);
    d.maxAbs = std::max(d.maxAbs, err);
    d.maxRel = std::max(d.maxRel, rel);
    double ratio = err / (tol * std::max(1.0, std::isfinite(b) ? std::fabs(b) : 1.0));
    if (ratio > worstRatio) {
      worstRatio = ratio;
      d.worst = int64_t(i);
    }
    if (ratio > 1)
      d.beyond = true;
  }
  return d;
}

std::string formatIndex(ArrayRef<int64_t> shape, int64_t flat) {
  SmallVector<int64_t> index(shape.size());
  for (int64_t k = int64_t(shape.size()) - 1; k >= 0; --k) {
    index[k] = shape[k] ? flat % shape[k] : 0;
    flat = shape[k] ? flat / shape[k] : 0;
  }
  std::string text = "[";
  llvm::raw_string_ostream os(text);
  llvm::interleaveComma(index, os);
  os << "]";
  return text;
}

std::string number(double x) {
  std::string text;
  llvm::raw_string_ostream(text) << llvm::format("%.7g", x);
  return text;
}

std::string describe(const Drift &d, const Tensor &ref, const Tensor &got) {
  if (d.shapeMismatch)
    return "shape changed";
  std::string worst;
  if (d.worst >= 0 && d.maxAbs > 0)
    worst = llvm::formatv(" (worst at {0}: {1} instead of {2})", formatIndex(ref.shape, d.worst),
                          number(got.values[d.worst]), number(ref.values[d.worst]))
                .str();
  return llvm::formatv("max abs err {0}, max rel err {1}{2}", number(d.maxAbs), number(d.maxRel),
                       worst)
      .str();
}
} // namespace

namespace {
/// Where a probe's reference value lives: probe `index` of `run`.
struct ProbeRef {
  const FunctionRun *run;
  size_t index;
};
/// Probes of one version by key; a key seen twice maps to nullopt (ambiguous, not compared).
using ProbeIndex = std::map<std::string, std::optional<ProbeRef>>;

ProbeIndex indexProbes(const FunctionRun &run) {
  ProbeIndex index;
  for (auto [i, p] : llvm::enumerate(run.probes)) {
    auto [it, inserted] = index.try_emplace(p.key, ProbeRef{&run, i});
    if (!inserted)
      it->second.reset();
  }
  return index;
}

std::optional<ProbeRef> lookup(const ProbeIndex &index, const std::string &key) {
  auto it = index.find(key);
  return it == index.end() ? std::nullopt : it->second;
}
} // namespace

LogicalResult mlir::decoda::checkNumerics(ArrayRef<ProgramVersion> versions,
                                          const NumericsCheckOptions &options,
                                          llvm::raw_ostream &log) {
  assert(!versions.empty() && "the program as written comes first");
  ModuleOp written = versions.front().module;
  std::string tolerance = options.tolerance > 0
                              ? number(options.tolerance)
                              : "by element type (f32/f64 1e-4, f16 1e-2, bf16 5e-2)";
  log << llvm::formatv("verify-numerics: random inputs (seed {0}), every dynamic dimension {1}, "
                       "tolerance {2}\n",
                       options.seed, options.dynamicDimSize, tolerance);
  if (versions.size() == 1) {
    log << "verify-numerics: no graph pass ran; nothing to compare\n";
    return success();
  }
  VersionRunner runner(options);
  FailureOr<ProgramRun> reference = runner.run(written, "as written");
  if (failed(reference))
    return failure();

  std::vector<ProgramRun> runs; // results of the changed versions; reserved: pointers stay valid
  runs.reserve(versions.size());
  const ProgramRun *previous = &*reference;
  for (size_t v = 1; v < versions.size(); ++v) {
    const ProgramVersion &version = versions[v];
    std::string what = "after " + version.pass;
    if (!version.changed) {
      log << "verify-numerics: " << what << ": IR unchanged\n";
      continue;
    }
    FailureOr<ProgramRun> run = runner.run(version.module, "after pass '" + version.pass + "'");
    if (failed(run))
      return failure();
    runs.push_back(std::move(*run));
    const ProgramRun &current = runs.back();

    for (auto &[name, ref] : *reference) {
      auto fn = written.lookupSymbol<func::FuncOp>(name);
      auto it = current.find(name);
      if (it == current.end())
        return emitError(fn.getLoc()) << "--verify-numerics: pass '" << version.pass
                                      << "' removed the entry point @" << name;
      const FunctionRun &got = it->second;
      if (got.outputs.size() != ref.outputs.size())
        return emitError(fn.getLoc()) << "--verify-numerics: pass '" << version.pass
                                      << "' changed the number of results of @" << name;

      // Outputs against the program as written: the first one beyond tolerance, else the one
      // with the largest error.
      std::optional<size_t> driftOutput;
      Drift shown;
      size_t shownOutput = 0;
      for (size_t o = 0; o < ref.outputs.size() && !driftOutput; ++o) {
        Drift d = compare(ref.outputs[o], got.outputs[o], options.tolerance);
        if (d.beyond)
          driftOutput = o;
        if (d.beyond || o == 0 || d.maxAbs > shown.maxAbs) {
          shown = d;
          shownOutput = o;
        }
      }

      // Ops in program order. An op with a counterpart as written is compared with it; an op
      // rewritten by an earlier pass (verified then) with its counterpart before this pass,
      // which catches a pass that changes such an op in place; an op new in this pass has
      // nothing to be compared with and is listed if it precedes the first drifting op.
      ProbeIndex asWritten = indexProbes(ref);
      ProbeIndex before;
      if (auto prev = previous->find(name); prev != previous->end())
        before = indexProbes(prev->second);
      size_t compared = 0, uncompared = 0;
      std::optional<size_t> firstDrift;
      Drift opDrift;
      std::optional<ProbeRef> opRef;
      bool againstWritten = true;
      std::vector<size_t> suspects;
      for (auto [i, p] : llvm::enumerate(got.probes)) {
        std::optional<ProbeRef> r = lookup(asWritten, p.key);
        bool written = r.has_value();
        if (!r)
          r = lookup(before, p.key);
        if (!r) {
          ++uncompared;
          if (!firstDrift)
            suspects.push_back(i);
          continue;
        }
        ++compared;
        if (firstDrift)
          continue;
        Drift d = compare(r->run->probeValues[r->index], got.probeValues[i], options.tolerance);
        if (d.beyond) {
          firstDrift = i;
          opDrift = d;
          opRef = r;
          againstWritten = written;
        }
      }

      if (!driftOutput) {
        log << llvm::formatv("verify-numerics: @{0} {1}: ok, outputs {2}; op results: {3} "
                             "compared, {4} new in this pass\n",
                             name, what,
                             describe(shown, ref.outputs[shownOutput], got.outputs[shownOutput]),
                             compared, uncompared);
        continue;
      }

      log << llvm::formatv("verify-numerics: @{0} {1}: DRIFT\n", name, what);
      InFlightDiagnostic diag =
          emitError(fn.getLoc())
          << "--verify-numerics: output " << *driftOutput << " of @" << name
          << " drifts beyond tolerance " << number(shown.tolerance) << " after pass '"
          << version.pass << "' (graph pass " << v << " of " << versions.size() - 1 << "): "
          << describe(shown, ref.outputs[*driftOutput], got.outputs[*driftOutput]);
      if (firstDrift) {
        const Probe &p = got.probes[*firstDrift];
        diag.attachNote(p.loc)
            << "first op whose values drift: '" << p.opName << "' at " << formatLocation(p.loc)
            << ", result " << p.result << ", against "
            << (againstWritten ? "the program as written" : "the program before this pass")
            << ": "
            << describe(opDrift, opRef->run->probeValues[opRef->index],
                        got.probeValues[*firstDrift]);
      } else {
        diag.attachNote() << "no op that has a counterpart before this pass drifts: the drift "
                             "comes from ops the pass created";
      }
      // Ops new in this pass that come first are as likely a cause as the op named.
      for (size_t i : llvm::ArrayRef(suspects).take_front(5)) {
        const Probe &p = got.probes[i];
        diag.attachNote(p.loc) << "not compared (new in this pass): '" << p.opName << "' at "
                               << formatLocation(p.loc) << ", result " << p.result;
      }
      return failure();
    }
    previous = &current;
  }
  log << llvm::formatv("verify-numerics: no drift after {0} graph passes\n",
                       versions.size() - 1);
  return success();
}
