//===- fuzz-runtime.cpp - libFuzzer target: the runtime's model loader -----===//
//
// Input: the decoda_signature text of a compiled model (docs/ABI.md). The fuzzer writes it into
// the writable signature buffer of fuzz-model.c (loaded once here, so the runtime's own dlopen
// finds the same mapping) and calls decoda_model_load, then walks the C API over what loaded:
// entry names and lookup, every input and output, and decoda_run with inputs the runtime must
// reject (wrong count; a wrong dtype or rank) so no model code runs. Any disagreement between
// the API and itself is a trap.
//
//===----------------------------------------------------------------------===//

#include "decoda-c/runtime.h"

#include <dlfcn.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

static char *signatureBuffer() {
  static char *buffer = [] {
    void *handle = dlopen(DECODA_FUZZ_MODEL, RTLD_NOW | RTLD_LOCAL);
    if (!handle)
      __builtin_trap();
    return static_cast<char *>(dlsym(handle, "decoda_signature"));
  }();
  return buffer;
}

static void check(bool ok) {
  if (!ok)
    __builtin_trap();
}

/// One input or output as the metadata API reports it.
struct Info {
  const char *name = nullptr;
  decoda_dtype dtype = DECODA_F32;
  int32_t rank = -1;
  const int64_t *shape = nullptr;
};

/// Queries input (or output) `i` of `entry`; checks the status and, for an index in range
/// (`i < count`), the metadata.
static Info query(decoda_model *model, int entry, int i, int count, bool input) {
  Info t;
  decoda_status s = (input ? decoda_entry_input : decoda_entry_output)(
      model, entry, i, &t.name, &t.dtype, &t.rank, &t.shape);
  if (i == count) {
    check(s == DECODA_ERROR_ARGUMENT);
    return t;
  }
  check(s == DECODA_OK && t.name && t.rank >= 0 && t.rank <= DECODA_MAX_RANK);
  for (int32_t d = 0; d < t.rank; ++d)
    check(t.shape[d] >= -1);
  return t;
}

static void walk(decoda_model *model) {
  int n = decoda_model_num_entries(model);
  check(n >= 0);
  for (int e = 0; e < n; ++e) {
    const char *name = decoda_model_entry_name(model, e);
    check(name && decoda_model_find_entry(model, name) == e);
    int nIn = decoda_entry_num_inputs(model, e), nOut = decoda_entry_num_outputs(model, e);
    check(nIn >= 0 && nOut >= 0);
    std::vector<decoda_tensor> inputs(nIn + 1), outputs(nOut + 1);
    for (int i = 0; i < nIn; ++i) {
      Info info = query(model, e, i, nIn, /*input=*/true);
      // A tensor the runtime must reject: a wrong dtype.
      decoda_tensor &t = inputs[i];
      t.dtype = info.dtype == DECODA_F32 ? DECODA_I8 : DECODA_F32;
      t.rank = info.rank;
      for (int32_t d = 0; d < info.rank; ++d)
        t.shape[d] = info.shape[d] < 0 ? 1 : info.shape[d];
      t.data = nullptr;
    }
    query(model, e, nIn, nIn, /*input=*/true);
    for (int o = 0; o <= nOut; ++o)
      query(model, e, o, nOut, /*input=*/false);
    // Wrong input count and wrong output room are rejected before anything runs.
    check(decoda_run(model, e, inputs.data(), nIn + 1, outputs.data(), nOut) ==
          DECODA_ERROR_ARGUMENT);
    check(decoda_run(model, e, inputs.data(), nIn, outputs.data(), nOut + 1) ==
          DECODA_ERROR_ARGUMENT);
    if (nIn > 0)
      check(decoda_run(model, e, inputs.data(), nIn, outputs.data(), nOut) == DECODA_ERROR_DTYPE);
  }
  check(decoda_model_find_entry(model, "no such entry, not a name") == -1);
  check(decoda_run(model, n, nullptr, 0, nullptr, 0) == DECODA_ERROR_ARGUMENT);
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *buffer = signatureBuffer();
  const size_t room = 1 << 16;
  size = size < room - 1 ? size : room - 1;
  std::memcpy(buffer, data, size);
  buffer[size] = '\0';
  decoda_model *model = nullptr;
  decoda_status s = decoda_model_load(DECODA_FUZZ_MODEL, &model);
  if (s != DECODA_OK) {
    check(model == nullptr && s == DECODA_ERROR_FORMAT && *decoda_last_error());
    return 0;
  }
  walk(model);
  decoda_model_free(model);
  return 0;
}
