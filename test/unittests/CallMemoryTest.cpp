//===- CallMemoryTest.cpp - the call-memory hooks of compiled models ------===//
//
// lib/Target/CPU/CallMemory.c, which every compiled model links: the live blocks of the calling
// thread's call are tracked (through growth of the table and deletions in any order), a failed
// call releases exactly those, a call that returns forgets them (its outputs are the caller's),
// and nothing is tracked outside a call or on another thread.
//
//===----------------------------------------------------------------------===//

#include "decoda/Target/CPU/CallMemory.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <random>
#include <set>
#include <thread>
#include <vector>

namespace {

std::multiset<void *> gReleased;
void recordRelease(void *p) { gReleased.insert(p); }

TEST(CallMemory, FrameLayoutMatchesTheCSource) {
  EXPECT_EQ(decoda_call_frame_size(), sizeof(decoda_call));
}

TEST(CallMemory, NothingIsTrackedOutsideACall) {
  void *p = decoda_mem_malloc(32);
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(decoda_call_live(), 0u);
  decoda_mem_free(p);
  decoda_call_unwind(); // no call: nothing happens
}

TEST(CallMemory, AReturningCallForgetsItsOutputs) {
  decoda_call call;
  decoda_call_begin(&call);
  void *temp = decoda_mem_malloc(100);
  void *out = decoda_mem_malloc(200);
  EXPECT_EQ(decoda_call_live(), 2u);
  decoda_mem_free(temp);
  EXPECT_EQ(decoda_call_live(), 1u);
  decoda_call_end(&call);
  EXPECT_EQ(decoda_call_live(), 0u);
  std::free(out); // the caller's, libc's
}

TEST(CallMemory, UnwindReleasesExactlyTheLiveBlocks) {
  // Many blocks (the table grows from 32 slots onto the heap), freed in random order, some
  // reallocated, some other resources with their own release.
  std::mt19937 rng(7);
  for (int round = 0; round < 20; ++round) {
    gReleased.clear();
    decoda_call call;
    decoda_call_begin(&call);
    std::vector<void *> live;
    std::vector<void *> others;
    int n = 1 + int(rng() % 400);
    for (int i = 0; i < n; ++i) {
      switch (rng() % 4) {
      case 0: live.push_back(decoda_mem_malloc(1 + rng() % 64)); break;
      case 1: live.push_back(decoda_mem_calloc(3, 1 + rng() % 16)); break;
      case 2: live.push_back(decoda_mem_aligned_alloc(64, 64 * (1 + rng() % 4))); break;
      default: {
        void *key = std::malloc(8);
        decoda_call_track(key, recordRelease);
        others.push_back(key);
      }
      }
      if (!live.empty() && rng() % 3 == 0) {
        size_t k = rng() % live.size();
        decoda_mem_free(live[k]);
        live.erase(live.begin() + k);
      }
      if (!live.empty() && rng() % 5 == 0) {
        size_t k = rng() % live.size();
        live[k] = decoda_mem_realloc(live[k], 1 + rng() % 300);
      }
      if (!others.empty() && rng() % 7 == 0) {
        size_t k = rng() % others.size();
        EXPECT_EQ(decoda_call_untrack(others[k]), 1);
        std::free(others[k]);
        others.erase(others.begin() + k);
      }
      ASSERT_EQ(decoda_call_live(), live.size() + others.size());
    }
    decoda_call_unwind(); // frees `live` (under ASan a miss is a leak, a stale entry a double free)
    EXPECT_EQ(decoda_call_live(), 0u);
    EXPECT_EQ(gReleased, std::multiset<void *>(others.begin(), others.end()));
    for (void *p : others)
      std::free(p);
  }
}

TEST(CallMemory, UntrackOfAnUnknownPointerIsHarmless) {
  decoda_call call;
  decoda_call_begin(&call);
  void *foreign = std::malloc(16);
  EXPECT_EQ(decoda_call_untrack(foreign), 0);
  decoda_mem_free(foreign); // allocated before the call: freed, not tracked
  decoda_mem_free(nullptr);
  EXPECT_EQ(decoda_call_live(), 0u);
  decoda_call_end(&call);
}

TEST(CallMemory, NestedCallsUnwindTheInnerOnly) {
  decoda_call outer, inner;
  decoda_call_begin(&outer);
  void *a = decoda_mem_malloc(8);
  decoda_call_begin(&inner);
  decoda_mem_malloc(8);
  EXPECT_EQ(decoda_call_live(), 1u);
  decoda_call_unwind(); // inner released, outer current again
  EXPECT_EQ(decoda_call_live(), 1u);
  decoda_mem_free(a);
  EXPECT_EQ(decoda_call_live(), 0u);
  decoda_call_end(&outer);
}

TEST(CallMemory, OtherThreadsAreNotTracked) {
  decoda_call call;
  decoda_call_begin(&call);
  std::thread worker([] {
    void *p = decoda_mem_malloc(64); // an OpenMP worker: no call on this thread
    EXPECT_EQ(decoda_call_live(), 0u);
    decoda_mem_free(p);
  });
  worker.join();
  EXPECT_EQ(decoda_call_live(), 0u);
  decoda_call_end(&call);
}

} // namespace
