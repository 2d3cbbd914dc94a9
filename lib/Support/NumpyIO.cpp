//===- NumpyIO.cpp - .npy / .npz reading and .npy writing -----------------===//

#include "decoda/Support/NumpyIO.h"

#include <zlib.h>

#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>

namespace decoda::npy {

namespace {

struct KindInfo {
  Kind kind;
  const char *descr;
  const char *numpy;
  size_t size;
};

const KindInfo kKinds[] = {
    {Kind::F32, "<f4", "float32", 4}, {Kind::F16, "<f2", "float16", 2},
    {Kind::F64, "<f8", "float64", 8}, {Kind::I8, "|i1", "int8", 1},
    {Kind::I32, "<i4", "int32", 4},   {Kind::I64, "<i8", "int64", 8},
    {Kind::Bool, "|b1", "bool", 1},   {Kind::U16, "<u2", "uint16", 2},
};

const KindInfo &info(Kind kind) {
  for (const KindInfo &k : kKinds)
    if (k.kind == kind)
      return k;
  return kKinds[0];
}

/// A parser for the Python dict literal of a .npy header.
class HeaderParser {
public:
  explicit HeaderParser(const std::string &text) : s(text) {}

  bool parse(std::string &descr, bool &fortran, std::vector<int64_t> &shape, std::string &err) {
    bool haveDescr = false, haveFortran = false, haveShape = false;
    if (!lit('{'))
      return fail(err, "the header is not a Python dict");
    while (true) {
      if (lit('}'))
        break;
      std::string key;
      if (!str(key) || !lit(':'))
        return fail(err, "cannot parse the header dict");
      if (key == "descr") {
        ws();
        if (i < s.size() && s[i] == '[')
          return fail(err, "structured dtypes are not supported");
        if (!str(descr))
          return fail(err, "'descr' is not a string");
        haveDescr = true;
      } else if (key == "fortran_order") {
        std::string word;
        if (!identifier(word) || (word != "True" && word != "False"))
          return fail(err, "'fortran_order' is not True or False");
        fortran = word == "True";
        haveFortran = true;
      } else if (key == "shape") {
        if (!lit('('))
          return fail(err, "'shape' is not a tuple");
        shape.clear();
        while (!lit(')')) {
          int64_t v = 0;
          if (!integer(v))
            return fail(err, "'shape' is not a tuple of non-negative integers");
          shape.push_back(v);
          if (!lit(',')) {
            if (!lit(')'))
              return fail(err, "'shape' is not a tuple of integers");
            break;
          }
        }
        haveShape = true;
      } else {
        return fail(err, "unexpected key '" + key + "' in the header");
      }
      if (!lit(',')) {
        if (!lit('}'))
          return fail(err, "cannot parse the header dict");
        break;
      }
    }
    ws();
    if (i != s.size())
      return fail(err, "unexpected text after the header dict");
    if (!haveDescr || !haveFortran || !haveShape)
      return fail(err, std::string("the header lacks '") +
                           (!haveDescr ? "descr" : !haveFortran ? "fortran_order" : "shape") +
                           "'");
    return true;
  }

private:
  const std::string &s;
  size_t i = 0;

  static bool fail(std::string &err, const std::string &why) {
    err = why;
    return false;
  }
  void ws() {
    while (i < s.size() && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r'))
      ++i;
  }
  bool lit(char c) {
    ws();
    if (i < s.size() && s[i] == c) {
      ++i;
      return true;
    }
    return false;
  }
  bool str(std::string &out) {
    ws();
    if (i >= s.size() || (s[i] != '\'' && s[i] != '"'))
      return false;
    char q = s[i++];
    size_t start = i;
    while (i < s.size() && s[i] != q) {
      if (s[i] == '\\')
        return false;
      ++i;
    }
    if (i >= s.size())
      return false;
    out = s.substr(start, i - start);
    ++i;
    return true;
  }
  bool identifier(std::string &out) {
    ws();
    size_t start = i;
    while (i < s.size() && std::isalpha(static_cast<unsigned char>(s[i])))
      ++i;
    out = s.substr(start, i - start);
    return !out.empty();
  }
  bool integer(int64_t &v) {
    ws();
    size_t start = i;
    v = 0;
    while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) {
      if (v > (int64_t(1) << 58))
        return false;
      v = v * 10 + (s[i] - '0');
      ++i;
    }
    if (i == start)
      return false;
    if (i < s.size() && s[i] == 'L') // Python 2 longs in old files
      ++i;
    return true;
  }
};

uint16_t rd16(const unsigned char *p) { return uint16_t(p[0] | (p[1] << 8)); }
uint32_t rd32(const unsigned char *p) {
  return uint32_t(p[0]) | (uint32_t(p[1]) << 8) | (uint32_t(p[2]) << 16) |
         (uint32_t(p[3]) << 24);
}
uint64_t rd64(const unsigned char *p) { return uint64_t(rd32(p)) | (uint64_t(rd32(p + 4)) << 32); }

std::string shapeText(const std::vector<int64_t> &shape) {
  std::string s = "(";
  for (size_t i = 0; i < shape.size(); ++i)
    s += std::to_string(shape[i]) + (shape.size() == 1 ? "," : i + 1 < shape.size() ? ", " : "");
  return s + ")";
}

} // namespace

int64_t Array::numel() const {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

size_t itemSize(Kind kind) { return info(kind).size; }
const char *descr(Kind kind) { return info(kind).descr; }
std::string kindName(Kind kind) {
  return std::string(info(kind).numpy) + " ('" + info(kind).descr + "')";
}

bool readFile(const std::string &path, std::string &out, std::string &error) {
  FILE *f = std::fopen(path.c_str(), "rb");
  if (!f) {
    error = "cannot open '" + path + "': " + std::strerror(errno);
    return false;
  }
  out.clear();
  char buf[1 << 16];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof(buf), f)) > 0)
    out.append(buf, n);
  bool bad = std::ferror(f) != 0;
  int err = errno;
  std::fclose(f);
  if (bad) {
    error = "cannot read '" + path + "': " + std::strerror(err);
    return false;
  }
  return true;
}

bool parseNpy(const std::string &bytes, const std::string &what, Array &out, std::string &error) {
  auto fail = [&](const std::string &why) {
    error = what + ": " + why;
    return false;
  };
  const auto *b = reinterpret_cast<const unsigned char *>(bytes.data());
  if (bytes.size() < 10 || std::memcmp(b, "\x93NUMPY", 6) != 0)
    return fail(bytes.size() < 6 ? "not a .npy file (truncated: " + std::to_string(bytes.size()) +
                                       " bytes)"
                                 : "not a .npy file (no \\x93NUMPY magic)");
  int major = b[6];
  if (major < 1 || major > 3)
    return fail("unsupported .npy format version " + std::to_string(major) + "." +
                std::to_string(b[7]));
  size_t headerStart = major == 1 ? 10 : 12;
  if (bytes.size() < headerStart)
    return fail("truncated .npy header");
  size_t headerLen = major == 1 ? rd16(b + 8) : rd32(b + 8);
  if (bytes.size() - headerStart < headerLen)
    return fail("truncated .npy header (" + std::to_string(headerLen) + " bytes announced, " +
                std::to_string(bytes.size() - headerStart) + " present)");
  std::string header = bytes.substr(headerStart, headerLen);
  std::string descrText, why;
  bool fortran = false;
  std::vector<int64_t> shape;
  if (!HeaderParser(header).parse(descrText, fortran, shape, why))
    return fail("malformed .npy header: " + why);
  if (fortran)
    return fail("the array is in Fortran order; only C-order arrays are supported (save "
                "np.ascontiguousarray(a))");
  if (descrText.size() != 3)
    return fail("unsupported dtype '" + descrText +
                "' (supported: <f4 <f2 <f8 |i1 <i4 <i8 |b1, and <u2 for bf16 bit patterns)");
  char order = descrText[0];
  std::string code = descrText.substr(1);
  bool found = false;
  for (const KindInfo &k : kKinds) {
    if (code != std::string(k.descr + 1))
      continue;
    if (order == '>' && k.size > 1)
      return fail("big-endian dtype '" + descrText + "' is not supported (save it as '<" + code +
                  "')");
    if (order != '<' && order != '|' && order != '=' && order != '>')
      break;
    out.kind = k.kind;
    found = true;
    break;
  }
  if (!found)
    return fail("unsupported dtype '" + descrText +
                "' (supported: <f4 <f2 <f8 |i1 <i4 <i8 |b1, and <u2 for bf16 bit patterns)");
  out.shape = shape;
  int64_t count = 1;
  for (int64_t d : shape) {
    if (d != 0 && count > (int64_t(1) << 56) / d)
      return fail("shape " + shapeText(shape) + " is too large");
    count *= d;
  }
  uint64_t need = uint64_t(count) * itemSize(out.kind);
  uint64_t have = bytes.size() - headerStart - headerLen;
  if (have < need)
    return fail("truncated: shape " + shapeText(shape) + " of " + descrText + " needs " +
                std::to_string(need) + " bytes of data, the file has " + std::to_string(have));
  if (have > need)
    return fail("has " + std::to_string(have - need) + " unexpected bytes after the " +
                std::to_string(need) + " bytes of data of shape " + shapeText(shape));
  out.data.assign(bytes.begin() + static_cast<std::ptrdiff_t>(headerStart + headerLen),
                  bytes.end());
  return true;
}

bool readNpy(const std::string &path, Array &out, std::string &error) {
  std::string bytes;
  if (!readFile(path, bytes, error))
    return false;
  return parseNpy(bytes, "'" + path + "'", out, error);
}

bool readNpz(const std::string &path, std::vector<std::pair<std::string, Array>> &out,
             std::string &error) {
  std::string bytes;
  if (!readFile(path, bytes, error))
    return false;
  auto fail = [&](const std::string &why) {
    error = "'" + path + "': " + why;
    return false;
  };
  const auto *b = reinterpret_cast<const unsigned char *>(bytes.data());
  const size_t n = bytes.size();
  // End of central directory: the last "PK\5\6" within the final 64 KiB + 22 bytes.
  if (n < 22)
    return fail("not a .npz file (too short for a zip archive)");
  size_t eocd = std::string::npos;
  size_t lowest = n > 22 + 65535 ? n - 22 - 65535 : 0;
  for (size_t p = n - 22 + 1; p-- > lowest;) {
    if (rd32(b + p) == 0x06054b50) {
      eocd = p;
      break;
    }
  }
  if (eocd == std::string::npos)
    return fail("not a .npz file (no zip end-of-central-directory record)");
  uint64_t entries = rd16(b + eocd + 10);
  uint64_t cdSize = rd32(b + eocd + 12);
  uint64_t cdOffset = rd32(b + eocd + 16);
  if (entries == 0xFFFF || cdSize == 0xFFFFFFFF || cdOffset == 0xFFFFFFFF) {
    if (eocd < 20 || rd32(b + eocd - 20) != 0x07064b50)
      return fail("corrupt zip64 archive (no end-of-central-directory locator)");
    uint64_t z = rd64(b + eocd - 20 + 8);
    if (z > n || n - z < 56 || rd32(b + z) != 0x06064b50)
      return fail("corrupt zip64 archive (bad end-of-central-directory record)");
    entries = rd64(b + z + 32);
    cdSize = rd64(b + z + 40);
    cdOffset = rd64(b + z + 48);
  }
  if (cdOffset > n || cdSize > n - cdOffset)
    return fail("corrupt zip archive (central directory outside the file)");
  size_t p = cdOffset;
  for (uint64_t e = 0; e < entries; ++e) {
    if (p > n || n - p < 46 || rd32(b + p) != 0x02014b50)
      return fail("corrupt zip archive (bad central directory entry " + std::to_string(e) + ")");
    uint16_t flags = rd16(b + p + 8), method = rd16(b + p + 10);
    uint32_t crc = rd32(b + p + 16);
    uint64_t compSize = rd32(b + p + 20), size = rd32(b + p + 24);
    size_t nameLen = rd16(b + p + 28), extraLen = rd16(b + p + 30), commentLen = rd16(b + p + 32);
    uint64_t localOffset = rd32(b + p + 42);
    if (n - p - 46 < nameLen + extraLen + commentLen)
      return fail("corrupt zip archive (truncated central directory)");
    std::string name(bytes, p + 46, nameLen);
    // Zip64 extended information: the saturated fields, in this order.
    const unsigned char *x = b + p + 46 + nameLen, *xend = x + extraLen;
    while (xend - x >= 4) {
      uint16_t id = rd16(x), len = rd16(x + 2);
      if (xend - x - 4 < len)
        break;
      if (id == 0x0001) {
        const unsigned char *f = x + 4, *fend = f + len;
        if (size == 0xFFFFFFFF && fend - f >= 8) {
          size = rd64(f);
          f += 8;
        }
        if (compSize == 0xFFFFFFFF && fend - f >= 8) {
          compSize = rd64(f);
          f += 8;
        }
        if (localOffset == 0xFFFFFFFF && fend - f >= 8)
          localOffset = rd64(f);
      }
      x += 4 + len;
    }
    p += 46 + nameLen + extraLen + commentLen;
    if (!name.empty() && name.back() == '/')
      continue; // a directory entry
    std::string member = "member '" + name + "'";
    if (flags & 1)
      return fail(member + " is encrypted");
    if (name.size() < 5 || name.compare(name.size() - 4, 4, ".npy") != 0)
      return fail(member + " is not a .npy file");
    if (localOffset > n || n - localOffset < 30 || rd32(b + localOffset) != 0x04034b50)
      return fail(member + ": corrupt zip archive (bad local header)");
    uint64_t dataStart = localOffset + 30 + rd16(b + localOffset + 26) +
                         rd16(b + localOffset + 28);
    if (dataStart > n || compSize > n - dataStart)
      return fail(member + " is truncated");
    std::string content;
    if (method == 0) {
      if (compSize != size)
        return fail(member + ": corrupt zip archive (stored sizes differ)");
      content.assign(bytes, dataStart, compSize);
    } else if (method == 8) {
      if (compSize > 0xFFFFFFFFu || size > 0xFFFFFFFFu)
        return fail(member + " is too large (over 4 GiB)");
      if (size > compSize * 1032 + 1024)
        return fail(member + ": corrupt zip archive (implausible uncompressed size)");
      content.resize(size);
      z_stream zs;
      std::memset(&zs, 0, sizeof(zs));
      if (inflateInit2(&zs, -MAX_WBITS) != Z_OK)
        return fail(member + ": zlib initialisation failed");
      zs.next_in = const_cast<Bytef *>(b + dataStart);
      zs.avail_in = static_cast<uInt>(compSize);
      zs.next_out = reinterpret_cast<Bytef *>(&content[0]);
      zs.avail_out = static_cast<uInt>(size);
      int rc = inflate(&zs, Z_FINISH);
      uint64_t produced = zs.total_out;
      inflateEnd(&zs);
      if (rc != Z_STREAM_END || produced != size)
        return fail(member + ": corrupt deflate data");
    } else {
      return fail(member + " uses zip compression method " + std::to_string(method) +
                  " (supported: stored, deflate)");
    }
    if (crc32(0L, reinterpret_cast<const Bytef *>(content.data()),
              static_cast<uInt>(content.size())) != crc)
      return fail(member + ": CRC mismatch (corrupt archive)");
    Array array;
    if (!parseNpy(content, "'" + path + "' " + member, array, error))
      return false;
    out.emplace_back(name.substr(0, name.size() - 4), std::move(array));
  }
  return true;
}

bool writeNpy(const std::string &path, const Array &array, std::string &error) {
  std::string dict = std::string("{'descr': '") + descr(array.kind) +
                     "', 'fortran_order': False, 'shape': " + shapeText(array.shape) + ", }";
  size_t total = 10 + dict.size() + 1;
  size_t padded = (total + 63) / 64 * 64;
  dict.append(padded - total, ' ');
  dict += '\n';
  std::string header = "\x93NUMPY";
  header += '\x01';
  header += '\x00';
  header += static_cast<char>(dict.size() & 0xff);
  header += static_cast<char>((dict.size() >> 8) & 0xff);
  header += dict;
  FILE *f = std::fopen(path.c_str(), "wb");
  if (!f) {
    error = "cannot write '" + path + "': " + std::strerror(errno);
    return false;
  }
  bool ok = std::fwrite(header.data(), 1, header.size(), f) == header.size() &&
            (array.data.empty() ||
             std::fwrite(array.data.data(), 1, array.data.size(), f) == array.data.size());
  ok = (std::fclose(f) == 0) && ok;
  if (!ok) {
    error = "cannot write '" + path + "': " + std::strerror(errno);
    return false;
  }
  return true;
}

} // namespace decoda::npy
