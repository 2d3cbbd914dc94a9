/* Calls a compiled model's entry point directly, without the runtime (docs/ABI.md), with a fail
 * handler of its own that longjmps out as the runtime's does: the outputs of a successful call
 * are the caller's (freed here with libc free), and failed calls leave no memory behind
 * (glibc's count of bytes in use does not grow over them).
 *   call_memory_direct MODEL.so CALLS   for Inputs/failed_check.mlir's entry f */
#include <dlfcn.h>
#include <malloc.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct { void *allocated, *aligned; int64_t offset, sizes[1], strides[1]; } Desc1;
typedef struct { void *allocated, *aligned; int64_t offset, sizes[2], strides[2]; } Desc2;

static sigjmp_buf jump;
static char failure[256];
static void on_failure(const char *message) {
  snprintf(failure, sizeof failure, "%s", message);
  siglongjmp(jump, 1);
}

static size_t in_use(void) {
  struct mallinfo2 m = mallinfo2();
  return m.uordblks + m.hblkhd;
}

enum { ROWS = 16, WIDTH = 4096 };
static float x[ROWS * WIDTH], table[4 * 8];
static int64_t ids[2];

/* One call of f with ids {first, 2}; returns 1 when it succeeded (outputs in out[0..1]). */
static int call(void (*entry)(void **), int64_t first, Desc2 out[2]) {
  Desc2 dx = {x, x, 0, {ROWS, WIDTH}, {WIDTH, 1}};
  Desc1 dids = {ids, ids, 0, {2}, {1}};
  Desc2 dtable = {table, table, 0, {4, 8}, {8, 1}};
  void *args[4] = {&dx, &dids, &dtable, out};
  ids[0] = first;
  ids[1] = 2;
  if (sigsetjmp(jump, 0))
    return 0;
  entry(args);
  return 1;
}

int main(int argc, char **argv) {
  if (argc != 3)
    return 2;
  void *model = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  if (!model) {
    fprintf(stderr, "%s\n", dlerror());
    return 2;
  }
  void (**handler)(const char *) = dlsym(model, "decoda_fail_handler");
  void (*entry)(void **) = (void (*)(void **))dlsym(model, "decoda_entry_f");
  if (!handler || !entry)
    return 2;
  *handler = on_failure;
  for (int i = 0; i < ROWS * WIDTH; ++i)
    x[i] = (float)(i % 7);
  for (int i = 0; i < 32; ++i)
    table[i] = (float)i;

  Desc2 out[2];
  if (!call(entry, 1, out)) {
    printf("unexpected failure: %s\n", failure);
    return 1;
  }
  const float *y = out[0].aligned, *e = out[1].aligned;
  int ok = y[5] == 10.0f && e[0] == 8.0f && e[8] == 16.0f;
  free(out[0].allocated); /* the outputs are the caller's, allocated with libc's malloc */
  free(out[1].allocated);
  printf("ok call: %s\n", ok ? "outputs right" : "outputs WRONG");

  int calls = atoi(argv[2]), failed = 0;
  for (int i = 0; i < 8; ++i) /* warm-up: the thread's TLS block, stdio buffers */
    failed += !call(entry, 9, out);
  size_t before = in_use();
  for (int i = 0; i < calls; ++i)
    failed += !call(entry, 9, out);
  size_t after = in_use();
  printf("failed calls: %d of %d: %s\n", failed, calls + 8, failure);
  long long growth = (long long)after - (long long)before;
  /* A lost y would be 256 KiB per call. */
  printf("bytes in use after the failed calls: %s (%lld)\n",
         growth < 65536 ? "unchanged" : "GREW", growth);
  dlclose(model);
  return ok && failed == calls + 8 && growth < 65536 ? 0 : 1;
}
