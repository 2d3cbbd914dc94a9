/* A stand-in for libcuda.so.1 (DECODA_CUDA_DRIVER=fake_cuda.so) for the host side of CUDA models
 * on a machine without a GPU: the driver entry points the Decoda runtime resolves
 * (lib/Runtime/CUDARuntime.cpp), one device, "device" memory in host memory, copies are memcpy,
 * and a kernel launch runs nothing (the results of a model run on it are meaningless).
 *
 * - $FAKE_CUDA_LOG: every allocation, copy, free, module load/unload and launch is appended to
 *   that file, one line each, so a test can count what the runtime and a model do across calls
 *   (test/GPU/Inputs/count_fake_cuda.py).
 * - fake_cuda_live(&buffers, &streams) reads the live device buffers and streams and returns the
 *   number of launches, so a test can see what a call leaves behind; fake_cuda_memory(&peak)
 *   returns the device bytes the program holds and sets peak to the most it held since the
 *   last such call (a call's peak device memory).
 * - FAKE_CUDA_FAIL_LAUNCH=N makes the N-th launch (from 1) and every later one fail with CUDA
 *   error 719 (a launch failure); FAKE_CUDA_FAIL_SYNC=1 makes every stream synchronisation fail
 *   (an error reported after the launches).
 * - Streams are numbered from 1 in creation order; launches, copies and synchronisations log
 *   theirs. The default memory pool (stream-ordered cuMemAllocAsync/cuMemFreeAsync) is there
 *   unless FAKE_CUDA_NO_POOL=1, in which case cuDeviceGetDefaultMemPool fails as on a device
 *   without memory pools. cuPointerGetAttribute knows the fake device allocations.
 * - A launch or graph kernel node with a zero grid or block extent fails (CUDA error 1, as the
 *   driver refuses a grid of no blocks; logged `launch refused: empty grid or block`).
 * - A launch with over 48 KiB of dynamic shared memory fails (CUDA error 1) unless
 *   cuFuncSetAttribute allowed that much for the function, as on a GPU. cuTensorMapEncodeTiled
 *   (rank 2 or 3) checks its arguments as the driver documents them (16-byte aligned device
 *   address, strides multiples of 16 below 2^40, each covering the dimension below it, box
 *   extents 1..256, the inner box within the swizzle span) and logs each map (`tensor map rows
 *   R`, `tensor map box rows B`, and for rank 3 `tensor map planes P`); built with
 *   -DFAKE_CUDA_NO_TMA it lacks that entry point (a pre-CUDA-12 driver).
 * - Events (kernel profiles) read a fake device clock in microseconds that every launch
 *   advances by its number of blocks (gx * gy * gz) and every copy by its size in KiB (rounded
 *   up); launches log their block counts and copies their sizes, events their records. Built
 *   with -DFAKE_CUDA_NO_EVENTS it lacks the event entry points.
 *
 * - $FAKE_CUDA_EXEC_LOG: every kernel the fake device "runs" (a launch, or a node of a launched
 *   graph) is appended to that file as `NAME grid X,Y,Z block X,Y,Z shared S params P...`, a
 *   parameter that points into a fake device allocation written `bN+OFFSET` (N: the
 *   allocation's number, from 1 in allocation order), others as integers, so runs whose
 *   allocations differ only in address compare equal. A function's parameters are 8 bytes each
 *   and it has as many as the runtime asked cuFuncGetParamInfo about (all our kernels' PTX
 *   parameters are .u64; the runtime asks before a function's first launch); until it asked,
 *   `params ?`.
 * - The pool (cuMemAllocAsync) keeps what cuMemFreeAsync frees and hands a kept block of the
 *   same size back, the one freed last first, as a pool reuses memory: a call's temporaries
 *   then have the same addresses every call (they are new allocations for the log and the
 *   exec log's numbering).
 * - Launch graphs (cuGraphCreate, cuGraphAddKernelNode_v2, cuGraphInstantiateWithFlags,
 *   cuGraphExecKernelNodeSetParams_v2, cuGraphLaunch, cuGraphExecDestroy, cuGraphDestroy): a
 *   graph is a list of kernel nodes (copied parameter values), an executable graph a copy of it
 *   made at instantiation, its nodes updated by SetParams, and a graph launch runs its nodes in
 *   order as launches would (clock, exec log); logged as `graph ...` lines. Built with
 *   -DFAKE_CUDA_NO_GRAPHS it lacks them (and cuFuncGetParamInfo).
 *
 * - Programmatic dependent launch: cuModuleGetGlobal_v2 finds a global whose name is in the
 *   module's image (a cubin's symbol names, a PTX text; `module global NAME` logged when
 *   found), cuLaunchKernelEx launches as cuLaunchKernel does and logs `launch dependent` for a
 *   launch with the programmatic-stream-serialization attribute, and cuGraphAddDependencies_v2
 *   joins a node added without dependencies to the node before it (`graph edge programmatic`
 *   for a programmatic edge from the programmatic port, `graph edge` otherwise); every node
 *   after a graph's first must have its edge before instantiation. Built with
 *   -DFAKE_CUDA_NO_DEPENDENT_LAUNCH it lacks the three (a driver before CUDA 12.3).
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
#define MAX_FUNCTIONS 256
static struct { uintptr_t base; size_t size; int id; } buffers[MAX_BUFFERS];
static int allocations; /* numbers the allocations, for the exec log */

/* Bytes of device memory the program holds (allocated, not freed; a pool's kept blocks are
   not counted), and the most it held since fake_cuda_memory last reset the mark. */
static size_t live_bytes, peak_bytes;
static void remember(uintptr_t base, size_t size) {
  for (int i = 0; i < MAX_BUFFERS; ++i)
    if (!buffers[i].base) {
      buffers[i].base = base;
      buffers[i].size = size;
      buffers[i].id = ++allocations;
      live_bytes += size;
      if (live_bytes > peak_bytes)
        peak_bytes = live_bytes;
      return;
    }
}
static void forget(uintptr_t base) {
  for (int i = 0; i < MAX_BUFFERS; ++i)
    if (buffers[i].base == base) {
      buffers[i].base = 0;
      live_bytes -= buffers[i].size;
    }
}
static int is_device(uintptr_t p) {
  for (int i = 0; i < MAX_BUFFERS; ++i)
    if (buffers[i].base && p >= buffers[i].base && p < buffers[i].base + buffers[i].size)
      return 1;
  return 0;
}
static unsigned long long stream_id(void *stream) { return stream ? *(int *)stream : 0; }

/* Parameter counts by function, learnt from cuFuncGetParamInfo. */
static struct { void *f; int count; } param_counts[MAX_FUNCTIONS];
static int param_count(void *f) {
  for (int i = 0; i < MAX_FUNCTIONS && param_counts[i].f; ++i)
    if (param_counts[i].f == f)
      return param_counts[i].count;
  return -1;
}

/* One kernel run on the fake device: the exec log's line. `values` holds `count` parameters
   (count < 0: unknown). */
static void exec_log(void *f, const unsigned dims[7], const uint64_t *values, int count) {
  const char *path = getenv("FAKE_CUDA_EXEC_LOG");
  if (!path)
    return;
  FILE *out = fopen(path, "a");
  if (!out)
    return;
  fprintf(out, "%s grid %u,%u,%u block %u,%u,%u shared %u params", (const char *)f, dims[0],
          dims[1], dims[2], dims[3], dims[4], dims[5], dims[6]);
  if (count < 0)
    fputs(" ?", out);
  for (int i = 0; i < count; ++i) {
    int found = 0;
    for (int b = 0; b < MAX_BUFFERS && !found; ++b)
      if (buffers[b].base && values[i] >= buffers[b].base &&
          values[i] < buffers[b].base + buffers[b].size) {
        fprintf(out, " b%d+%llu", buffers[b].id,
                (unsigned long long)(values[i] - buffers[b].base));
        found = 1;
      }
    if (!found)
      fprintf(out, " %llu", (unsigned long long)values[i]);
  }
  fputc('\n', out);
  fclose(out);
}

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

/* The device bytes the program holds now and the most it held since the last call (which
   resets the mark to what it holds now). */
size_t fake_cuda_memory(size_t *peak) {
  *peak = peak_bytes;
  peak_bytes = live_bytes;
  return live_bytes;
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
/* A loaded module: its image and the image's size (an ELF cubin: up to the end of its last
   section or header table; else a text, PTX). */
struct fake_module {
  const unsigned char *image;
  size_t size;
};
static uint64_t elf_field(const unsigned char *p, int bytes) {
  uint64_t v = 0;
  for (int i = bytes - 1; i >= 0; --i)
    v = v << 8 | p[i];
  return v;
}
static size_t image_size(const unsigned char *image) {
  if (memcmp(image, "\177ELF", 4) != 0)
    return strlen((const char *)image);
  uint64_t phoff = elf_field(image + 0x20, 8), shoff = elf_field(image + 0x28, 8);
  uint64_t phsize = elf_field(image + 0x36, 2), phnum = elf_field(image + 0x38, 2);
  uint64_t shsize = elf_field(image + 0x3A, 2), shnum = elf_field(image + 0x3C, 2);
  uint64_t end = phoff + phsize * phnum;
  if (shoff + shsize * shnum > end)
    end = shoff + shsize * shnum;
  for (uint64_t i = 0; i < shnum; ++i) {
    const unsigned char *sh = image + shoff + i * shsize;
    if (elf_field(sh + 4, 4) == 8 /* SHT_NOBITS */)
      continue;
    uint64_t last = elf_field(sh + 0x18, 8) + elf_field(sh + 0x20, 8);
    if (last > end)
      end = last;
  }
  return (size_t)end;
}
CUresult cuModuleLoadData(void **module, const void *image) {
  struct fake_module *m = malloc(sizeof *m);
  if (!m)
    return 2;
  m->image = image;
  m->size = image_size(image);
  note("module load", 0);
  *module = m;
  return 0;
}
CUresult cuModuleUnload(void *module) {
  free(module);
  note("module unload", 0);
  return 0;
}
#ifndef FAKE_CUDA_NO_DEPENDENT_LAUNCH
static int identifier_char(unsigned char c) {
  return c == '_' || (c >= '0' && c <= '9') || ((c | 32) >= 'a' && (c | 32) <= 'z');
}
CUresult cuModuleGetGlobal_v2(uintptr_t *dptr, size_t *bytes, void *module, const char *name) {
  struct fake_module *m = module;
  size_t n = strlen(name);
  for (size_t i = 0; i + n <= m->size; ++i) {
    if (memcmp(m->image + i, name, n) != 0 || (i > 0 && identifier_char(m->image[i - 1])) ||
        (i + n < m->size && identifier_char(m->image[i + n])))
      continue;
    const char *path = getenv("FAKE_CUDA_LOG");
    FILE *f = path ? fopen(path, "a") : 0;
    if (f) {
      fprintf(f, "module global %s\n", name);
      fclose(f);
    }
    *dptr = 0x1000;
    if (bytes)
      *bytes = 4;
    return 0;
  }
  return 500; /* CUDA_ERROR_NOT_FOUND */
}
#endif
CUresult cuModuleGetFunction(void **function, void *module, const char *name) {
  (void)module;
  *function = (void *)name;
  return 0;
}
/* Functions allowed over 48 KiB of dynamic shared memory (cuFuncSetAttribute). */
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
/* Ranks 2 (a matrix) and 3 (planes of matrices). Per dimension i, as cuTensorMapEncodeTiled
   documents it: extent 1..2^32, box extent 1..256, element stride 1 (all ours use 1); per
   stride (dimension i >= 1, bytes): a multiple of 16 below 2^40 that covers dimension i - 1
   (strides[0] >= dims[0] elements, strides[1] >= dims[1] * strides[0]: the driver's
   globalStrides[i] = globalStrides[i - 1] * (globalDim[i] + padding[i])). */
CUresult cuTensorMapEncodeTiled(void *map, int type, unsigned rank, void *base,
                                const uint64_t *dims, const uint64_t *strides,
                                const unsigned *box, const unsigned *elementStrides,
                                int interleave, int swizzle, int l2, int oob) {
  static const int bytesOf[] = {1, 2, 4, 4, 8, 8, 2, 4, 8, 2};
  (void)l2;
  if (type < 0 || type > 9 || rank < 2 || rank > 3 || !is_device((uintptr_t)base) ||
      (uintptr_t)base % 16 || (box[0] * bytesOf[type]) % 16 || interleave != 0 || swizzle < 0 ||
      swizzle > 3 || oob != 0 || (swizzle && box[0] * bytesOf[type] > (16u << swizzle)))
    return 1; /* CUDA_ERROR_INVALID_VALUE */
  for (unsigned i = 0; i < rank; ++i) {
    /* the bytes dimension i - 1 spans, which stride i - 1 must not fall below */
    uint64_t covered = i == 0   ? 0
                       : i == 1 ? dims[0] * bytesOf[type]
                                : dims[i - 1] * strides[i - 2];
    if (dims[i] == 0 || dims[i] > (1ull << 32) || box[i] == 0 || box[i] > 256 ||
        elementStrides[i] != 1 ||
        (i > 0 && (strides[i - 1] % 16 || strides[i - 1] >= (1ull << 40) ||
                   strides[i - 1] < covered)))
      return 1; /* CUDA_ERROR_INVALID_VALUE */
  }
  memset(map, 0, 128);
  memcpy(map, &base, sizeof base);
  note("tensor map rows %llu", dims[1]);
  note("tensor map box rows %llu", box[1]);
  if (rank == 3)
    note("tensor map planes %llu", dims[2]);
  return 0;
}
#endif
CUresult cuLaunchKernel(void *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                        unsigned bz, unsigned shared, void *stream, void **params, void **extra) {
  if (extra)
    return 1; /* CUDA_ERROR_INVALID_VALUE: our launches pass the parameters as kernelParams */
  const char *fail = getenv("FAKE_CUDA_FAIL_LAUNCH");
  if (!shared_allowed(f, shared)) {
    note("launch refused: shared=%llu not allowed", shared);
    return 1; /* CUDA_ERROR_INVALID_VALUE */
  }
  if (!gx || !gy || !gz || !bx || !by || !bz) {
    note("launch refused: empty grid or block", 0);
    return 1; /* CUDA_ERROR_INVALID_VALUE, as the driver answers a grid of no blocks */
  }
  ++launches;
  fake_clock += (unsigned long long)gx * gy * gz;
  note("launch blocks %llu", (unsigned long long)gx * gy * gz);
  note("launch shared=%llu", shared);
  note("launch stream %llu", stream_id(stream));
  if (fail && *fail && launches >= atoi(fail))
    return 719;
  const unsigned dims[7] = {gx, gy, gz, bx, by, bz, shared};
  uint64_t values[256];
  int count = param_count(f);
  for (int i = 0; i < count && i < 256; ++i)
    memcpy(&values[i], params[i], 8);
  exec_log(f, dims, values, count);
  return 0;
}
#ifndef FAKE_CUDA_NO_DEPENDENT_LAUNCH
struct launch_attribute { /* CUlaunchAttribute */
  int id;
  char pad[4];
  union {
    char bytes[64];
    int value;
  } value;
};
struct launch_config { /* CUlaunchConfig */
  unsigned grid[3], block[3], shared;
  void *stream;
  struct launch_attribute *attrs;
  unsigned num_attrs;
};
CUresult cuLaunchKernelEx(const struct launch_config *c, void *f, void **params, void **extra) {
  int dependent = 0;
  for (unsigned i = 0; i < c->num_attrs; ++i) {
    if (c->attrs[i].id != 6 /* CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION */)
      return 1; /* not one our runtime sets */
    dependent = c->attrs[i].value.value != 0;
  }
  if (dependent)
    note("launch dependent", 0);
  return cuLaunchKernel(f, c->grid[0], c->grid[1], c->grid[2], c->block[0], c->block[1],
                        c->block[2], c->shared, c->stream, params, extra);
}
#endif
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
/* The pool's kept blocks (freed by cuMemFreeAsync, not yet handed back). */
#define MAX_KEPT 1024
static struct { uintptr_t base; size_t size; } kept[MAX_KEPT];
static int num_kept;
CUresult cuMemAllocAsync(uintptr_t *ptr, size_t size, void *stream) {
  note("pool alloc stream %llu", stream_id(stream));
  for (int i = num_kept - 1; i >= 0; --i)
    if (kept[i].size == (size ? size : 1)) {
      *ptr = kept[i].base;
      memmove(&kept[i], &kept[i + 1], (size_t)(--num_kept - i) * sizeof kept[0]);
      memset((void *)*ptr, 0, size);
      ++live_buffers;
      remember(*ptr, size ? size : 1);
      note("alloc %llu", size);
      return 0;
    }
  return cuMemAlloc_v2(ptr, size);
}
CUresult cuMemFreeAsync(uintptr_t ptr, void *stream) {
  note("pool free stream %llu", stream_id(stream));
  size_t size = 0;
  for (int i = 0; i < MAX_BUFFERS; ++i)
    if (buffers[i].base == ptr)
      size = buffers[i].size;
  if (!size || num_kept == MAX_KEPT)
    return cuMemFree_v2(ptr);
  forget(ptr);
  --live_buffers;
  note("free", 0);
  kept[num_kept].base = ptr;
  kept[num_kept++].size = size;
  return 0;
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
  while (num_kept > 0)
    free((void *)kept[--num_kept].base);
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
#ifndef FAKE_CUDA_NO_GRAPHS
CUresult cuFuncGetParamInfo(void *f, size_t index, size_t *offset, size_t *size) {
  int i = 0;
  while (i < MAX_FUNCTIONS && param_counts[i].f && param_counts[i].f != f)
    ++i;
  if (i == MAX_FUNCTIONS)
    return 1;
  param_counts[i].f = f;
  if ((int)index + 1 > param_counts[i].count)
    param_counts[i].count = (int)index + 1;
  *offset = 8 * index;
  *size = 8;
  return 0;
}

/* A kernel node: the fields of CUDA_KERNEL_NODE_PARAMS it uses, parameter values copied. */
struct fake_node {
  void *graph; /* the graph it was added to */
  int index;
  int joined; /* has its edge from the node before it (or is the first) */
  void *f;
  unsigned dims[7];
  int count;
  uint64_t values[256];
};
struct fake_graph {
  void *source; /* an executable graph's graph */
  int num_nodes;
  struct fake_node nodes[64];
};
struct node_params { /* CUDA_KERNEL_NODE_PARAMS_v2 */
  void *func;
  unsigned grid[3], block[3], shared;
  void **kernelParams;
  void **extra;
  void *kern;
  void *ctx;
};
static int graphs_live, execs_live;

static CUresult fill_node(struct fake_node *n, const struct node_params *p) {
  n->f = p->func;
  const unsigned dims[7] = {p->grid[0], p->grid[1], p->grid[2], p->block[0], p->block[1],
                            p->block[2], p->shared};
  memcpy(n->dims, dims, sizeof dims);
  n->count = param_count(p->func);
  if (n->count < 0 || n->count > 256 || p->extra || p->kern)
    return 1; /* CUDA_ERROR_INVALID_VALUE */
  for (int i = 0; i < 6; ++i)
    if (!dims[i]) {
      note("graph node refused: empty grid or block", 0);
      return 1; /* CUDA_ERROR_INVALID_VALUE, as the driver answers a grid of no blocks */
    }
  for (int i = 0; i < n->count; ++i)
    memcpy(&n->values[i], p->kernelParams[i], 8);
  return 0;
}
CUresult cuGraphCreate(void **graph, unsigned flags) {
  if (flags)
    return 1;
  *graph = calloc(1, sizeof(struct fake_graph));
  ++graphs_live;
  note("graph create", 0);
  return *graph ? 0 : 2;
}
CUresult cuGraphAddKernelNode_v2(void **node, void *graph, void *const *deps, size_t num_deps,
                                 const struct node_params *p) {
  struct fake_graph *g = graph;
  /* Our runs are chains: each node after the one before, here or by a later edge
     (cuGraphAddDependencies_v2). */
  if (g->num_nodes == 64 || num_deps > 1 ||
      (num_deps && (!g->num_nodes || deps[0] != &g->nodes[g->num_nodes - 1])))
    return 1;
  struct fake_node *n = &g->nodes[g->num_nodes];
  if (fill_node(n, p))
    return 1;
  n->graph = g;
  n->joined = num_deps == 1 || g->num_nodes == 0;
  n->index = g->num_nodes++;
  *node = n;
  note("graph node", 0);
  return 0;
}
#ifndef FAKE_CUDA_NO_DEPENDENT_LAUNCH
struct edge_data { /* CUgraphEdgeData */
  unsigned char from_port, to_port, type, reserved[5];
};
CUresult cuGraphAddDependencies_v2(void *graph, void *const *from, void *const *to,
                                   const struct edge_data *edges, size_t num) {
  struct fake_graph *g = graph;
  if (num != 1)
    return 1;
  struct fake_node *a = from[0], *b = to[0];
  /* A chain: b right after a, b not joined yet; ports and types as cuda.h allows them. */
  if (a->graph != g || b->graph != g || b->index != a->index + 1 || b->joined)
    return 1;
  const struct edge_data e = edges ? edges[0] : (struct edge_data){0};
  if (e.to_port != 0 || e.type > 1 || e.from_port > 2 || (e.type == 1) != (e.from_port != 0))
    return 1;
  for (int i = 0; i < 5; ++i)
    if (e.reserved[i])
      return 1;
  b->joined = 1;
  note(e.type == 1 ? "graph edge programmatic" : "graph edge", 0);
  return 0;
}
#endif
CUresult cuGraphInstantiateWithFlags(void **exec, void *graph, unsigned long long flags) {
  if (flags)
    return 1;
  for (int i = 0; i < ((struct fake_graph *)graph)->num_nodes; ++i)
    if (!((struct fake_graph *)graph)->nodes[i].joined)
      return 1; /* a node not ordered after the one before it */
  struct fake_graph *e = malloc(sizeof *e);
  if (!e)
    return 2;
  memcpy(e, graph, sizeof *e);
  e->source = graph;
  *exec = e;
  ++execs_live;
  note("graph instantiate %llu", (unsigned long long)e->num_nodes);
  return 0;
}
CUresult cuGraphExecKernelNodeSetParams_v2(void *exec, void *node, const struct node_params *p) {
  /* `node` is a node of the graph `exec` was made from; its copy in `exec` has its index. */
  struct fake_graph *e = exec;
  struct fake_node *n = node;
  if (n->graph != e->source || n->index >= e->num_nodes)
    return 1;
  struct fake_node *mine = &e->nodes[n->index];
  if (p->func != mine->f)
    return 1; /* a node's function cannot change */
  note("graph set params", 0);
  return fill_node(mine, p);
}
CUresult cuGraphLaunch(void *exec, void *stream) {
  struct fake_graph *e = exec;
  note("graph launch %llu", (unsigned long long)e->num_nodes);
  note("graph launch stream %llu", stream_id(stream));
  const char *fail = getenv("FAKE_CUDA_FAIL_LAUNCH");
  for (int i = 0; i < e->num_nodes; ++i) {
    struct fake_node *n = &e->nodes[i];
    if (!shared_allowed(n->f, n->dims[6]))
      return 1;
    ++launches;
    fake_clock += (unsigned long long)n->dims[0] * n->dims[1] * n->dims[2];
    if (fail && *fail && launches >= atoi(fail))
      return 719;
    exec_log(n->f, n->dims, n->values, n->count);
  }
  return 0;
}
CUresult cuGraphExecDestroy(void *exec) {
  free(exec);
  --execs_live;
  note("graph exec destroy", 0);
  return 0;
}
CUresult cuGraphDestroy(void *graph) {
  free(graph);
  --graphs_live;
  note("graph destroy", 0);
  return 0;
}
/* The live graphs and executable graphs (a test's check that none is leaked). */
int fake_cuda_graphs_live(void) { return graphs_live + execs_live; }
#endif
