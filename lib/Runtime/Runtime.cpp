//===- Runtime.cpp - load and run compiled Decoda models ------------------===//
//
// The C API of include/decoda-c/runtime.h over the compiled-model ABI of docs/ABI.md: dlopen the
// model, parse its signature, validate inputs, build memref descriptors, call the entry point
// with a fail handler that longjmps back, copy every output into a contiguous buffer owned by the
// caller and release the model's buffers.
//
//===----------------------------------------------------------------------===//

#pragma GCC visibility push(default)
#include "decoda-c/runtime.h"
#pragma GCC visibility pop

#include "Signature.h"
#include "CUDAAPI.h"
#include "CUDARuntime.h"

#include <dlfcn.h>
#include <elf.h>
#include <fcntl.h>
#include <setjmp.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <set>
#include <memory>
#include <mutex>
#include <new>
#include <string>
#include <vector>

using decoda::runtime::EntrySpec;
using decoda::runtime::formatShape;
using decoda::runtime::TensorSpec;

namespace {

using EntryFn = void (*)(void **);
using FailHandler = void (*)(const char *);

struct Entry {
  EntrySpec spec;
  EntryFn fn = nullptr;
};

thread_local std::string tlLastError;

decoda_status setError(decoda_status status, std::string message) {
  try {
    tlLastError = std::move(message);
  } catch (...) {
    // Keep the previous message rather than fail while reporting a failure.
  }
  return status;
}

//===----------------------------------------------------------------------===//
// Failed run-time checks: the model calls decoda_fail_handler(message); we longjmp back to the
// decoda_run frame of this thread. The jump target is thread_local, so concurrent runs on
// different threads each return to their own caller.
//===----------------------------------------------------------------------===//

struct JumpContext {
  sigjmp_buf buf;
  char message[2048];
};

thread_local JumpContext *tlJump = nullptr;

extern "C" void decodaRuntimeFailHandler(const char *message) {
  JumpContext *ctx = tlJump;
  if (!message)
    message = "(no message)";
  if (!ctx) {
    // Called outside decoda_run on this thread (e.g. from a worker thread the model started):
    // there is no frame to return to, so behave like the model without a handler.
    std::fprintf(stderr, "decoda: run-time check failed: %s\n", message);
    std::abort();
  }
  std::snprintf(ctx->message, sizeof(ctx->message), "%s", message);
  siglongjmp(ctx->buf, 1);
}

/// Calls `fn(args)`; returns false with the handler's message in `ctx.message` when the model
/// reported a failed check. Kept free of objects with destructors between setjmp and the call.
__attribute__((noinline)) bool callGuarded(EntryFn fn, void **args, JumpContext &ctx) {
  JumpContext *previous = tlJump;
  tlJump = &ctx;
  if (sigsetjmp(ctx.buf, 0) != 0) {
    tlJump = previous;
    return false;
  }
  fn(args);
  tlJump = previous;
  return true;
}

// A valid address to pass for empty tensors whose caller gave no data pointer.
alignas(64) char gEmptyTensorStorage[64];

const int64_t gNoDims[1] = {0};

bool isValidDtype(int dtype) { return dtype >= DECODA_F32 && dtype <= DECODA_I1; }

/// The value a C caller stored in a decoda_dtype, read as the int it is: loading an enum object
/// that holds a value outside the enumerators is undefined behaviour in C++ (UBSan's enum check
/// flagged decoda_dtype_size(99) from the C API test).
int rawDtype(const decoda_dtype &dtype) {
  int raw;
  static_assert(sizeof(raw) == sizeof(dtype), "decoda_dtype is an int-sized C enum");
  std::memcpy(&raw, &dtype, sizeof(raw));
  return raw;
}

std::string dtypeName(int dtype) {
  return isValidDtype(dtype) ? decoda_dtype_name(static_cast<decoda_dtype>(dtype))
                             : "<invalid dtype " + std::to_string(dtype) + ">";
}

/// Number of elements of `shape`, false on a negative extent or overflow past 2^62 elements.
bool elementCount(const int64_t *shape, int32_t rank, int64_t &count) {
  count = 1;
  for (int32_t i = 0; i < rank; ++i) {
    if (shape[i] < 0)
      return false;
    if (shape[i] != 0 && count > (int64_t(1) << 62) / shape[i])
      return false;
    count *= shape[i];
  }
  return true;
}

/// Copies a strided memref view of `rank` dims into the contiguous row-major `dst`.
void copyStrided(char *dst, const char *src, const int64_t *sizes, const int64_t *strides,
                 int32_t rank, size_t elemSize) {
  if (rank == 0) {
    std::memcpy(dst, src, elemSize);
    return;
  }
  // Contiguous fast path: strides are exactly the row-major ones (size-1 dims don't matter).
  bool contiguous = true;
  int64_t expected = 1;
  for (int32_t i = rank - 1; i >= 0; --i) {
    if (sizes[i] != 1 && strides[i] != expected) {
      contiguous = false;
      break;
    }
    expected *= sizes[i];
  }
  int64_t total = 1;
  for (int32_t i = 0; i < rank; ++i)
    total *= sizes[i];
  if (total == 0)
    return;
  if (contiguous) {
    std::memcpy(dst, src, static_cast<size_t>(total) * elemSize);
    return;
  }
  int64_t index[DECODA_MAX_RANK] = {0};
  const int64_t inner = sizes[rank - 1];
  const int64_t innerStride = strides[rank - 1] * static_cast<int64_t>(elemSize);
  for (int64_t done = 0; done < total; done += inner) {
    int64_t offset = 0;
    for (int32_t i = 0; i < rank - 1; ++i)
      offset += index[i] * strides[i];
    const char *s = src + offset * static_cast<int64_t>(elemSize);
    switch (elemSize) {
    case 1:
      for (int64_t j = 0; j < inner; ++j, s += innerStride, dst += 1)
        std::memcpy(dst, s, 1);
      break;
    case 2:
      for (int64_t j = 0; j < inner; ++j, s += innerStride, dst += 2)
        std::memcpy(dst, s, 2);
      break;
    case 4:
      for (int64_t j = 0; j < inner; ++j, s += innerStride, dst += 4)
        std::memcpy(dst, s, 4);
      break;
    default:
      for (int64_t j = 0; j < inner; ++j, s += innerStride, dst += elemSize)
        std::memcpy(dst, s, elemSize);
      break;
    }
    for (int32_t i = rank - 2; i >= 0; --i) {
      if (++index[i] < sizes[i])
        break;
      index[i] = 0;
    }
  }
}

/// True when `p` lies in a segment of a loaded ELF object (a constant or global of the model),
/// i.e. it is not a heap pointer and must not be freed.
bool isInLoadedObject(const void *p) {
  Dl_info info;
  return dladdr(p, &info) != 0 && info.dli_fname != nullptr;
}

/// Checks that `path` is an ELF file whose loadable segments all lie inside it, before dlopen:
/// the dynamic loader maps a truncated file without complaint and the first touch of a page
/// past its end is a SIGBUS. Returns "" when the file is fit to load, else why not ("not an ELF
/// shared library" when it is not ELF at all).
std::string checkElfFile(const char *path, off_t fileSize) {
  const std::string notElf = "not an ELF shared library";
  FILE *f = std::fopen(path, "rb");
  if (!f)
    return notElf;
  std::unique_ptr<FILE, int (*)(FILE *)> closer(f, &std::fclose);
  Elf64_Ehdr eh;
  std::memset(&eh, 0, sizeof(eh));
  size_t n = std::fread(&eh, 1, sizeof(eh), f);
  if (n < 4 || std::memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0)
    return notElf;
  if (n < sizeof(eh) || eh.e_ident[EI_CLASS] != ELFCLASS64)
    return "a truncated or non-64-bit ELF file";
  const uint64_t size = static_cast<uint64_t>(fileSize);
  if (eh.e_phentsize != sizeof(Elf64_Phdr) || eh.e_phoff > size ||
      uint64_t(eh.e_phnum) * sizeof(Elf64_Phdr) > size - eh.e_phoff)
    return "a truncated ELF file (its program headers lie past the end of the file)";
  if (std::fseek(f, static_cast<long>(eh.e_phoff), SEEK_SET) != 0)
    return "an unreadable ELF file";
  for (unsigned i = 0; i < eh.e_phnum; ++i) {
    Elf64_Phdr ph;
    if (std::fread(&ph, sizeof(ph), 1, f) != 1)
      return "an unreadable ELF file";
    if (ph.p_type == PT_LOAD && (ph.p_offset > size || ph.p_filesz > size - ph.p_offset))
      return "a truncated ELF file (segment " + std::to_string(i) + " ends at byte " +
             std::to_string(ph.p_offset + ph.p_filesz) + ", the file has " +
             std::to_string(size) + ")";
  }
  return "";
}

} // namespace

struct decoda_model {
  void *handle = nullptr;
  std::string path;
  std::vector<Entry> entries;
  void *weights = nullptr; // read-only mapping of <model>.weights (--weights=file), while loading
  size_t weightsSize = 0;
  const decoda_cuda_api *cuda = nullptr; // a CUDA model's driver table
};

namespace {
/// What the models loaded from one shared object share: dlopen returns the same object for a
/// file loaded twice, with one weight table and one set of device copies.
struct LoadedObject {
  int users = 0;
  void *weights = nullptr; // the mapping its weight table points into
  size_t weightsSize = 0;
};
std::mutex gLoadedLock;
std::map<void *, LoadedObject> gLoaded;
} // namespace

namespace {

const Entry *getEntry(const decoda_model *model, int entry) {
  if (!model || entry < 0 || entry >= static_cast<int>(model->entries.size()))
    return nullptr;
  return &model->entries[entry];
}

std::string nameList(const std::vector<TensorSpec> &specs) {
  std::string s;
  for (const TensorSpec &t : specs)
    s += (s.empty() ? "" : ", ") + t.name;
  return s.empty() ? "none" : s;
}

/// Checks one caller tensor against the signature; sets the error message on failure. Builds no
/// strings unless the tensor is wrong.
decoda_status validateInput(const EntrySpec &entry, size_t i, const decoda_tensor &t) {
  const TensorSpec &spec = entry.inputs[i];
  auto where = [&] {
    return "entry '" + entry.name + "': input '" + spec.name + "' (#" + std::to_string(i) + ")";
  };
  auto expected = [&] { return formatShape(spec.shape.data(), spec.rank()); };
  if (!isValidDtype(rawDtype(t.dtype)) || t.dtype != spec.dtype)
    return setError(DECODA_ERROR_DTYPE, where() + ": expected dtype " + dtypeName(spec.dtype) +
                                            ", found " + dtypeName(rawDtype(t.dtype)));
  if (t.rank < 0 || t.rank > DECODA_MAX_RANK)
    return setError(DECODA_ERROR_SHAPE, where() + ": expected shape " + expected() + " (rank " +
                                            std::to_string(spec.rank()) + "), found rank " +
                                            std::to_string(t.rank));
  if (t.rank != spec.rank())
    return setError(DECODA_ERROR_SHAPE, where() + ": expected shape " + expected() + " (rank " +
                                            std::to_string(spec.rank()) + "), found " +
                                            formatShape(t.shape, t.rank) + " (rank " +
                                            std::to_string(t.rank) + ")");
  for (int32_t d = 0; d < t.rank; ++d) {
    if (t.shape[d] < 0)
      return setError(DECODA_ERROR_SHAPE, where() + ": dimension " + std::to_string(d) +
                                              " has negative extent " +
                                              std::to_string(t.shape[d]));
    if (spec.shape[d] >= 0 && t.shape[d] != spec.shape[d])
      return setError(DECODA_ERROR_SHAPE,
                      where() + ": expected shape " + expected() + ", found " +
                          formatShape(t.shape, t.rank) + " (dimension " + std::to_string(d) +
                          " is " + std::to_string(t.shape[d]) + ", expected " +
                          std::to_string(spec.shape[d]) + ")");
  }
  int64_t count = 0;
  if (!elementCount(t.shape, t.rank, count))
    return setError(DECODA_ERROR_SHAPE,
                    where() + ": shape " + formatShape(t.shape, t.rank) + " is too large");
  if (count > 0 && !t.data)
    return setError(DECODA_ERROR_ARGUMENT, where() + ": data is a null pointer");
  return DECODA_OK;
}

/// Bytes of a validated input.
size_t byteSize(const decoda_tensor &t) {
  int64_t count = 0;
  elementCount(t.shape, t.rank, count);
  return static_cast<size_t>(count) * decoda_dtype_size(t.dtype);
}

/// Frees on destruction the copies made of donatable inputs the caller did not donate, unless
/// released (then they belong to the caller as outputs).
struct DonationCopies {
  std::vector<void *> buffers;       // host
  std::vector<void *> deviceBuffers; // copies of device-resident inputs (CUDA models)
  const decoda_cuda_api *cuda = nullptr;
  ~DonationCopies() {
    for (void *p : buffers)
      std::free(p);
    for (void *p : deviceBuffers)
      if (p)
        cuda->mem_free(p); // errors ignored: nothing to report them to
  }
};

/// Device buffers the runtime returned as outputs (a device copy of a donatable device input the
/// caller did not donate): decoda_tensor_free releases these with the driver, everything else
/// with free(), without asking the driver about every output.
std::mutex gDeviceOutputsLock;
std::set<void *> gDeviceOutputs;

/// True when `ptr` is device memory of `model`'s device (a CUDA model's device-resident
/// tensor, docs/ABI.md).
bool onDevice(const decoda_model *model, const void *ptr) {
  return model->cuda && ptr && model->cuda->is_device_pointer(ptr);
}

/// Removes `ptr` from the device outputs; true when it was one.
bool takeDeviceOutput(void *ptr) {
  std::lock_guard<std::mutex> lock(gDeviceOutputsLock);
  return ptr && gDeviceOutputs.erase(ptr) > 0;
}

/// A synchronous copy of `bytes` between host or device buffers (unified addressing).
int deviceCopy(const decoda_cuda_api *api, void *dst, const void *src, size_t bytes) {
  if (int rc = api->memcpy(dst, src, bytes, nullptr))
    return rc;
  return api->stream_synchronize(nullptr);
}

decoda_status runImpl(decoda_model *model, int entryIndex, const decoda_tensor *inputs,
                      int numInputs, decoda_tensor *outputs, int numOutputs,
                      const uint8_t *donate) {
  if (outputs)
    for (int i = 0; i < numOutputs; ++i) {
      outputs[i].data = nullptr;
      outputs[i].rank = 0;
    }
  if (!model)
    return setError(DECODA_ERROR_ARGUMENT, "decoda_run: model is a null pointer");
  const Entry *entry = getEntry(model, entryIndex);
  if (!entry)
    return setError(DECODA_ERROR_ARGUMENT,
                    "decoda_run: entry index " + std::to_string(entryIndex) +
                        " out of range (the model has " +
                        std::to_string(model->entries.size()) + " entries)");
  const EntrySpec &spec = entry->spec;
  const size_t nIn = spec.inputs.size(), nOut = spec.outputs.size();
  if (numInputs < 0 || static_cast<size_t>(numInputs) != nIn)
    return setError(DECODA_ERROR_ARGUMENT,
                    "entry '" + spec.name + "' takes " + std::to_string(nIn) + " input" +
                        (nIn == 1 ? "" : "s") + " (" + nameList(spec.inputs) + "), got " +
                        std::to_string(numInputs));
  if (numOutputs < 0 || static_cast<size_t>(numOutputs) != nOut)
    return setError(DECODA_ERROR_ARGUMENT,
                    "entry '" + spec.name + "' has " + std::to_string(nOut) + " output" +
                        (nOut == 1 ? "" : "s") + " (" + nameList(spec.outputs) +
                        "), the caller provided room for " + std::to_string(numOutputs));
  if (nIn > 0 && !inputs)
    return setError(DECODA_ERROR_ARGUMENT,
                    "entry '" + spec.name + "': inputs is a null pointer");
  if (nOut > 0 && !outputs)
    return setError(DECODA_ERROR_ARGUMENT,
                    "entry '" + spec.name + "': outputs is a null pointer");
  for (size_t i = 0; i < nIn; ++i)
    if (decoda_status s = validateInput(spec, i, inputs[i]))
      return s;

  // Donated inputs: the model writes the paired output into the buffer it gets for the input,
  // the caller's own when donated, else a private copy that becomes the output.
  std::vector<void *> data(nIn);
  DonationCopies copies;
  copies.cuda = model->cuda;
  for (size_t i = 0; i < nIn; ++i) {
    const decoda_tensor &t = inputs[i];
    data[i] = t.data ? t.data : static_cast<void *>(gEmptyTensorStorage);
    const TensorSpec &is = spec.inputs[i];
    bool donated = donate && donate[i];
    if (donated && is.donation < 0)
      return setError(DECODA_ERROR_ARGUMENT,
                      "entry '" + spec.name + "': input '" + is.name + "' (#" +
                          std::to_string(i) + ") cannot be donated: the entry does not write "
                          "an output into it");
    if (is.donation < 0)
      continue;
    size_t bytes = byteSize(t);
    if (donated) {
      const char *lo = static_cast<const char *>(t.data), *hi = lo + bytes;
      for (size_t j = 0; j < nIn && bytes > 0; ++j) {
        if (j == i || !inputs[j].data)
          continue;
        const char *lo2 = static_cast<const char *>(inputs[j].data);
        const char *hi2 = lo2 + byteSize(inputs[j]);
        if (lo < hi2 && lo2 < hi)
          return setError(DECODA_ERROR_ARGUMENT,
                          "entry '" + spec.name + "': donated input '" + is.name +
                              "' overlaps input '" + spec.inputs[j].name +
                              "'; a donated buffer must not be read as another input");
      }
      continue;
    }
    if (bytes > 0 && onDevice(model, t.data)) {
      // A device-resident input not donated: a device copy the model writes instead.
      void *copy = nullptr;
      if (model->cuda->mem_alloc(&copy, bytes) != 0)
        return setError(DECODA_ERROR_RUNTIME, "entry '" + spec.name + "': copying device input '" +
                                                  is.name + "': " + model->cuda->error_message());
      copies.deviceBuffers.push_back(copy);
      if (deviceCopy(model->cuda, copy, t.data, bytes) != 0)
        return setError(DECODA_ERROR_RUNTIME, "entry '" + spec.name + "': copying device input '" +
                                                  is.name + "': " + model->cuda->error_message());
      data[i] = copy;
      continue;
    }
    void *copy = std::malloc(bytes > 0 ? bytes : 1);
    if (!copy)
      return setError(DECODA_ERROR_RUNTIME, "entry '" + spec.name + "': out of memory copying "
                                                "input '" + is.name + "'");
    copies.buffers.push_back(copy);
    if (bytes > 0)
      std::memcpy(copy, t.data, bytes);
    data[i] = copy;
  }

  // Input descriptors, then the output descriptor buffer, all in one per-call allocation.
  size_t words = 0;
  for (const TensorSpec &t : spec.inputs)
    words += 3 + 2 * static_cast<size_t>(t.rank());
  size_t outWordsStart = words;
  for (const TensorSpec &t : spec.outputs)
    if (t.donation < 0) // donated outputs are not returned (docs/ABI.md)
      words += 3 + 2 * static_cast<size_t>(t.rank());
  bool anyReturned = words > outWordsStart;
  std::vector<int64_t> desc(words + 1, 0);
  std::vector<void *> args(nIn + (anyReturned ? 1 : 0), nullptr);
  size_t w = 0;
  for (size_t i = 0; i < nIn; ++i) {
    const decoda_tensor &t = inputs[i];
    args[i] = &desc[w];
    desc[w++] = reinterpret_cast<intptr_t>(data[i]); // allocated
    desc[w++] = reinterpret_cast<intptr_t>(data[i]); // aligned
    desc[w++] = 0;                                // offset
    for (int32_t d = 0; d < t.rank; ++d)
      desc[w + d] = t.shape[d];
    int64_t stride = 1;
    for (int32_t d = t.rank - 1; d >= 0; --d) {
      desc[w + t.rank + d] = stride;
      stride *= t.shape[d];
    }
    w += 2 * static_cast<size_t>(t.rank);
  }
  if (anyReturned)
    args[nIn] = &desc[outWordsStart];

  JumpContext ctx;
  ctx.message[0] = '\0';
  if (model->cuda) {
    decoda::runtime::cudaCallBegin();
    decoda::runtime::cudaProfileBegin();
  }
  bool called = callGuarded(entry->fn, args.data(), ctx);
  if (model->cuda) {
    decoda::runtime::cudaProfileEnd(called);
    decoda::runtime::cudaCallEnd(called);
  }
  if (!called)
    return setError(DECODA_ERROR_RUNTIME,
                    "entry '" + spec.name + "': run-time check failed: " + ctx.message);

  // Copy every output, then release the model's buffers (each once, never inputs or constants).
  decoda_status status = DECODA_OK;
  std::vector<void *> toFree;
  w = outWordsStart;
  for (size_t o = 0; o < nOut; ++o) {
    const TensorSpec &os = spec.outputs[o];
    const int32_t rank = os.rank();
    if (os.donation >= 0) {
      // Written into the buffer passed for the donated input: that buffer is the output.
      const decoda_tensor &in = inputs[os.donation];
      decoda_tensor &out = outputs[o];
      out.dtype = os.dtype;
      out.rank = rank;
      for (int32_t i = 0; i < DECODA_MAX_RANK; ++i)
        out.shape[i] = i < rank ? in.shape[i] : 0;
      out.data = data[os.donation];
      for (void *&p : copies.buffers)
        if (p == out.data)
          p = nullptr; // now the caller's
      for (void *&p : copies.deviceBuffers)
        if (p == out.data) {
          p = nullptr; // now the caller's (device memory, freed by decoda_tensor_free)
          std::lock_guard<std::mutex> lock(gDeviceOutputsLock);
          gDeviceOutputs.insert(out.data);
        }
      continue;
    }
    const int64_t *d = &desc[w];
    w += 3 + 2 * static_cast<size_t>(rank);
    void *allocated = reinterpret_cast<void *>(static_cast<intptr_t>(d[0]));
    const char *aligned = reinterpret_cast<const char *>(static_cast<intptr_t>(d[1]));
    const int64_t offset = d[2];
    const int64_t *sizes = d + 3, *strides = d + 3 + rank;

    bool release = allocated != nullptr &&
                   reinterpret_cast<uintptr_t>(allocated) != uintptr_t(0xdeadbeef);
    for (size_t i = 0; release && i < nIn; ++i)
      if (allocated == inputs[i].data || allocated == data[i] ||
          allocated == gEmptyTensorStorage)
        release = false;
    for (void *p : toFree)
      if (p == allocated)
        release = false;
    if (release && isInLoadedObject(allocated))
      release = false;
    if (release)
      toFree.push_back(allocated);

    if (status != DECODA_OK)
      continue;
    auto where = [&] {
      return "entry '" + spec.name + "': output '" + os.name + "' (#" + std::to_string(o) + ")";
    };
    int64_t count = 0;
    if (!elementCount(sizes, rank, count)) {
      status = setError(DECODA_ERROR_RUNTIME,
                        where() + ": the model returned an invalid shape " +
                            formatShape(sizes, rank));
      continue;
    }
    for (int32_t i = 0; i < rank && status == DECODA_OK; ++i)
      if (os.shape[i] >= 0 && sizes[i] != os.shape[i])
        status = setError(DECODA_ERROR_RUNTIME,
                          where() + ": the model returned shape " + formatShape(sizes, rank) +
                              ", its signature says " + formatShape(os.shape.data(), rank));
    if (status != DECODA_OK)
      continue;
    if (count > 0 && !aligned) {
      status = setError(DECODA_ERROR_RUNTIME, where() + ": the model returned a null buffer");
      continue;
    }
    size_t elemSize = decoda_dtype_size(os.dtype);
    void *buffer = std::malloc(count > 0 ? static_cast<size_t>(count) * elemSize : 1);
    if (!buffer) {
      status = setError(DECODA_ERROR_RUNTIME, where() + ": out of memory copying " +
                                                  std::to_string(count) + " elements");
      continue;
    }
    if (count > 0)
      copyStrided(static_cast<char *>(buffer), aligned + offset * static_cast<int64_t>(elemSize),
                  sizes, strides, rank, elemSize);
    decoda_tensor &out = outputs[o];
    out.dtype = os.dtype;
    out.rank = rank;
    for (int32_t i = 0; i < DECODA_MAX_RANK; ++i)
      out.shape[i] = i < rank ? sizes[i] : 0;
    out.data = buffer;
  }
  for (void *p : toFree)
    std::free(p);
  if (status != DECODA_OK)
    for (size_t o = 0; o < nOut; ++o) {
      const TensorSpec &os = spec.outputs[o];
      if (os.donation >= 0 && outputs[o].data == inputs[os.donation].data)
        outputs[o].data = nullptr; // the caller's donated buffer
      else if (os.donation >= 0 && takeDeviceOutput(outputs[o].data))
        copies.deviceBuffers.push_back(outputs[o].data), outputs[o].data = nullptr;
      else if (os.donation >= 0)
        copies.buffers.push_back(outputs[o].data), outputs[o].data = nullptr;
      else
        decoda_tensor_free(&outputs[o]);
    }
  return status;
}

/// `<model>.weights` (docs/ABI.md, "Weights in a side file"): maps it read-only, checks it
/// against the numbers the model was compiled with and points decoda_weight_table into it.
decoda_status mapWeights(void *handle, decoda_model &model) {
  auto *info = static_cast<const uint64_t *>(dlsym(handle, "decoda_weights_info"));
  if (!info)
    return DECODA_OK; // weights embedded
  const std::string &p = model.path;
  auto *table = static_cast<void **>(dlsym(handle, "decoda_weight_table"));
  auto *offsets = static_cast<const uint64_t *>(dlsym(handle, "decoda_weight_offsets"));
  if (!table || !offsets)
    return setError(DECODA_ERROR_FORMAT, "'" + p + "' has decoda_weights_info but no "
                                             "decoda_weight_table/decoda_weight_offsets");
  std::string wpath = p.size() > 3 && p.compare(p.size() - 3, 3, ".so") == 0
                          ? p.substr(0, p.size() - 3) + ".weights"
                          : p + ".weights";
  const uint64_t version = info[0], count = info[1], size = info[2], hash = info[3];
  int fd = ::open(wpath.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return setError(DECODA_ERROR_IO, "cannot open the weights file '" + wpath + "' of model '" +
                                         p + "': " + std::strerror(errno) +
                                         " (compiled with --weights=file: keep it next to "
                                         "the model)");
  struct stat st;
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    return setError(DECODA_ERROR_IO, "'" + wpath + "' is not a regular file");
  }
  if (static_cast<uint64_t>(st.st_size) != size) {
    ::close(fd);
    return setError(DECODA_ERROR_FORMAT,
                    "'" + wpath + "' has " + std::to_string(st.st_size) + " bytes; model '" + p +
                        "' was compiled with a weights file of " + std::to_string(size) +
                        " bytes (a file from another compile, or a truncated copy)");
  }
  void *base = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
  ::close(fd);
  if (base == MAP_FAILED)
    return setError(DECODA_ERROR_IO, "cannot map '" + wpath + "': " + std::strerror(errno));
  auto fail = [&](const std::string &what) {
    ::munmap(base, size);
    return setError(DECODA_ERROR_FORMAT, "'" + wpath + "' does not match model '" + p +
                                             "': " + what);
  };
  const char *bytes = static_cast<const char *>(base);
  uint64_t header[4];
  if (size < 4096 || std::memcmp(bytes, "DECODAW1", 8) != 0)
    return fail("no Decoda weights header");
  std::memcpy(header, bytes + 8, sizeof(header));
  if (header[0] != version)
    return fail("format version " + std::to_string(header[0]) + ", the model expects " +
                std::to_string(version));
  if (header[1] != count || header[2] != size)
    return fail("it holds " + std::to_string(header[1]) + " weights in " +
                std::to_string(header[2]) + " bytes, the model expects " +
                std::to_string(count) + " in " + std::to_string(size));
  if (header[3] != hash)
    return fail("content hash differs (written by another compile)");
  for (uint64_t i = 0; i < count; ++i) {
    if (offsets[i] < 4096 || offsets[i] >= size)
      return fail("weight " + std::to_string(i) + " lies outside the file");
    table[i] = const_cast<char *>(bytes + offsets[i]);
  }
  model.weights = base;
  model.weightsSize = size;
  return DECODA_OK;
}

/// A CUDA model (docs/ABI.md, "GPU models") gets the runtime's driver table; without a driver
/// or a device it is refused with DECODA_ERROR_NO_DEVICE.
decoda_status attachDevice(void *handle, const std::string &p) {
  auto *target = static_cast<const char *>(dlsym(handle, "decoda_target"));
  if (!target)
    return DECODA_OK; // a CPU model
  if (std::strcmp(target, "cuda") != 0)
    return setError(DECODA_ERROR_FORMAT, "'" + p + "' targets '" + target +
                                             "'; this runtime runs CPU and CUDA models");
  auto *slot = static_cast<const decoda_cuda_api **>(dlsym(handle, "decoda_cuda"));
  auto *apiVersion = static_cast<const int32_t *>(dlsym(handle, "decoda_cuda_api_version"));
  if (!slot || !apiVersion || *apiVersion != DECODA_CUDA_API_VERSION)
    return setError(DECODA_ERROR_FORMAT, "'" + p + "': a CUDA model without a matching "
                                             "decoda_cuda table (version " +
                                             std::to_string(DECODA_CUDA_API_VERSION) + ")");
  std::string why;
  const decoda_cuda_api *api = decoda::runtime::acquireCUDA(why);
  if (!api)
    return setError(DECODA_ERROR_NO_DEVICE, "cannot run CUDA model '" + p + "': " + why);
  *slot = api;
  return DECODA_OK;
}

decoda_status loadImpl(const char *path, decoda_model **out) {
  if (out)
    *out = nullptr;
  if (!path || !out)
    return setError(DECODA_ERROR_ARGUMENT, "decoda_model_load: null argument");
  std::string p(path);
  struct stat st;
  if (::stat(path, &st) != 0)
    return setError(DECODA_ERROR_IO, "cannot open model '" + p + "': " + std::strerror(errno));
  if (S_ISDIR(st.st_mode))
    return setError(DECODA_ERROR_IO, "cannot open model '" + p + "': it is a directory");
  if (std::string why = checkElfFile(path, st.st_size); !why.empty())
    return setError(DECODA_ERROR_FORMAT, "'" + p + "' is not a Decoda model (" + why + ")");
  // dlopen searches the library path for a name without '/'; a model path is a file path.
  std::string openPath = p.find('/') == std::string::npos ? "./" + p : p;
  void *handle = dlopen(openPath.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char *why = dlerror();
    return setError(DECODA_ERROR_FORMAT,
                    "cannot load model '" + p + "': " + (why ? why : "dlopen failed"));
  }
  auto closeWith = [&](decoda_status s, const std::string &message) {
    dlclose(handle);
    return setError(s, message);
  };
  auto *version = static_cast<const int32_t *>(dlsym(handle, "decoda_abi_version"));
  auto *signature = static_cast<const char *>(dlsym(handle, "decoda_signature"));
  if (!version || !signature)
    return closeWith(DECODA_ERROR_FORMAT,
                     "'" + p + "' is not a Decoda model: it does not export " +
                         (version ? "decoda_signature" : "decoda_abi_version"));
  if (*version != 1 && *version != 2)
    return closeWith(DECODA_ERROR_FORMAT, "'" + p + "' has Decoda ABI version " +
                                              std::to_string(*version) +
                                              "; this runtime supports versions 1 and 2");
  auto model = std::make_unique<decoda_model>();
  model->path = p;
  std::vector<EntrySpec> specs;
  std::string error;
  int sigVersion = 0;
  if (!decoda::runtime::parseSignature(signature, specs, error, &sigVersion))
    return closeWith(DECODA_ERROR_FORMAT, "'" + p + "': " + error);
  if (sigVersion != *version)
    return closeWith(DECODA_ERROR_FORMAT, "'" + p + "': decoda_abi_version is " +
                                              std::to_string(*version) +
                                              " but its signature has version " +
                                              std::to_string(sigVersion));
  for (EntrySpec &s : specs) {
    std::string symbol = "decoda_entry_" + s.name;
    void *fn = dlsym(handle, symbol.c_str());
    if (!fn)
      return closeWith(DECODA_ERROR_FORMAT, "'" + p + "': the signature lists entry '" +
                                                s.name + "' but the model does not export " +
                                                symbol);
    Entry e;
    e.spec = std::move(s);
    e.fn = reinterpret_cast<EntryFn>(fn);
    model->entries.push_back(std::move(e));
  }
  // dlopen of a file that is already loaded returns the same object: its weight table, driver
  // table and device copies are shared with the models loaded from it before, and released only
  // with the last of them.
  {
    std::lock_guard<std::mutex> lock(gLoadedLock);
    LoadedObject &object = gLoaded[handle];
    if (object.users == 0) {
      decoda_status s = attachDevice(handle, p); // CUDARuntime.cpp
      if (!s)
        s = mapWeights(handle, *model);
      if (s) {
        gLoaded.erase(handle);
        dlclose(handle);
        return s;
      }
      object.weights = model->weights;
      object.weightsSize = model->weightsSize;
    }
    ++object.users;
  }
  if (auto *slot = static_cast<const decoda_cuda_api **>(dlsym(handle, "decoda_cuda")))
    model->cuda = *slot;
  // Optional: a model without run-time checks need not export it.
  if (auto *handler = static_cast<FailHandler *>(dlsym(handle, "decoda_fail_handler")))
    *handler = &decodaRuntimeFailHandler;
  model->handle = handle;
  *out = model.release();
  return DECODA_OK;
}

decoda_status getTensorInfo(const decoda_model *model, int entry, int i, bool input,
                            const char **name, decoda_dtype *dtype, int32_t *rank,
                            const int64_t **shape) {
  const Entry *e = getEntry(model, entry);
  if (!e)
    return setError(DECODA_ERROR_ARGUMENT,
                    "entry index " + std::to_string(entry) + " out of range");
  const std::vector<TensorSpec> &list = input ? e->spec.inputs : e->spec.outputs;
  if (i < 0 || static_cast<size_t>(i) >= list.size())
    return setError(DECODA_ERROR_ARGUMENT, "entry '" + e->spec.name + "' has no " +
                                               (input ? "input" : "output") + " #" +
                                               std::to_string(i) + " (it has " +
                                               std::to_string(list.size()) + ")");
  const TensorSpec &t = list[i];
  if (name)
    *name = t.name.c_str();
  if (dtype)
    *dtype = t.dtype;
  if (rank)
    *rank = t.rank();
  if (shape)
    *shape = t.shape.empty() ? gNoDims : t.shape.data();
  return DECODA_OK;
}

} // namespace

extern "C" {

const char *decoda_last_error(void) { return tlLastError.c_str(); }

size_t decoda_dtype_size(decoda_dtype dtype) {
  if (!isValidDtype(rawDtype(dtype)))
    return 0;
  switch (dtype) {
  case DECODA_F32:
  case DECODA_I32:
    return 4;
  case DECODA_F16:
  case DECODA_BF16:
    return 2;
  case DECODA_F64:
  case DECODA_I64:
    return 8;
  case DECODA_I8:
  case DECODA_I1:
    return 1;
  }
  return 0;
}

const char *decoda_dtype_name(decoda_dtype dtype) {
  if (!isValidDtype(rawDtype(dtype)))
    return "?";
  switch (dtype) {
  case DECODA_F32: return "f32";
  case DECODA_F16: return "f16";
  case DECODA_BF16: return "bf16";
  case DECODA_F64: return "f64";
  case DECODA_I8: return "i8";
  case DECODA_I32: return "i32";
  case DECODA_I64: return "i64";
  case DECODA_I1: return "i1";
  }
  return "?";
}

decoda_status decoda_model_load(const char *path, decoda_model **model) {
  try {
    return loadImpl(path, model);
  } catch (const std::bad_alloc &) {
    return setError(DECODA_ERROR_IO, "out of memory loading a model");
  } catch (...) {
    return setError(DECODA_ERROR_IO, "internal error loading a model");
  }
}

void decoda_model_free(decoda_model *model) {
  if (!model)
    return;
  if (model->handle) {
    std::lock_guard<std::mutex> lock(gLoadedLock);
    auto it = gLoaded.find(model->handle);
    if (it != gLoaded.end() && --it->second.users == 0) {
      // A CUDA model's streams and device copies of its constants (docs/ABI.md, "GPU models").
      if (auto *release = reinterpret_cast<void (*)(void)>(
              dlsym(model->handle, "decoda_cuda_release")))
        release();
      if (it->second.weights)
        ::munmap(it->second.weights, it->second.weightsSize);
      gLoaded.erase(it);
    }
    dlclose(model->handle);
  }
  delete model;
}

int decoda_model_num_entries(const decoda_model *model) {
  return model ? static_cast<int>(model->entries.size()) : 0;
}

const char *decoda_model_entry_name(const decoda_model *model, int entry) {
  const Entry *e = getEntry(model, entry);
  return e ? e->spec.name.c_str() : nullptr;
}

int decoda_model_find_entry(const decoda_model *model, const char *name) {
  if (!model || !name)
    return -1;
  for (size_t i = 0; i < model->entries.size(); ++i)
    if (model->entries[i].spec.name == name)
      return static_cast<int>(i);
  return -1;
}

int decoda_entry_num_inputs(const decoda_model *model, int entry) {
  const Entry *e = getEntry(model, entry);
  return e ? static_cast<int>(e->spec.inputs.size()) : -1;
}

int decoda_entry_num_outputs(const decoda_model *model, int entry) {
  const Entry *e = getEntry(model, entry);
  return e ? static_cast<int>(e->spec.outputs.size()) : -1;
}

decoda_status decoda_entry_input(const decoda_model *model, int entry, int i, const char **name,
                                 decoda_dtype *dtype, int32_t *rank, const int64_t **shape) {
  try {
    return getTensorInfo(model, entry, i, true, name, dtype, rank, shape);
  } catch (...) {
    return DECODA_ERROR_ARGUMENT;
  }
}

decoda_status decoda_entry_output(const decoda_model *model, int entry, int i, const char **name,
                                  decoda_dtype *dtype, int32_t *rank, const int64_t **shape) {
  try {
    return getTensorInfo(model, entry, i, false, name, dtype, rank, shape);
  } catch (...) {
    return DECODA_ERROR_ARGUMENT;
  }
}

decoda_status decoda_run(decoda_model *model, int entry, const decoda_tensor *inputs,
                         int num_inputs, decoda_tensor *outputs, int num_outputs) {
  return decoda_run_donating(model, entry, inputs, num_inputs, outputs, num_outputs, nullptr);
}

int decoda_entry_input_donated_to(const decoda_model *model, int entry, int i) {
  const Entry *e = getEntry(model, entry);
  if (!e || i < 0 || static_cast<size_t>(i) >= e->spec.inputs.size())
    return -2;
  return e->spec.inputs[i].donation;
}

decoda_status decoda_run_donating(decoda_model *model, int entry, const decoda_tensor *inputs,
                                  int num_inputs, decoda_tensor *outputs, int num_outputs,
                                  const uint8_t *donate) {
  try {
    return runImpl(model, entry, inputs, num_inputs, outputs, num_outputs, donate);
  } catch (const std::bad_alloc &) {
    return setError(DECODA_ERROR_RUNTIME, "out of memory in decoda_run");
  } catch (...) {
    return setError(DECODA_ERROR_RUNTIME, "internal error in decoda_run");
  }
}

void decoda_tensor_free(decoda_tensor *tensor) {
  if (!tensor)
    return;
  // A donated output of a device-resident input that was not donated is a device copy.
  const decoda_cuda_api *cuda = decoda::runtime::loadedCUDA();
  if (cuda && takeDeviceOutput(tensor->data))
    cuda->mem_free(tensor->data);
  else
    std::free(tensor->data);
  tensor->data = nullptr;
}

namespace {
decoda_status needDevice(const decoda_model *model, const char *what,
                         const char *purpose = "device memory is for CUDA models") {
  if (!model)
    return setError(DECODA_ERROR_ARGUMENT, std::string(what) + ": null model");
  if (!model->cuda)
    return setError(DECODA_ERROR_NO_DEVICE,
                    std::string(what) + ": model '" + model->path + "' is a CPU model; " + purpose);
  return DECODA_OK;
}
constexpr const char *kProfilesAreForCUDA = "kernel profiles are for CUDA models";
constexpr const char *kGraphsAreForCUDA = "launch graphs are for CUDA models";
/// A per-thread switch of the CUDA runtime (kernel profiles, launch graphs) for a CUDA model:
/// `enable` returns why it cannot be turned on ("" when done).
decoda_status switchThreadSetting(const decoda_model *model, const char *what,
                                  const char *purpose, std::string (*enable)(bool), int on) {
  if (decoda_status s = needDevice(model, what, purpose))
    return s;
  std::string why = enable(on != 0);
  if (!why.empty())
    return setError(DECODA_ERROR_RUNTIME, std::string(what) + ": " + why);
  return DECODA_OK;
}
} // namespace

decoda_status decoda_device_alloc(const decoda_model *model, size_t bytes, void **ptr) {
  if (decoda_status s = needDevice(model, "decoda_device_alloc"))
    return s;
  if (!ptr)
    return setError(DECODA_ERROR_ARGUMENT, "decoda_device_alloc: null result pointer");
  *ptr = nullptr;
  if (model->cuda->mem_alloc(ptr, bytes > 0 ? bytes : 1) != 0) {
    *ptr = nullptr;
    return setError(DECODA_ERROR_RUNTIME, "decoda_device_alloc: " + std::to_string(bytes) +
                                              " bytes: " + model->cuda->error_message());
  }
  return DECODA_OK;
}

decoda_status decoda_device_free(const decoda_model *model, void *ptr) {
  if (decoda_status s = needDevice(model, "decoda_device_free"))
    return s;
  if (!ptr)
    return DECODA_OK;
  if (!model->cuda->is_device_pointer(ptr))
    return setError(DECODA_ERROR_ARGUMENT, "decoda_device_free: not device memory");
  if (model->cuda->mem_free(ptr) != 0)
    return setError(DECODA_ERROR_RUNTIME,
                    std::string("decoda_device_free: ") + model->cuda->error_message());
  return DECODA_OK;
}

decoda_status decoda_device_copy(const decoda_model *model, void *dst, const void *src,
                                 size_t bytes) {
  if (decoda_status s = needDevice(model, "decoda_device_copy"))
    return s;
  if (bytes == 0)
    return DECODA_OK;
  if (!dst || !src)
    return setError(DECODA_ERROR_ARGUMENT, "decoda_device_copy: null pointer");
  if (deviceCopy(model->cuda, dst, src, bytes) != 0)
    return setError(DECODA_ERROR_RUNTIME, "decoda_device_copy: " + std::to_string(bytes) +
                                              " bytes: " + model->cuda->error_message());
  return DECODA_OK;
}

int decoda_is_device_pointer(const decoda_model *model, const void *ptr) {
  return model && onDevice(model, ptr) ? 1 : 0;
}

decoda_status decoda_profile_enable(const decoda_model *model, int on) {
  return switchThreadSetting(model, "decoda_profile_enable", kProfilesAreForCUDA,
                             decoda::runtime::cudaProfileEnable, on);
}

decoda_status decoda_cuda_graphs_enable(const decoda_model *model, int on) {
  return switchThreadSetting(model, "decoda_cuda_graphs_enable", kGraphsAreForCUDA,
                             decoda::runtime::cudaGraphsEnable, on);
}

decoda_status decoda_profile_last(const decoda_model *model, const decoda_kernel_time **kernels,
                                  int64_t *count) {
  if (decoda_status s = needDevice(model, "decoda_profile_last", kProfilesAreForCUDA))
    return s;
  if (!kernels || !count)
    return setError(DECODA_ERROR_ARGUMENT, "decoda_profile_last: null result pointer");
  *kernels = nullptr;
  *count = 0;
  std::string why;
  const std::vector<decoda::runtime::KernelTime> &last = decoda::runtime::cudaProfileLast(why);
  if (!why.empty())
    return setError(DECODA_ERROR_RUNTIME, "decoda_profile_last: " + why);
  static_assert(sizeof(decoda::runtime::KernelTime) == sizeof(decoda_kernel_time) &&
                    offsetof(decoda::runtime::KernelTime, ms) == offsetof(decoda_kernel_time, ms),
                "KernelTime mirrors decoda_kernel_time");
  *kernels = reinterpret_cast<const decoda_kernel_time *>(last.data());
  *count = static_cast<int64_t>(last.size());
  return DECODA_OK;
}

} // extern "C"
