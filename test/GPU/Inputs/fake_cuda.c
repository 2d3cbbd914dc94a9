/* A stand-in for libcuda.so.1 (DECODA_CUDA_DRIVER=fake_cuda.so) for the host side of CUDA models
 * on a machine without a GPU: the driver entry points the Decoda runtime resolves
 * (lib/Runtime/CUDARuntime.cpp), one device, "device" memory in host memory, copies are memcpy,
 * and a kernel launch runs nothing (the results of a model run on it are meaningless).
 *
 * - $FAKE_CUDA_LOG: every allocation, copy, free, module load/unload and launch is appended to
 *   that file, one line each, so a test can count what the runtime and a model do across calls
 *   (test/GPU/Inputs/count_fake_cuda.py).
 * - fake_cuda_live(&buffers, &streams) reads the live device buffers and streams and returns the
 *   number of launches, so a test can see what a call leaves behind.
 * - FAKE_CUDA_FAIL_LAUNCH=N makes the N-th launch (from 1) and every later one fail with CUDA
 *   error 719 (a launch failure); FAKE_CUDA_FAIL_SYNC=1 makes every stream synchronisation fail
 *   (an error reported after the launches).
 * - Streams are numbered from 1 in creation order; launches, copies and synchronisations log
 *   theirs. The default memory pool (stream-ordered cuMemAllocAsync/cuMemFreeAsync) is there
 *   unless FAKE_CUDA_NO_POOL=1, in which case cuDeviceGetDefaultMemPool fails as on a device
 *   without memory pools. cuPointerGetAttribute knows the fake device allocations.
 * - A launch with over 48 KiB of dynamic shared memory fails (CUDA error 1) unless
 *   cuFuncSetAttribute allowed that much for the function, as on a GPU. cuTensorMapEncodeTiled
 *   checks its arguments as the driver documents them (16-byte aligned device address and row
 *   stride, box extents 1..256, the inner box within the swizzle span) and logs each map;
 *   built with -DFAKE_CUDA_NO_TMA it lacks that entry point (a pre-CUDA-12 driver).
 * - Events (kernel profiles) read a fake device clock in microseconds that every launch
 *   advances by its number of blocks (gx * gy * gz) and every copy by its size in KiB (rounded
 *   up); launches log their block counts and copies their sizes, events their records. Built
 *   with -DFAKE_CUDA_NO_EVENTS it lacks the event entry points.
 *
 * Build: cc -shared -fPIC fake_cuda.c -o fake_cuda.so */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int CUresult;
static int live_buffers, live_streams, launches, streams_created;
static unsigned long long fake_clock; /* microseconds of fake device time */

/* The fake device allocations, for cuPointerGetAttribute. */
#define MAX_BUFFERS 4096
static struct { uintptr_t base; size_t size; } buffers[MAX_BUFFERS];

static void remember(uintptr_t base, size_t size) {
  for (int i = 0; i < MAX_BUFFERS; ++i)
    if (!buffers[i].base) {
      buffers[i].base = base;
      buffers[i].size = size;
      return;
    }
}
static void forget(uintptr_t base) {
  for (int i = 0; i < MAX_BUFFERS; ++i)
    if (buffers[i].base == base)
      buffers[i].base = 0;
}
static int is_device(uintptr_t p) {
  for (int i = 0; i < MAX_BUFFERS; ++i)
    if (buffers[i].base && p >= buffers[i].base && p < buffers[i].base + buffers[i].size)
      return 1;
  return 0;
}
static unsigned long long stream_id(void *stream) { return stream ? *(int *)stream : 0; }

static void note(const char *fmt, unsigned long long a) {
  const char *path = getenv("FAKE_CUDA_LOG");
  if (!path)
    return;
  FILE *f = fopen(path, "a");
  if (!f)
    return;
  fprintf(f, fmt, a);
  fputc('\n', f);
  fclose(f);
}

int fake_cuda_live(int *buffers, int *streams) {
  *buffers = live_buffers;
  *streams = live_streams;
  return launches;
}

CUresult cuInit(unsigned flags) { (void)flags; return 0; }
CUresult cuDeviceGetCount(int *count) { *count = 1; return 0; }
CUresult cuDeviceGet(int *device, int ordinal) { *device = ordinal; return 0; }
CUresult cuDevicePrimaryCtxRetain(void **context, int device) {
  (void)device;
  static int ctx;
  *context = &ctx;
  return 0;
}
CUresult cuCtxSetCurrent(void *context) { (void)context; return 0; }
CUresult cuGetErrorString(CUresult rc, const char **text) {
  *text = rc == 719 ? "fake launch failure" : rc == 999 ? "fake synchronisation failure"
                                                         : "fake error";
  return 0;
}
CUresult cuModuleLoadData(void **module, const void *image) {
  (void)image;
  static int m;
  note("module load", 0);
  *module = &m;
  return 0;
}
CUresult cuModuleUnload(void *module) {
  (void)module;
  note("module unload", 0);
  return 0;
}
CUresult cuModuleGetFunction(void **function, void *module, const char *name) {
  (void)module;
  *function = (void *)name;
  return 0;
}
/* Functions allowed over 48 KiB of dynamic shared memory (cuFuncSetAttribute). */
#define MAX_FUNCTIONS 256
static struct { void *f; int bytes; } allowed[MAX_FUNCTIONS];
CUresult cuFuncSetAttribute(void *f, int attribute, int value) {
  note("func attribute %llu", (unsigned long long)attribute);
  if (attribute != 8 /* CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES */)
    return 0;
  if (value > 232448)
    return 1; /* CUDA_ERROR_INVALID_VALUE: over sm_90's 227 KiB */
  for (int i = 0; i < MAX_FUNCTIONS; ++i)
    if (!allowed[i].f || allowed[i].f == f) {
      allowed[i].f = f;
      allowed[i].bytes = value;
      return 0;
    }
  return 1;
}
static int shared_allowed(void *f, unsigned shared) {
  if (shared <= 48 * 1024)
    return 1;
  for (int i = 0; i < MAX_FUNCTIONS && allowed[i].f; ++i)
    if (allowed[i].f == f)
      return shared <= (unsigned)allowed[i].bytes;
  return 0;
}
#ifndef FAKE_CUDA_NO_TMA
CUresult cuTensorMapEncodeTiled(void *map, int type, unsigned rank, void *base,
                                const uint64_t *dims, const uint64_t *strides,
                                const unsigned *box, const unsigned *elementStrides,
                                int interleave, int swizzle, int l2, int oob) {
  static const int bytesOf[] = {1, 2, 4, 4, 8, 8, 2, 4, 8, 2};
  (void)l2;
  if (type < 0 || type > 9 || rank != 2 || !is_device((uintptr_t)base) ||
      (uintptr_t)base % 16 || strides[0] % 16 || dims[0] == 0 || dims[1] == 0 ||
      strides[0] < dims[0] * bytesOf[type] || box[0] == 0 || box[0] > 256 || box[1] == 0 ||
      box[1] > 256 || (box[0] * bytesOf[type]) % 16 || elementStrides[0] != 1 ||
      elementStrides[1] != 1 || interleave != 0 || swizzle < 0 || swizzle > 3 || oob != 0 ||
      (swizzle && box[0] * bytesOf[type] > (16u << swizzle)))
    return 1; /* CUDA_ERROR_INVALID_VALUE */
  memset(map, 0, 128);
  memcpy(map, &base, sizeof base);
  note("tensor map rows %llu", dims[1]);
  note("tensor map box rows %llu", box[1]);
  return 0;
}
#endif
CUresult cuLaunchKernel(void *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                        unsigned bz, unsigned shared, void *stream, void **params, void **extra) {
  (void)bx, (void)by, (void)bz;
  (void)params, (void)extra;
  const char *fail = getenv("FAKE_CUDA_FAIL_LAUNCH");
  if (!shared_allowed(f, shared)) {
    note("launch refused: shared=%llu not allowed", shared);
    return 1; /* CUDA_ERROR_INVALID_VALUE */
  }
  ++launches;
  fake_clock += (unsigned long long)gx * gy * gz;
  note("launch blocks %llu", (unsigned long long)gx * gy * gz);
  note("launch shared=%llu", shared);
  note("launch stream %llu", stream_id(stream));
  return fail && *fail && launches >= atoi(fail) ? 719 : 0;
}
CUresult cuStreamCreate(void **stream, unsigned flags) {
  (void)flags;
  *stream = malloc(16);
  *(int *)*stream = ++streams_created;
  ++live_streams;
  note("stream create %llu", stream_id(*stream));
  return 0;
}
CUresult cuStreamSynchronize(void *stream) {
  note("sync stream %llu", stream_id(stream));
  const char *fail = getenv("FAKE_CUDA_FAIL_SYNC");
  return fail && *fail == '1' ? 999 : 0;
}
CUresult cuStreamDestroy_v2(void *stream) {
  note("stream destroy %llu", stream_id(stream));
  free(stream);
  --live_streams;
  return 0;
}
CUresult cuMemAlloc_v2(uintptr_t *ptr, size_t size) {
  void *m = calloc(1, size ? size : 1);
  *ptr = (uintptr_t)m;
  if (!m)
    return 2; /* CUDA_ERROR_OUT_OF_MEMORY */
  ++live_buffers;
  remember(*ptr, size ? size : 1);
  note("alloc %llu", size);
  return 0;
}
CUresult cuMemFree_v2(uintptr_t ptr) {
  forget(ptr);
  free((void *)ptr);
  --live_buffers;
  note("free", 0);
  return 0;
}
CUresult cuMemAllocAsync(uintptr_t *ptr, size_t size, void *stream) {
  note("pool alloc stream %llu", stream_id(stream));
  return cuMemAlloc_v2(ptr, size);
}
CUresult cuMemFreeAsync(uintptr_t ptr, void *stream) {
  note("pool free stream %llu", stream_id(stream));
  return cuMemFree_v2(ptr);
}
CUresult cuDeviceGetDefaultMemPool(void **pool, int device) {
  (void)device;
  static int the_pool;
  const char *off = getenv("FAKE_CUDA_NO_POOL");
  if (off && *off == '1')
    return 801; /* CUDA_ERROR_NOT_SUPPORTED */
  *pool = &the_pool;
  return 0;
}
CUresult cuMemPoolSetAttribute(void *pool, int attribute, void *value) {
  (void)pool;
  note("pool attribute %llu", (unsigned long long)attribute);
  note("pool release threshold %llu", attribute == 4 ? *(unsigned long long *)value : 0);
  return 0;
}
CUresult cuMemPoolTrimTo(void *pool, size_t keep) {
  (void)pool;
  note("pool trim %llu", keep);
  return 0;
}
CUresult cuPointerGetAttribute(void *data, int attribute, uintptr_t ptr) {
  if (attribute != 2 || !is_device(ptr))
    return 1; /* CUDA_ERROR_INVALID_VALUE: not memory the driver knows */
  *(unsigned *)data = 2; /* CU_MEMORYTYPE_DEVICE */
  return 0;
}
CUresult cuMemcpyAsync(uintptr_t dst, uintptr_t src, size_t size, void *stream) {
  memcpy((void *)dst, (const void *)src, size);
  fake_clock += (size + 1023) / 1024;
  note("copy %llu", size);
  note(is_device(dst) ? "copy-to device stream %llu" : "copy-to host stream %llu",
       stream_id(stream));
  return 0;
}
#ifndef FAKE_CUDA_NO_EVENTS
CUresult cuEventCreate(void **event, unsigned flags) {
  (void)flags;
  *event = calloc(1, sizeof(unsigned long long));
  note("event create", 0);
  return *event ? 0 : 2;
}
CUresult cuEventRecord(void *event, void *stream) {
  *(unsigned long long *)event = fake_clock;
  note("event record stream %llu", stream_id(stream));
  return 0;
}
CUresult cuEventSynchronize(void *event) {
  (void)event;
  return 0;
}
CUresult cuEventElapsedTime_v2(float *ms, void *start, void *end) {
  *ms = (float)((double)(*(unsigned long long *)end - *(unsigned long long *)start) / 1000.0);
  return 0;
}
CUresult cuEventDestroy_v2(void *event) {
  free(event);
  note("event destroy", 0);
  return 0;
}
#endif
