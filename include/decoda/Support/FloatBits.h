//===- FloatBits.h - f32 <-> f16 / bf16 bit conversions -------------------===//
//
// The conversions of constant data at compile time (decoda-convert-float-type's weights,
// decoda-fold-constant-dequantize's weights, MatMulNBits's zero points): float to the bits of an f16 or bf16, rounded to nearest
// even (overflow to infinity, a NaN stays a quiet NaN), and f16 bits back to float (exact).
// Plain bit arithmetic: models hold billions of weights, too many for APFloat one by one.
//
//===----------------------------------------------------------------------===//

#ifndef DECODA_SUPPORT_FLOATBITS_H
#define DECODA_SUPPORT_FLOATBITS_H

#include <cmath>
#include <cstdint>
#include <cstring>

namespace decoda::float_bits {

/// float -> bf16 bits, rounded to nearest even.
inline uint16_t toBF16(float value) {
  uint32_t u;
  std::memcpy(&u, &value, 4);
  if ((u & 0x7fffffffu) > 0x7f800000u)
    return static_cast<uint16_t>((u >> 16) | 0x40u);
  u += 0x7fffu + ((u >> 16) & 1u);
  return static_cast<uint16_t>(u >> 16);
}

/// float -> f16 bits, rounded to nearest even.
inline uint16_t toF16(float value) {
  uint32_t f;
  std::memcpy(&f, &value, 4);
  uint32_t sign = f & 0x80000000u;
  f ^= sign;
  uint32_t o;
  if (f >= (127u + 16u) << 23) {
    o = f > 0x7f800000u ? 0x7e00 : 0x7c00; // NaN (quiet) or an overflow to infinity
  } else if (f < 113u << 23) {
    // Subnormal or zero: adding 0.5 aligns the 10 mantissa bits at the bottom of a float (the
    // addition rounds to nearest even); then drop the 0.5's bits.
    float x;
    std::memcpy(&x, &f, 4);
    x += 0.5f;
    uint32_t u;
    std::memcpy(&u, &x, 4);
    o = u - (126u << 23);
  } else {
    uint32_t odd = (f >> 13) & 1;
    f += ((15u - 127u) << 23) + 0xfff + odd; // rebias the exponent, round to nearest even
    o = f >> 13;
  }
  return static_cast<uint16_t>(o | (sign >> 16));
}

/// f16 bits -> float (exact).
inline float fromF16(uint16_t h) {
  uint32_t sign = static_cast<uint32_t>(h & 0x8000) << 16, exp = (h >> 10) & 0x1f,
           mant = h & 0x3ff, u;
  if (exp == 0x1f) {
    u = sign | 0x7f800000u | (mant << 13);
  } else if (exp == 0) {
    float f = std::ldexp(static_cast<float>(mant), -24);
    return sign ? -f : f;
  } else {
    u = sign | ((exp + 112) << 23) | (mant << 13);
  }
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

/// bf16 bits -> float (exact).
inline float fromBF16(uint16_t h) {
  uint32_t u = static_cast<uint32_t>(h) << 16;
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

/// The storage formats of constant float data.
enum class Format { F32, F16, BF16 };

/// The element at `p` (stored as `format`) as float (exact).
inline float load(const char *p, Format format) {
  if (format == Format::F32) {
    float f;
    std::memcpy(&f, p, 4);
    return f;
  }
  uint16_t h;
  std::memcpy(&h, p, 2);
  return format == Format::F16 ? fromF16(h) : fromBF16(h);
}

/// `value` stored at `p` as `format` (rounded to nearest even for f16 and bf16).
inline void store(char *p, float value, Format format) {
  if (format == Format::F32) {
    std::memcpy(p, &value, 4);
    return;
  }
  uint16_t h = format == Format::F16 ? toF16(value) : toBF16(value);
  std::memcpy(p, &h, 2);
}

} // namespace decoda::float_bits

#endif // DECODA_SUPPORT_FLOATBITS_H
