//===- FloatBitsTest.cpp - decoda/Support/FloatBits.h against APFloat -----===//
//
// The bit conversions used on constant data at compile time, checked against LLVM's APFloat
// (IEEE round to nearest even): every f16 and bf16 bit pattern back to float, and floats
// covering every f16/bf16 exponent, the ties, subnormals, overflow, zeros, infinities and NaN
// down to f16 and bf16.
//
//===----------------------------------------------------------------------===//

#include "decoda/Support/FloatBits.h"

#include "llvm/ADT/APFloat.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>

using namespace decoda::float_bits;

namespace {

uint16_t viaAPFloat(float f, const llvm::fltSemantics &sem) {
  llvm::APFloat a(f);
  bool lost;
  a.convert(sem, llvm::APFloat::rmNearestTiesToEven, &lost);
  return static_cast<uint16_t>(a.bitcastToAPInt().getZExtValue());
}

float bitsToFloat(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

uint32_t floatToBits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}

/// Same value, or both NaN (the NaN payloads may differ).
void expectSame16(uint16_t got, uint16_t want, bool isNaN, float input) {
  if (isNaN)
    EXPECT_TRUE(got & 0x200 || (got & 0x7f) != 0) << "input " << input;
  else
    EXPECT_EQ(got, want) << "input " << input << " bits 0x" << std::hex << floatToBits(input);
}

TEST(FloatBits, EveryHalfToFloat) {
  for (uint32_t h = 0; h < 65536; ++h) {
    llvm::APFloat a(llvm::APFloat::IEEEhalf(), llvm::APInt(16, h));
    bool lost;
    a.convert(llvm::APFloat::IEEEsingle(), llvm::APFloat::rmNearestTiesToEven, &lost);
    float want = a.convertToFloat(), got = fromF16(static_cast<uint16_t>(h));
    if (std::isnan(want))
      EXPECT_TRUE(std::isnan(got)) << h;
    else
      EXPECT_EQ(floatToBits(got), floatToBits(want)) << "half bits " << h;
  }
}

TEST(FloatBits, EveryBF16ToFloat) {
  for (uint32_t h = 0; h < 65536; ++h) {
    float got = fromBF16(static_cast<uint16_t>(h));
    EXPECT_EQ(floatToBits(got), h << 16);
  }
}

TEST(FloatBits, FloatToHalfAndBF16) {
  std::vector<uint32_t> inputs;
  // Every f16 value, and the floats just around it and half way to the next (the ties).
  for (uint32_t h = 0; h < 0x7c00; ++h) {
    uint32_t u = floatToBits(fromF16(static_cast<uint16_t>(h)));
    uint32_t next = floatToBits(fromF16(static_cast<uint16_t>(h + 1)));
    uint32_t mid = floatToBits((bitsToFloat(u) + bitsToFloat(next)) / 2);
    for (uint32_t v : {u, u + 1, u - 1, mid, mid - 1, mid + 1})
      for (uint32_t s : {0u, 0x80000000u})
        inputs.push_back(v | s);
  }
  // Overflow, infinities, NaN, zeros, below the smallest subnormal.
  for (float f : {65504.f, 65519.f, 65520.f, 65536.f, 1e10f, INFINITY, -INFINITY, NAN, 0.f,
                  -0.f, 1e-8f, 2.9802322e-08f, 2.9802326e-08f, 3e-8f})
    inputs.push_back(floatToBits(f));
  // Random bit patterns over the whole range.
  std::mt19937 rng(7);
  for (int i = 0; i < 1000000; ++i)
    inputs.push_back(rng());
  for (uint32_t u : inputs) {
    float f = bitsToFloat(u);
    bool isNaN = std::isnan(f);
    expectSame16(toF16(f), viaAPFloat(f, llvm::APFloat::IEEEhalf()), isNaN, f);
    expectSame16(toBF16(f), viaAPFloat(f, llvm::APFloat::BFloat()), isNaN, f);
    if (::testing::Test::HasFailure())
      return; // one report is enough
  }
}

// load/store: the stored bytes are those of the conversions above (f32 as it is), and loading
// them back gives the rounded value.
TEST(FloatBits, LoadAndStore) {
  using decoda::float_bits::Format;
  for (float f : {0.1f, -3.75f, 65519.f, 1e-6f, -0.f}) {
    char buf[4];
    decoda::float_bits::store(buf, f, Format::F16);
    uint16_t h;
    std::memcpy(&h, buf, 2);
    EXPECT_EQ(h, toF16(f)) << f;
    EXPECT_EQ(floatToBits(decoda::float_bits::load(buf, Format::F16)), floatToBits(fromF16(h)));
    decoda::float_bits::store(buf, f, Format::BF16);
    std::memcpy(&h, buf, 2);
    EXPECT_EQ(h, toBF16(f)) << f;
    EXPECT_EQ(floatToBits(decoda::float_bits::load(buf, Format::BF16)), floatToBits(fromBF16(h)));
    decoda::float_bits::store(buf, f, Format::F32);
    EXPECT_EQ(floatToBits(decoda::float_bits::load(buf, Format::F32)), floatToBits(f));
  }
}

} // namespace
