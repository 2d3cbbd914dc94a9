//===- Importer.cpp - ONNX ModelProto to one func.func --------------------===//
//
// Loads the protobuf, checks opsets and that every node is supported (listing all that are
// not), turns graph inputs into function arguments (equal dim_params become one symbolic dim),
// initializers into constants, walks the nodes in order through the op table, and returns the
// graph outputs. Node names become locations, so every later diagnostic names the ONNX node.
//
//===----------------------------------------------------------------------===//

#include "ImporterImpl.h"

#include "decoda/Dialect/Decoda/IR/DecodaOps.h"
#include "decoda/Transforms/SpecializeDims.h"

#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/BuiltinDialect.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Tools/mlir-translate/Translation.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"

#include <onnx/onnx_pb.h>
#include <google/protobuf/io/coded_stream.h>

#include <climits>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace mlir;
using namespace mlir::decoda;
using namespace mlir::decoda::onnx_import;

//===----------------------------------------------------------------------===//
// NodeContext
//===----------------------------------------------------------------------===//

NodeContext::NodeContext(Importer &imp, const onnx::NodeProto &node, int64_t opset,
                         Location loc)
    : importer(imp), node(node), opset(opset), loc(loc), b(imp.b) {}

StringRef NodeContext::opType() const { return node.op_type(); }
StringRef NodeContext::domain() const {
  return node.domain().empty() ? StringRef("ai.onnx") : StringRef(node.domain());
}
StringRef NodeContext::name() const {
  // Unnamed nodes are called as their location is: <op type>_<position>.
  if (!node.name().empty())
    return node.name();
  if (auto nl = dyn_cast<NameLoc>(loc))
    return nl.getName().getValue();
  return node.op_type();
}
unsigned NodeContext::numInputs() const { return node.input_size(); }
unsigned NodeContext::numOutputs() const { return node.output_size(); }
bool NodeContext::hasInput(unsigned i) const {
  return i < (unsigned)node.input_size() && !node.input(i).empty();
}
bool NodeContext::hasOutput(unsigned i) const {
  return i < (unsigned)node.output_size() && !node.output(i).empty();
}
bool NodeContext::outputUsed(unsigned i) const {
  return hasOutput(i) && importer.usedNames.contains(node.output(i));
}

OnnxValue &NodeContext::input(unsigned i) {
  static OnnxValue absent;
  absent = OnnxValue();
  if (!hasInput(i))
    return absent;
  auto it = importer.values.find(node.input(i));
  assert(it != importer.values.end() && "inputs are checked before handlers run");
  return it->second;
}

Value NodeContext::tensorInput(unsigned i) { return importer.materialize(input(i), loc); }

RankedTensorType NodeContext::inputType(unsigned i) {
  OnnxValue &v = input(i);
  if (v.isConst())
    return cast<RankedTensorType>(v.cst.getType());
  if (v.isShape())
    return v.scalar ? RankedTensorType::get({}, v.elementType)
                    : RankedTensorType::get({(int64_t)v.dims.size()}, v.elementType);
  return cast<RankedTensorType>(v.value.getType());
}

int64_t NodeContext::inputRank(unsigned i) { return inputType(i).getRank(); }

void NodeContext::setOutput(unsigned i, OnnxValue v) {
  // An absent value (a handler passing on an input the node omits, e.g. Identity without an
  // input, found by fuzzing) is not recorded: a use of the output is then an error.
  if (!hasOutput(i) || !v.present())
    return;
  importer.values[node.output(i)] = std::move(v);
}

void NodeContext::setOutput(unsigned i, Value v) {
  setOutput(i, OnnxValue::tensor(v, tensor::getMixedSizes(b, loc, v)));
}

const onnx::AttributeProto *NodeContext::attr(StringRef name) const {
  for (const onnx::AttributeProto &a : node.attribute())
    if (a.name() == name)
      return &a;
  return nullptr;
}

int64_t NodeContext::intAttr(StringRef name, int64_t dflt) const {
  const onnx::AttributeProto *a = attr(name);
  return a ? a->i() : dflt;
}
double NodeContext::floatAttr(StringRef name, double dflt) const {
  const onnx::AttributeProto *a = attr(name);
  return a ? a->f() : dflt;
}
std::string NodeContext::stringAttr(StringRef name, StringRef dflt) const {
  const onnx::AttributeProto *a = attr(name);
  return a ? a->s() : dflt.str();
}
SmallVector<int64_t> NodeContext::intsAttr(StringRef name) const {
  SmallVector<int64_t> r;
  if (const onnx::AttributeProto *a = attr(name))
    r.append(a->ints().begin(), a->ints().end());
  return r;
}

std::optional<SmallVector<int64_t>> NodeContext::constInts(unsigned i) {
  if (!hasInput(i))
    return std::nullopt;
  std::optional<SmallVector<OpFoldResult>> elems = shapeElements(input(i));
  if (!elems)
    return std::nullopt;
  SmallVector<int64_t> r;
  for (OpFoldResult e : *elems) {
    std::optional<int64_t> c = getConstantIntValue(e);
    if (!c)
      return std::nullopt;
    r.push_back(*c);
  }
  return r;
}

std::optional<double> NodeContext::constFloat(unsigned i) {
  if (!hasInput(i))
    return std::nullopt;
  OnnxValue &v = input(i);
  if (!v.isConst() || v.cst.getNumElements() != 1)
    return std::nullopt;
  auto dense = dyn_cast<DenseElementsAttr>(v.cst);
  if (!dense)
    return std::nullopt;
  Type et = dense.getElementType();
  if (isa<FloatType>(et))
    return (*dense.getValues<APFloat>().begin()).convertToDouble();
  if (isa<IntegerType>(et))
    return (double)(*dense.getValues<APInt>().begin()).getSExtValue();
  return std::nullopt;
}

InFlightDiagnostic NodeContext::error() {
  InFlightDiagnostic d = emitError(loc);
  d << "ONNX node '" << name() << "' (" << opType() << ", domain " << domain() << ", opset "
    << opset << "): ";
  return d;
}

FailureOr<int64_t> NodeContext::axis(int64_t a, int64_t rank) {
  int64_t r = a < 0 ? a + rank : a;
  if (r < 0 || r >= rank) {
    error() << "axis " << a << " is out of range for rank " << rank;
    return failure();
  }
  return r;
}

//===----------------------------------------------------------------------===//
// Importer: values and tensors
//===----------------------------------------------------------------------===//

Importer::Importer(MLIRContext *ctx, const ImportOptions &options, StringRef path)
    : ctx(ctx), options(options), modelPath(path.str()), b(ctx) {
  SmallString<256> dir(path);
  llvm::sys::path::remove_filename(dir);
  if (dir.empty())
    dir = ".";
  modelDir = std::string(dir);
}

Value Importer::materialize(OnnxValue &v, Location loc) {
  switch (v.kind) {
  case OnnxValue::Kind::Tensor:
    return v.value;
  case OnnxValue::Kind::Const: {
    if (!v.value)
      v.value = arith::ConstantOp::create(b, loc, cast<TypedAttr>(v.cst));
    return v.value;
  }
  case OnnxValue::Kind::Shape: {
    if (v.value)
      return v.value;
    SmallVector<Value> elems;
    for (OpFoldResult e : v.dims) {
      if (std::optional<int64_t> c = getConstantIntValue(e))
        elems.push_back(arith::ConstantOp::create(b, loc, IntegerAttr::get(v.elementType, *c)));
      else
        elems.push_back(arith::IndexCastOp::create(b, loc, v.elementType, cast<Value>(e)));
    }
    auto type = v.scalar ? RankedTensorType::get({}, v.elementType)
                         : RankedTensorType::get({(int64_t)elems.size()}, v.elementType);
    v.value = tensor::FromElementsOp::create(b, loc, type, elems);
    return v.value;
  }
  case OnnxValue::Kind::Sequence: // refused before any handler could ask (importNodes)
  case OnnxValue::Kind::None:
    break;
  }
  return Value();
}

SmallVector<OpFoldResult> Importer::dimsOf(OnnxValue &v, Location loc) {
  if (v.isTensor())
    return v.dims;
  ShapedType t = v.isConst() ? cast<ShapedType>(v.cst.getType())
                             : cast<ShapedType>(materialize(v, loc).getType());
  SmallVector<OpFoldResult> r;
  for (int64_t d : t.getShape())
    r.push_back(b.getIndexAttr(d));
  return r;
}

FailureOr<Type> Importer::convertElementType(int32_t t, Location loc) {
  switch (t) {
  case onnx::TensorProto::FLOAT:
    return b.getF32Type();
  case onnx::TensorProto::FLOAT16:
    return b.getF16Type();
  case onnx::TensorProto::BFLOAT16:
    return b.getBF16Type();
  case onnx::TensorProto::DOUBLE:
    return b.getF64Type();
  case onnx::TensorProto::INT8:
    return b.getIntegerType(8);
  case onnx::TensorProto::INT16:
    return b.getIntegerType(16);
  case onnx::TensorProto::INT32:
    return b.getIntegerType(32);
  case onnx::TensorProto::INT64:
    return b.getIntegerType(64);
  case onnx::TensorProto::BOOL:
    return b.getI1Type();
  default:
    break;
  }
  emitError(loc) << "unsupported ONNX data type " << t
                 << " (supported: float, float16, bfloat16, double, int8, int16, int32, int64, "
                    "bool)";
  return failure();
}

namespace {
int64_t byteWidth(Type t) {
  if (t.isInteger(1))
    return 1;
  return (t.getIntOrFloatBitWidth() + 7) / 8;
}

/// Opens an external data file after the checks that keep a model inside its directory:
/// relative location, canonical path under the model's directory, not a symlink, a regular
/// file with one link, offset + length within the file. Returns the bytes.
FailureOr<std::unique_ptr<llvm::MemoryBuffer>>
openExternalData(StringRef modelDir, StringRef tensorName, StringRef location, int64_t offset,
                 int64_t length, int64_t expected, Location loc) {
  auto fail = [&](const Twine &why) {
    emitError(loc) << "initializer '" << tensorName << "': external data location '" << location
                   << "' rejected: " << why;
    return failure();
  };
  if (location.empty())
    return fail("empty location");
  if (llvm::sys::path::is_absolute(location))
    return fail("absolute paths are not allowed");
  for (StringRef comp : llvm::make_range(llvm::sys::path::begin(location),
                                         llvm::sys::path::end(location)))
    if (comp == "..")
      return fail("'..' components are not allowed");
  SmallString<256> full(modelDir);
  llvm::sys::path::append(full, location);
  // No component may be a symbolic link (the file itself is refused by O_NOFOLLOW below; a
  // linked parent directory would let the path move after the checks).
  SmallString<256> prefix(modelDir);
  for (auto it = llvm::sys::path::begin(location), end = llvm::sys::path::end(location);
       it != end; ++it) {
    llvm::sys::path::append(prefix, *it);
    if (std::next(it) == end)
      break;
    struct stat lst;
    if (::lstat(prefix.c_str(), &lst) == 0 && S_ISLNK(lst.st_mode))
      return fail("directory '" + *it + "' is a symbolic link");
  }

  SmallString<256> realDir, realFile;
  if (llvm::sys::fs::real_path(modelDir, realDir))
    return fail("cannot resolve the model directory");
  if (std::error_code ec = llvm::sys::fs::real_path(full, realFile))
    return fail("cannot open: " + ec.message());
  StringRef dirRef(realDir);
  if (!StringRef(realFile).starts_with(dirRef) || realFile.size() <= dirRef.size() ||
      !llvm::sys::path::is_separator(realFile[dirRef.size()]))
    return fail("it resolves outside the model's directory");

  int fd = ::open(full.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0)
    return fail(errno == ELOOP ? "it is a symbolic link" : "cannot open: " + Twine(strerror(errno)));
  struct stat st;
  if (::fstat(fd, &st) != 0) {
    ::close(fd);
    return fail("cannot stat");
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    return fail("not a regular file");
  }
  if (st.st_nlink != 1) {
    ::close(fd);
    return fail("the file has " + Twine((int64_t)st.st_nlink) + " hard links (expected 1)");
  }
  int64_t size = st.st_size;
  if (offset < 0 || offset > size) {
    ::close(fd);
    return fail("offset " + Twine(offset) + " is outside the file (" + Twine(size) + " bytes)");
  }
  if (length < 0)
    length = size - offset;
  if (length > size - offset) {
    ::close(fd);
    return fail("offset " + Twine(offset) + " + length " + Twine(length) +
                " exceeds the file size " + Twine(size));
  }
  if (length != expected) {
    ::close(fd);
    return fail("length " + Twine(length) + " does not match the tensor's " + Twine(expected) +
                " bytes");
  }
  auto buf = llvm::MemoryBuffer::getOpenFileSlice(fd, full, length, offset);
  ::close(fd);
  if (!buf)
    return fail("cannot read: " + buf.getError().message());
  return std::move(*buf);
}
} // namespace

FailureOr<ElementsAttr> Importer::convertTensor(const onnx::TensorProto &tp, Location loc,
                                                bool forceInline) {
  StringRef name = tp.name();
  // uint8 constants (MatMulNBits's packed codes) keep their signedness: only the ops that read
  // their bytes take them (importNodes).
  FailureOr<Type> et = tp.data_type() == onnx::TensorProto::UINT8
                           ? FailureOr<Type>(b.getIntegerType(8, /*isSigned=*/false))
                           : convertElementType(tp.data_type(), loc);
  if (failed(et))
    return failure();
  SmallVector<int64_t> shape;
  int64_t numel = 1;
  for (int64_t d : tp.dims()) {
    if (d < 0 || (d > 0 && numel > (INT64_MAX / 16) / d)) {
      emitError(loc) << "initializer '" << name << "': invalid dimension " << d;
      return failure();
    }
    shape.push_back(d);
    numel *= d;
  }
  auto type = RankedTensorType::get(shape, *et);
  int64_t width = byteWidth(*et);
  int64_t bytes = numel * width;

  // Raw bytes: inline raw_data or external data.
  std::shared_ptr<std::string> owned;
  std::shared_ptr<llvm::MemoryBuffer> mapped;
  ArrayRef<char> raw;
  bool haveRaw = false;
  if (tp.data_location() == onnx::TensorProto::EXTERNAL) {
    if (!options.allowExternalData) {
      emitError(loc) << "initializer '" << name << "': external data is disabled";
      return failure();
    }
    // Keys first (each at most once), then the values, so that every error names the location.
    llvm::StringMap<std::string> entries;
    for (const onnx::StringStringEntryProto &kv : tp.external_data()) {
      auto [it, inserted] = entries.try_emplace(kv.key(), kv.value());
      if (!inserted) {
        emitError(loc) << "initializer '" << name << "': external data location '"
                       << entries.lookup("location") << "': key '" << kv.key()
                       << "' is given more than once ('" << it->second << "', '" << kv.value()
                       << "')";
        return failure();
      }
    }
    std::string location = entries.lookup("location");
    static constexpr StringLiteral kKnownKeys[] = {"location", "offset", "length", "checksum"};
    for (const onnx::StringStringEntryProto &kv : tp.external_data())
      if (!llvm::is_contained(kKnownKeys, StringRef(kv.key()))) {
        emitError(loc) << "initializer '" << name << "': external data location '" << location
                       << "': unknown key '" << kv.key()
                       << "' (known: location, offset, length, checksum)";
        return failure();
      }
    int64_t offset = 0, length = -1;
    for (StringRef key : {"offset", "length"}) {
      auto it = entries.find(key);
      if (it == entries.end())
        continue;
      int64_t v;
      if (StringRef(it->second).getAsInteger(10, v) || v < 0) {
        emitError(loc) << "initializer '" << name << "': external data location '" << location
                       << "': " << key << " '" << it->second
                       << "' is not a non-negative 64-bit integer";
        return failure();
      }
      (key == "offset" ? offset : length) = v;
    }
    auto buf = openExternalData(modelDir, name, location, offset, length, bytes, loc);
    if (failed(buf))
      return failure();
    mapped = std::shared_ptr<llvm::MemoryBuffer>(std::move(*buf));
    raw = ArrayRef<char>(mapped->getBufferStart(), mapped->getBufferSize());
    haveRaw = true;
  } else if (tp.has_raw_data()) {
    if ((int64_t)tp.raw_data().size() != bytes) {
      emitError(loc) << "initializer '" << name << "': raw_data has " << tp.raw_data().size()
                     << " bytes, expected " << bytes << " for " << type;
      return failure();
    }
    owned = std::make_shared<std::string>();
    const_cast<onnx::TensorProto &>(tp).mutable_raw_data()->swap(*owned);
    raw = ArrayRef<char>(owned->data(), owned->size());
    haveRaw = true;
  }

  if (haveRaw) {
    if (et->isInteger(1)) {
      SmallVector<bool> bits;
      for (char c : raw)
        bits.push_back(c != 0);
      return ElementsAttr(DenseElementsAttr::get(type, ArrayRef<bool>(bits)));
    }
    if (forceInline || numel <= options.inlineConstantLimit) {
      bool splat = false;
      if (!DenseElementsAttr::isValidRawBuffer(type, raw, splat)) {
        emitError(loc) << "initializer '" << name << "': malformed raw data";
        return failure();
      }
      return ElementsAttr(DenseElementsAttr::getFromRawBuffer(type, raw));
    }
    // Share the bytes with the blob: no copy of the weights.
    AsmResourceBlob blob = UnmanagedAsmResourceBlob::allocateWithAlign(
        raw, (size_t)width, [owned, mapped](void *, size_t, size_t) {});
    std::string blobName = name.empty() ? std::string("onnx_initializer") : name.str();
    for (char &c : blobName)
      if (!llvm::isAlnum(c) && c != '_' && c != '.')
        c = '_';
    return ElementsAttr(DenseResourceElementsAttr::get(type, blobName, std::move(blob)));
  }

  // Typed fields.
  auto countMismatch = [&](int64_t have) {
    emitError(loc) << "initializer '" << name << "': has " << have << " values, expected "
                   << numel << " for " << type;
    return failure();
  };
  if (et->isF32()) {
    if (tp.float_data_size() != numel)
      return countMismatch(tp.float_data_size());
    SmallVector<float> v(tp.float_data().begin(), tp.float_data().end());
    return ElementsAttr(DenseElementsAttr::get(type, ArrayRef<float>(v)));
  }
  if (et->isF64()) {
    if (tp.double_data_size() != numel)
      return countMismatch(tp.double_data_size());
    SmallVector<double> v(tp.double_data().begin(), tp.double_data().end());
    return ElementsAttr(DenseElementsAttr::get(type, ArrayRef<double>(v)));
  }
  if (et->isInteger(64)) {
    if (tp.int64_data_size() != numel)
      return countMismatch(tp.int64_data_size());
    SmallVector<int64_t> v(tp.int64_data().begin(), tp.int64_data().end());
    return ElementsAttr(DenseElementsAttr::get(type, ArrayRef<int64_t>(v)));
  }
  // int32_data carries int32, int16, int8, bool and the bit patterns of float16/bfloat16.
  if (tp.int32_data_size() != numel)
    return countMismatch(tp.int32_data_size());
  if (isa<FloatType>(*et)) {
    SmallVector<APFloat> v;
    const llvm::fltSemantics &sem = cast<FloatType>(*et).getFloatSemantics();
    for (int32_t bitsv : tp.int32_data())
      v.push_back(APFloat(sem, APInt(16, (uint16_t)bitsv)));
    return ElementsAttr(DenseElementsAttr::get(type, v));
  }
  SmallVector<APInt> v;
  unsigned w = et->getIntOrFloatBitWidth();
  for (int32_t x : tp.int32_data())
    v.push_back(APInt(w, (uint64_t)(int64_t)x, /*isSigned=*/true, /*implicitTrunc=*/true));
  return ElementsAttr(DenseElementsAttr::get(type, v));
}

//===----------------------------------------------------------------------===//
// The graph walk
//===----------------------------------------------------------------------===//

namespace {
const std::vector<OpEntry> &opTable() {
  static std::vector<OpEntry> table = [] {
    std::vector<OpEntry> t;
    registerElementwiseOps(t);
    registerShapeOps(t);
    registerNNOps(t);
    registerAttentionOps(t);
    registerControlFlowOps(t);
    registerScatterOps(t);
    registerSequenceOps(t);
    return t;
  }();
  return table;
}

/// The handler for (domain, op type) at `opset`: the entry with the highest sinceVersion not
/// above it.
const OpEntry *findOp(StringRef domain, StringRef opType, int64_t opset) {
  const OpEntry *best = nullptr;
  for (const OpEntry &e : opTable()) {
    if (StringRef(e.domain) != domain || StringRef(e.opType) != opType || e.sinceVersion > opset)
      continue;
    if (!best || e.sinceVersion > best->sinceVersion)
      best = &e;
  }
  return best;
}

std::string sanitizeName(StringRef name) {
  std::string s = name.str();
  for (char &c : s)
    if (!llvm::isAlnum(c) && c != '_' && c != '.' && c != '-')
      c = '_';
  if (s.empty())
    s = "_";
  return s;
}

constexpr int64_t kMinOpset = 13, kMaxOpset = 23;

class GraphImporter {
public:
  GraphImporter(Importer &imp, onnx::ModelProto &model) : imp(imp), model(model) {}

  OwningOpRef<ModuleOp> run();

private:
  Location fileLoc() { return imp.fileLoc(); }
  LogicalResult readOpsets();
  LogicalResult checkNodes(const onnx::GraphProto &g);
  void collectUnsupported(const onnx::GraphProto &g, SmallVectorImpl<std::string> &unsupported);
  FailureOr<RankedTensorType> inputType(const onnx::ValueInfoProto &vi,
                                        SmallVectorImpl<std::string> &params);

  Importer &imp;
  onnx::ModelProto &model;
};

LogicalResult GraphImporter::readOpsets() {
  for (const onnx::OperatorSetIdProto &os : model.opset_import()) {
    std::string d = os.domain().empty() || os.domain() == "ai.onnx" ? "" : os.domain();
    imp.opsets[d] = os.version();
  }
  auto it = imp.opsets.find("");
  if (it == imp.opsets.end())
    return emitError(fileLoc()) << "the model imports no default-domain opset";
  if (it->second < kMinOpset || it->second > kMaxOpset)
    return emitError(fileLoc()) << "default-domain opset " << it->second
                                << " is not supported (supported: " << kMinOpset << " to "
                                << kMaxOpset << ")";
  return success();
}

LogicalResult GraphImporter::checkNodes(const onnx::GraphProto &g) {
  SmallVector<std::string> unsupported;
  collectUnsupported(g, unsupported);
  if (unsupported.empty())
    return success();
  InFlightDiagnostic d = emitError(fileLoc());
  d << unsupported.size() << " unsupported ONNX node" << (unsupported.size() == 1 ? "" : "s")
    << ": ";
  llvm::interleaveComma(unsupported, d);
  return failure();
}

void GraphImporter::collectUnsupported(const onnx::GraphProto &g,
                                       SmallVectorImpl<std::string> &unsupported) {
  int index = 0;
  for (const onnx::NodeProto &node : g.node()) {
    ++index;
    std::string domain = node.domain() == "ai.onnx" ? "" : node.domain();
    auto it = imp.opsets.find(domain);
    int64_t opset = it == imp.opsets.end() ? -1 : it->second;
    std::string desc = "'" + (node.name().empty() ? "#" + std::to_string(index) : node.name()) +
                       "' " + node.op_type() + " (domain " +
                       (domain.empty() ? std::string("ai.onnx") : domain) + ", opset " +
                       (opset < 0 ? std::string("not imported") : std::to_string(opset)) + ")";
    if (opset < 0 || !findOp(domain, node.op_type(), opset))
      unsupported.push_back(desc);
    for (const onnx::AttributeProto &a : node.attribute()) {
      if (a.has_g())
        collectUnsupported(a.g(), unsupported);
      for (const onnx::GraphProto &gg : a.graphs())
        collectUnsupported(gg, unsupported);
    }
  }
}

FailureOr<RankedTensorType> GraphImporter::inputType(const onnx::ValueInfoProto &vi,
                                                     SmallVectorImpl<std::string> &params) {
  Location loc = fileLoc();
  if (!vi.type().has_tensor_type())
    return emitError(loc) << "graph input/output '" << vi.name() << "' is not a tensor";
  const onnx::TypeProto_Tensor &tt = vi.type().tensor_type();
  FailureOr<Type> et = imp.convertElementType(tt.elem_type(), loc);
  if (failed(et))
    return emitError(loc) << "(in graph input/output '" << vi.name() << "')";
  if (!tt.has_shape())
    return emitError(loc) << "graph input/output '" << vi.name()
                          << "' has no shape; Decoda needs at least the rank";
  SmallVector<int64_t> shape;
  for (const onnx::TensorShapeProto_Dimension &d : tt.shape().dim()) {
    if (d.has_dim_value()) {
      if (d.dim_value() < 0)
        return emitError(loc) << "graph input '" << vi.name() << "' has a negative dim";
      shape.push_back(d.dim_value());
      params.push_back("");
    } else {
      shape.push_back(ShapedType::kDynamic);
      params.push_back(d.has_dim_param() ? d.dim_param() : "");
    }
  }
  return RankedTensorType::get(shape, *et);
}

OwningOpRef<ModuleOp> GraphImporter::run() {
  if (failed(readOpsets()))
    return nullptr;
  const onnx::GraphProto &g = model.graph();
  if (failed(checkNodes(g)))
    return nullptr;
  OpBuilder &b = imp.b;
  Location loc = fileLoc();
  OwningOpRef<ModuleOp> module = ModuleOp::create(loc);
  imp.module = *module;

  // Initializers.
  llvm::StringSet<> initNames;
  for (const onnx::TensorProto &t : g.initializer()) {
    b.setInsertionPointToEnd(module->getBody());
    FailureOr<ElementsAttr> attr = imp.convertTensor(t, loc, /*forceInline=*/false);
    if (failed(attr))
      return nullptr;
    initNames.insert(t.name());
    imp.values[t.name()] = OnnxValue::constant(*attr);
  }
  if (g.sparse_initializer_size())
    return emitError(loc) << "sparse initializers are not supported", nullptr;

  // Inputs -> arguments.
  SmallVector<Type> argTypes;
  SmallVector<std::string> argNames;
  SmallVector<SmallVector<std::string>> argParams;
  for (const onnx::ValueInfoProto &vi : g.input()) {
    if (initNames.contains(vi.name()))
      continue; // IR < 4 lists initializers as inputs too
    SmallVector<std::string> params;
    FailureOr<RankedTensorType> t = inputType(vi, params);
    if (failed(t))
      return nullptr;
    argTypes.push_back(*t);
    argNames.push_back(vi.name());
    argParams.push_back(params);
  }
  auto fn = func::FuncOp::create(loc, imp.options.entryName, b.getFunctionType(argTypes, {}));
  module->push_back(fn);
  Block *entry = fn.addEntryBlock();
  b.setInsertionPointToStart(entry);
  llvm::StringSet<> seenArgNames;
  for (auto [i, name] : llvm::enumerate(argNames)) {
    std::string s = sanitizeName(name);
    if (!seenArgNames.insert(s).second)
      return emitError(loc) << "two graph inputs are both named '" << s << "' after sanitising",
             nullptr;
    fn.setArgAttr(i, "decoda.name", b.getStringAttr(s));
    // The dim_params name the dims for --static-dims (decoda.dims; "" where a dim has none).
    if (llvm::any_of(argParams[i], [](const std::string &p) { return !p.empty(); })) {
      SmallVector<Attribute> dimNames;
      for (const std::string &p : argParams[i])
        dimNames.push_back(b.getStringAttr(p));
      fn.setArgAttr(i, kDimNamesAttrName, b.getArrayAttr(dimNames));
    }
  }
  // Equal dim_params are one symbolic dim; later uses are checked against the first at entry.
  llvm::StringMap<Value> paramDims;
  for (auto [i, name] : llvm::enumerate(argNames)) {
    Value arg = entry->getArgument(i);
    auto t = cast<RankedTensorType>(arg.getType());
    SmallVector<OpFoldResult> dims;
    for (int64_t d = 0; d < t.getRank(); ++d) {
      if (!t.isDynamicDim(d)) {
        dims.push_back(b.getIndexAttr(t.getDimSize(d)));
        continue;
      }
      Value dim = tensor::DimOp::create(b, loc, arg, d);
      const std::string &p = argParams[i][d];
      if (!p.empty()) {
        auto [it, inserted] = paramDims.try_emplace(p, dim);
        if (!inserted) {
          Value eq = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, it->second, dim);
          cf::AssertOp::create(b, loc, eq,
                               "input '" + name + "' dim " + std::to_string(d) + " ('" + p +
                                   "') differs from the other inputs' '" + p + "'");
          dim = it->second;
        }
      }
      dims.push_back(dim);
    }
    imp.values[name] = OnnxValue::tensor(arg, dims);
  }

  // Names read by any node, subgraphs (Loop bodies, If branches) included.
  std::function<void(const onnx::GraphProto &)> collectUses = [&](const onnx::GraphProto &sg) {
    for (const onnx::NodeProto &node : sg.node()) {
      for (const std::string &in : node.input())
        imp.usedNames.insert(in);
      for (const onnx::AttributeProto &a : node.attribute()) {
        if (a.has_g())
          collectUses(a.g());
        for (const onnx::GraphProto &gg : a.graphs())
          collectUses(gg);
      }
    }
    for (const onnx::ValueInfoProto &vi : sg.output())
      imp.usedNames.insert(vi.name());
  };
  collectUses(g);
  for (const onnx::ValueInfoProto &vi : g.output())
    imp.usedNames.insert(vi.name());

  // Nodes.
  if (failed(imp.importNodes(g)))
    return nullptr;

  // Outputs -> results.
  SmallVector<Value> results;
  SmallVector<std::string> resultNames;
  for (const onnx::ValueInfoProto &vi : g.output()) {
    auto it = imp.values.find(vi.name());
    if (it == imp.values.end())
      return emitError(loc) << "graph output '" << vi.name() << "' is not produced by any node",
             nullptr;
    if (it->second.isSequence())
      return emitError(loc) << "graph output '" << vi.name()
                            << "' is a sequence; sequence-typed graph outputs are not supported",
             nullptr;
    Value v = imp.materialize(it->second, loc);
    if (vi.type().has_tensor_type() && vi.type().tensor_type().elem_type()) {
      FailureOr<Type> et = imp.convertElementType(vi.type().tensor_type().elem_type(), loc);
      if (failed(et))
        return nullptr;
      Type have = cast<ShapedType>(v.getType()).getElementType();
      if (have != *et)
        return emitError(loc) << "graph output '" << vi.name() << "' is declared " << *et
                              << " but computes " << have,
               nullptr;
    }
    results.push_back(v);
    resultNames.push_back(sanitizeName(vi.name()));
  }
  func::ReturnOp::create(b, loc, results);
  fn.setType(b.getFunctionType(argTypes, ValueRange(results).getTypes()));
  for (auto [i, name] : llvm::enumerate(resultNames))
    fn.setResultAttr(i, "decoda.name", b.getStringAttr(name));
  // Inputs updated in place (shared KV buffers): donated to the output returning the update
  // (decoda.donate, docs/ABI.md "Donated inputs"), when it is one of the input's type.
  SmallVector<bool> resultDonated(results.size(), false);
  for (auto [input, update] : imp.options.donateSharedKVBuffers
                                   ? ArrayRef<std::pair<Value, Value>>(imp.donations)
                                   : ArrayRef<std::pair<Value, Value>>()) {
    auto arg = dyn_cast<BlockArgument>(input);
    if (!arg || arg.getOwner() != entry || fn.getArgAttr(arg.getArgNumber(), "decoda.donate"))
      continue;
    for (auto [i, r] : llvm::enumerate(results)) {
      if (r != update || resultDonated[i] || r.getType() != arg.getType())
        continue;
      fn.setArgAttr(arg.getArgNumber(), "decoda.donate", b.getI64IntegerAttr(i));
      resultDonated[i] = true;
      break;
    }
  }

  if (failed(verify(*module)))
    return emitError(loc) << "internal error: the imported IR does not verify", nullptr;
  return module;
}
} // namespace

Location Importer::fileLoc() { return FileLineColLoc::get(b.getStringAttr(modelPath), 0, 0); }

Location Importer::nodeLoc(const onnx::NodeProto &node, int index) {
  std::string name =
      node.name().empty() ? (node.op_type() + "_" + std::to_string(index)) : node.name();
  return NameLoc::get(b.getStringAttr(name), fileLoc());
}

LogicalResult Importer::importNodes(const onnx::GraphProto &g) {
  int index = 0;
  for (const onnx::NodeProto &node : g.node()) {
    ++index;
    Location nloc = nodeLoc(node, index);
    std::string domain = node.domain() == "ai.onnx" ? "" : node.domain();
    int64_t opset = opsets.lookup(domain);
    StringRef shownName = cast<NameLoc>(nloc).getName().getValue();
    for (const std::string &in : node.input())
      if (!in.empty() && !values.count(in))
        return emitError(nloc) << "ONNX node '" << shownName << "' (" << node.op_type()
                               << "): input '" << in
                               << "' is not produced by any earlier node, input or initializer "
                                  "(the graph must be topologically sorted)";
    bool controlFlow = domain.empty() && (node.op_type() == "Loop" || node.op_type() == "If");
    for (const onnx::AttributeProto &a : node.attribute())
      if ((a.has_g() || a.graphs_size()) && !controlFlow)
        return emitError(nloc) << "ONNX node '" << shownName << "' (" << node.op_type()
                               << "): subgraph attributes are not supported";
    // Sequences exist only at import: only the sequence ops (and the control flow and Identity
    // that pass values through) may read one.
    static const llvm::StringSet<> takesSequences = {
        "SequenceAt", "SequenceInsert", "SequenceErase", "SequenceLength", "ConcatFromSequence",
        "Identity", "Loop", "If"};
    if (!(domain.empty() && takesSequences.contains(node.op_type())))
      for (const std::string &in : node.input())
        if (!in.empty() && values[in].isSequence())
          return emitError(nloc) << "ONNX node '" << shownName << "' (" << node.op_type()
                                 << "): input '" << in
                                 << "' is a sequence; only the sequence ops take sequences";
    // uint8 tensors exist only as constants (convertTensor) for the ops that read their bytes:
    // MatMulNBits's packed weights and zero points, Identity passing them on.
    static const llvm::StringSet<> readsUnsigned = {"MatMulNBits", "Identity"};
    if (!readsUnsigned.contains(node.op_type()))
      for (int i = 0; i < node.input_size(); ++i) {
        const std::string &in = node.input(i);
        auto it = in.empty() ? values.end() : values.find(in);
        if (it != values.end() && it->second.isConst() &&
            it->second.cst.getElementType().isUnsignedInteger())
          return emitError(nloc) << "ONNX node '" << shownName << "' (" << node.op_type()
                                 << "): input " << i << " ('" << in
                                 << "') is uint8, supported only as MatMulNBits's packed "
                                    "weights and zero points";
      }
    const OpEntry *e = findOp(domain, node.op_type(), opset);
    NodeContext ctx(*this, node, opset, nloc);
    if (failed(checkRequiredInputs(ctx)) || failed(e->handler(ctx)))
      return failure();
    for (int i = 0; i < node.output_size(); ++i)
      if (ctx.outputUsed(i) && !values.count(node.output(i)))
        return ctx.error() << "output " << i << " ('" << node.output(i)
                           << "') is not supported by the importer";
  }
  return success();
}

LogicalResult Importer::importSyntheticNode(const onnx::NodeProto &node, Location loc) {
  int64_t opset = opsets.lookup("");
  const OpEntry *e = findOp("", node.op_type(), opset);
  if (!e)
    return emitError(loc) << "internal error: no " << node.op_type() << " handler at opset "
                          << opset;
  for (const std::string &out : node.output())
    usedNames.insert(out);
  NodeContext ctx(*this, node, opset, loc);
  return e->handler(ctx);
}

//===----------------------------------------------------------------------===//
// Entry points
//===----------------------------------------------------------------------===//

static void loadDialects(MLIRContext *ctx) {
  ctx->loadDialect<arith::ArithDialect, cf::ControlFlowDialect, func::FuncDialect,
                   linalg::LinalgDialect, math::MathDialect, scf::SCFDialect, tensor::TensorDialect,
                   DecodaDialect>();
}

OwningOpRef<ModuleOp> onnx_import::importONNXBuffer(StringRef bytes, StringRef path,
                                                    MLIRContext *context,
                                                    const ImportOptions &options) {
  loadDialects(context);
  Location loc = FileLineColLoc::get(context, path, 0, 0);
  onnx::ModelProto model;
  if (bytes.size() > (size_t)INT_MAX) {
    emitError(loc) << "the model file is larger than 2 GiB; store the weights as external data";
    return nullptr;
  }
  google::protobuf::io::CodedInputStream stream(
      reinterpret_cast<const uint8_t *>(bytes.data()), (int)bytes.size());
  stream.SetTotalBytesLimit(INT_MAX);
  stream.SetRecursionLimit(64);
  if (!model.ParseFromCodedStream(&stream) || !stream.ConsumedEntireMessage()) {
    emitError(loc) << "not a valid ONNX model: the protobuf cannot be parsed (truncated or "
                      "corrupted file?)";
    return nullptr;
  }
  if (!model.has_graph()) {
    emitError(loc) << "the ONNX model has no graph";
    return nullptr;
  }
  Importer imp(context, options, path);
  GraphImporter gi(imp, model);
  return gi.run();
}

OwningOpRef<ModuleOp> onnx_import::importONNXFile(StringRef path, MLIRContext *context,
                                                  const ImportOptions &options) {
  auto buf = llvm::MemoryBuffer::getFile(path, /*IsText=*/false, /*RequiresNullTerminator=*/false);
  if (!buf) {
    emitError(FileLineColLoc::get(context, path, 0, 0))
        << "cannot open '" << path << "': " << buf.getError().message();
    return nullptr;
  }
  return importONNXBuffer((*buf)->getBuffer(), path, context, options);
}

std::vector<std::string> onnx_import::supportedOps() {
  std::vector<std::string> r;
  for (const OpEntry &e : opTable()) {
    std::string s = std::string(*e.domain ? e.domain : "ai.onnx") + ":" + e.opType;
    if (std::find(r.begin(), r.end(), s) == r.end())
      r.push_back(s);
  }
  return r;
}

void onnx_import::registerONNXImportTranslation() {
  static llvm::cl::opt<bool> sharedKVBuffers(
      "onnx-shared-kv-buffers",
      llvm::cl::desc("--import-onnx: GroupQueryAttention's past is a buffer shared with present "
                     "(decoda-compile --shared-kv-buffers)"),
      llvm::cl::init(false));
  static TranslateToMLIRRegistration reg(
      "import-onnx", "import an ONNX model (.onnx) into MLIR",
      [](llvm::SourceMgr &sourceMgr, MLIRContext *ctx) -> OwningOpRef<Operation *> {
        const llvm::MemoryBuffer *buf = sourceMgr.getMemoryBuffer(sourceMgr.getMainFileID());
        ImportOptions options;
        options.sharedKVBuffers = sharedKVBuffers;
        OwningOpRef<ModuleOp> m =
            importONNXBuffer(buf->getBuffer(), buf->getBufferIdentifier(), ctx, options);
        return OwningOpRef<Operation *>(m.release());
      },
      [](DialectRegistry &registry) {
        registry.insert<arith::ArithDialect, cf::ControlFlowDialect, func::FuncDialect,
                        linalg::LinalgDialect, math::MathDialect, scf::SCFDialect, tensor::TensorDialect,
                        DecodaDialect>();
      });
}
