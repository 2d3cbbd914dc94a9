//===- fuzz-npy.cpp - libFuzzer target: the .npy / .npz reader --------------===//
//
// Input: the bytes of a file as decoda-run (inputs, --check references) and calibration read it.
// They are parsed as .npy (parseNpy) and, through an in-memory file, as a .npz archive (readNpz:
// zip directory, local headers, stored and deflate members, zip64 fields, each member as .npy).
// A well-formed result is checked for consistency: numel() * itemSize == bytes of data.
//
//===----------------------------------------------------------------------===//

#include "decoda/Support/NumpyIO.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <string>

using namespace decoda::npy;

static void checkArray(const Array &a) {
  if (static_cast<size_t>(a.numel()) * itemSize(a.kind) != a.data.size())
    __builtin_trap();
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string bytes(reinterpret_cast<const char *>(data), size), error;
  Array array;
  if (parseNpy(bytes, "fuzz.npy", array, error))
    checkArray(array);

  static int fd = memfd_create("fuzz.npz", 0);
  if (fd < 0 || ftruncate(fd, 0) != 0 || pwrite(fd, data, size, 0) != static_cast<ssize_t>(size))
    __builtin_trap();
  std::vector<std::pair<std::string, Array>> members;
  if (readNpz("/proc/self/fd/" + std::to_string(fd), members, error))
    for (auto &m : members)
      checkArray(m.second);
  return 0;
}
