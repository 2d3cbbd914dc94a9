/* The model library of decoda-fuzz-runtime: a compiled model (docs/ABI.md) whose
 * decoda_signature is a writable buffer the fuzzer fills before each decoda_model_load. Its
 * entries `a` and `b` are never called (the fuzzer only passes inputs the runtime rejects). */
#include <stdint.h>

const int32_t decoda_abi_version = 1;
char decoda_signature[1 << 16] = "decoda-signature 1\n";
void (*decoda_fail_handler)(const char *) = 0;

void decoda_entry_a(void **args) { (void)args; }
void decoda_entry_b(void **args) { (void)args; }
