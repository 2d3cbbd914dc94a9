//===- CallMemory.h - the memory of one call of a compiled model -*- C++ -*-===//
//
// The C functions of lib/Target/CPU/CallMemory.c for C++ users (the JIT of lib/Driver/JitRun.cpp,
// unit tests). Compiled models get the same file as part of their support source.
//
//===----------------------------------------------------------------------===//

#ifndef DECODA_TARGET_CPU_CALLMEMORY_H
#define DECODA_TARGET_CPU_CALLMEMORY_H

#include <cstddef>

extern "C" {
struct decoda_call_slot {
  void *key;
  void (*release)(void *key);
};

/// One call's live allocations; lives in the caller's frame for the duration of the call.
struct decoda_call {
  decoda_call *outer;
  decoda_call_slot *slots;
  size_t capacity;
  size_t count;
  int untracked;
  decoda_call_slot inline_slots[32];
};

void decoda_call_begin(decoda_call *call);
void decoda_call_end(decoda_call *call);
void decoda_call_track(void *key, void (*release)(void *));
int decoda_call_untrack(void *key);
void decoda_call_unwind(void);
size_t decoda_call_live(void);
size_t decoda_call_frame_size(void); // sizeof(decoda_call) in CallMemory.c

void *decoda_mem_malloc(size_t size);
void *decoda_mem_calloc(size_t count, size_t size);
void *decoda_mem_aligned_alloc(size_t alignment, size_t size);
void *decoda_mem_realloc(void *old, size_t size);
void decoda_mem_free(void *p);
}

namespace mlir::decoda {
/// The allocation functions a model's code may call and the hooks decoda-compile renames them
/// to (routeAllocationsThroughHooks).
struct AllocationHook {
  const char *libc, *hook;
};
inline constexpr AllocationHook kAllocationHooks[] = {
    {"malloc", "decoda_mem_malloc"},   {"calloc", "decoda_mem_calloc"},
    {"aligned_alloc", "decoda_mem_aligned_alloc"}, {"realloc", "decoda_mem_realloc"},
    {"free", "decoda_mem_free"}};
} // namespace mlir::decoda

#endif // DECODA_TARGET_CPU_CALLMEMORY_H
