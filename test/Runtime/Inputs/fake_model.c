/* A compiled Decoda model written by hand against docs/ABI.md, for the runtime tests.
 *
 *   add(x: f32[?,4], y: f32[?,4]) -> (sum: f32[?,4], x_alias: f32[?,4])
 *       sum is malloc'd with allocated != aligned; x_alias is the input x itself (not freed).
 *   embed(ids: i64[?], table: f16[4,2]) -> out: f16[?,2]
 *       an id outside [0, 4) is a failed run-time check (decoda_fail_handler); like a compiled
 *       model (CallMemory.c), it frees what the call allocated before reporting it.
 *   consts() -> (c: f32[3], t: i32[3,2], t2: i32[2,3], g: f64[], o: i8[2])
 *       c is a constant (allocated 0xdeadbeef), t a transposed (strided) view of t2's buffer
 *       (freed once), g points into a global of this library, o a view with a non-zero offset.
 *   mix(b: i1[3], c: i8[3], d: i32[3], e: f64[]) -> out: f64[3] = (b ? c : d) * e
 *   scale2(x: bf16[?]) -> y: bf16[?] = 2 * x
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const int32_t decoda_abi_version = 1;

const char decoda_signature[] =
    "decoda-signature 1\n"
    "entry add\n"
    "input x f32 2 -1 4\n"
    "input y f32 2 -1 4\n"
    "output sum f32 2 -1 4\n"
    "output x_alias f32 2 -1 4\n"
    "end\n"
    "entry embed\n"
    "input ids i64 1 -1\n"
    "input table f16 2 4 2\n"
    "output out f16 2 -1 2\n"
    "end\n"
    "entry consts\n"
    "output c f32 1 3\n"
    "output t i32 2 3 2\n"
    "output t2 i32 2 2 3\n"
    "output g f64 0\n"
    "output o i8 1 2\n"
    "end\n"
    "entry mix\n"
    "input b i1 1 3\n"
    "input c i8 1 3\n"
    "input d i32 1 3\n"
    "input e f64 0\n"
    "output out f64 1 3\n"
    "end\n"
    "entry scale2\n"
    "input x bf16 1 -1\n"
    "output y bf16 1 -1\n"
    "end\n";

void (*decoda_fail_handler)(const char *) = 0;

static void fail(const char *message) {
  if (decoda_fail_handler)
    decoda_fail_handler(message);
  fprintf(stderr, "%s\n", message);
  abort();
}

/* Descriptors: allocated, aligned, offset, sizes[r], strides[r]. */
typedef struct { void *allocated, *aligned; int64_t offset, sizes[1], strides[1]; } Desc1;
typedef struct { void *allocated, *aligned; int64_t offset, sizes[2], strides[2]; } Desc2;
typedef struct { void *allocated, *aligned; int64_t offset; } Desc0;

void decoda_entry_add(void **args) {
  Desc2 *x = args[0], *y = args[1];
  Desc2 *out = args[2]; /* sum, then x_alias */
  int64_t n = x->sizes[0];
  if (y->sizes[0] != n)
    fail("add: x and y differ in their dynamic extent");
  char *raw = malloc((size_t)(n * 4) * sizeof(float) + 64);
  float *sum = (float *)(((uintptr_t)raw + 63) & ~(uintptr_t)63);
  if ((char *)sum == raw)
    sum += 16; /* make allocated != aligned in every case */
  const float *xa = (const float *)x->aligned + x->offset;
  const float *ya = (const float *)y->aligned + y->offset;
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < 4; ++j)
      sum[i * 4 + j] = xa[i * x->strides[0] + j * x->strides[1]] +
                       ya[i * y->strides[0] + j * y->strides[1]];
  out[0].allocated = raw;
  out[0].aligned = sum;
  out[0].offset = 0;
  out[0].sizes[0] = n;
  out[0].sizes[1] = 4;
  out[0].strides[0] = 4;
  out[0].strides[1] = 1;
  out[1] = *x;
}

void decoda_entry_embed(void **args) {
  Desc1 *ids = args[0];
  Desc2 *table = args[1];
  Desc2 *out = args[2];
  int64_t n = ids->sizes[0];
  const int64_t *id = (const int64_t *)ids->aligned + ids->offset;
  const uint16_t *tab = (const uint16_t *)table->aligned + table->offset;
  uint16_t *o = malloc((size_t)(n * 2 + 1) * sizeof(uint16_t));
  for (int64_t i = 0; i < n; ++i) {
    int64_t v = id[i * ids->strides[0]];
    if (v < 0 || v >= 4) {
      char message[128]; /* built on the stack: the runtime must copy it */
      snprintf(message, sizeof message, "embedding id %lld out of range [0, 4)", (long long)v);
      free(o);
      fail(message);
    }
    for (int64_t j = 0; j < 2; ++j)
      o[i * 2 + j] = tab[v * table->strides[0] + j * table->strides[1]];
  }
  out->allocated = o;
  out->aligned = o;
  out->offset = 0;
  out->sizes[0] = n;
  out->sizes[1] = 2;
  out->strides[0] = 2;
  out->strides[1] = 1;
}

static const float kConstant[3] = {1.5f, -2.0f, 0.25f};
static double gGlobal = 42.0;

void decoda_entry_consts(void **args) {
  char *p = args[0];
  Desc1 *c = (Desc1 *)p;
  p += sizeof(Desc1);
  Desc2 *t = (Desc2 *)p;
  p += sizeof(Desc2);
  Desc2 *t2 = (Desc2 *)p;
  p += sizeof(Desc2);
  Desc0 *g = (Desc0 *)p;
  p += sizeof(Desc0);
  Desc1 *o = (Desc1 *)p;

  c->allocated = (void *)(uintptr_t)0xdeadbeef;
  c->aligned = (void *)kConstant;
  c->offset = 0;
  c->sizes[0] = 3;
  c->strides[0] = 1;

  int32_t *buf = malloc(6 * sizeof(int32_t)); /* t2 = [[0, 1, 2], [3, 4, 5]] */
  for (int i = 0; i < 6; ++i)
    buf[i] = i;
  t2->allocated = buf;
  t2->aligned = buf;
  t2->offset = 0;
  t2->sizes[0] = 2;
  t2->sizes[1] = 3;
  t2->strides[0] = 3;
  t2->strides[1] = 1;
  t->allocated = buf; /* t = transpose(t2): [[0, 3], [1, 4], [2, 5]] */
  t->aligned = buf;
  t->offset = 0;
  t->sizes[0] = 3;
  t->sizes[1] = 2;
  t->strides[0] = 1;
  t->strides[1] = 3;

  g->allocated = &gGlobal;
  g->aligned = &gGlobal;
  g->offset = 0;

  int8_t *bytes = malloc(3); /* o = bytes[1:3] = [-7, 9] */
  bytes[0] = 100;
  bytes[1] = -7;
  bytes[2] = 9;
  o->allocated = bytes;
  o->aligned = bytes;
  o->offset = 1;
  o->sizes[0] = 2;
  o->strides[0] = 1;
}

void decoda_entry_mix(void **args) {
  Desc1 *b = args[0], *c = args[1], *d = args[2];
  Desc0 *e = args[3];
  Desc1 *out = args[4];
  const uint8_t *bv = (const uint8_t *)b->aligned + b->offset;
  const int8_t *cv = (const int8_t *)c->aligned + c->offset;
  const int32_t *dv = (const int32_t *)d->aligned + d->offset;
  double ev = ((const double *)e->aligned)[e->offset];
  double *o = malloc(3 * sizeof(double));
  for (int i = 0; i < 3; ++i)
    o[i] = (bv[i] ? (double)cv[i] : (double)dv[i]) * ev;
  out->allocated = o;
  out->aligned = o;
  out->offset = 0;
  out->sizes[0] = 3;
  out->strides[0] = 1;
}

void decoda_entry_scale2(void **args) {
  Desc1 *x = args[0], *y = args[1];
  int64_t n = x->sizes[0];
  const uint16_t *xv = (const uint16_t *)x->aligned + x->offset;
  uint16_t *o = malloc((size_t)(n + 1) * sizeof(uint16_t));
  for (int64_t i = 0; i < n; ++i) {
    uint32_t bits = (uint32_t)xv[i] << 16;
    float f;
    memcpy(&f, &bits, 4);
    f *= 2.0f; /* exact */
    memcpy(&bits, &f, 4);
    o[i] = (uint16_t)(bits >> 16);
  }
  y->allocated = o;
  y->aligned = o;
  y->offset = 0;
  y->sizes[0] = n;
  y->strides[0] = 1;
}
