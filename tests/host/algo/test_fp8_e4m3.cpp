// The e4m3 conversion and block scale the FP8 variants share with their kernels
// (include/arbench/algo/fp8/e4m3.hpp), pinned on known values and checked against a brute-force
// nearest-value search over every bf16 and fp16 input.
#include "arbench/algo/fp8/e4m3.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>

namespace arbench::algo {
namespace {

TEST(Fp8E4m3, KnownValues) {
  EXPECT_EQ(e4m3_encode(0.0f), 0x00);
  EXPECT_EQ(e4m3_encode(-0.0f), 0x80);
  EXPECT_EQ(e4m3_encode(1.0f), 0x38);
  EXPECT_EQ(e4m3_encode(-2.0f), 0xc0);
  EXPECT_EQ(e4m3_encode(448.0f), 0x7e);  // the largest finite
  EXPECT_EQ(e4m3_encode(-448.0f), 0xfe);
  EXPECT_EQ(e4m3_encode(0.015625f), 0x08);     // 2^-6, smallest normal
  EXPECT_EQ(e4m3_encode(0.001953125f), 0x01);  // 2^-9, smallest subnormal
  EXPECT_EQ(e4m3_encode(0.013671875f), 0x07);  // 7 * 2^-9, largest subnormal
  EXPECT_EQ(e4m3_decode(0x7e), 448.0f);
  EXPECT_EQ(e4m3_decode(0x01), 0.001953125f);
  EXPECT_EQ(e4m3_decode(0x07), 0.013671875f);
  EXPECT_EQ(e4m3_decode(0x08), 0.015625f);
  EXPECT_EQ(e4m3_decode(0xb8), -1.0f);
}

TEST(Fp8E4m3, RoundsToNearestEven) {
  EXPECT_EQ(e4m3_encode(1.0625f), 0x38);   // halfway 1 .. 1.125: even (1)
  EXPECT_EQ(e4m3_encode(1.1875f), 0x3a);   // halfway 1.125 .. 1.25: even (1.25)
  EXPECT_EQ(e4m3_encode(1.07f), 0x39);     // above halfway
  EXPECT_EQ(e4m3_encode(0.0009765625f), 0x00);  // 2^-10: halfway 0 .. 2^-9, even (0)
  EXPECT_EQ(e4m3_encode(0.0029296875f), 0x02);  // 1.5 * 2^-9: halfway 1 .. 2, even (2)
  EXPECT_EQ(e4m3_encode(0.0009766f), 0x01);     // just above 2^-10
  EXPECT_EQ(e4m3_encode(0.0146484375f), 0x08);  // 7.5 * 2^-9: rounds up into the normals
  EXPECT_EQ(e4m3_encode(1e-30f), 0x00);
  EXPECT_EQ(e4m3_encode(-1e-40f), 0x80);        // fp32 subnormal
}

TEST(Fp8E4m3, SaturatesFiniteOverflowAndTurnsNonFiniteIntoNan) {
  EXPECT_EQ(e4m3_encode(449.0f), 0x7e);
  EXPECT_EQ(e4m3_encode(464.0f), 0x7e);  // would round to 480, which e4m3 lacks
  EXPECT_EQ(e4m3_encode(1e30f), 0x7e);
  EXPECT_EQ(e4m3_encode(-1e30f), 0xfe);
  EXPECT_EQ(e4m3_encode(std::numeric_limits<float>::infinity()), kE4m3Nan);
  EXPECT_EQ(e4m3_encode(-std::numeric_limits<float>::infinity()), 0xff);  // NaN, keeping the sign
  EXPECT_EQ(e4m3_encode(std::numeric_limits<float>::quiet_NaN()), kE4m3Nan);
  EXPECT_EQ(e4m3_encode(-std::numeric_limits<float>::quiet_NaN()), 0xff);  // as CUDA's reference (cuda_fp8.hpp)
  EXPECT_TRUE(std::isnan(e4m3_decode(0x7f)));
  EXPECT_TRUE(std::isnan(e4m3_decode(0xff)));
}

TEST(Fp8E4m3, DecodeEncodeIsTheIdentityOnEveryCode) {
  for (int c = 0; c < 256; ++c) {
    if ((c & 0x7f) == 0x7f) continue;
    EXPECT_EQ(e4m3_encode(e4m3_decode(static_cast<std::uint8_t>(c))), c) << c;
  }
}

// The nearest finite e4m3 value (ties to the even code), saturating: an oracle written apart from
// the bit arithmetic under test.
std::uint8_t nearest_code(float x) {
  const double v = std::fabs(double(x));
  int best = 0;
  double best_d = std::fabs(v);
  for (int c = 1; c <= 0x7e; ++c) {
    const double d = std::fabs(v - double(e4m3_decode(static_cast<std::uint8_t>(c))));
    if (d < best_d || (d == best_d && (c & 1) == 0)) best = c, best_d = d;
  }
  return static_cast<std::uint8_t>((std::signbit(x) ? 0x80 : 0) | best);
}

TEST(Fp8E4m3, MatchesNearestValueOnEveryBf16AndFp16) {
  int bad = 0;
  for (std::uint32_t h = 0; h < 65536; ++h) {
    for (float x : {bf16_to_f32(std::uint16_t(h)), fp16_to_f32(std::uint16_t(h))}) {
      if (!std::isfinite(x)) continue;
      if (e4m3_encode(x) != nearest_code(x) && bad++ < 5) ADD_FAILURE() << "x = " << x;
    }
  }
  EXPECT_EQ(bad, 0);
}

TEST(Fp8Scale, PowerOfTwoThatFitsTheAmaxInto224To448) {
  EXPECT_EQ(fp8_scale_exp(448.0f), 0);
  EXPECT_EQ(fp8_scale_exp(449.0f), 1);
  EXPECT_EQ(fp8_scale_exp(224.0f), -1);  // 224 / 2^-1 = 448
  EXPECT_EQ(fp8_scale_exp(1.0f), -8);
  EXPECT_EQ(fp8_scale_exp(4.0f), -6);
  EXPECT_EQ(fp8_scale_exp(0.0f), 0);
  EXPECT_EQ(fp8_scale_exp(1e-40f), kFp8MinScaleExp);
  EXPECT_EQ(fp8_scale_exp(std::numeric_limits<float>::max()), 120);
  for (float amax : {1e-30f, 3e-7f, 0.1f, 1.0f, 2.5f, 447.9f, 448.1f, 7e4f, 3e38f}) {
    const int k = fp8_scale_exp(amax);
    const double q = double(amax) / std::ldexp(1.0, k);
    EXPECT_GT(q, 224.0) << amax;
    EXPECT_LE(q, 448.0) << amax;
    EXPECT_EQ(pow2f(k), float(std::ldexp(1.0, k)));
  }
  EXPECT_EQ(finite_abs(-3.0f), 3.0f);
  EXPECT_EQ(finite_abs(std::numeric_limits<float>::infinity()), 0.0f);
  EXPECT_EQ(finite_abs(std::numeric_limits<float>::quiet_NaN()), 0.0f);
}

}  // namespace
}  // namespace arbench::algo
