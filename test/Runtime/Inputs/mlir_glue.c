/* The ABI symbols around Inputs/mlir_model.mlir lowered by upstream MLIR (what decoda-compile
 * emits around its own code, docs/ABI.md): the version, the signature, the fail handler, the
 * call-memory hooks (CallMemory.c, included as decoda-compile includes it) and decoda_entry_f
 * bracketing the call and forwarding to the C-interface wrapper (results struct first, then
 * inputs). The test rewrites the upstream cf.assert lowering (puts + abort) to call glue_fail and
 * malloc/free to the hooks, as decoda-compile does (routeAllocationsThroughHooks). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

const int32_t decoda_abi_version = 1;
const char decoda_signature[] = "decoda-signature 1\n"
                                "entry f\n"
                                "input x f32 2 -1 4\n"
                                "input y f32 2 -1 4\n"
                                "input b i1 1 3\n"
                                "output s f32 2 -1 4\n"
                                "output xa f32 2 -1 4\n"
                                "output c f32 1 3\n"
                                "output nb i1 1 3\n"
                                "output r f64 0\n"
                                "end\n";
void (*decoda_fail_handler)(const char *) = 0;

#include "CallMemory.c"

void glue_fail(const char *message) {
  decoda_call_unwind();
  if (decoda_fail_handler)
    decoda_fail_handler(message);
  puts(message);
  abort();
}

void _mlir_ciface_f(void *results, void *x, void *y, void *b);
void decoda_entry_f(void **args) {
  struct decoda_call call;
  decoda_call_begin(&call);
  _mlir_ciface_f(args[3], args[0], args[1], args[2]);
  decoda_call_end(&call);
}
