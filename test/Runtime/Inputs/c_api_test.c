/* Exercises the C API of libdecoda_runtime (include/decoda-c/runtime.h) on the hand-written
 * model Inputs/fake_model.c. Usage: c_api_test MODEL.so MODE, MODE one of
 *   api      metadata, validation errors, results, failed checks, thread-local errors
 *   threads  concurrent runs (with and without failing checks) on one model
 *   clean    only successful runs, repeated: under LeakSanitizer nothing may leak
 * Prints "ok <what>" per check and exits 1 at the first failure.
 */
#include "decoda-c/runtime.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *gPath;

#define CHECK(cond, ...)                                                                      \
  do {                                                                                       \
    if (!(cond)) {                                                                           \
      printf("FAIL line %d: %s: ", __LINE__, #cond);                                         \
      printf(__VA_ARGS__);                                                                   \
      printf(" (last error: %s)\n", decoda_last_error());                                    \
      exit(1);                                                                               \
    }                                                                                        \
  } while (0)

static int contains(const char *haystack, const char *needle) {
  return strstr(haystack, needle) != NULL;
}

static decoda_tensor tensor(decoda_dtype dtype, int rank, const int64_t *shape, void *data) {
  decoda_tensor t;
  memset(&t, 0, sizeof t);
  t.dtype = dtype;
  t.rank = rank;
  for (int i = 0; i < rank; ++i)
    t.shape[i] = shape[i];
  t.data = data;
  return t;
}

static decoda_model *load(void) {
  decoda_model *m = NULL;
  decoda_status s = decoda_model_load(gPath, &m);
  CHECK(s == DECODA_OK && m, "load %s", gPath);
  return m;
}

/* add(x, y) on an n x 4 tensor with values seeded by `seed`; checks both outputs. */
static void runAdd(decoda_model *m, int n, float seed) {
  int e = decoda_model_find_entry(m, "add");
  float *x = malloc(sizeof(float) * 4 * (n ? n : 1)), *y = malloc(sizeof(float) * 4 * (n ? n : 1));
  for (int i = 0; i < 4 * n; ++i) {
    x[i] = seed + (float)i;
    y[i] = 2.0f * seed - (float)i * 0.5f;
  }
  int64_t shape[2] = {n, 4};
  decoda_tensor in[2] = {tensor(DECODA_F32, 2, shape, x), tensor(DECODA_F32, 2, shape, y)};
  decoda_tensor out[2];
  decoda_status s = decoda_run(m, e, in, 2, out, 2);
  CHECK(s == DECODA_OK, "add status %d", s);
  for (int o = 0; o < 2; ++o) {
    CHECK(out[o].dtype == DECODA_F32 && out[o].rank == 2 && out[o].shape[0] == n &&
              out[o].shape[1] == 4 && out[o].data,
          "add output %d", o);
    CHECK(out[o].data != x && out[o].data != y, "outputs are fresh buffers");
  }
  const float *sum = out[0].data, *alias = out[1].data;
  for (int i = 0; i < 4 * n; ++i) {
    CHECK(sum[i] == x[i] + y[i], "sum[%d] = %g, expected %g", i, sum[i], x[i] + y[i]);
    CHECK(alias[i] == x[i], "x_alias[%d]", i);
  }
  decoda_tensor_free(&out[0]);
  decoda_tensor_free(&out[1]);
  CHECK(out[0].data == NULL, "decoda_tensor_free clears data");

  /* Device memory is for CUDA models: a CPU model says so, and nothing is device memory. */
  void *dev = x;
  CHECK(decoda_device_alloc(m, 16, &dev) == DECODA_ERROR_NO_DEVICE && dev == x,
        "decoda_device_alloc on a CPU model");
  CHECK(strstr(decoda_last_error(), "is a CPU model") != NULL, "message: %s", decoda_last_error());
  CHECK(decoda_device_copy(m, y, x, sizeof(float)) == DECODA_ERROR_NO_DEVICE,
        "decoda_device_copy on a CPU model");
  CHECK(decoda_device_free(m, x) == DECODA_ERROR_NO_DEVICE, "decoda_device_free on a CPU model");
  CHECK(decoda_is_device_pointer(m, x) == 0 && decoda_is_device_pointer(NULL, x) == 0,
        "no device pointers");
  CHECK(decoda_device_alloc(NULL, 16, &dev) == DECODA_ERROR_ARGUMENT, "null model");
  free(x);
  free(y);
}

static void runConsts(decoda_model *m) {
  int e = decoda_model_find_entry(m, "consts");
  decoda_tensor out[5];
  CHECK(decoda_run(m, e, NULL, 0, out, 5) == DECODA_OK, "consts");
  const float *c = out[0].data;
  CHECK(c[0] == 1.5f && c[1] == -2.0f && c[2] == 0.25f, "constant output");
  const int32_t *t = out[1].data, *t2 = out[2].data;
  int32_t tExpected[6] = {0, 3, 1, 4, 2, 5};
  for (int i = 0; i < 6; ++i) {
    CHECK(t[i] == tExpected[i], "strided output t[%d] = %d", i, t[i]);
    CHECK(t2[i] == i, "t2[%d]", i);
  }
  CHECK(out[3].rank == 0 && *(const double *)out[3].data == 42.0, "rank-0 global output");
  const int8_t *o = out[4].data;
  CHECK(out[4].shape[0] == 2 && o[0] == -7 && o[1] == 9, "output with an offset");
  for (int i = 0; i < 5; ++i)
    decoda_tensor_free(&out[i]);
}

/* embed with ids [bad? 7 : 1, 0]; returns the status. */
static decoda_status runEmbed(decoda_model *m, int bad, int64_t badId) {
  int e = decoda_model_find_entry(m, "embed");
  int64_t ids[2] = {bad ? badId : 1, 0};
  uint16_t table[8];
  for (int i = 0; i < 8; ++i)
    table[i] = (uint16_t)(0x3c00 + i); /* f16 bit patterns */
  int64_t idShape[1] = {2}, tableShape[2] = {4, 2};
  decoda_tensor in[2] = {tensor(DECODA_I64, 1, idShape, ids),
                         tensor(DECODA_F16, 2, tableShape, table)};
  decoda_tensor out[1];
  decoda_status s = decoda_run(m, e, in, 2, out, 1);
  if (s == DECODA_OK) {
    const uint16_t *o = out[0].data;
    CHECK(out[0].shape[0] == 2 && out[0].shape[1] == 2 && o[0] == 0x3c02 && o[1] == 0x3c03 &&
              o[2] == 0x3c00 && o[3] == 0x3c01,
          "embed values");
    decoda_tensor_free(&out[0]);
  } else {
    CHECK(out[0].data == NULL, "no output after a failure");
  }
  return s;
}

static void *lastErrorThread(void *arg) {
  (void)arg;
  CHECK(strcmp(decoda_last_error(), "") == 0, "a new thread starts with no error");
  return NULL;
}

static void testApi(void) {
  decoda_model *m = NULL;
  CHECK(strcmp(decoda_last_error(), "") == 0, "no error before the first call");
  CHECK(decoda_model_load(NULL, &m) == DECODA_ERROR_ARGUMENT, "null path");
  CHECK(decoda_model_load(gPath, NULL) == DECODA_ERROR_ARGUMENT, "null out");
  CHECK(decoda_model_load("/nonexistent/model.so", &m) == DECODA_ERROR_IO && m == NULL, "IO");
  CHECK(contains(decoda_last_error(), "/nonexistent/model.so"), "the message names the path");
  printf("ok load errors\n");

  /* The error is thread-local: another thread sees none. */
  pthread_t th;
  pthread_create(&th, NULL, lastErrorThread, NULL);
  pthread_join(th, NULL);
  CHECK(contains(decoda_last_error(), "/nonexistent/model.so"), "still this thread's error");
  printf("ok thread-local last error\n");

  CHECK(decoda_dtype_size(DECODA_F32) == 4 && decoda_dtype_size(DECODA_BF16) == 2 &&
            decoda_dtype_size(DECODA_I1) == 1 && decoda_dtype_size(DECODA_I64) == 8 &&
            decoda_dtype_size((decoda_dtype)99) == 0,
        "dtype sizes");
  CHECK(strcmp(decoda_dtype_name(DECODA_BF16), "bf16") == 0 &&
            strcmp(decoda_dtype_name(DECODA_I1), "i1") == 0,
        "dtype names");
  printf("ok dtypes\n");

  m = load();
  CHECK(decoda_model_num_entries(m) == 5, "5 entries");
  CHECK(strcmp(decoda_model_entry_name(m, 4), "scale2") == 0, "entry name");
  CHECK(decoda_model_entry_name(m, 5) == NULL && decoda_model_entry_name(m, -1) == NULL,
        "bad entry index");
  CHECK(decoda_model_find_entry(m, "mix") == 3 && decoda_model_find_entry(m, "nope") == -1 &&
            decoda_model_find_entry(m, NULL) == -1,
        "find entry");
  CHECK(decoda_entry_num_inputs(m, 0) == 2 && decoda_entry_num_outputs(m, 2) == 5 &&
            decoda_entry_num_inputs(m, 9) == -1,
        "counts");
  const char *name;
  decoda_dtype dtype;
  int32_t rank;
  const int64_t *shape;
  CHECK(decoda_entry_input(m, 1, 1, &name, &dtype, &rank, &shape) == DECODA_OK &&
            strcmp(name, "table") == 0 && dtype == DECODA_F16 && rank == 2 && shape[0] == 4 &&
            shape[1] == 2,
        "input metadata");
  CHECK(decoda_entry_output(m, 0, 0, &name, &dtype, &rank, &shape) == DECODA_OK &&
            strcmp(name, "sum") == 0 && rank == 2 && shape[0] == -1 && shape[1] == 4,
        "output metadata");
  CHECK(decoda_entry_output(m, 2, 3, &name, &dtype, &rank, &shape) == DECODA_OK && rank == 0 &&
            shape != NULL,
        "rank-0 metadata");
  CHECK(decoda_entry_input(m, 0, 2, &name, &dtype, &rank, &shape) == DECODA_ERROR_ARGUMENT,
        "bad input index");
  CHECK(decoda_entry_output(m, 7, 0, NULL, NULL, NULL, NULL) == DECODA_ERROR_ARGUMENT,
        "bad entry index");
  printf("ok metadata\n");

  /* Validation. */
  float x[8] = {0}, y[8] = {0};
  int64_t s24[2] = {2, 4}, s25[2] = {2, 5}, s8[1] = {8}, sneg[2] = {-1, 4};
  decoda_tensor out[2];
  decoda_tensor in[2] = {tensor(DECODA_F32, 2, s24, x), tensor(DECODA_F32, 2, s24, y)};
  CHECK(decoda_run(m, 0, in, 1, out, 2) == DECODA_ERROR_ARGUMENT &&
            contains(decoda_last_error(), "entry 'add' takes 2 inputs (x, y), got 1"),
        "input count");
  CHECK(decoda_run(m, 0, in, 2, out, 1) == DECODA_ERROR_ARGUMENT &&
            contains(decoda_last_error(), "entry 'add' has 2 outputs (sum, x_alias)"),
        "output count");
  CHECK(decoda_run(m, 0, NULL, 2, out, 2) == DECODA_ERROR_ARGUMENT, "null inputs");
  CHECK(decoda_run(m, 0, in, 2, NULL, 2) == DECODA_ERROR_ARGUMENT, "null outputs");
  CHECK(decoda_run(NULL, 0, in, 2, out, 2) == DECODA_ERROR_ARGUMENT, "null model");
  CHECK(decoda_run(m, 5, in, 2, out, 2) == DECODA_ERROR_ARGUMENT &&
            contains(decoda_last_error(), "entry index 5 out of range"),
        "entry index");
  in[1].dtype = DECODA_F16;
  CHECK(decoda_run(m, 0, in, 2, out, 2) == DECODA_ERROR_DTYPE &&
            contains(decoda_last_error(),
                     "entry 'add': input 'y' (#1): expected dtype f32, found f16"),
        "dtype: %s", decoda_last_error());
  in[1].dtype = (decoda_dtype)42;
  CHECK(decoda_run(m, 0, in, 2, out, 2) == DECODA_ERROR_DTYPE &&
            contains(decoda_last_error(), "found <invalid dtype 42>"),
        "invalid dtype");
  in[1] = tensor(DECODA_F32, 2, s25, y);
  CHECK(decoda_run(m, 0, in, 2, out, 2) == DECODA_ERROR_SHAPE &&
            contains(decoda_last_error(), "entry 'add': input 'y' (#1): expected shape [?, 4], "
                                          "found [2, 5] (dimension 1 is 5, expected 4)"),
        "static extent: %s", decoda_last_error());
  in[1] = tensor(DECODA_F32, 1, s8, y);
  CHECK(decoda_run(m, 0, in, 2, out, 2) == DECODA_ERROR_SHAPE &&
            contains(decoda_last_error(), "expected shape [?, 4] (rank 2), found [8] (rank 1)"),
        "rank: %s", decoda_last_error());
  in[1] = tensor(DECODA_F32, 2, sneg, y);
  CHECK(decoda_run(m, 0, in, 2, out, 2) == DECODA_ERROR_SHAPE &&
            contains(decoda_last_error(), "negative extent"),
        "negative extent");
  in[1] = tensor(DECODA_F32, 2, s24, NULL);
  CHECK(decoda_run(m, 0, in, 2, out, 2) == DECODA_ERROR_ARGUMENT &&
            contains(decoda_last_error(), "input 'y' (#1): data is a null pointer"),
        "null data");
  in[1].rank = 9;
  CHECK(decoda_run(m, 0, in, 2, out, 2) == DECODA_ERROR_SHAPE, "rank 9");
  printf("ok validation\n");

  /* Results, including an empty dynamic extent whose data pointer is null. */
  runAdd(m, 2, 1.0f);
  runAdd(m, 5, -3.0f);
  {
    int64_t s04[2] = {0, 4};
    decoda_tensor e0[2] = {tensor(DECODA_F32, 2, s04, NULL), tensor(DECODA_F32, 2, s04, NULL)};
    CHECK(decoda_run(m, 0, e0, 2, out, 2) == DECODA_OK && out[0].shape[0] == 0 && out[0].data,
          "empty tensors");
    decoda_tensor_free(&out[0]);
    decoda_tensor_free(&out[1]);
  }
  runConsts(m);
  {
    uint8_t b[3] = {1, 0, 1};
    int8_t c[3] = {-1, 2, 3};
    int32_t d[3] = {10, 20, 30};
    double ev = 2.0;
    int64_t s3[1] = {3};
    decoda_tensor mi[4] = {tensor(DECODA_I1, 1, s3, b), tensor(DECODA_I8, 1, s3, c),
                           tensor(DECODA_I32, 1, s3, d), tensor(DECODA_F64, 0, NULL, &ev)};
    decoda_tensor mo[1];
    CHECK(decoda_run(m, 3, mi, 4, mo, 1) == DECODA_OK, "mix");
    const double *r = mo[0].data;
    CHECK(r[0] == -2 && r[1] == 40 && r[2] == 6, "mix values");
    decoda_tensor_free(&mo[0]);
  }
  CHECK(runEmbed(m, 0, 0) == DECODA_OK, "embed");
  printf("ok results\n");

  /* A failed run-time check returns an error with the model's message; runs work afterwards. */
  CHECK(runEmbed(m, 1, 7) == DECODA_ERROR_RUNTIME &&
            strcmp(decoda_last_error(),
                   "entry 'embed': run-time check failed: embedding id 7 out of range [0, 4)") ==
                0,
        "failed check: %s", decoda_last_error());
  CHECK(runEmbed(m, 1, -5) == DECODA_ERROR_RUNTIME &&
            contains(decoda_last_error(), "embedding id -5 out of range"),
        "failed check again");
  CHECK(runEmbed(m, 0, 0) == DECODA_OK, "a run after a failure");
  runAdd(m, 3, 2.0f);
  printf("ok failed checks\n");

  /* Loading the same model twice shares the library; each handle frees independently. */
  decoda_model *m2 = load();
  decoda_model_free(m);
  runAdd(m2, 2, 4.0f);
  CHECK(runEmbed(m2, 1, 9) == DECODA_ERROR_RUNTIME, "failure through the second handle");
  decoda_model_free(m2);
  decoda_model_free(NULL);
  printf("ok two handles\n");
}

typedef struct {
  decoda_model *model;
  int id;
  int failures;
} Worker;

static void *worker(void *arg) {
  Worker *w = arg;
  for (int i = 0; i < 300; ++i) {
    runAdd(w->model, 1 + (w->id + i) % 7, (float)(w->id * 1000 + i));
    if ((i + w->id) % 3 == 0) {
      int64_t badId = 100 + w->id * 1000 + i;
      CHECK(runEmbed(w->model, 1, badId) == DECODA_ERROR_RUNTIME, "worker failure");
      char expected[128];
      snprintf(expected, sizeof expected, "embedding id %lld out of range", (long long)badId);
      CHECK(contains(decoda_last_error(), expected), "thread %d sees its own message", w->id);
      ++w->failures;
    } else {
      CHECK(runEmbed(w->model, 0, 0) == DECODA_OK, "worker embed");
    }
    runConsts(w->model);
  }
  return NULL;
}

static void testThreads(void) {
  decoda_model *m = load();
  enum { N = 8 };
  pthread_t th[N];
  Worker w[N];
  for (int i = 0; i < N; ++i) {
    w[i].model = m;
    w[i].id = i;
    w[i].failures = 0;
    pthread_create(&th[i], NULL, worker, &w[i]);
  }
  int failures = 0;
  for (int i = 0; i < N; ++i) {
    pthread_join(th[i], NULL);
    failures += w[i].failures;
  }
  CHECK(failures == 800, "%d failures", failures);
  decoda_model_free(m);
  printf("ok %d threads\n", N);
}

static void testClean(void) {
  decoda_model *m = load();
  for (int i = 0; i < 200; ++i) {
    runAdd(m, i % 9, (float)i);
    runConsts(m);
    CHECK(runEmbed(m, 0, 0) == DECODA_OK, "embed");
  }
  decoda_model_free(m);
  printf("ok clean\n");
}

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: c_api_test MODEL.so api|threads|clean\n");
    return 2;
  }
  gPath = argv[1];
  if (!strcmp(argv[2], "api"))
    testApi();
  else if (!strcmp(argv[2], "threads"))
    testThreads();
  else if (!strcmp(argv[2], "clean"))
    testClean();
  else
    return 2;
  printf("done\n");
  return 0;
}
