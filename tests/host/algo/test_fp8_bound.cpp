// The output term of the FP8 variants' error bound (include/arbench/algo/fp8/fp8_bound.hpp,
// fp8_output_rounding): rounding an fp32 sum v to the output dtype is off by at most
// relative * |v| + absolute. Below the smallest normal the spacing is fixed, so the relative
// part alone is too small there and the absolute part carries it: bf16's 2^-134 (half its
// subnormal spacing 2^-133) and fp16's 2^-25. Checked on every fp32 below bf16's smallest normal
// (2^-126) and every fp32 below fp16's (2^-14) on a fine grid; and the absolute part is needed
// (without it the same sums break the term). The twins at such sums: test_twin_fp8.cpp.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>

#include "arbench/algo/fp8/fp8_bound.hpp"

namespace arbench::algo {
namespace {

double rounded(DType t, float v) {
  return t == DType::bf16 ? double(bf16_to_f32(f32_to_bf16(v))) : double(fp16_to_f32(f32_to_fp16(v)));
}

// Over fp32 values from 0 up to `top` (exclusive) with the given bit stride, both signs: how many
// roundings break the term, and how many break its relative part alone.
void sweep(DType t, std::uint32_t top_bits, std::uint32_t stride, int& outside, int& relative_only_outside) {
  const Fp8OutputRounding r = fp8_output_rounding(t);
  outside = relative_only_outside = 0;
  for (std::uint32_t u = 0; u < top_bits; u += stride)
    for (std::uint32_t s : {0u, 0x80000000u}) {
      const float v = bits_f32(u | s);
      const double err = std::fabs(rounded(t, v) - double(v));
      if (err > r.relative * std::fabs(double(v)) + r.absolute) ++outside;
      if (err > r.relative * std::fabs(double(v))) ++relative_only_outside;
    }
}

TEST(Fp8Bound, OutputTermCoversSubnormalSums) {
  int outside = 0, relative_only = 0;
  sweep(DType::bf16, 0x00800000u, 1, outside, relative_only);  // every fp32 below 2^-126
  EXPECT_EQ(outside, 0);
  EXPECT_GT(relative_only, 1000000);  // without 2^-134 the term fails there
  EXPECT_EQ(fp8_output_rounding(DType::bf16).absolute, std::ldexp(1.0, -134));
  sweep(DType::fp16, 0x38800000u, 97, outside, relative_only);  // below 2^-14, a prime stride
  EXPECT_EQ(outside, 0);
  EXPECT_GT(relative_only, 1000);
  EXPECT_EQ(fp8_output_rounding(DType::fp32).absolute, 0.0);
}

// The bound a whole op carries at such sums holds the term: two ranks whose bf16 inputs cancel
// to below 2^-126 in one element still get at least 2^-134 of room there.
TEST(Fp8Bound, TheBoundOfATinySumHoldsTheOutputTerm) {
  const std::vector<std::vector<float>> in = {{std::ldexp(1.0f, -120), std::ldexp(3.0f, -133)},
                                              {-std::ldexp(1.0f, -120), std::ldexp(1.0f, -133)}};
  for (int q : {1, 2}) {
    const Fp8Reference ref = fp8_reference(in, DType::bf16, q);
    EXPECT_LT(std::fabs(ref.exact[1]), std::ldexp(1.0, -126));
    EXPECT_GE(ref.bound[1], std::ldexp(1.0, -134));
    EXPECT_GE(ref.bound[0], std::ldexp(1.0, -134));  // the exact sum 0: the term still there
  }
}

}  // namespace
}  // namespace arbench::algo
