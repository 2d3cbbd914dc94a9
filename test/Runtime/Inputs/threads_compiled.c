/* Concurrent decoda_run calls on one loaded, compiled (OpenMP-parallel) model.
 *
 * usage: threads_compiled MODEL.so ENTRY THREADS ITERATIONS
 *
 * Every f32 input gets deterministic pseudo-random values; dynamic extents take the lengths below.
 * The results of one thread, computed first, are the expected ones; then THREADS threads run the
 * entry ITERATIONS times each at rotating lengths and compare every output byte for byte. A
 * second model handle from the same file runs in the same threads (one artifact loaded twice).
 * Prints "ok" lines; exits 1 on the first mismatch or error. Built as it is for the plain runtime
 * and, with the runtime sources, under ThreadSanitizer (tsan_compiled_model.test). */
#include "decoda-c/runtime.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NLEN 4
static const int64_t kLengths[NLEN] = {1, 7, 33, 70};

static decoda_model *gModel[2];
static int gEntry[2];
static int gNumIn, gNumOut, gIterations;
static decoda_tensor gInputs[NLEN][16];
static decoda_tensor gExpected[NLEN][16];

static float noise(uint64_t *s) {
  *s = *s * 6364136223846793005ull + 1442695040888963407ull;
  return (float)((int64_t)(*s >> 40) - (1 << 23)) / (float)(1 << 23) * 0.5f;
}

static int make_inputs(void) {
  for (int l = 0; l < NLEN; ++l) {
    uint64_t seed = 42; /* the same weights at every length */
    for (int i = 0; i < gNumIn; ++i) {
      const char *name;
      decoda_dtype dt;
      int32_t rank;
      const int64_t *shape;
      if (decoda_entry_input(gModel[0], gEntry[0], i, &name, &dt, &rank, &shape) != DECODA_OK ||
          dt != DECODA_F32) {
        fprintf(stderr, "input %d: not f32\n", i);
        return 1;
      }
      decoda_tensor *t = &gInputs[l][i];
      t->dtype = dt;
      t->rank = rank;
      int64_t n = 1;
      for (int d = 0; d < rank; ++d) {
        t->shape[d] = shape[d] < 0 ? kLengths[l] : shape[d];
        n *= t->shape[d];
      }
      float *data = malloc((size_t)(n ? n : 1) * sizeof(float));
      for (int64_t k = 0; k < n; ++k)
        data[k] = noise(&seed) + (rank == 1 ? 1.0f : 0.0f);
      t->data = data;
    }
  }
  return 0;
}

static int same(const decoda_tensor *a, const decoda_tensor *b) {
  if (a->rank != b->rank || a->dtype != b->dtype)
    return 0;
  int64_t n = 1;
  for (int d = 0; d < a->rank; ++d) {
    if (a->shape[d] != b->shape[d])
      return 0;
    n *= a->shape[d];
  }
  return memcmp(a->data, b->data, (size_t)n * decoda_dtype_size(a->dtype)) == 0;
}

static void *worker(void *arg) {
  intptr_t id = (intptr_t)arg;
  decoda_tensor out[16];
  for (int it = 0; it < gIterations; ++it) {
    int l = (int)((id + it) % NLEN);
    int m = (int)((id + it) % 2);
    if (decoda_run(gModel[m], gEntry[m], gInputs[l], gNumIn, out, gNumOut) != DECODA_OK) {
      fprintf(stderr, "thread %d: %s\n", (int)id, decoda_last_error());
      exit(1);
    }
    for (int o = 0; o < gNumOut; ++o) {
      if (!same(&out[o], &gExpected[l][o])) {
        fprintf(stderr, "thread %d iteration %d T=%lld: output %d differs\n", (int)id, it,
                (long long)kLengths[l], o);
        exit(1);
      }
      decoda_tensor_free(&out[o]);
    }
  }
  return NULL;
}

int main(int argc, char **argv) {
  if (argc != 5) {
    fprintf(stderr, "usage: %s MODEL.so ENTRY THREADS ITERATIONS\n", argv[0]);
    return 2;
  }
  int threads = atoi(argv[3]);
  gIterations = atoi(argv[4]);
  for (int m = 0; m < 2; ++m) {
    if (decoda_model_load(argv[1], &gModel[m]) != DECODA_OK) {
      fprintf(stderr, "load: %s\n", decoda_last_error());
      return 1;
    }
    gEntry[m] = decoda_model_find_entry(gModel[m], argv[2]);
    if (gEntry[m] < 0) {
      fprintf(stderr, "no entry %s\n", argv[2]);
      return 1;
    }
  }
  gNumIn = decoda_entry_num_inputs(gModel[0], gEntry[0]);
  gNumOut = decoda_entry_num_outputs(gModel[0], gEntry[0]);
  if (gNumIn > 16 || gNumOut > 16 || make_inputs())
    return 1;
  for (int l = 0; l < NLEN; ++l)
    if (decoda_run(gModel[0], gEntry[0], gInputs[l], gNumIn, gExpected[l], gNumOut) !=
        DECODA_OK) {
      fprintf(stderr, "sequential run: %s\n", decoda_last_error());
      return 1;
    }
  printf("ok sequential\n");
  pthread_t tid[64];
  if (threads > 64)
    threads = 64;
  for (intptr_t i = 0; i < threads; ++i)
    pthread_create(&tid[i], NULL, worker, (void *)i);
  for (int i = 0; i < threads; ++i)
    pthread_join(tid[i], NULL);
  printf("ok %d threads x %d runs, 2 handles\n", threads, gIterations);
  for (int l = 0; l < NLEN; ++l) {
    for (int i = 0; i < gNumIn; ++i)
      free(gInputs[l][i].data);
    for (int o = 0; o < gNumOut; ++o)
      decoda_tensor_free(&gExpected[l][o]);
  }
  decoda_model_free(gModel[0]);
  decoda_model_free(gModel[1]);
  printf("done\n");
  return 0;
}
