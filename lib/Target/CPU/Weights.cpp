//===- Weights.cpp - constant weights in a side file mapped at load -------===//
//
// decoda-compile --weights=file (docs/ABI.md, "Weights in a side file"): large constant globals
// of the LLVM-dialect module move into `<model>.weights`; the code reads each through a slot of
// `decoda_weight_table`, which the runtime fills with addresses inside the read-only mapping of
// the file.
//
//===----------------------------------------------------------------------===//

#include "decoda/Target/CPU/CPUTarget.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"

#include "llvm/Support/raw_ostream.h"

#include <cstring>

using namespace mlir;
using namespace mlir::decoda;

namespace {
/// The bytes of a constant global's initial value, if it is a non-splat dense array of
/// whole-byte elements.
std::optional<ArrayRef<char>> constantBytes(LLVM::GlobalOp global) {
  if (!global.getConstant())
    return std::nullopt;
  Attribute value = global.getValueOrNull();
  if (auto dense = dyn_cast_or_null<DenseElementsAttr>(value)) {
    if (dense.isSplat() || dense.getElementType().getIntOrFloatBitWidth() % 8 != 0)
      return std::nullopt;
    return dense.getRawData();
  }
  if (auto resource = dyn_cast_or_null<DenseResourceElementsAttr>(value)) {
    if (resource.getElementType().getIntOrFloatBitWidth() % 8 != 0)
      return std::nullopt;
    ArrayRef<char> data = resource.getData();
    if (data.empty())
      return std::nullopt;
    return data;
  }
  return std::nullopt;
}

uint64_t fnv1a(uint64_t h, ArrayRef<char> bytes) {
  for (char c : bytes) {
    h ^= static_cast<unsigned char>(c);
    h *= 1099511628211ull;
  }
  return h;
}
} // namespace

FailureOr<WeightsFile> mlir::decoda::externalizeWeights(ModuleOp module, StringRef path,
                                                        uint64_t minBytes) {
  SmallVector<std::pair<LLVM::GlobalOp, ArrayRef<char>>> moved;
  for (auto global : module.getOps<LLVM::GlobalOp>())
    if (std::optional<ArrayRef<char>> bytes = constantBytes(global))
      if (bytes->size() >= minBytes)
        moved.push_back({global, *bytes});

  WeightsFile file;
  file.count = moved.size();
  uint64_t offset = kWeightsHeaderBytes;
  uint64_t hash = 14695981039346656037ull;
  for (auto &[global, bytes] : moved) {
    uint64_t align = std::max<uint64_t>(64, global.getAlignment().value_or(0));
    offset = (offset + align - 1) / align * align;
    file.offsets.push_back(offset);
    file.sizes.push_back(bytes.size());
    hash = fnv1a(hash, bytes);
    offset += bytes.size();
  }
  file.fileSize = offset;
  file.hash = hash;

  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec);
  if (ec)
    return module.emitError() << "--weights=file: cannot write '" << path
                              << "': " << ec.message();
  char header[kWeightsHeaderBytes] = {0};
  std::memcpy(header, kWeightsMagic, 8);
  uint64_t fields[4] = {kWeightsVersion, file.count, file.fileSize, file.hash};
  std::memcpy(header + 8, fields, sizeof(fields));
  os.write(header, sizeof(header));
  uint64_t written = kWeightsHeaderBytes;
  for (auto [i, entry] : llvm::enumerate(moved)) {
    os.write_zeros(file.offsets[i] - written);
    os.write(entry.second.data(), entry.second.size());
    written = file.offsets[i] + entry.second.size();
  }
  os.close();
  if (os.has_error())
    return module.emitError() << "--weights=file: error writing '" << path << "'";

  if (moved.empty())
    return file;
  // Every use of a moved global reads its address from decoda_weight_table[i] (defined and
  // exported by the support source, filled by the runtime).
  MLIRContext *ctx = module.getContext();
  OpBuilder b(ctx);
  b.setInsertionPointToStart(module.getBody());
  auto ptr = LLVM::LLVMPointerType::get(ctx);
  auto tableType = LLVM::LLVMArrayType::get(ptr, moved.size());
  LLVM::GlobalOp::create(b, module.getLoc(), tableType, /*isConstant=*/false,
                         LLVM::Linkage::External, kWeightTableSymbol, Attribute());
  llvm::StringMap<unsigned> index;
  for (auto [i, entry] : llvm::enumerate(moved))
    index[entry.first.getSymName()] = i;
  SmallVector<LLVM::AddressOfOp> uses;
  module.walk([&](LLVM::AddressOfOp op) {
    if (index.count(op.getGlobalName()))
      uses.push_back(op);
  });
  for (LLVM::AddressOfOp op : uses) {
    b.setInsertionPoint(op);
    Location loc = op.getLoc();
    Value table = LLVM::AddressOfOp::create(b, loc, ptr, kWeightTableSymbol);
    Value slot = LLVM::GEPOp::create(
        b, loc, ptr, tableType, table,
        ArrayRef<LLVM::GEPArg>{0, static_cast<int32_t>(index[op.getGlobalName()])});
    Value address = LLVM::LoadOp::create(b, loc, ptr, slot);
    op.replaceAllUsesWith(address);
    op.erase();
  }
  for (auto &entry : moved)
    entry.first.erase();
  return file;
}
