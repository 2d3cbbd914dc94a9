//===- CPUTarget.h - from the LLVM dialect to a loadable model --*- C++ -*-===//
//
// The steps of decoda-compile after the MLIR pipelines: the model's signature (read from the
// public functions before lowering), LLVM IR for the host, an object file, and a shared library
// with the ABI of docs/ABI.md.
//
//===----------------------------------------------------------------------===//

#ifndef DECODA_TARGET_CPU_CPUTARGET_H
#define DECODA_TARGET_CPU_CPUTARGET_H

#include "mlir/IR/BuiltinOps.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/raw_ostream.h"

#include <memory>
#include <string>
#include <vector>

namespace mlir::decoda {

struct TensorSignature {
  std::string name;
  std::string dtype;          // f32 f16 bf16 f64 i8 i32 i64 i1
  std::vector<int64_t> shape; // -1: dynamic
  int64_t donateTo = -1;      // inputs: the output this input is donated to (decoda.donate)
};

struct EntrySignature {
  std::string name;
  std::vector<TensorSignature> inputs, outputs;
  bool hasDonations() const {
    for (const TensorSignature &t : inputs)
      if (t.donateTo >= 0)
        return true;
    return false;
  }
  /// Outputs the entry point returns itself (not written into a donated input).
  size_t numReturnedOutputs() const;
};

/// 2 when any entry has a donated input (the `donate` lines of docs/ABI.md), else 1.
int signatureVersion(const std::vector<EntrySignature> &entries);

/// `<model>.weights` (docs/ABI.md): a 4096-byte header (magic "DECODAW1", then u64 version,
/// count, file size, FNV-1a hash of the weight bytes) and the weights at 64-byte aligned offsets.
inline constexpr char kWeightsMagic[9] = "DECODAW1";
inline constexpr uint64_t kWeightsVersion = 1;
inline constexpr uint64_t kWeightsHeaderBytes = 4096;
inline constexpr llvm::StringLiteral kWeightTableSymbol = "decoda_weight_table";

struct WeightsFile {
  uint64_t count = 0, fileSize = 0, hash = 0;
  std::vector<uint64_t> offsets, sizes;
};

/// Moves every constant global of the LLVM-dialect `module` with at least `minBytes` of dense
/// data into the file `path`; uses read the address from decoda_weight_table[i].
FailureOr<WeightsFile> externalizeWeights(ModuleOp module, StringRef path, uint64_t minBytes);

/// Reads the entry points (public func.func with tensor arguments and results) of a module
/// that is still on tensors. Fails with a diagnostic naming the function and argument when a
/// signature cannot cross the C ABI (non-tensor values, unsupported element types, rank > 8).
FailureOr<std::vector<EntrySignature>> extractSignature(ModuleOp module);

/// Removes the `decoda.name` argument/result attributes (`decoda.donate` stays for the
/// pipeline's decoda-donate-inputs) once the signature has been read (LLVM
/// translation does not know them).
void stripSignatureAttributes(ModuleOp module);

/// Re-reads the element types of `entries` from the public functions of `module`, for passes
/// that change an entry's types after extractSignature (decoda-convert-float-type{io}). The
/// shapes and the names stay.
LogicalResult refreshSignatureTypes(ModuleOp module, std::vector<EntrySignature> &entries);

/// The `decoda_signature` text of docs/ABI.md.
std::string formatSignature(const std::vector<EntrySignature> &entries);

/// Renames the calls of `module` to malloc, calloc, aligned_alloc, realloc and free to the
/// call-memory hooks of CallMemory.c (decoda_mem_*), so that the memory a call holds when one of
/// its run-time checks fails is freed (docs/ABI.md). Run on optimised IR. Fails naming the
/// function when the module calls an allocation function the hooks do not cover.
LogicalResult routeAllocationsThroughHooks(llvm::Module &module, Location loc);

/// C source linked into every model: ABI version, signature, failure hook and one
/// `decoda_entry_<name>(void **)` forwarder per entry point.
void writeSupportSource(const std::vector<EntrySignature> &entries, llvm::raw_ostream &os,
                        const WeightsFile *weights = nullptr);

/// A C header documenting the entry points.
void writeHeader(const std::vector<EntrySignature> &entries, llvm::raw_ostream &os);

struct CPUTargetOptions {
  std::string cpu = "host"; // an LLVM CPU name, or "host"
  std::string features;     // extra LLVM target features, e.g. "+avx512f"
  unsigned optLevel = 3;
};

/// The target CPU as LLVM will see it, and the features the MLIR lowering chooses code forms by
/// (the pipeline must never emit an instruction the target lacks: LLVM would abort in
/// instruction selection, or the model would die of SIGILL).
struct ResolvedCPUTarget {
  std::string cpu;      // the LLVM CPU name ("host" resolved to this machine's)
  std::string features; // the LLVM feature string: the host's features, then --target-features
  bool avx512f = false;
  bool avx512bw = false;
  bool avx512vnni = false; // vpdpbusd on 512-bit registers (decoda-cpu-int8-codegen{vnni})
};

/// Resolves `options` for x86-64 through LLVM's subtarget tables: the CPU name must be one LLVM
/// knows for x86-64 and can build 64-bit code for, every `features` item `+name` or `-name` with
/// a known name (a removed feature also removes what depends on it, e.g. -avx512f removes
/// avx512vnni). Errors name the flag (`--target-cpu`, `--target-features`).
FailureOr<ResolvedCPUTarget> resolveCPUTarget(const CPUTargetOptions &options, Location loc);

/// Translates an LLVM-dialect module to LLVM IR for the target and optimises it.
FailureOr<std::unique_ptr<llvm::Module>>
translateToOptimizedLLVMIR(ModuleOp module, llvm::LLVMContext &context,
                           const CPUTargetOptions &options);

/// Writes `module` as an object file to `path`.
LogicalResult emitObjectFile(llvm::Module &module, const CPUTargetOptions &options,
                             StringRef path, Location loc);

/// Links `objectPath` and the support source into a shared library with the system C compiler
/// (`cc`, or $CC).
LogicalResult linkSharedLibrary(StringRef objectPath, StringRef supportSourcePath,
                                StringRef outputPath, Location loc);

} // namespace mlir::decoda

#endif // DECODA_TARGET_CPU_CPUTARGET_H
