//===- NumpyIO.h - .npy / .npz reading and .npy writing -------------------===//
//
// Just enough of the NumPy file formats for decoda-run and decoda-compile: .npy versions 1, 2
// and 3 with a little-endian (or byte-order-free) descr among <f4 <f2 <f8 |i1 <i4 <i8 |b1 <u2,
// C order only; .npz archives (zip, stored or deflate, zip64 as NumPy writes it). Errors are
// returned as messages that name the file.
//
//===----------------------------------------------------------------------===//

#ifndef DECODA_SUPPORT_NUMPYIO_H
#define DECODA_SUPPORT_NUMPYIO_H

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace decoda::npy {

/// The element types decoda-run reads and writes, by their NumPy descr.
enum class Kind { F32, F16, F64, I8, I32, I64, Bool, U16 };

struct Array {
  Kind kind = Kind::F32;
  std::vector<int64_t> shape;
  std::vector<char> data; // row-major, little-endian
  int64_t numel() const;
};

size_t itemSize(Kind kind);
/// The NumPy descr ("<f4", "|b1", ...).
const char *descr(Kind kind);
/// A readable name: "float32 ('<f4')".
std::string kindName(Kind kind);

/// Parses the bytes of a .npy file; `what` names it in errors.
bool parseNpy(const std::string &bytes, const std::string &what, Array &out, std::string &error);
bool readNpy(const std::string &path, Array &out, std::string &error);
/// Reads every member of a .npz archive: (member name without ".npy", array).
bool readNpz(const std::string &path, std::vector<std::pair<std::string, Array>> &out,
             std::string &error);
bool writeNpy(const std::string &path, const Array &array, std::string &error);

/// Reads a whole file.
bool readFile(const std::string &path, std::string &out, std::string &error);

} // namespace decoda::npy

#endif // DECODA_SUPPORT_NUMPYIO_H
