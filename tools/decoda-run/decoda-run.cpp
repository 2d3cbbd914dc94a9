//===- decoda-run.cpp - run a compiled Decoda model on .npy inputs --------===//
//
// Loads a compiled model through libdecoda_runtime (never MLIR), feeds it .npy/.npz inputs,
// writes its outputs as .npy, compares them against references and times it.
//
//===----------------------------------------------------------------------===//

#include "decoda/Support/NumpyIO.h"

#include "decoda-c/runtime.h"

#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace npy = decoda::npy;

namespace {

const char *const kUsage = R"(usage: decoda-run MODEL.so [options]

Runs an entry point of a compiled Decoda model (docs/ABI.md) on NumPy inputs.

options:
  --entry NAME          the entry point to run (may be omitted when the model has one)
  --input NAME=FILE     a .npy file for input NAME (repeatable; overrides --inputs)
  --inputs FILE.npz     a .npz archive whose members NAME.npy are inputs (repeatable)
  --output-dir DIR      write every output to DIR/NAME.npy (DIR is created if missing)
  --check NAME=FILE     compare output NAME with the reference FILE.npy (repeatable):
                        an element passes when |out - ref| <= atol + rtol * |ref|;
                        NaN matches NaN, an infinity matches the same infinity; the line
                        also gives rel_l2 = ||out - ref|| / ||ref|| over the finite elements
  --rtol R              relative tolerance of --check (default 1e-5)
  --atol A              absolute tolerance of --check (default 1e-8)
  --bench N             time N runs after the warm-up runs; prints median/min/max in ms
  --warmup W            warm-up runs before --bench (default 3)
  --profile             with --bench N, CUDA models: N more runs (before the timed ones) with
                        CUDA events around every kernel launch (docs/ABI.md, "Kernel
                        profiles"); prints the median device time of each launch and of all
                        of them together (the kernels' span, without the copies of inputs
                        and outputs)
  --donate              hand the buffers of donated inputs (docs/ABI.md; e.g. a KV cache the
                        entry returns updated) to the model: it writes those outputs in place
                        instead of into a copy (each --bench run then starts from the cache
                        the run before wrote)
  --cuda-graphs         CUDA models: launch graphs (docs/ABI.md, "Launch graphs"): each run of
                        launches with no copy, free or wait between them goes to the device
                        as one CUDA graph, kept and replayed by the next runs (--profile runs
                        still launch one by one)
  --device-inputs[=A,B]  CUDA models: upload every input (or inputs A, B) to device memory
                        once, before the runs, and pass the device buffers (docs/ABI.md,
                        "Device-resident tensors"): the model reads them in place, and with
                        --donate writes the donated caches in place on the device, so --bench
                        times the kernels without the inputs' copies to the device (a scalar
                        the model reads on the host, such as a cache offset, is best left in
                        host memory)
  --list                print the entry points and their signatures, then exit
  -h, --help            print this help

Arrays: .npy versions 1-3, C order, little-endian dtypes <f4 (f32), <f2 (f16), <f8 (f64),
|i1 (i8), <i4 (i32), <i8 (i64), |b1 (i1). NumPy has no bfloat16: a bf16 input is given as a
uint16 array ('<u2') of bf16 bit patterns, and bf16 outputs are written the same way (in --check a
'<u2' reference of a bf16 output is read as bf16 bits, a float reference as its values).

Exit status: 0 success; 1 a --check comparison failed or a run-time check inside the model
failed; 2 a usage or input error (bad flag, missing/unreadable/malformed file, wrong input name,
dtype or shape, not a Decoda model).
)";

constexpr int kExitFail = 1;
constexpr int kExitUsage = 2;

[[noreturn]] void die(int code, const std::string &message, bool hint = false) {
  std::fprintf(stderr, "decoda-run: error: %s\n", message.c_str());
  if (hint)
    std::fprintf(stderr, "run 'decoda-run --help' for usage\n");
  std::fflush(stdout);
  std::exit(code);
}

std::string shapeString(const int64_t *shape, int rank) {
  std::string s = "[";
  for (int i = 0; i < rank; ++i)
    s += (i ? ", " : "") + (shape[i] < 0 ? std::string("?") : std::to_string(shape[i]));
  return s + "]";
}

std::string shapeString(const std::vector<int64_t> &shape) {
  return shapeString(shape.data(), static_cast<int>(shape.size()));
}

/// The NumPy kind that carries a Decoda dtype in a file.
npy::Kind kindOf(decoda_dtype dtype) {
  switch (dtype) {
  case DECODA_F32: return npy::Kind::F32;
  case DECODA_F16: return npy::Kind::F16;
  case DECODA_BF16: return npy::Kind::U16;
  case DECODA_F64: return npy::Kind::F64;
  case DECODA_I8: return npy::Kind::I8;
  case DECODA_I32: return npy::Kind::I32;
  case DECODA_I64: return npy::Kind::I64;
  case DECODA_I1: return npy::Kind::Bool;
  }
  return npy::Kind::F32;
}

double halfToDouble(uint16_t h) {
  int sign = h >> 15, exp = (h >> 10) & 0x1f, mant = h & 0x3ff;
  double v;
  if (exp == 0)
    v = std::ldexp(mant, -24);
  else if (exp == 31)
    v = mant ? NAN : INFINITY;
  else
    v = std::ldexp(mant + 1024, exp - 25);
  return sign ? -v : v;
}

double bf16ToDouble(uint16_t b) {
  uint32_t bits = uint32_t(b) << 16;
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

/// Element `i` of a buffer of `kind` (U16 read as bf16 bits when `u16IsBf16`) as a double.
double elementAsDouble(const char *data, npy::Kind kind, int64_t i, bool u16IsBf16) {
  switch (kind) {
  case npy::Kind::F32: {
    float v;
    std::memcpy(&v, data + 4 * i, 4);
    return v;
  }
  case npy::Kind::F64: {
    double v;
    std::memcpy(&v, data + 8 * i, 8);
    return v;
  }
  case npy::Kind::F16:
  case npy::Kind::U16: {
    uint16_t v;
    std::memcpy(&v, data + 2 * i, 2);
    if (kind == npy::Kind::F16)
      return halfToDouble(v);
    return u16IsBf16 ? bf16ToDouble(v) : double(v);
  }
  case npy::Kind::I8:
    return static_cast<int8_t>(data[i]);
  case npy::Kind::Bool:
    return data[i] ? 1.0 : 0.0;
  case npy::Kind::I32: {
    int32_t v;
    std::memcpy(&v, data + 4 * i, 4);
    return v;
  }
  case npy::Kind::I64: {
    int64_t v;
    std::memcpy(&v, data + 8 * i, 8);
    return static_cast<double>(v);
  }
  }
  return 0;
}

std::string indexString(int64_t flat, const std::vector<int64_t> &shape) {
  std::vector<int64_t> idx(shape.size());
  for (size_t d = shape.size(); d-- > 0;) {
    idx[d] = shape[d] ? flat % shape[d] : 0;
    flat = shape[d] ? flat / shape[d] : 0;
  }
  return shapeString(idx);
}

std::string fmt(double v) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.6g", v);
  return buf;
}

bool parseDouble(const std::string &text, double &v) {
  if (text.empty())
    return false;
  char *end = nullptr;
  errno = 0;
  v = std::strtod(text.c_str(), &end);
  return errno == 0 && *end == '\0' && std::isfinite(v) && v >= 0;
}

bool parseCount(const std::string &text, long &v) {
  if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos ||
      text.size() > 9)
    return false;
  v = std::strtol(text.c_str(), nullptr, 10);
  return true;
}

std::pair<std::string, std::string> splitNameFile(const std::string &flag,
                                                  const std::string &value) {
  size_t eq = value.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == value.size())
    die(kExitUsage, flag + " expects NAME=FILE, got '" + value + "'", true);
  return {value.substr(0, eq), value.substr(eq + 1)};
}

struct Options {
  std::string model;
  std::string entry;
  std::vector<std::pair<std::string, std::string>> inputs; // name, file
  std::vector<std::string> npzFiles;
  std::string outputDir;
  std::vector<std::pair<std::string, std::string>> checks; // name, file
  double rtol = 1e-5, atol = 1e-8;
  long bench = 0, warmup = 3;
  bool list = false;
  bool donate = false;
  bool profile = false;
  bool graphs = false;
  bool deviceInputs = false;
  std::vector<std::string> deviceInputNames; // --device-inputs=a,b; empty: every input
};

Options parseArgs(int argc, char **argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "-h" || arg == "--help") {
      std::fputs(kUsage, stdout);
      std::exit(0);
    }
    if (arg.size() > 1 && arg[0] == '-') {
      std::string flag = arg, value;
      bool inlineValue = false;
      size_t eq = arg.find('=');
      if (arg.compare(0, 2, "--") == 0 && eq != std::string::npos) {
        flag = arg.substr(0, eq);
        value = arg.substr(eq + 1);
        inlineValue = true;
      }
      static const char *const withValue[] = {"--entry", "--input",  "--inputs", "--output-dir",
                                              "--check", "--rtol",   "--atol",   "--bench",
                                              "--warmup"};
      bool takesValue = std::any_of(std::begin(withValue), std::end(withValue),
                                    [&](const char *f) { return flag == f; });
      if (flag == "--device-inputs") {
        o.deviceInputs = true;
        if (inlineValue) {
          if (value.empty())
            die(kExitUsage, "--device-inputs= names no input", true);
          for (size_t start = 0; start <= value.size();) {
            size_t comma = std::min(value.find(',', start), value.size());
            std::string name = value.substr(start, comma - start);
            if (name.empty())
              die(kExitUsage, "--device-inputs=" + value + ": an empty input name", true);
            o.deviceInputNames.push_back(name);
            start = comma + 1;
          }
        }
        continue;
      }
      if (flag == "--list" || flag == "--donate" || flag == "--profile" ||
          flag == "--cuda-graphs") {
        if (inlineValue)
          die(kExitUsage, flag + " takes no value", true);
        (flag == "--list"     ? o.list
         : flag == "--donate" ? o.donate
         : flag == "--profile" ? o.profile
                               : o.graphs) = true;
        continue;
      }
      if (!takesValue)
        die(kExitUsage, "unknown option '" + arg + "'", true);
      if (!inlineValue) {
        if (i + 1 >= argc)
          die(kExitUsage, flag + " needs a value", true);
        value = argv[++i];
      }
      if (flag == "--entry") {
        o.entry = value;
      } else if (flag == "--input") {
        o.inputs.push_back(splitNameFile(flag, value));
      } else if (flag == "--inputs") {
        o.npzFiles.push_back(value);
      } else if (flag == "--output-dir") {
        o.outputDir = value;
      } else if (flag == "--check") {
        o.checks.push_back(splitNameFile(flag, value));
      } else if (flag == "--rtol" || flag == "--atol") {
        double v = 0;
        if (!parseDouble(value, v))
          die(kExitUsage, flag + " expects a non-negative number, got '" + value + "'", true);
        (flag == "--rtol" ? o.rtol : o.atol) = v;
      } else {
        long v = 0;
        if (!parseCount(value, v) || (flag == "--bench" && v < 1))
          die(kExitUsage,
              flag + " expects " + (flag == "--bench" ? "a positive" : "a non-negative") +
                  " integer, got '" + value + "'",
              true);
        (flag == "--bench" ? o.bench : o.warmup) = v;
      }
      continue;
    }
    if (!o.model.empty())
      die(kExitUsage, "unexpected argument '" + arg + "' (the model is '" + o.model + "')", true);
    o.model = arg;
  }
  if (o.model.empty())
    die(kExitUsage, "no model given", true);
  if (o.profile && o.bench == 0)
    die(kExitUsage, "--profile needs --bench N (the number of profiled runs)", true);
  return o;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  size_t k = v.size();
  return k % 2 ? v[k / 2] : 0.5 * (v[k / 2 - 1] + v[k / 2]);
}

/// --profile: `runs` calls of `run` with the runtime's kernel profile on; prints the median
/// device time of each launch (by its place in the call) and of the call's kernels together.
void profileRuns(decoda_model *model, const std::string &entry, long runs,
                 const std::function<void()> &run) {
  if (decoda_profile_enable(model, 1) != DECODA_OK)
    die(kExitUsage, std::string("--profile: ") + decoda_last_error());
  std::vector<std::string> names;
  std::vector<std::vector<double>> perLaunch;
  std::vector<double> spans;
  bool sameLaunches = true;
  for (long r = 0; r < runs; ++r) {
    run();
    const decoda_kernel_time *k = nullptr;
    int64_t n = 0;
    if (decoda_profile_last(model, &k, &n) != DECODA_OK)
      die(kExitFail, std::string("--profile: ") + decoda_last_error());
    double span = 0;
    for (int64_t i = 0; i < n; ++i)
      span += k[i].ms;
    spans.push_back(span);
    if (r == 0) {
      for (int64_t i = 0; i < n; ++i)
        names.push_back(k[i].kernel);
      perLaunch.resize(n);
    }
    if (static_cast<size_t>(n) != names.size()) {
      sameLaunches = false;
      continue;
    }
    for (int64_t i = 0; i < n; ++i) {
      sameLaunches = sameLaunches && names[i] == k[i].kernel;
      perLaunch[i].push_back(k[i].ms);
    }
  }
  decoda_profile_enable(model, 0);
  double total = median(spans);
  std::printf("profile %s: %ld runs, %zu launches a run: kernels median %.4f ms\n",
              entry.c_str(), runs, names.size(), total);
  if (!sameLaunches) {
    std::printf("  (the runs launched different kernels: no per-launch figures)\n");
    return;
  }
  for (size_t i = 0; i < names.size(); ++i) {
    double m = median(perLaunch[i]);
    std::printf("  launch %2zu %-48s median %.4f ms %5.1f%%\n", i, names[i].c_str(), m,
                total > 0 ? 100.0 * m / total : 0.0);
  }
}

struct EntryInfo {
  struct Tensor {
    std::string name;
    decoda_dtype dtype;
    std::vector<int64_t> shape;
  };
  std::string name;
  int index = -1;
  std::vector<Tensor> inputs, outputs;
};

EntryInfo describeEntry(decoda_model *model, int index) {
  EntryInfo e;
  e.index = index;
  e.name = decoda_model_entry_name(model, index);
  for (int io = 0; io < 2; ++io) {
    int n = io == 0 ? decoda_entry_num_inputs(model, index)
                    : decoda_entry_num_outputs(model, index);
    for (int i = 0; i < n; ++i) {
      const char *name = nullptr;
      decoda_dtype dtype = DECODA_F32;
      int32_t rank = 0;
      const int64_t *shape = nullptr;
      if (io == 0)
        decoda_entry_input(model, index, i, &name, &dtype, &rank, &shape);
      else
        decoda_entry_output(model, index, i, &name, &dtype, &rank, &shape);
      (io == 0 ? e.inputs : e.outputs)
          .push_back({name, dtype, std::vector<int64_t>(shape, shape + rank)});
    }
  }
  return e;
}

std::string names(const std::vector<EntryInfo::Tensor> &tensors) {
  std::string s;
  for (const auto &t : tensors)
    s += (s.empty() ? "" : ", ") + t.name;
  return s.empty() ? "none" : s;
}

/// Checks an input array against the signature, naming the file in every message.
void checkInput(const EntryInfo &entry, const EntryInfo::Tensor &spec, const npy::Array &a,
                const std::string &file) {
  std::string where = "input '" + spec.name + "' of entry '" + entry.name + "' ('" + file + "')";
  npy::Kind want = kindOf(spec.dtype);
  if (a.kind != want) {
    std::string expected = std::string("'") + npy::descr(want) + "'";
    if (spec.dtype == DECODA_BF16)
      expected += " bf16 bit patterns; NumPy has no bfloat16";
    else if (a.kind == npy::Kind::U16)
      expected += "; '<u2' is only accepted for bf16 inputs";
    die(kExitUsage, where + ": dtype " + npy::kindName(a.kind) + " does not match the model's " +
                        decoda_dtype_name(spec.dtype) + " (expected " + expected + ")");
  }
  bool ok = a.shape.size() == spec.shape.size();
  for (size_t d = 0; ok && d < a.shape.size(); ++d)
    ok = spec.shape[d] < 0 || spec.shape[d] == a.shape[d];
  if (!ok || a.shape.size() > DECODA_MAX_RANK)
    die(kExitUsage, where + ": shape " + shapeString(a.shape) + " does not match the model's " +
                        shapeString(spec.shape));
}

void printSignature(decoda_model *model, const std::string &path) {
  int n = decoda_model_num_entries(model);
  std::printf("%s: %d entr%s\n", path.c_str(), n, n == 1 ? "y" : "ies");
  for (int i = 0; i < n; ++i) {
    EntryInfo e = describeEntry(model, i);
    std::printf("entry %s\n", e.name.c_str());
    for (const auto &t : e.inputs)
      std::printf("  input %s: %s %s\n", t.name.c_str(), decoda_dtype_name(t.dtype),
                  shapeString(t.shape).c_str());
    for (const auto &t : e.outputs)
      std::printf("  output %s: %s %s\n", t.name.c_str(), decoda_dtype_name(t.dtype),
                  shapeString(t.shape).c_str());
    for (size_t k = 0; k < e.inputs.size(); ++k) {
      int o = decoda_entry_input_donated_to(model, i, static_cast<int>(k));
      if (o >= 0)
        std::printf("  donate %s -> %s\n", e.inputs[k].name.c_str(),
                    e.outputs[o].name.c_str());
    }
  }
}

int exitCodeFor(decoda_status status) {
  return status == DECODA_ERROR_RUNTIME ? kExitFail : kExitUsage;
}

struct CheckResult {
  bool pass = true;
  std::string line;
};

/// Compares `out` (a model output) with the reference `ref`.
CheckResult compare(const std::string &name, const decoda_tensor &out, const npy::Array &ref,
                    double rtol, double atol) {
  CheckResult r;
  std::vector<int64_t> shape(out.shape, out.shape + out.rank);
  std::string head = "check " + name + ": ";
  if (shape != ref.shape) {
    r.pass = false;
    r.line = head + "FAIL: output shape " + shapeString(shape) + " differs from the reference's " +
             shapeString(ref.shape);
    return r;
  }
  npy::Kind outKind = kindOf(out.dtype);
  bool outBf16 = out.dtype == DECODA_BF16;
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  const char *od = static_cast<const char *>(out.data);
  int64_t mismatches = 0, nanInf = 0, worst = -1;
  double maxAbs = 0, maxRel = 0, worstExcess = -INFINITY;
  double errSq = 0, refSq = 0; // over the finite pairs: the relative L2 error
  for (int64_t i = 0; i < n; ++i) {
    double a = elementAsDouble(od, outKind, i, outBf16);
    double b = elementAsDouble(ref.data.data(), ref.kind, i, outBf16);
    bool bad;
    double excess;
    if (std::isnan(a) || std::isnan(b) || std::isinf(a) || std::isinf(b)) {
      bad = !((std::isnan(a) && std::isnan(b)) || a == b);
      if (bad)
        ++nanInf;
      excess = bad ? INFINITY : -INFINITY;
    } else {
      double err = std::fabs(a - b), tol = atol + rtol * std::fabs(b);
      double rel = b != 0 ? err / std::fabs(b) : (err > 0 ? INFINITY : 0);
      maxAbs = std::max(maxAbs, err);
      maxRel = std::max(maxRel, rel);
      errSq += err * err;
      refSq += b * b;
      bad = err > tol;
      excess = err - tol;
    }
    if (bad)
      ++mismatches;
    if (worst < 0 || excess > worstExcess) {
      worst = i;
      worstExcess = excess;
    }
  }
  r.pass = mismatches == 0;
  r.line = head + (r.pass ? "PASS" : "FAIL") + " (" + std::to_string(mismatches) + "/" +
           std::to_string(n) + " elements mismatch, " + std::to_string(nanInf) +
           " NaN/Inf mismatches): max_abs_err " + fmt(maxAbs) + ", max_rel_err " + fmt(maxRel) +
           ", rel_l2 " + fmt(refSq > 0 ? std::sqrt(errSq / refSq) : (errSq > 0 ? INFINITY : 0));
  if (worst >= 0)
    r.line += ", worst at " + indexString(worst, shape) + ": got " +
              fmt(elementAsDouble(od, outKind, worst, outBf16)) + ", expected " +
              fmt(elementAsDouble(ref.data.data(), ref.kind, worst, outBf16));
  return r;
}

std::string previewValues(const decoda_tensor &t) {
  int64_t n = 1;
  for (int i = 0; i < t.rank; ++i)
    n *= t.shape[i];
  std::string s;
  npy::Kind kind = kindOf(t.dtype);
  for (int64_t i = 0; i < n && i < 8; ++i)
    s += (i ? " " : "") +
         fmt(elementAsDouble(static_cast<const char *>(t.data), kind, i, t.dtype == DECODA_BF16));
  if (n > 8)
    s += " ...";
  return n == 0 ? "(empty)" : s;
}

} // namespace

int main(int argc, char **argv) {
  Options opt = parseArgs(argc, argv);

  decoda_model *model = nullptr;
  if (decoda_model_load(opt.model.c_str(), &model) != DECODA_OK)
    die(kExitUsage, decoda_last_error());
  if (opt.graphs && decoda_cuda_graphs_enable(model, 1) != DECODA_OK)
    die(kExitUsage, std::string("--cuda-graphs: ") + decoda_last_error());
  if (opt.list) {
    printSignature(model, opt.model);
    decoda_model_free(model);
    return 0;
  }

  // The entry.
  int numEntries = decoda_model_num_entries(model);
  int entryIndex = -1;
  if (!opt.entry.empty()) {
    entryIndex = decoda_model_find_entry(model, opt.entry.c_str());
    if (entryIndex < 0) {
      std::string all;
      for (int i = 0; i < numEntries; ++i)
        all += (i ? ", " : "") + std::string(decoda_model_entry_name(model, i));
      die(kExitUsage, "'" + opt.model + "' has no entry '" + opt.entry + "' (entries: " +
                          (all.empty() ? "none" : all) + ")");
    }
  } else if (numEntries == 1) {
    entryIndex = 0;
  } else {
    std::string all;
    for (int i = 0; i < numEntries; ++i)
      all += (i ? ", " : "") + std::string(decoda_model_entry_name(model, i));
    die(kExitUsage, numEntries == 0 ? "'" + opt.model + "' has no entry points"
                                    : "'" + opt.model + "' has " + std::to_string(numEntries) +
                                          " entries (" + all + "); choose one with --entry",
        numEntries != 0);
  }
  EntryInfo entry = describeEntry(model, entryIndex);

  // Inputs: .npz members first, then --input (which overrides a member of the same name).
  std::map<std::string, std::pair<npy::Array, std::string>> given; // name -> (array, file)
  std::string error;
  auto inputIndex = [&](const std::string &name) {
    for (size_t i = 0; i < entry.inputs.size(); ++i)
      if (entry.inputs[i].name == name)
        return static_cast<int>(i);
    return -1;
  };
  for (const std::string &file : opt.npzFiles) {
    std::vector<std::pair<std::string, npy::Array>> members;
    if (!npy::readNpz(file, members, error))
      die(kExitUsage, error);
    for (auto &m : members) {
      if (inputIndex(m.first) < 0)
        die(kExitUsage, "'" + file + "' has an array '" + m.first + "' but entry '" + entry.name +
                            "' has no such input (inputs: " + names(entry.inputs) + ")");
      given[m.first] = {std::move(m.second), file + ":" + m.first + ".npy"};
    }
  }
  std::map<std::string, bool> seen;
  for (const auto &[name, file] : opt.inputs) {
    if (inputIndex(name) < 0)
      die(kExitUsage, "entry '" + entry.name + "' has no input '" + name +
                          "' (inputs: " + names(entry.inputs) + ")");
    if (seen[name])
      die(kExitUsage, "input '" + name + "' is given twice");
    seen[name] = true;
    npy::Array a;
    if (!npy::readNpy(file, a, error))
      die(kExitUsage, error);
    given[name] = {std::move(a), file};
  }
  std::vector<decoda_tensor> inputs(entry.inputs.size());
  for (size_t i = 0; i < entry.inputs.size(); ++i) {
    const auto &spec = entry.inputs[i];
    auto it = given.find(spec.name);
    if (it == given.end())
      die(kExitUsage, "missing input '" + spec.name + "' of entry '" + entry.name + "' (" +
                          decoda_dtype_name(spec.dtype) + " " + shapeString(spec.shape) +
                          "; give it with --input " + spec.name + "=FILE.npy)");
    const npy::Array &a = it->second.first;
    checkInput(entry, spec, a, it->second.second);
    decoda_tensor &t = inputs[i];
    std::memset(&t, 0, sizeof(t));
    t.dtype = spec.dtype;
    t.rank = static_cast<int32_t>(a.shape.size());
    for (size_t d = 0; d < a.shape.size(); ++d)
      t.shape[d] = a.shape[d];
    t.data = const_cast<char *>(a.data.data());
  }

  // References, read before running so that a bad file is reported as an input error.
  std::vector<std::pair<int, npy::Array>> references; // output index, array
  for (const auto &[name, file] : opt.checks) {
    int index = -1;
    for (size_t o = 0; o < entry.outputs.size(); ++o)
      if (entry.outputs[o].name == name)
        index = static_cast<int>(o);
    if (index < 0)
      die(kExitUsage, "--check " + name + ": entry '" + entry.name + "' has no output '" + name +
                          "' (outputs: " + names(entry.outputs) + ")");
    npy::Array ref;
    if (!npy::readNpy(file, ref, error))
      die(kExitUsage, error);
    references.emplace_back(index, std::move(ref));
  }
  if (!opt.outputDir.empty()) {
    struct stat st;
    if (::stat(opt.outputDir.c_str(), &st) != 0) {
      if (::mkdir(opt.outputDir.c_str(), 0777) != 0)
        die(kExitUsage, "cannot create output directory '" + opt.outputDir +
                            "': " + std::strerror(errno));
    } else if (!S_ISDIR(st.st_mode)) {
      die(kExitUsage, "--output-dir '" + opt.outputDir + "' is not a directory");
    }
  }

  // --device-inputs: device copies of the inputs, made once.
  std::vector<void *> deviceInputs;
  for (const std::string &name : opt.deviceInputNames)
    if (inputIndex(name) < 0)
      die(kExitUsage, "--device-inputs: entry '" + entry.name + "' has no input '" + name +
                          "' (inputs: " + names(entry.inputs) + ")");
  if (opt.deviceInputs) {
    for (size_t i = 0; i < inputs.size(); ++i) {
      if (!opt.deviceInputNames.empty() &&
          std::find(opt.deviceInputNames.begin(), opt.deviceInputNames.end(),
                    entry.inputs[i].name) == opt.deviceInputNames.end())
        continue;
      decoda_tensor &t = inputs[i];
      size_t bytes = decoda_dtype_size(t.dtype);
      for (int32_t d = 0; d < t.rank; ++d)
        bytes *= static_cast<size_t>(t.shape[d]);
      void *dev = nullptr;
      decoda_status s = decoda_device_alloc(model, bytes, &dev);
      if (s == DECODA_OK)
        s = decoda_device_copy(model, dev, t.data, bytes);
      if (s != DECODA_OK)
        die(s == DECODA_ERROR_NO_DEVICE ? kExitUsage : exitCodeFor(s),
            "--device-inputs: input '" + entry.inputs[i].name + "': " + decoda_last_error());
      deviceInputs.push_back(dev);
      t.data = dev;
    }
  }

  // Run.
  std::vector<decoda_tensor> outputs(entry.outputs.size());
  // --donate: every donatable input's buffer (ours, read from its file) goes to the model.
  std::vector<uint8_t> donate(inputs.size() + 1, 0);
  std::vector<bool> outputIsInput(outputs.size(), false);
  for (size_t i = 0; opt.donate && i < inputs.size(); ++i) {
    int o = decoda_entry_input_donated_to(model, entryIndex, static_cast<int>(i));
    if (o >= 0)
      donate[i] = 1, outputIsInput[o] = true;
  }
  auto runOnce = [&]() {
    decoda_status s = decoda_run_donating(model, entryIndex, inputs.data(),
                                          static_cast<int>(inputs.size()), outputs.data(),
                                          static_cast<int>(outputs.size()), donate.data());
    if (s != DECODA_OK)
      die(exitCodeFor(s), decoda_last_error());
  };
  auto freeOutputs = [&]() {
    for (size_t o = 0; o < outputs.size(); ++o)
      if (!outputIsInput[o]) // a donated input's buffer belongs to its npy::Array
        decoda_tensor_free(&outputs[o]);
  };
  runOnce();

  if (opt.bench > 0) {
    freeOutputs();
    for (long i = 0; i < opt.warmup; ++i) {
      runOnce();
      freeOutputs();
    }
    if (opt.profile)
      profileRuns(model, entry.name, opt.bench, [&] {
        runOnce();
        freeOutputs();
      });
    std::vector<double> ms;
    for (long i = 0; i < opt.bench; ++i) {
      auto t0 = std::chrono::steady_clock::now();
      runOnce();
      auto t1 = std::chrono::steady_clock::now();
      ms.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
      if (i + 1 < opt.bench)
        freeOutputs();
    }
    auto [lo, hi] = std::minmax_element(ms.begin(), ms.end());
    std::printf("bench %s: %ld warm-up, %ld timed runs: median %.4f ms, min %.4f ms, max %.4f ms\n",
                entry.name.c_str(), opt.warmup, opt.bench, median(ms), *lo, *hi);
  }

  // Outputs in device memory (donated device-resident inputs) are read through host copies.
  std::vector<decoda_tensor> shown = outputs;
  std::vector<std::vector<char>> downloads(outputs.size());
  for (size_t o = 0; o < outputs.size(); ++o) {
    decoda_tensor &t = shown[o];
    if (!decoda_is_device_pointer(model, t.data))
      continue;
    size_t bytes = decoda_dtype_size(t.dtype);
    for (int32_t d = 0; d < t.rank; ++d)
      bytes *= static_cast<size_t>(t.shape[d]);
    downloads[o].resize(bytes > 0 ? bytes : 1);
    if (decoda_device_copy(model, downloads[o].data(), t.data, bytes) != DECODA_OK)
      die(kExitFail, "output '" + entry.outputs[o].name + "': " + decoda_last_error());
    t.data = downloads[o].data();
  }
  for (size_t o = 0; o < outputs.size(); ++o) {
    const decoda_tensor &t = shown[o];
    std::printf("output %s: %s %s = %s", entry.outputs[o].name.c_str(),
                decoda_dtype_name(t.dtype), shapeString(t.shape, t.rank).c_str(),
                previewValues(t).c_str());
    if (!opt.outputDir.empty()) {
      std::string fileName = entry.outputs[o].name;
      std::replace(fileName.begin(), fileName.end(), '/', '_');
      std::string path = opt.outputDir + "/" + fileName + ".npy";
      npy::Array a;
      a.kind = kindOf(t.dtype);
      a.shape.assign(t.shape, t.shape + t.rank);
      const char *data = static_cast<const char *>(t.data);
      a.data.assign(data, data + a.numel() * static_cast<int64_t>(npy::itemSize(a.kind)));
      if (!npy::writeNpy(path, a, error)) {
        std::printf("\n");
        die(kExitUsage, error);
      }
      std::printf(" -> %s", path.c_str());
    }
    std::printf("\n");
  }

  int failed = 0;
  for (const auto &[index, ref] : references) {
    CheckResult r = compare(entry.outputs[index].name, shown[index], ref, opt.rtol, opt.atol);
    std::printf("%s\n", r.line.c_str());
    failed += !r.pass;
  }
  freeOutputs();
  for (void *dev : deviceInputs)
    decoda_device_free(model, dev);
  decoda_model_free(model);
  if (!references.empty()) {
    std::printf("check: %zu passed, %d failed (rtol %g, atol %g)\n", references.size() - failed,
                failed, opt.rtol, opt.atol);
    std::fflush(stdout);
    if (failed) {
      std::fprintf(stderr,
                   "decoda-run: error: %d of %zu checked outputs differ from the reference\n",
                   failed, references.size());
      return kExitFail;
    }
  }
  return 0;
}
