//===- CUDARuntime.cpp - the CUDA driver, loaded at run time --------------===//
//
// The driver API through dlopen("libcuda.so.1") (or $DECODA_CUDA_DRIVER): no CUDA header or
// library is needed to build or load the runtime. Only the handful of entry points CUDA models
// call (CUDAAPI.h) are resolved; their types are those of cuda.h (CUDA 12/13, 64-bit).
//
//===----------------------------------------------------------------------===//

#include "CUDARuntime.h"
#include "CUDAAPI.h"

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <dlfcn.h>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

namespace {
using CUresult = int;
using CUdevice = int;
using CUcontext = void *;
using CUdeviceptr = unsigned long long;

struct Driver {
  CUresult (*cuInit)(unsigned);
  CUresult (*cuDeviceGetCount)(int *);
  CUresult (*cuDeviceGet)(CUdevice *, int);
  CUresult (*cuDevicePrimaryCtxRetain)(CUcontext *, CUdevice);
  CUresult (*cuCtxSetCurrent)(CUcontext);
  CUresult (*cuGetErrorString)(CUresult, const char **);
  CUresult (*cuModuleLoadData)(void **, const void *);
  CUresult (*cuModuleUnload)(void *);
  CUresult (*cuModuleGetFunction)(void **, void *, const char *);
  CUresult (*cuLaunchKernel)(void *, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                             unsigned, void *, void **, void **);
  CUresult (*cuStreamCreate)(void **, unsigned);
  CUresult (*cuStreamSynchronize)(void *);
  CUresult (*cuStreamDestroy)(void *);
  CUresult (*cuMemAlloc)(CUdeviceptr *, size_t);
  CUresult (*cuMemFree)(CUdeviceptr);
  CUresult (*cuMemcpyAsync)(CUdeviceptr, CUdeviceptr, size_t, void *);
  CUresult (*cuPointerGetAttribute)(void *, int, CUdeviceptr);
  // Optional (CUDA 11.2 and later): stream-ordered allocation from the default memory pool.
  CUresult (*cuMemAllocAsync)(CUdeviceptr *, size_t, void *) = nullptr;
  CUresult (*cuMemFreeAsync)(CUdeviceptr, void *) = nullptr;
  CUresult (*cuDeviceGetDefaultMemPool)(void **, CUdevice) = nullptr;
  CUresult (*cuMemPoolSetAttribute)(void *, int, void *) = nullptr;
  CUresult (*cuMemPoolTrimTo)(void *, size_t) = nullptr;
  CUresult (*cuFuncSetAttribute)(void *, int, int);
  // Optional (CUDA 12 and later): TMA tensor maps.
  CUresult (*cuTensorMapEncodeTiled)(void *, int, unsigned, void *, const uint64_t *,
                                     const uint64_t *, const unsigned *, const unsigned *, int,
                                     int, int, int) = nullptr;
  // Optional: events, for kernel profiles (decoda_profile_enable).
  CUresult (*cuEventCreate)(void **, unsigned) = nullptr;
  CUresult (*cuEventRecord)(void *, void *) = nullptr;
  CUresult (*cuEventSynchronize)(void *) = nullptr;
  CUresult (*cuEventElapsedTime)(float *, void *, void *) = nullptr;
  CUresult (*cuEventDestroy)(void *) = nullptr;
  CUcontext context = nullptr;
  void *pool = nullptr; // the device's default pool, when stream-ordered allocation is there
};

Driver gDriver;
thread_local std::string tlMessage;

std::string describe(CUresult rc) {
  const char *text = nullptr;
  if (gDriver.cuGetErrorString && gDriver.cuGetErrorString(rc, &text) == 0 && text)
    return std::string(text) + " (CUDA error " + std::to_string(rc) + ")";
  return "CUDA error " + std::to_string(rc);
}

/// Every call runs in the primary context, whichever thread makes it.
int call(CUresult rc) {
  if (rc != 0)
    tlMessage = describe(rc);
  return rc;
}
int enter() { return call(gDriver.cuCtxSetCurrent(gDriver.context)); }

int moduleLoad(void **module, const void *image, size_t) {
  if (int rc = enter())
    return rc;
  return call(gDriver.cuModuleLoadData(module, image));
}
// Dynamic shared memory allowed per function (cuFuncSetAttribute, launch). A module unload
// forgets them all: its functions' handles may come back as another module's.
std::mutex gSharedAllowedLock;
std::unordered_map<void *, int32_t> gSharedAllowed;

int moduleUnload(void *module) {
  {
    std::lock_guard<std::mutex> guard(gSharedAllowedLock);
    gSharedAllowed.clear();
  }
  return enter() ? 1 : call(gDriver.cuModuleUnload(module));
}
// Kernel names by function handle, for profiles (a handle may be reused by a later module:
// getFunction overwrites its name).
std::mutex gNamesLock;
std::unordered_map<void *, std::string> gNames;

int getFunction(void **function, void *module, const char *name) {
  if (int rc = enter())
    return rc;
  int rc = call(gDriver.cuModuleGetFunction(function, module, name));
  if (rc == 0) {
    std::lock_guard<std::mutex> guard(gNamesLock);
    gNames[*function] = name;
  }
  return rc;
}

// The calling thread's kernel profile (decoda::runtime::cudaProfileBegin/End): an event
// before the call's first launch, one after each launch, all on the launch's stream. The
// events are reused by every call and destroyed when profiling is turned off (not at thread
// exit, which may come after the driver's own teardown).
struct Profile {
  bool on = false;        // decoda_profile_enable on this thread
  bool recording = false; // within a call
  std::vector<void *> events;
  std::vector<void *> functions;
  std::string failure; // the first event error of the call
  std::string error;   // why the last call has no profile
  std::vector<std::string> names;
  std::vector<decoda::runtime::KernelTime> last;
};
thread_local Profile tlProfile;

/// Event `i` of the thread's profile (created on first use), or null with the failure noted.
void *profileEvent(size_t i) {
  Profile &p = tlProfile;
  while (p.events.size() <= i) {
    void *e = nullptr;
    if (CUresult rc = gDriver.cuEventCreate(&e, /*CU_EVENT_DEFAULT=*/0)) {
      if (p.failure.empty())
        p.failure = "cuEventCreate: " + describe(rc);
      return nullptr;
    }
    p.events.push_back(e);
  }
  return p.events[i];
}

void profileRecord(size_t i, void *stream) {
  Profile &p = tlProfile;
  void *e = profileEvent(i);
  if (!e)
    return;
  if (CUresult rc = gDriver.cuEventRecord(e, stream); rc && p.failure.empty())
    p.failure = "cuEventRecord: " + describe(rc);
}
int launch(void *function, int64_t gx, int64_t gy, int64_t gz, int64_t bx, int64_t by,
           int64_t bz, int32_t sharedBytes, void *stream, void **params) {
  // Grid limits (x < 2^31, y and z < 2^16) are the driver's to check.
  for (int64_t d : {gx, gy, gz, bx, by, bz})
    if (d > INT32_MAX) {
      tlMessage = "launch dimension " + std::to_string(d) + " exceeds the CUDA limits";
      return 1;
    }
  if (int rc = enter())
    return rc;
  // Over 48 KiB of dynamic shared memory (the TMA kernels) must be allowed per function,
  // once.
  if (sharedBytes > 48 * 1024) {
    std::lock_guard<std::mutex> guard(gSharedAllowedLock);
    int32_t &bytes = gSharedAllowed[function];
    if (bytes < sharedBytes) {
      if (int rc = call(gDriver.cuFuncSetAttribute(
              function, /*CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES=*/8, sharedBytes))) {
        tlMessage = "allowing " + std::to_string(sharedBytes) +
                    " bytes of dynamic shared memory: " + tlMessage;
        return rc;
      }
      bytes = sharedBytes;
    }
  }
  Profile &prof = tlProfile;
  if (prof.recording && prof.functions.empty())
    profileRecord(0, stream);
  int rc = call(gDriver.cuLaunchKernel(function, unsigned(gx), unsigned(gy), unsigned(gz),
                                       unsigned(bx), unsigned(by), unsigned(bz),
                                       unsigned(sharedBytes), stream, params, nullptr));
  if (rc == 0 && prof.recording) {
    prof.functions.push_back(function);
    profileRecord(prof.functions.size(), stream);
  }
  return rc;
}
int streamCreate(void **stream) {
  if (int rc = enter())
    return rc;
  return call(gDriver.cuStreamCreate(stream, /*CU_STREAM_NON_BLOCKING=*/1));
}
int streamSynchronize(void *stream) {
  return enter() ? 1 : call(gDriver.cuStreamSynchronize(stream));
}
int streamDestroy(void *stream) { return enter() ? 1 : call(gDriver.cuStreamDestroy(stream)); }
int memAlloc(void **ptr, uint64_t size) {
  if (int rc = enter())
    return rc;
  CUdeviceptr p = 0;
  int rc = call(gDriver.cuMemAlloc(&p, size));
  *ptr = reinterpret_cast<void *>(static_cast<uintptr_t>(p));
  return rc;
}
int memFree(void *ptr) {
  return enter() ? 1 : call(gDriver.cuMemFree(reinterpret_cast<uintptr_t>(ptr)));
}
int memcpyAsync(void *dst, const void *src, uint64_t size, void *stream) {
  // Unified addressing (every 64-bit platform CUDA supports): the driver tells host from
  // device pointers.
  if (int rc = enter())
    return rc;
  return call(gDriver.cuMemcpyAsync(reinterpret_cast<uintptr_t>(dst),
                                    reinterpret_cast<uintptr_t>(src), size, stream));
}
const char *errorMessage() { return tlMessage.c_str(); }

// Temporaries are allocated and freed in stream order, so a free does not wait for the kernels
// still using the buffer and an allocation reuses what the pool holds instead of a cuMemAlloc
// (which is slow, and whose cuMemFree synchronises the device).
int memAllocAsync(void **ptr, uint64_t size, void *stream) {
  if (!gDriver.pool)
    return memAlloc(ptr, size);
  if (int rc = enter())
    return rc;
  CUdeviceptr p = 0;
  int rc = call(gDriver.cuMemAllocAsync(&p, size, stream));
  *ptr = reinterpret_cast<void *>(static_cast<uintptr_t>(p));
  return rc;
}
int memFreeAsync(void *ptr, void *stream) {
  if (int rc = enter())
    return rc;
  if (gDriver.pool)
    return call(gDriver.cuMemFreeAsync(reinterpret_cast<uintptr_t>(ptr), stream));
  // Without a pool the buffer may still be in use by the stream's kernels.
  if (int rc = call(gDriver.cuStreamSynchronize(stream)))
    return rc;
  return call(gDriver.cuMemFree(reinterpret_cast<uintptr_t>(ptr)));
}
int isDevicePointer(const void *ptr) {
  if (enter())
    return 0;
  // CU_POINTER_ATTRIBUTE_MEMORY_TYPE (2) is CU_MEMORYTYPE_DEVICE (2) for device memory; pageable
  // host memory is not known to the driver (an error, hence host).
  unsigned type = 0;
  CUresult rc = gDriver.cuPointerGetAttribute(&type, /*CU_POINTER_ATTRIBUTE_MEMORY_TYPE=*/2,
                                              reinterpret_cast<uintptr_t>(ptr));
  return rc == 0 && type == /*CU_MEMORYTYPE_DEVICE=*/2;
}
int memTrim() {
  if (!gDriver.pool)
    return 0;
  return enter() ? 1 : call(gDriver.cuMemPoolTrimTo(gDriver.pool, 0));
}

int tensorMapEncode(void *map, const void *base, uint64_t inner, uint64_t rows,
                    uint64_t rowStrideBytes, int32_t elementBytes, int32_t boxInner,
                    int32_t boxRows, int32_t swizzleBytes) {
  if (!gDriver.cuTensorMapEncodeTiled) {
    tlMessage = "the CUDA driver has no cuTensorMapEncodeTiled (TMA needs a CUDA 12 or newer "
                "driver; compile with --gpu-tma=false for cp.async kernels)";
    return 1;
  }
  // CU_TENSOR_MAP_DATA_TYPE_UINT8 / UINT16 / UINT32: the bits are copied, whatever they hold.
  int dataType = elementBytes == 1 ? 0 : elementBytes == 2 ? 1 : elementBytes == 4 ? 2 : -1;
  // CU_TENSOR_MAP_SWIZZLE_NONE / 32B / 64B / 128B.
  int swizzle = swizzleBytes == 0    ? 0
                : swizzleBytes == 32 ? 1
                : swizzleBytes == 64 ? 2
                : swizzleBytes == 128 ? 3
                                      : -1;
  if (dataType < 0 || swizzle < 0) {
    tlMessage = "tensor map of " + std::to_string(elementBytes) + "-byte elements with a " +
                std::to_string(swizzleBytes) + "-byte swizzle is not supported";
    return 1;
  }
  if (int rc = enter())
    return rc;
  uint64_t dims[2] = {inner, rows};
  uint64_t strides[1] = {rowStrideBytes};
  unsigned box[2] = {unsigned(boxInner), unsigned(boxRows)};
  unsigned elementStrides[2] = {1, 1};
  int rc = call(gDriver.cuTensorMapEncodeTiled(
      map, dataType, 2, const_cast<void *>(base), dims, strides, box, elementStrides,
      /*CU_TENSOR_MAP_INTERLEAVE_NONE=*/0, swizzle, /*CU_TENSOR_MAP_L2_PROMOTION_L2_256B=*/3,
      /*CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE (zeros)=*/0));
  if (rc)
    tlMessage = "cuTensorMapEncodeTiled of a " + std::to_string(rows) + " x " +
                std::to_string(inner) + " matrix (" + std::to_string(rowStrideBytes) +
                "-byte rows, box " + std::to_string(boxRows) + " x " + std::to_string(boxInner) +
                "): " + tlMessage;
  return rc;
}

const decoda_cuda_api gAPI = {DECODA_CUDA_API_VERSION,
                              moduleLoad,
                              moduleUnload,
                              getFunction,
                              launch,
                              streamCreate,
                              streamSynchronize,
                              streamDestroy,
                              memAlloc,
                              memFree,
                              memcpyAsync,
                              errorMessage,
                              memAllocAsync,
                              memFreeAsync,
                              isDevicePointer,
                              memTrim,
                              tensorMapEncode};

template <typename F> bool resolve(void *lib, F &fn, const char *name, std::string &missing) {
  fn = reinterpret_cast<F>(dlsym(lib, name));
  if (!fn)
    missing += std::string(missing.empty() ? "" : ", ") + name;
  return fn != nullptr;
}

std::string initialize() {
  const char *env = std::getenv("DECODA_CUDA_DRIVER");
  std::string path = env && *env ? env : "libcuda.so.1";
  void *lib = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    const char *why = dlerror();
    return "no CUDA device: the CUDA driver '" + path + "' cannot be loaded (" +
           (why ? why : "dlopen failed") + ")";
  }
  Driver &d = gDriver;
  std::string missing;
  resolve(lib, d.cuInit, "cuInit", missing);
  resolve(lib, d.cuDeviceGetCount, "cuDeviceGetCount", missing);
  resolve(lib, d.cuDeviceGet, "cuDeviceGet", missing);
  resolve(lib, d.cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain", missing);
  resolve(lib, d.cuCtxSetCurrent, "cuCtxSetCurrent", missing);
  resolve(lib, d.cuGetErrorString, "cuGetErrorString", missing);
  resolve(lib, d.cuModuleLoadData, "cuModuleLoadData", missing);
  resolve(lib, d.cuModuleUnload, "cuModuleUnload", missing);
  resolve(lib, d.cuModuleGetFunction, "cuModuleGetFunction", missing);
  resolve(lib, d.cuLaunchKernel, "cuLaunchKernel", missing);
  resolve(lib, d.cuStreamCreate, "cuStreamCreate", missing);
  resolve(lib, d.cuStreamSynchronize, "cuStreamSynchronize", missing);
  resolve(lib, d.cuStreamDestroy, "cuStreamDestroy_v2", missing);
  resolve(lib, d.cuMemAlloc, "cuMemAlloc_v2", missing);
  resolve(lib, d.cuMemFree, "cuMemFree_v2", missing);
  resolve(lib, d.cuMemcpyAsync, "cuMemcpyAsync", missing);
  resolve(lib, d.cuPointerGetAttribute, "cuPointerGetAttribute", missing);
  resolve(lib, d.cuFuncSetAttribute, "cuFuncSetAttribute", missing);
  std::string optional; // missing optional entry points: plain allocation
  resolve(lib, d.cuMemAllocAsync, "cuMemAllocAsync", optional);
  resolve(lib, d.cuMemFreeAsync, "cuMemFreeAsync", optional);
  resolve(lib, d.cuDeviceGetDefaultMemPool, "cuDeviceGetDefaultMemPool", optional);
  resolve(lib, d.cuMemPoolSetAttribute, "cuMemPoolSetAttribute", optional);
  resolve(lib, d.cuMemPoolTrimTo, "cuMemPoolTrimTo", optional);
  std::string noTma; // TMA kernels then fail with their own message
  resolve(lib, d.cuTensorMapEncodeTiled, "cuTensorMapEncodeTiled", noTma);
  std::string noEvents; // decoda_profile_enable then fails, naming them
  resolve(lib, d.cuEventCreate, "cuEventCreate", noEvents);
  resolve(lib, d.cuEventRecord, "cuEventRecord", noEvents);
  resolve(lib, d.cuEventSynchronize, "cuEventSynchronize", noEvents);
  resolve(lib, d.cuEventDestroy, "cuEventDestroy_v2", noEvents);
  // CUDA 12.8 added the _v2 name (the same signature); older drivers have only the first.
  if (!(d.cuEventElapsedTime = reinterpret_cast<decltype(d.cuEventElapsedTime)>(
            dlsym(lib, "cuEventElapsedTime_v2"))))
    resolve(lib, d.cuEventElapsedTime, "cuEventElapsedTime", noEvents);
  if (!missing.empty())
    return "no CUDA device: the CUDA driver '" + path + "' lacks " + missing;
  if (CUresult rc = d.cuInit(0))
    return "no CUDA device: cuInit failed: " + describe(rc);
  int count = 0;
  if (CUresult rc = d.cuDeviceGetCount(&count))
    return "no CUDA device: cuDeviceGetCount failed: " + describe(rc);
  if (count == 0)
    return "no CUDA device: the driver reports no devices";
  int ordinal = 0;
  if (const char *dev = std::getenv("DECODA_CUDA_DEVICE"); dev && *dev) {
    char *end = nullptr;
    long v = std::strtol(dev, &end, 10);
    if (*end || v < 0 || v >= count)
      return "no CUDA device: DECODA_CUDA_DEVICE=" + std::string(dev) + " is not a device "
             "ordinal below " + std::to_string(count);
    ordinal = int(v);
  }
  CUdevice device = 0;
  if (CUresult rc = d.cuDeviceGet(&device, ordinal))
    return "no CUDA device: cuDeviceGet failed: " + describe(rc);
  if (CUresult rc = d.cuDevicePrimaryCtxRetain(&d.context, device))
    return "no CUDA device: cannot create a context: " + describe(rc);
  // The default pool keeps what is freed (release threshold: unlimited) so the next call's
  // temporaries reuse it; devices without memory pools (or old drivers) use cuMemAlloc.
  void *pool = nullptr;
  if (optional.empty() && d.cuCtxSetCurrent(d.context) == 0 &&
      d.cuDeviceGetDefaultMemPool(&pool, device) == 0 && pool) {
    uint64_t keep = UINT64_MAX;
    if (d.cuMemPoolSetAttribute(pool, /*CU_MEMPOOL_ATTR_RELEASE_THRESHOLD=*/4, &keep) == 0)
      d.pool = pool;
  }
  return "";
}
} // namespace

namespace {
std::atomic<bool> gAcquired{false};
}

const decoda_cuda_api *decoda::runtime::acquireCUDA(std::string &error) {
  static std::once_flag once;
  static std::string failure;
  std::call_once(once, [] {
    failure = initialize();
    gAcquired = failure.empty();
  });
  if (!failure.empty()) {
    error = failure;
    return nullptr;
  }
  return &gAPI;
}

const decoda_cuda_api *decoda::runtime::loadedCUDA() { return gAcquired ? &gAPI : nullptr; }

std::string decoda::runtime::cudaProfileEnable(bool on) {
  const Driver &d = gDriver;
  if (on && (!d.cuEventCreate || !d.cuEventRecord || !d.cuEventSynchronize ||
             !d.cuEventElapsedTime || !d.cuEventDestroy))
    return "the CUDA driver lacks the event entry points kernel profiles use (cuEventCreate, "
           "cuEventRecord, cuEventSynchronize, cuEventElapsedTime, cuEventDestroy_v2)";
  Profile &p = tlProfile;
  p.on = on;
  if (!on && !p.events.empty()) {
    if (enter())
      return tlMessage;
    for (void *e : p.events)
      d.cuEventDestroy(e);
    p.events.clear();
  }
  return "";
}

void decoda::runtime::cudaProfileBegin() {
  Profile &p = tlProfile;
  p.last.clear();
  p.names.clear();
  p.error.clear();
  p.recording = p.on && gAcquired;
  p.functions.clear();
  p.failure.clear();
}

void decoda::runtime::cudaProfileEnd(bool keep) {
  Profile &p = tlProfile;
  if (!p.recording)
    return;
  p.recording = false;
  auto fail = [&](const std::string &why) {
    p.last.clear();
    p.error = "kernel profile: " + why;
  };
  if (!keep || p.functions.empty())
    return;
  if (!p.failure.empty())
    return fail(p.failure);
  if (enter())
    return fail(tlMessage);
  size_t n = p.functions.size();
  if (CUresult rc = gDriver.cuEventSynchronize(p.events[n]))
    return fail("cuEventSynchronize: " + describe(rc));
  {
    std::lock_guard<std::mutex> guard(gNamesLock);
    for (void *f : p.functions) {
      auto it = gNames.find(f);
      p.names.push_back(it == gNames.end() ? "?" : it->second);
    }
  }
  for (size_t i = 0; i < n; ++i) {
    // One stream per calling thread (docs/ABI.md, "Streams"): the events are in stream order.
    float ms = 0;
    if (CUresult rc = gDriver.cuEventElapsedTime(&ms, p.events[i], p.events[i + 1]))
      return fail("cuEventElapsedTime: " + describe(rc));
    p.last.push_back({p.names[i].c_str(), double(ms)});
  }
}

const std::vector<decoda::runtime::KernelTime> &
decoda::runtime::cudaProfileLast(std::string &error) {
  error = tlProfile.error;
  return tlProfile.last;
}
