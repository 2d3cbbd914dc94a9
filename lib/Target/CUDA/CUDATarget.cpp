//===- CUDATarget.cpp - from decoda-lower-to-cuda's output to a model ------===//

#include "decoda/Target/CUDA/CUDATarget.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Target/LLVMIR/Dialect/GPU/GPUToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/NVVM/NVVMToLLVMIRTranslation.h"

using namespace mlir;
using namespace mlir::decoda;

LogicalResult mlir::decoda::writeKernelPTX(ModuleOp module, llvm::raw_ostream &os) {
  bool any = false;
  for (auto binary : module.getOps<gpu::BinaryOp>()) {
    for (Attribute a : binary.getObjects()) {
      auto object = dyn_cast<gpu::ObjectAttr>(a);
      if (!object || object.getFormat() != gpu::CompilationTarget::Assembly)
        return binary.emitError() << "gpu.binary @" << binary.getSymName()
                                  << " holds no PTX text (run the pipeline with format=isa)";
      os << "// gpu.binary @" << binary.getSymName() << "\n" << object.getObject().getValue();
      any = true;
    }
  }
  if (!any)
    return module.emitError() << "the module has no GPU kernels (gpu.binary)";
  return success();
}

void mlir::decoda::registerCUDAHostTranslation(ModuleOp module) {
  DialectRegistry registry;
  registerGPUDialectTranslation(registry);
  registerNVVMDialectTranslation(registry);
  gpu::registerOffloadingLLVMTranslationInterfaceExternalModels(registry); // #gpu.select_object
  module.getContext()->appendDialectRegistry(registry);
}

void mlir::decoda::writeCUDASupportSource(llvm::raw_ostream &os) {
  // The struct is lib/Runtime/CUDAAPI.h's; the mgpu* signatures are those the upstream
  // gpu-to-llvm lowering and gpu.binary embedding call (MLIR 22).
  os << R"C(
/* ---- CUDA: the runtime's driver table (lib/Runtime/CUDAAPI.h, docs/ABI.md) ---- */
#include <pthread.h>
#include <stddef.h>
#include <string.h>

struct decoda_cuda_api {
  int32_t version;
  int (*module_load)(void **module, const void *image, size_t size);
  int (*module_unload)(void *module);
  int (*get_function)(void **function, void *module, const char *name);
  int (*launch)(void *function, int64_t gx, int64_t gy, int64_t gz, int64_t bx, int64_t by,
                int64_t bz, int32_t shared_bytes, void *stream, void **params,
                size_t num_params);
  int (*stream_create)(void **stream);
  int (*stream_synchronize)(void *stream);
  int (*stream_destroy)(void *stream);
  int (*mem_alloc)(void **ptr, uint64_t size);
  int (*mem_free)(void *ptr);
  int (*memcpy)(void *dst, const void *src, uint64_t size, void *stream);
  const char *(*error_message)(void);
  int (*mem_alloc_async)(void **ptr, uint64_t size, void *stream);
  int (*mem_free_async)(void *ptr, void *stream);
  int (*is_device_pointer)(const void *ptr);
  int (*mem_trim)(void);
  int (*tensor_map_encode)(void *map, const void *base, uint64_t inner, uint64_t rows,
                           uint64_t row_stride_bytes, int32_t element_bytes, int32_t box_inner,
                           int32_t box_rows, int32_t swizzle_bytes);
  int (*tensor_map_encode_3d)(void *map, const void *base, uint64_t inner, uint64_t rows,
                              uint64_t planes, uint64_t row_stride_bytes,
                              uint64_t plane_stride_bytes, int32_t element_bytes,
                              int32_t box_inner, int32_t box_rows, int32_t swizzle_bytes);
};

EXPORT const char decoda_target[] = "cuda";
EXPORT const int32_t decoda_cuda_api_version = 5;
/* Set by the runtime after dlopen, before any entry point runs. */
EXPORT const struct decoda_cuda_api *decoda_cuda = 0;

static const struct decoda_cuda_api *cuda(const char *what) {
  if (!decoda_cuda) {
    char message[256];
    snprintf(message, sizeof message,
             "CUDA: %s called without a CUDA driver (load the model with the Decoda runtime)",
             what);
    decoda_check_failed(message);
  }
  return decoda_cuda;
}

static void cuda_check(int rc, const char *what) {
  if (rc == 0)
    return;
  char message[512];
  snprintf(message, sizeof message, "CUDA: %s failed: %s", what, decoda_cuda->error_message());
  decoda_check_failed(message);
}

/* Kernel images: the module constructors run at dlopen, before the runtime has set
   decoda_cuda, so loading waits for the first launch. */
struct decoda_kernel_image {
  const void *image;
  size_t size;
  void *module;
  pthread_mutex_t lock;
};

void *mgpuModuleLoad(void *image, int64_t size) {
  struct decoda_kernel_image *m = calloc(1, sizeof *m);
  if (!m) {
    fprintf(stderr, "decoda: out of memory loading a kernel image\n");
    abort();
  }
  m->image = image;
  m->size = (size_t)size;
  pthread_mutex_init(&m->lock, 0);
  return m;
}

void mgpuModuleUnload(void *handle) {
  struct decoda_kernel_image *m = handle;
  if (!m)
    return;
  if (m->module && decoda_cuda)
    decoda_cuda->module_unload(m->module);
  pthread_mutex_destroy(&m->lock);
  free(m);
}

void *mgpuModuleGetFunction(void *handle, const char *name) {
  struct decoda_kernel_image *m = handle;
  const struct decoda_cuda_api *api = cuda("mgpuModuleGetFunction");
  pthread_mutex_lock(&m->lock);
  int rc = m->module ? 0 : api->module_load(&m->module, m->image, m->size);
  pthread_mutex_unlock(&m->lock);
  cuda_check(rc, "loading a kernel image");
  void *function = 0;
  cuda_check(api->get_function(&function, m->module, name), name);
  return function;
}

/* Streams. The host code asks for a stream around every launch, allocation, copy and free
   (gpu-to-llvm: create, the op, synchronise, destroy). One stream per calling thread serves them
   all, in order, for as long as the model is loaded: a stream created and destroyed per op, and a
   wait for every kernel, would cost more than the kernels of a decode step. A synchronisation
   waits only when a copy into host memory was issued since the last one (the host reads only
   what such copies bring back, docs/GPU.md "Streams"), so kernels, allocations and frees are
   queued without the host waiting; a kernel's error surfaces at that wait, the copy of the
   results. The handle the host code holds is the thread's struct decoda_stream. */
#define DECODA_TENSOR_MAPS 64
struct decoda_tensor_map {
  /* The rank, then decoda_cuda_tensor_map_3d's arguments (a 2-D map: one plane, stride 0). */
  int64_t key[11];
  unsigned char bytes[128]; /* the encoded CUtensorMap, the source of its upload */
};
struct decoda_stream {
  pthread_t thread;
  void *stream;
  int host_copy_pending;
  int work_pending; /* launches or copies queued since the last synchronisation */
  /* TMA tensor maps (decoda_cuda_tensor_map, _3d): the last DECODA_TENSOR_MAPS encoded on this
     thread, their device copies in one buffer (slot i at 128 i), replaced round robin. */
  struct decoda_tensor_map *maps;
  void *device_maps;
  int num_maps, next_map;
  struct decoda_stream *next;
};
static pthread_mutex_t decoda_streams_lock = PTHREAD_MUTEX_INITIALIZER;
static struct decoda_stream *decoda_streams = 0; /* every calling thread's; freed at release */

/* The calling thread's stream (created when `create`), or 0. */
static struct decoda_stream *thread_stream(int create) {
  pthread_t self = pthread_self();
  struct decoda_stream *s;
  int out_of_memory = 0, rc = 0;
  pthread_mutex_lock(&decoda_streams_lock);
  for (s = decoda_streams; s && !pthread_equal(s->thread, self); s = s->next) {
  }
  if (!s && create) {
    s = calloc(1, sizeof *s);
    if (!s) {
      out_of_memory = 1;
    } else if ((rc = decoda_cuda->stream_create(&s->stream)) != 0) {
      free(s);
      s = 0;
    } else {
      s->thread = self;
      s->next = decoda_streams;
      decoda_streams = s;
    }
  }
  /* Unlocked before failing: decoda_check_failed does not return. */
  pthread_mutex_unlock(&decoda_streams_lock);
  if (out_of_memory)
    decoda_check_failed("CUDA: out of host memory for a stream");
  cuda_check(rc, "stream creation");
  return s;
}

void *mgpuStreamCreate(void) {
  cuda("mgpuStreamCreate");
  return thread_stream(1);
}

void mgpuStreamSynchronize(void *handle) {
  struct decoda_stream *s = handle;
  const struct decoda_cuda_api *api = cuda("mgpuStreamSynchronize");
  if (!s->host_copy_pending)
    return;
  s->host_copy_pending = 0;
  s->work_pending = 0;
  cuda_check(api->stream_synchronize(s->stream), "stream synchronization (a kernel failed)");
}

/* The thread's stream lives until the model is unloaded. */
void mgpuStreamDestroy(void *handle) { (void)handle; }

void mgpuLaunchKernel(void *function, int64_t gx, int64_t gy, int64_t gz, int64_t bx,
                      int64_t by, int64_t bz, int32_t shared_bytes, void *handle,
                      void **params, void **extra, size_t num_params) {
  (void)extra;
  struct decoda_stream *s = handle;
  if (gx <= 0 || gy <= 0 || gz <= 0)
    return; /* an empty iteration space (a zero extent): nothing to run */
  cuda_check(cuda("mgpuLaunchKernel")->launch(function, gx, gy, gz, bx, by, bz, shared_bytes,
                                               s->stream, params, num_params),
             "kernel launch");
  s->work_pending = 1;
}

/* Device buffers are resources of the call (CallMemory.c): a failed check or CUDA error releases
   those the call still holds, in the order of the thread's stream, instead of losing them on
   every failed call. Errors of these releases are ignored: the call is already failing with its
   own message. */
static void release_device_buffer(void *ptr) {
  if (!decoda_cuda)
    return;
  struct decoda_stream *s = thread_stream(0);
  if (s)
    decoda_cuda->mem_free_async(ptr, s->stream);
  else
    decoda_cuda->mem_free(ptr);
}

void *mgpuMemAlloc(uint64_t size, void *handle, _Bool host_shared) {
  struct decoda_stream *s = handle;
  if (host_shared)
    decoda_check_failed("CUDA: host-shared device allocations are not supported");
  void *ptr = 0;
  if (size == 0)
    return 0; /* never dereferenced: every kernel over it has an empty grid */
  cuda_check(cuda("mgpuMemAlloc")->mem_alloc_async(&ptr, size, s->stream),
             "device allocation");
  decoda_call_track(ptr, release_device_buffer);
  return ptr;
}

void mgpuMemFree(void *ptr, void *handle) {
  struct decoda_stream *s = handle;
  if (!ptr)
    return;
  decoda_call_untrack(ptr);
  cuda_check(cuda("mgpuMemFree")->mem_free_async(ptr, s->stream), "device free");
}

void mgpuMemcpy(void *dst, void *src, size_t size, void *handle) {
  struct decoda_stream *s = handle;
  if (size == 0)
    return;
  const struct decoda_cuda_api *api = cuda("mgpuMemcpy");
  cuda_check(api->memcpy(dst, src, size, s->stream), "copy");
  s->work_pending = 1;
  if (!api->is_device_pointer(dst))
    s->host_copy_pending = 1;
}

/* Device-resident arguments (docs/ABI.md, "Device-resident tensors"): the host code uses a
   caller's buffer in device memory in place and copies only host buffers. */
int32_t decoda_cuda_is_device(const void *ptr) {
  return cuda("decoda_cuda_is_device")->is_device_pointer(ptr) ? 1 : 0;
}

/* Called before every return: the call ends when its work has run, so the caller may read
   its device buffers and a kernel's error is the call's. Nothing to wait for after the copy of
   the results (already waited for). */
void decoda_cuda_finish(void) {
  struct decoda_stream *s = thread_stream(0);
  if (!s || !s->work_pending)
    return;
  s->work_pending = 0;
  s->host_copy_pending = 0;
  cuda_check(decoda_cuda->stream_synchronize(s->stream),
             "stream synchronization (a kernel failed)");
}

/* TMA tensor maps (docs/ABI.md, "GPU models"): the device address of the tensor map `key`
   describes (struct decoda_tensor_map), the argument of a TMA kernel. A thread keeps the maps it
   encoded (weights: the same every call; activations: the pool hands back the same buffers) and
   uploads a map only when it is new. A slot reused while an earlier kernel may still read it is
   rewritten in stream order, after that kernel. The caller checked that there is a table. */
static int64_t tensor_map(const int64_t key[11]) {
  const struct decoda_cuda_api *api = decoda_cuda;
  struct decoda_stream *s = thread_stream(1);
  for (int i = 0; i < s->num_maps; ++i)
    if (memcmp(s->maps[i].key, key, sizeof s->maps[i].key) == 0)
      return (int64_t)(uintptr_t)s->device_maps + 128 * i;
  if (!s->maps) {
    s->maps = calloc(DECODA_TENSOR_MAPS, sizeof *s->maps);
    if (!s->maps)
      decoda_check_failed("CUDA: out of host memory for the tensor maps");
    /* Not from the pool: kept until the model is released. 128-byte slots of a 256-byte
       aligned buffer (a map must be 64-byte aligned). */
    cuda_check(api->mem_alloc(&s->device_maps, 128 * DECODA_TENSOR_MAPS),
               "allocating the tensor maps");
  }
  int slot = s->num_maps < DECODA_TENSOR_MAPS ? s->num_maps++ : s->next_map;
  s->next_map = (slot + 1) % DECODA_TENSOR_MAPS;
  struct decoda_tensor_map *m = &s->maps[slot];
  memset(m->key, 0xff, sizeof m->key); /* no match while the slot is being rewritten */
  const void *base = (const void *)(uintptr_t)key[1];
  int rc = key[0] == 2
               ? api->tensor_map_encode(m->bytes, base, (uint64_t)key[2], (uint64_t)key[3],
                                        (uint64_t)key[5], (int32_t)key[7], (int32_t)key[8],
                                        (int32_t)key[9], (int32_t)key[10])
               : api->tensor_map_encode_3d(m->bytes, base, (uint64_t)key[2], (uint64_t)key[3],
                                           (uint64_t)key[4], (uint64_t)key[5],
                                           (uint64_t)key[6], (int32_t)key[7], (int32_t)key[8],
                                           (int32_t)key[9], (int32_t)key[10]);
  cuda_check(rc, "encoding a TMA tensor map");
  void *dev = (char *)s->device_maps + 128 * slot;
  cuda_check(api->memcpy(dev, m->bytes, 128, s->stream), "uploading a TMA tensor map");
  s->work_pending = 1;
  memcpy(m->key, key, sizeof m->key);
  return (int64_t)(uintptr_t)dev;
}

/* The 2-D tensor map of the row-major matrix at device address `base` ([rows][inner],
   element_bytes each, rows row_stride_bytes apart) in boxes of box_rows x box_inner with a
   swizzle_bytes swizzle. An empty matrix has no map (its kernel's grid is empty). */
int64_t decoda_cuda_tensor_map(int64_t base, int64_t inner, int64_t rows,
                               int64_t row_stride_bytes, int64_t element_bytes,
                               int64_t box_inner, int64_t box_rows, int64_t swizzle_bytes) {
  cuda("decoda_cuda_tensor_map");
  if (rows <= 0 || inner <= 0)
    return 0;
  int64_t key[11] = {2, base, inner, rows, 1, row_stride_bytes, 0, element_bytes,
                     box_inner, box_rows, swizzle_bytes};
  return tensor_map(key);
}

/* The 3-D tensor map of `planes` such matrices, plane_stride_bytes apart ([planes][rows][inner];
   a K/V tensor [B, S, H, D] as B planes of its first rows <= S rows of H * D elements), in boxes
   of box_rows x box_inner of one plane; rows >= `rows` of a plane read as zero. An empty tensor
   has no map. */
int64_t decoda_cuda_tensor_map_3d(int64_t base, int64_t inner, int64_t rows, int64_t planes,
                                  int64_t row_stride_bytes, int64_t plane_stride_bytes,
                                  int64_t element_bytes, int64_t box_inner, int64_t box_rows,
                                  int64_t swizzle_bytes) {
  cuda("decoda_cuda_tensor_map_3d");
  if (rows <= 0 || inner <= 0 || planes <= 0)
    return 0;
  int64_t key[11] = {3, base, inner, rows, planes, row_stride_bytes, plane_stride_bytes,
                     element_bytes, box_inner, box_rows, swizzle_bytes};
  return tensor_map(key);
}

/* Constants (weights): one device copy per model, made on the first call that reads it and
   freed by decoda_cuda_release, which the runtime calls before it unloads the model
   (docs/ABI.md, "GPU models"). Slots are numbered from 0 by decoda-gpu-device-buffers. */
static pthread_mutex_t decoda_constants_lock = PTHREAD_MUTEX_INITIALIZER;
static void **decoda_constants = 0;
static int64_t decoda_num_constants = 0;

void *decoda_cuda_constant(int64_t slot, const void *host, int64_t bytes) {
  const struct decoda_cuda_api *api = cuda("decoda_cuda_constant");
  struct decoda_stream *stream = thread_stream(1);
  const char *failed = 0;
  void *dev = 0;
  pthread_mutex_lock(&decoda_constants_lock);
  if (slot >= decoda_num_constants) {
    int64_t n = slot + 1;
    void **grown = realloc(decoda_constants, (size_t)n * sizeof *grown);
    if (!grown) {
      failed = "out of host memory for the constant table";
    } else {
      memset(grown + decoda_num_constants, 0,
             (size_t)(n - decoda_num_constants) * sizeof *grown);
      decoda_constants = grown;
      decoda_num_constants = n;
    }
  }
  if (!failed && !decoda_constants[slot] && bytes > 0) {
    /* Not from the pool: it lives as long as the model. Waited for once, on the first call:
       another thread's stream may read the copy as soon as the slot is set. */
    if (api->mem_alloc(&dev, (uint64_t)bytes) != 0) {
      failed = "allocating a constant on the device";
    } else if (api->memcpy(dev, host, (uint64_t)bytes, stream->stream) != 0 ||
               api->stream_synchronize(stream->stream) != 0) {
      failed = "uploading a constant";
      api->mem_free(dev);
    } else {
      decoda_constants[slot] = dev;
    }
  }
  if (!failed)
    dev = decoda_constants[slot];
  /* Unlocked before failing: decoda_check_failed does not return. */
  pthread_mutex_unlock(&decoda_constants_lock);
  if (failed)
    cuda_check(1, failed);
  return dev;
}

EXPORT void decoda_cuda_release(void) {
  pthread_mutex_lock(&decoda_streams_lock);
  while (decoda_streams) {
    struct decoda_stream *s = decoda_streams;
    decoda_streams = s->next;
    if (decoda_cuda) { /* errors ignored: the model goes away */
      decoda_cuda->stream_synchronize(s->stream); /* before the kernel images are unloaded */
      decoda_cuda->stream_destroy(s->stream);
      if (s->device_maps)
        decoda_cuda->mem_free(s->device_maps);
    }
    free(s->maps);
    free(s);
  }
  pthread_mutex_unlock(&decoda_streams_lock);
  pthread_mutex_lock(&decoda_constants_lock);
  for (int64_t i = 0; i < decoda_num_constants; ++i)
    if (decoda_constants[i] && decoda_cuda)
      decoda_cuda->mem_free(decoda_constants[i]); /* errors ignored: the model goes away */
  free(decoda_constants);
  decoda_constants = 0;
  decoda_num_constants = 0;
  pthread_mutex_unlock(&decoda_constants_lock);
  if (decoda_cuda)
    decoda_cuda->mem_trim(); /* the pool's unused memory goes back to the device */
}
)C";
}
