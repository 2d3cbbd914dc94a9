//===- SemanticsTest.cpp - rotary frequencies, GLU bounds, cache sizes ----===//
//
// Expected values are closed forms written independently of Semantics.cpp (or, for YaRN and
// Llama 3, the Hugging Face reference evaluated by hand for small dims).
//
//===----------------------------------------------------------------------===//

#include "decoda/Dialect/Decoda/IR/DecodaDialect.h"
#include "decoda/Dialect/Decoda/IR/Semantics.h"

#include "mlir/IR/MLIRContext.h"
#include "gtest/gtest.h"

#include <cmath>

using namespace mlir;
using namespace mlir::decoda;

namespace {
class SemanticsTest : public ::testing::Test {
protected:
  SemanticsTest() { ctx.loadDialect<DecodaDialect>(); }

  RopeScalingAttr scaling(RopeScalingKind kind, double factor,
                          std::optional<int64_t> originalMax = std::nullopt,
                          std::optional<double> betaFast = std::nullopt,
                          std::optional<double> betaSlow = std::nullopt,
                          std::optional<double> attnFactor = std::nullopt,
                          std::optional<double> low = std::nullopt,
                          std::optional<double> high = std::nullopt) {
    return RopeScalingAttr::get(&ctx, kind, llvm::APFloat(factor), originalMax,
                                toAPFloat(betaFast), toAPFloat(betaSlow), toAPFloat(attnFactor),
                                toAPFloat(low), toAPFloat(high));
  }

  MLIRContext ctx;
};

TEST_F(SemanticsTest, PlainRopeFrequencies) {
  std::vector<double> f = computeRopeInvFreq(10000.0, 8, {});
  ASSERT_EQ(f.size(), 4u);
  // theta^(-2k/d) for d = 8: 1, 10^-1, 10^-2, 10^-3.
  EXPECT_DOUBLE_EQ(f[0], 1.0);
  EXPECT_NEAR(f[1], 0.1, 1e-15);
  EXPECT_NEAR(f[2], 0.01, 1e-16);
  EXPECT_NEAR(f[3], 0.001, 1e-17);
}

TEST_F(SemanticsTest, LinearScalingDividesEveryFrequency) {
  std::vector<double> f = computeRopeInvFreq(10000.0, 8, scaling(RopeScalingKind::linear, 4.0));
  EXPECT_DOUBLE_EQ(f[0], 0.25);
  EXPECT_NEAR(f[1], 0.025, 1e-15);
  EXPECT_NEAR(f[3], 0.00025, 1e-17);
  EXPECT_DOUBLE_EQ(computeRopeAttentionFactor(scaling(RopeScalingKind::linear, 4.0)), 1.0);
}

TEST_F(SemanticsTest, YarnBlendsInterpolationAndExtrapolation) {
  // d = 8, theta = 10000, factor = 4, original context 64, beta_fast = 32, beta_slow = 1.
  // correction dim(r) = d * ln(64 / (2 pi r)) / (2 ln 10000):
  //   r = 32 -> 8 * ln(0.31831) / 18.4207 = -0.4973 -> floor -> -1 -> clamp 0
  //   r = 1  -> 8 * ln(10.1859) / 18.4207 =  1.0081 -> ceil  ->  2
  // ramp(k) = clamp((k - 0) / 2, 0, 1) = 0, 0.5, 1, 1; weight of the unscaled frequency = 1 - ramp.
  std::vector<double> f =
      computeRopeInvFreq(10000.0, 8, scaling(RopeScalingKind::yarn, 4.0, 64));
  double base[4] = {1.0, 0.1, 0.01, 0.001};
  double extrap[4] = {1.0, 0.5, 0.0, 0.0};
  for (int k = 0; k < 4; ++k)
    EXPECT_NEAR(f[k], base[k] * extrap[k] + base[k] / 4.0 * (1.0 - extrap[k]), 1e-15) << k;
  EXPECT_NEAR(computeRopeAttentionFactor(scaling(RopeScalingKind::yarn, 4.0, 64)),
              0.1 * std::log(4.0) + 1.0, 1e-15);
  EXPECT_DOUBLE_EQ(
      computeRopeAttentionFactor(scaling(RopeScalingKind::yarn, 4.0, 64, 32.0, 1.0, 0.75)),
      0.75);
}

TEST_F(SemanticsTest, Llama3KeepsHighFrequenciesAndScalesLowOnes) {
  // d = 8, theta = 10000: wavelengths 2 pi / f = 6.283, 62.83, 628.3, 6283.
  // original context 1024, low factor 1, high factor 4: low wavelen 1024, high wavelen 256.
  //   k = 0, 1: wavelength < 256 -> unchanged;
  //   k = 2: 256 <= 628.3 <= 1024 -> smooth = (1024 / 628.3 - 1) / 3 = 0.20993;
  //   k = 3: wavelength > 1024 -> divided by factor 8.
  std::vector<double> f = computeRopeInvFreq(
      10000.0, 8, scaling(RopeScalingKind::llama3, 8.0, 1024, {}, {}, {}, 1.0, 4.0));
  EXPECT_DOUBLE_EQ(f[0], 1.0);
  EXPECT_NEAR(f[1], 0.1, 1e-15);
  double wavelen = 2.0 * M_PI / 0.01;
  double smooth = (1024.0 / wavelen - 1.0) / 3.0;
  EXPECT_NEAR(f[2], (1.0 - smooth) * 0.01 / 8.0 + smooth * 0.01, 1e-16);
  EXPECT_NEAR(f[3], 0.001 / 8.0, 1e-18);
}

TEST_F(SemanticsTest, GluBounds) {
  // SiTU-GLU with the Kimi K3 constants: |h| < beta1 * beta2 = 100.
  EXPECT_DOUBLE_EQ(computeGluOutputBound(GluKind::situ, 4.0, 25.0, std::nullopt), 100.0);
  EXPECT_TRUE(std::isinf(computeGluOutputBound(GluKind::swiglu, {}, {}, {})));
  EXPECT_TRUE(std::isinf(computeGluOutputBound(GluKind::geglu, {}, {}, {})));
  // Clamped SwiGLU with L = 10: silu(10) * 10 = 10 / (1 + e^-10) * 10.
  EXPECT_NEAR(computeGluOutputBound(GluKind::clamped_swiglu, {}, {}, 10.0),
              100.0 / (1.0 + std::exp(-10.0)), 1e-12);
  // With a small L the negative lobe of silu (min -0.27846 at g = -1.27846) dominates.
  EXPECT_NEAR(computeGluOutputBound(GluKind::clamped_swiglu, {}, {}, 0.1), 0.027846454, 1e-9);
  GluAttr situ = GluAttr::get(&ctx, GluKind::situ, llvm::APFloat(2.0), llvm::APFloat(3.0),
                              std::nullopt);
  EXPECT_DOUBLE_EQ(situ.getOutputBound(), 6.0);
}

TEST_F(SemanticsTest, SiluMinimumUsedByTheClampedBound) {
  // The constant in computeGluOutputBound is min_x x * sigmoid(x); check it by a fine scan.
  double best = 0.0;
  for (double x = -3.0; x < 0.0; x += 1e-5)
    best = std::min(best, x / (1.0 + std::exp(-x)));
  EXPECT_NEAR(-best, 0.27846454276107380, 1e-9);
}

TEST_F(SemanticsTest, KvCacheBytes) {
  // Llama 3.2 1B in bf16: 8 KV heads of 64 -> 2 * 2 * 8 * 64 = 2048 bytes per token per layer.
  EXPECT_EQ(kvCacheBytesPerToken(2, 8, 64), 2048);
  // DeepSeek-V2 MLA: d_c = 512, d_rope = 64 in bf16 -> 1152 bytes.
  EXPECT_EQ(mlaCacheBytesPerToken(2, 512, 64), 1152);
}
} // namespace
