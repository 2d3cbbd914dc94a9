/* A fake CUDA driver (DECODA_CUDA_DRIVER=fake_cuda.so) for the host side of CUDA models on a
 * machine without a GPU: one device, "device" memory is host memory, copies are memcpy, and a
 * kernel launch runs nothing. It counts the live device buffers and streams, so a test can see
 * what a call leaves behind. FAKE_CUDA_FAIL_LAUNCH=N makes the N-th launch (from 1) and every
 * later one fail with CUDA error 719 (a launch failure); FAKE_CUDA_FAIL_SYNC=1 makes every stream
 * synchronisation fail (an error reported after the launches).
 * fake_cuda_live(&buffers, &streams) reads the counters. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef int CUresult;
static int live_buffers, live_streams, launches;

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
  *module = &m;
  return 0;
}
CUresult cuModuleUnload(void *module) { (void)module; return 0; }
CUresult cuModuleGetFunction(void **function, void *module, const char *name) {
  (void)module;
  *function = (void *)name;
  return 0;
}
CUresult cuLaunchKernel(void *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                        unsigned bz, unsigned shared, void *stream, void **params, void **extra) {
  (void)f, (void)gx, (void)gy, (void)gz, (void)bx, (void)by, (void)bz, (void)shared;
  (void)stream, (void)params, (void)extra;
  const char *fail = getenv("FAKE_CUDA_FAIL_LAUNCH");
  ++launches;
  return fail && *fail && launches >= atoi(fail) ? 719 : 0;
}
CUresult cuStreamCreate(void **stream, unsigned flags) {
  (void)flags;
  *stream = malloc(16);
  ++live_streams;
  return 0;
}
CUresult cuStreamSynchronize(void *stream) {
  (void)stream;
  const char *fail = getenv("FAKE_CUDA_FAIL_SYNC");
  return fail && *fail == '1' ? 999 : 0;
}
CUresult cuStreamDestroy_v2(void *stream) {
  free(stream);
  --live_streams;
  return 0;
}
CUresult cuMemAlloc_v2(uintptr_t *ptr, size_t size) {
  *ptr = (uintptr_t)malloc(size);
  ++live_buffers;
  return 0;
}
CUresult cuMemFree_v2(uintptr_t ptr) {
  free((void *)ptr);
  --live_buffers;
  return 0;
}
CUresult cuMemcpyAsync(uintptr_t dst, uintptr_t src, size_t size, void *stream) {
  (void)stream;
  memcpy((void *)dst, (const void *)src, size);
  return 0;
}
