/*===- UninstrumentedLLVM.h - ASan builds against an uninstrumented LLVM --===
 *
 * Force-included into every C++ file of a DECODA_SANITIZE build. LLVM's headers poison and
 * unpoison the memory of BumpPtrAllocator slabs and recyclers when the including code is built
 * with ASan; Debian's libLLVM/libMLIR are not, so a slab poisoned by inline code of ours is
 * handed out by libMLIR without being unpoisoned, and its writes there are reported as
 * use-after-poison (a false positive). Defining the two hooks as no-ops before
 * llvm/Support/Compiler.h keeps LLVM's allocators unpoisoned in our code as they are in libMLIR.
 *===----------------------------------------------------------------------===*/

#ifndef DECODA_SUPPORT_UNINSTRUMENTEDLLVM_H
#define DECODA_SUPPORT_UNINSTRUMENTEDLLVM_H

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#include <sanitizer/asan_interface.h>
#undef __asan_poison_memory_region
#undef __asan_unpoison_memory_region
#define __asan_poison_memory_region(p, size) ((void)(p), (void)(size))
#define __asan_unpoison_memory_region(p, size) ((void)(p), (void)(size))
#endif
#endif

#endif /* DECODA_SUPPORT_UNINSTRUMENTEDLLVM_H */
