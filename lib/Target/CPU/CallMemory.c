/* CallMemory.c - the memory a compiled model allocates during one call (docs/ABI.md).
 *
 * decoda-compile renames the model's malloc/calloc/aligned_alloc/realloc/free calls to the
 * decoda_mem_* functions below (routeAllocationsThroughHooks, CPUTarget.cpp) and links this file
 * into every model, verbatim, as part of its support source; the compiler's JIT
 * (lib/Driver/JitRun.cpp) links it too. Each decoda_entry_<name> brackets its call with
 * decoda_call_begin/decoda_call_end, so every block the call allocates on the calling thread and
 * has not freed yet is known. When a run-time check fails, decoda_check_failed calls
 * decoda_call_unwind before the fail handler leaves the call (longjmp): the call's live blocks are
 * freed instead of lost. On success decoda_call_end forgets them: what is still live is the
 * call's outputs, which belong to the caller (freed with libc free).
 *
 * Blocks are still libc malloc's (no header, no private pool), so a caller may free an output
 * with free() as before. The calling thread's live blocks are in an open-addressing hash table
 * (linear probing, deletion by backward shift) kept in the call's frame on the entry point's
 * stack, and on the heap once it outgrows that. Only the thread that called the entry point
 * tracks: an OpenMP worker has no call (decoda_current_call is thread-local), so its blocks are
 * plain malloc/free. That is sound because the generated code allocates and frees a buffer on
 * one thread (a parallel iteration's buffers are its own), and run-time checks run on the
 * calling thread outside parallel regions (docs/ABI.md).
 *
 * Other resources of a call (the CUDA host side's device buffers and streams) are tracked with
 * decoda_call_track and a release function. Self-contained C: no project headers. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct decoda_call_slot {
  void *key;                  /* 0: empty */
  void (*release)(void *key); /* how decoda_call_unwind releases it */
};

#define DECODA_CALL_INLINE_SLOTS 32 /* a power of two */

struct decoda_call {
  struct decoda_call *outer; /* the thread's enclosing call, if any */
  struct decoda_call_slot *slots;
  size_t capacity; /* a power of two */
  size_t count;
  int untracked; /* a table that could not grow: later blocks are not tracked */
  struct decoda_call_slot inline_slots[DECODA_CALL_INLINE_SLOTS];
};

static __thread struct decoda_call *decoda_current_call;

static size_t decoda_call_hash(const void *key, size_t capacity) {
  uint64_t h = (uint64_t)(uintptr_t)key * UINT64_C(0x9E3779B97F4A7C15);
  return (size_t)(h >> 32) & (capacity - 1);
}

static void decoda_call_insert(struct decoda_call_slot *slots, size_t capacity, void *key,
                               void (*release)(void *)) {
  size_t i = decoda_call_hash(key, capacity);
  while (slots[i].key)
    i = (i + 1) & (capacity - 1);
  slots[i].key = key;
  slots[i].release = release;
}

/* Keeps the table at most half full; returns 0 when it cannot grow (out of memory). */
static int decoda_call_reserve(struct decoda_call *call) {
  if (2 * (call->count + 1) <= call->capacity)
    return 1;
  size_t capacity = 2 * call->capacity;
  struct decoda_call_slot *slots = calloc(capacity, sizeof *slots);
  if (!slots)
    return 0;
  for (size_t i = 0; i < call->capacity; ++i)
    if (call->slots[i].key)
      decoda_call_insert(slots, capacity, call->slots[i].key, call->slots[i].release);
  if (call->slots != call->inline_slots)
    free(call->slots);
  call->slots = slots;
  call->capacity = capacity;
  return 1;
}

void decoda_call_begin(struct decoda_call *call) {
  call->outer = decoda_current_call;
  call->slots = call->inline_slots;
  call->capacity = DECODA_CALL_INLINE_SLOTS;
  call->count = 0;
  call->untracked = 0;
  memset(call->inline_slots, 0, sizeof call->inline_slots);
  decoda_current_call = call;
}

/* The call returned: what is still live is its outputs, now the caller's. */
void decoda_call_end(struct decoda_call *call) {
  if (call->slots != call->inline_slots)
    free(call->slots);
  call->slots = call->inline_slots;
  call->count = 0;
  decoda_current_call = call->outer;
}

/* Records `key` as a resource of the thread's current call (none: nothing to do). */
void decoda_call_track(void *key, void (*release)(void *)) {
  struct decoda_call *call = decoda_current_call;
  if (!call || !key)
    return;
  if (call->untracked || !decoda_call_reserve(call)) {
    /* Out of memory for the table: the block works, it is only lost if a check fails. */
    call->untracked = 1;
    return;
  }
  decoda_call_insert(call->slots, call->capacity, key, release);
  ++call->count;
}

/* Forgets `key` (released by the model itself); returns 1 when it was tracked. */
int decoda_call_untrack(void *key) {
  struct decoda_call *call = decoda_current_call;
  if (!call || !key || call->count == 0)
    return 0;
  size_t mask = call->capacity - 1;
  size_t i = decoda_call_hash(key, call->capacity);
  while (call->slots[i].key != key) {
    if (!call->slots[i].key)
      return 0;
    i = (i + 1) & mask;
  }
  /* Backward-shift deletion: move later entries of the probe run into the hole. */
  size_t hole = i;
  for (size_t j = (i + 1) & mask; call->slots[j].key; j = (j + 1) & mask) {
    size_t home = decoda_call_hash(call->slots[j].key, call->capacity);
    /* The entry at j may fill the hole if its home does not lie in (hole, j]. */
    if (((j - home) & mask) >= ((j - hole) & mask)) {
      call->slots[hole] = call->slots[j];
      hole = j;
    }
  }
  call->slots[hole].key = 0;
  call->slots[hole].release = 0;
  --call->count;
  return 1;
}

/* A run-time check failed: releases everything the thread's current call still holds and
   leaves it, before the fail handler jumps out of it. */
void decoda_call_unwind(void) {
  struct decoda_call *call = decoda_current_call;
  if (!call)
    return;
  decoda_current_call = call->outer;
  for (size_t i = 0; i < call->capacity; ++i)
    if (call->slots[i].key && call->slots[i].release)
      call->slots[i].release(call->slots[i].key);
  if (call->slots != call->inline_slots)
    free(call->slots);
  call->slots = call->inline_slots;
  call->count = 0;
}

/* sizeof(struct decoda_call), for C++ declarations of the frame (CallMemory.h). */
size_t decoda_call_frame_size(void) { return sizeof(struct decoda_call); }

/* Live tracked resources of the thread's current call (tests). */
size_t decoda_call_live(void) {
  return decoda_current_call ? decoda_current_call->count : 0;
}

static void decoda_mem_release(void *p) { free(p); }

void *decoda_mem_malloc(size_t size) {
  void *p = malloc(size);
  decoda_call_track(p, decoda_mem_release);
  return p;
}

void *decoda_mem_calloc(size_t count, size_t size) {
  void *p = calloc(count, size);
  decoda_call_track(p, decoda_mem_release);
  return p;
}

void *decoda_mem_aligned_alloc(size_t alignment, size_t size) {
  void *p = aligned_alloc(alignment, size);
  decoda_call_track(p, decoda_mem_release);
  return p;
}

void *decoda_mem_realloc(void *old, size_t size) {
  int tracked = decoda_call_untrack(old); /* before realloc: old may be freed by it */
  void *p = realloc(old, size);
  if (p)
    decoda_call_track(p, decoda_mem_release);
  else if (size != 0 && tracked)
    decoda_call_track(old, decoda_mem_release); /* failed: the old block stays */
  return p;
}

void decoda_mem_free(void *p) {
  decoda_call_untrack(p);
  free(p);
}
