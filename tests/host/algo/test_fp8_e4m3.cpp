// The e4m3 conversion and block scale the FP8 variants share with their kernels
// (include/arbench/algo/fp8/e4m3.hpp), pinned on known values and checked against a brute-force
// nearest-value search over every bf16 and fp16 input.
#include "arbench/algo/fp8/e4m3.hpp"

#include <gtest/gtest.h>

#include "arbench/algo/fp8/fp8_bound.hpp"

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
  EXPECT_EQ(fp8_scale_exp(std::numeric_limits<float>::max()), kFp8TopScaleExp);  // the test below
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

// x quantized at its block's scale (amax: the block's largest finite |x|) and decoded.
float round_trip(float x, float amax) {
  const int k = fp8_scale_exp(amax);
  return e4m3_decode(e4m3_encode(x * pow2f(-k))) * pow2f(k);
}

// The top of fp32's range: a block whose amax is >= 1.9375 * 2^127 (bf16's largest finite value
// among them) decodes finite, off by no more than the bound's quantization term (fp8_bound.hpp:
// u8 |x| + d8 s + t(|x|)). The scale 2^120 that "amax <= 448 s" alone picks rounds 1.9375 * 2^7
// up to 2^8, and 2^8 * 2^120 is +inf.
TEST(Fp8Scale, TheLargestFiniteInputsDecodeFinite) {
  const float bf16_max = bf16_to_f32(0x7f7f), fp32_max = std::numeric_limits<float>::max();
  const float top = std::ldexp(1.9375f, 127), below = std::nextafter(top, 0.0f);
  EXPECT_EQ(double(bf16_max), std::ldexp(1.9921875, 127));
  for (float amax : {bf16_max, fp32_max, top}) {
    EXPECT_EQ(fp8_scale_exp(amax), kFp8TopScaleExp) << amax;
    for (float x : {amax, -amax, below, std::ldexp(1.75f, 127)}) {
      const float y = round_trip(x, amax);
      EXPECT_TRUE(std::isfinite(y)) << x << " in a block of amax " << amax << " decodes as " << y;
      const double a = std::fabs(double(x)), s = std::ldexp(1.0, fp8_scale_exp(amax));
      EXPECT_LE(std::fabs(double(y) - double(x)), std::ldexp(a, -4) + std::ldexp(s, -10) + fp8_saturation_error(a))
          << x << " in a block of amax " << amax;
    }
    EXPECT_EQ(round_trip(amax, amax), std::ldexp(1.75f, 127)) << amax;  // saturated: 448 * 2^119
  }
  // Just below, the rule's own scale 2^120 rounds to 1.875 * 2^127: finite, no saturation.
  EXPECT_EQ(fp8_scale_exp(below), 120);
  EXPECT_EQ(round_trip(below, below), std::ldexp(1.875f, 127));
  // Every finite fp32 as its block's amax (a stride through the patterns, and the top binade's
  // every mantissa step of 2^-16): finite, and within the quantization term.
  auto check = [](std::uint32_t bits) {
    const float x = bits_f32(bits);
    const float y = round_trip(x, x);
    const double a = double(x), s = std::ldexp(1.0, fp8_scale_exp(x));
    return std::isfinite(y) && std::fabs(double(y) - a) <= std::ldexp(a, -4) + std::ldexp(s, -10) + fp8_saturation_error(a);
  };
  int bad = 0;
  for (std::uint64_t b = 1; b < 0x7f800000u; b += 4099)
    if (!check(std::uint32_t(b)) && bad++ < 5) ADD_FAILURE() << "amax bits " << std::hex << b;
  for (std::uint32_t m = 0; m < (1u << 23); m += 128)
    if (!check((254u << 23) | m) && bad++ < 5) ADD_FAILURE() << "amax 1." << std::hex << m << " * 2^127";
  EXPECT_TRUE(check(0x7f7fffffu));
  EXPECT_EQ(bad, 0);
}

}  // namespace
}  // namespace arbench::algo
