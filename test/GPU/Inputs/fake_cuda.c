/* A stand-in for libcuda.so.1 for tests without a GPU: the driver entry points the Decoda
   runtime resolves (lib/Runtime/CUDARuntime.cpp), with "device" memory in host memory and
   kernels that never run. Every allocation, copy, free and launch is logged, one line each, to
   $FAKE_CUDA_LOG, so a test can count what the runtime and a model do across calls; the results
   of a model run on it are meaningless. Build: cc -shared -fPIC fake_cuda.c -o fake_cuda.so */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef unsigned long long CUdeviceptr;

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

static int module_dummy, function_dummy, context_dummy, stream_dummy;

int cuInit(unsigned flags) { (void)flags; return 0; }
int cuDeviceGetCount(int *n) { *n = 1; return 0; }
int cuDeviceGet(int *d, int i) { *d = i; return 0; }
int cuDevicePrimaryCtxRetain(void **c, int d) { (void)d; *c = &context_dummy; return 0; }
int cuCtxSetCurrent(void *c) { (void)c; return 0; }
int cuGetErrorString(int rc, const char **s) { (void)rc; *s = "fake CUDA error"; return 0; }
int cuModuleLoadData(void **m, const void *image) {
  (void)image;
  note("module load", 0);
  *m = &module_dummy;
  return 0;
}
int cuModuleUnload(void *m) { (void)m; note("module unload", 0); return 0; }
int cuModuleGetFunction(void **f, void *m, const char *name) {
  (void)m; (void)name;
  *f = &function_dummy;
  return 0;
}
int cuLaunchKernel(void *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                   unsigned bz, unsigned shared, void *stream, void **params, void **extra) {
  (void)f; (void)gx; (void)gy; (void)gz; (void)bx; (void)by; (void)bz; (void)stream;
  (void)params; (void)extra;
  note("launch shared=%llu", shared);
  return 0;
}
int cuStreamCreate(void **s, unsigned flags) { (void)flags; *s = &stream_dummy; return 0; }
int cuStreamSynchronize(void *s) { (void)s; return 0; }
int cuStreamDestroy_v2(void *s) { (void)s; return 0; }
int cuMemAlloc_v2(CUdeviceptr *p, size_t n) {
  void *m = calloc(1, n ? n : 1);
  *p = (CUdeviceptr)(size_t)m;
  note("alloc %llu", n);
  return m ? 0 : 2;
}
int cuMemFree_v2(CUdeviceptr p) {
  free((void *)(size_t)p);
  note("free", 0);
  return 0;
}
int cuMemcpyAsync(CUdeviceptr dst, CUdeviceptr src, size_t n, void *s) {
  (void)s;
  memcpy((void *)(size_t)dst, (const void *)(size_t)src, n);
  note("copy %llu", n);
  return 0;
}
