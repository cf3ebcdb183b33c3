// The FP8 kernels convert with the sm_89+ instructions cvt.rn.satfinite.e4m3x2.f32 and
// cvt.rn.f16x2.e4m3x2 (include/arbench/algo/fp8/e4m3.hpp); their host twins with the integer
// reference e4m3_encode / e4m3_decode. The host cannot run PTX, so this proves the two agree by
// modelling what the PTX ISA documents for the instructions ("cvt": .rn rounds to the nearest
// representable value, ties to even; .satfinite gives a NaN input a NaN and an input of larger
// magnitude than the format's largest finite value, infinities included, that value with the
// input's sign; f16x2 from e4m3x2 converts each byte exactly) independently of the reference:
// nearest values found by comparing exact distances to the format's value list, values from the
// format's definition (S.EEEE.MMM, bias 7, S.1111.111 = NaN). Checked: every one of the 256 codes
// (decode), and a sweep of fp32 inputs (encode) that holds every rounding boundary of the format
// and the values either side of it, every binade e4m3 can reach densely, both signs, zeros,
// fp32 subnormals, values past 448 and non-finite ones. The kernel then replaces the code of a
// non-finite input (one select), so that its NaN's sign is the reference's, not the hardware's.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <vector>

#include "arbench/algo/fp8/e4m3.hpp"

namespace arbench::algo {
namespace {

// The value of code c by the format's definition (NaN for S.1111.111).
double e4m3_value(int c) {
  const int s = c >> 7, e = (c >> 3) & 0xf, m = c & 7;
  if ((c & 0x7f) == 0x7f) return std::numeric_limits<double>::quiet_NaN();
  const double mag = e == 0 ? std::ldexp(m, -9) : std::ldexp(1.0 + m / 8.0, e - 7);
  return s ? -mag : mag;
}

// The positive finite codes 0x00..0x7e by value (ascending: the encoding is monotonic, and this
// list is sorted by value, not by code, so it does not assume it).
struct Magnitudes {
  std::vector<std::pair<double, int>> v;
  Magnitudes() {
    for (int c = 0; c <= 0x7e; ++c) v.emplace_back(e4m3_value(c), c);
    std::sort(v.begin(), v.end());
  }
};
const Magnitudes kMags;

// cvt.rn.satfinite.e4m3x2.f32 on one element, as documented; nullopt for "a NaN".
std::optional<std::uint8_t> ptx_cvt_e4m3(float x) {
  if (std::isnan(x)) return std::nullopt;
  const std::uint8_t sign = std::signbit(x) ? 0x80 : 0x00;
  const double a = std::fabs(double(x));
  if (a > 448.0) return std::uint8_t(sign | 0x7e);  // MAX_NORM, sign preserved (infinities too)
  // Nearest by exact distance (a and every e4m3 value are exact in double, so are differences).
  const auto& v = kMags.v;
  auto hi = std::lower_bound(v.begin(), v.end(), std::make_pair(a, -1));
  if (hi == v.end()) return std::uint8_t(sign | 0x7e);
  if (hi->first == a) return std::uint8_t(sign | hi->second);
  const auto lo = hi - 1;  // a > 0 here: 0 is the first value
  const double dlo = a - lo->first, dhi = hi->first - a;
  int code = dlo < dhi ? lo->second : dhi < dlo ? hi->second : ((lo->second & 1) == 0 ? lo->second : hi->second);
  return std::uint8_t(sign | code);
}

// cvt.rn.f16x2.e4m3x2 then cvt.f32.f16 on one byte, as documented: the value, exactly (it must
// be an f16 value: checked), NaN for a NaN code.
double ptx_decode(int c) {
  const double v = e4m3_value(c);
  if (std::isnan(v)) return v;
  const double a = std::fabs(v);
  // f16: normal from 2^-14 with 10 fraction bits, subnormal multiples of 2^-24 below.
  const int e = a == 0 ? -24 : std::max(std::ilogb(a), -14);
  EXPECT_EQ(std::fmod(a, std::ldexp(1.0, e - 10)), 0.0) << "code " << c << " is not an f16 value";
  EXPECT_LE(a, 65504.0);
  return v;
}

TEST(Fp8CvtModel, DecodeOfEveryCodeEqualsTheInstructionsModel) {
  for (int c = 0; c < 256; ++c) {
    const double want = ptx_decode(c);
    const float got = e4m3_decode(std::uint8_t(c));
    if (std::isnan(want)) {
      EXPECT_TRUE(std::isnan(got)) << "code " << c;
      continue;
    }
    EXPECT_EQ(double(got), want) << "code " << c;
    EXPECT_EQ(std::signbit(got), std::signbit(want)) << "code " << c << " (the sign of zero)";
    float lo = 0, hi = 0;  // the pair entry point, both bytes
    e4m3x2_decode(std::uint32_t(c) | (std::uint32_t(c ^ 0x80) << 8), lo, hi);
    EXPECT_EQ(f32_bits(lo), f32_bits(got));
    EXPECT_EQ(f32_bits(hi), f32_bits(e4m3_decode(std::uint8_t(c ^ 0x80))));
  }
}

// The inputs of the encoder sweep.
std::vector<float> sweep_inputs() {
  std::vector<float> xs;
  auto both = [&](double v) {
    for (double s : {1.0, -1.0}) {
      const float f = float(s * v);
      xs.push_back(f);
      xs.push_back(std::nextafter(f, std::numeric_limits<float>::infinity()));
      xs.push_back(std::nextafter(f, -std::numeric_limits<float>::infinity()));
    }
  };
  // Every value of the format and every midpoint between neighbours (the rounding boundaries),
  // with the fp32 values either side of each.
  for (std::size_t i = 0; i < kMags.v.size(); ++i) {
    both(kMags.v[i].first);
    if (i + 1 < kMags.v.size()) both((kMags.v[i].first + kMags.v[i + 1].first) / 2);
  }
  both(464.0);  // the midpoint to the 480 e4m3 lacks
  both(std::ldexp(1.0, -10));  // half the smallest subnormal
  // Densely, every binade e4m3 reaches and one beyond each end: every fp32 whose low 7 mantissa
  // bits are zero (2^16 per binade), both signs.
  for (int e = -12; e <= 9; ++e)
    for (std::uint32_t m = 0; m < (1u << 23); m += 1u << 7)
      for (std::uint32_t s : {0u, 0x80000000u}) xs.push_back(bits_f32(s | (std::uint32_t(e + 127) << 23) | m));
  // The rest of fp32 thinly (a prime stride through every bit pattern), zeros, subnormals,
  // huge values, infinities and NaNs.
  for (std::uint64_t u = 0; u < (1ull << 32); u += 65521) xs.push_back(bits_f32(std::uint32_t(u)));
  for (float f : {0.0f, -0.0f, 1e-45f, -1e-45f, 1e-40f, 1e30f, -1e30f, std::numeric_limits<float>::max(),
                  std::numeric_limits<float>::infinity(), -std::numeric_limits<float>::infinity(),
                  std::numeric_limits<float>::quiet_NaN(), -std::numeric_limits<float>::quiet_NaN()})
    xs.push_back(f);
  return xs;
}

// What the kernel computes on sm_89+: the instruction, then the select that replaces the code of
// a non-finite input by the NaN of its sign (e4m3.hpp, e4m3x2_encode).
std::uint8_t kernel_encode_model(float x) {
  const std::uint32_t u = f32_bits(x);
  if ((u & 0x7f800000u) == 0x7f800000u) return e4m3_nan_of(u);
  const auto c = ptx_cvt_e4m3(x);
  EXPECT_TRUE(c.has_value());
  return c.value_or(0);
}

TEST(Fp8CvtModel, EncodeEqualsTheInstructionsModelOnTheSweep) {
  const std::vector<float> xs = sweep_inputs();
  EXPECT_GT(xs.size(), 2'500'000u);
  std::size_t bad = 0;
  for (float x : xs) {
    const std::uint8_t want = kernel_encode_model(x), got = e4m3_encode(x);
    if (want != got && ++bad <= 10)
      ADD_FAILURE() << "x = " << x << " (bits 0x" << std::hex << f32_bits(x) << "): reference 0x" << int(got)
                    << ", the instruction's model 0x" << int(want);
  }
  EXPECT_EQ(bad, 0u);
  // The pair entry point keeps the wire's byte order (element 0 in the low byte).
  EXPECT_EQ(e4m3x2_encode(1.0f, -2.0f), 0xc038u);
  EXPECT_EQ(e4m3x2_encode(-std::numeric_limits<float>::infinity(), std::numeric_limits<float>::quiet_NaN()), 0x7fffu);
}

// The instruction's own result for non-finite inputs, which the select replaces: a NaN input
// gives "a NaN" (its sign undocumented), an infinity saturates: so without the select the kernel
// would send 448 for an infinity, where the reference sends NaN.
TEST(Fp8CvtModel, TheSelectIsNeededForInfinities) {
  EXPECT_EQ(ptx_cvt_e4m3(std::numeric_limits<float>::infinity()), std::optional<std::uint8_t>(0x7e));
  EXPECT_EQ(e4m3_encode(std::numeric_limits<float>::infinity()), 0x7f);
  EXPECT_FALSE(ptx_cvt_e4m3(std::numeric_limits<float>::quiet_NaN()).has_value());
}

TEST(Fp8CvtModel, E8m0ScaleByteIsThePowerOfTwoExactly) {
  for (int k = kFp8MinScaleExp; k <= 120; ++k) {
    EXPECT_EQ(double(e8m0_scale(e8m0_of_exp(k))), std::ldexp(1.0, k)) << k;
    EXPECT_EQ(f32_bits(e8m0_scale(e8m0_of_exp(k))), f32_bits(pow2f(k))) << k;
  }
  // Every scale the rule can choose fits the byte: k in [-126, 120] (120 for amax in
  // (1.75, 1.9375) * 2^127; above, kFp8TopScaleExp = 119: e4m3.hpp).
  EXPECT_EQ(fp8_scale_exp(std::nextafter(std::ldexp(1.9375f, 127), 0.0f)), 120);
  EXPECT_EQ(fp8_scale_exp(std::numeric_limits<float>::max()), kFp8TopScaleExp);
  EXPECT_EQ(fp8_scale_exp(1e-40f), kFp8MinScaleExp);
}

}  // namespace
}  // namespace arbench::algo
