// The error bound of the FP8-on-the-wire variants, derived from the format and the scaling
// (docs/variants.md, "FP8 on the wire": the derivation), and the inputs their check uses.
// Host-only: the harness's lossy check (bench/workload/workload_lossy.cpp) and the twin tests.
//
// Terms, for rank p's input x_p (the dtype's value, exact in fp32) in block b with scale s_pb (the
// format's rule, e4m3.hpp, from the block's amax):
//   quantization   |x - q(x) s| <= u8 |x| + d8 s + t(|x|)
//                                                    u8 = 2^-4 (3 mantissa bits, round to nearest),
//                                                    d8 = 2^-10 (half the subnormal spacing 2^-9),
//                                                    t(a) = max(0, a - 448 * 2^119): saturation, in
//                                                    the only blocks that saturate (amax >= 1.9375 *
//                                                    2^127, scale 2^119: e4m3.hpp)
//   fp32 sum of N  |fl(sum) - sum| <= g(N-1) sum|terms|   g(m) = m 2^-24 / (1 - m 2^-24)
//   output         |round(v) - v| <= u_out |v| + a_out    bf16 2^-8 and 2^-134 (half its subnormal
//                                                    spacing 2^-133); fp16 2^-11 and 2^-25 (its
//                                                    subnormals); fp32 0 (the sum is already fp32)
// One-shot:  E1 = sum_p (u8|x_p| + d8 s_pb + t(|x_p|)) + g(N-1) sum_p ((1+u8)|x_p| + d8 s_pb);
//            bound = E1 + u_out (|S| + E1) + a_out
// Two-shot adds the requantization of the fp32 sum sigma (|sigma - S| <= E1) with the scale of its
// block, at most s(M2), the largest scale of any amax up to M2 = max over the block of (|S| + E1)
// (fp8_scale_exp_at_most: the rule's scale drops by one at 1.9375 * 2^127):
//            E2 = u8 (|S| + E1) + d8 s(M2) + t(|S| + E1);  bound = E1 + E2 + u_out (|S| + E1 + E2) + a_out
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "arbench/algo/fp8/e4m3.hpp"
#include "arbench/algo/fp8/fp8_payload.hpp"
#include "arbench/core/dtype.hpp"

namespace arbench::algo {

// The output rounding term of the bound: rounding an fp32 v to the dtype is off by at most
// relative * |v| + absolute (round to nearest: half a unit in the last place, relative for normal
// results, absolute below the smallest normal, where the spacing is fixed).
struct Fp8OutputRounding {
  double relative = 0, absolute = 0;
};
inline Fp8OutputRounding fp8_output_rounding(DType out) {
  switch (out) {
    case DType::bf16: return {std::ldexp(1.0, -8), std::ldexp(1.0, -134)};
    case DType::fp16: return {std::ldexp(1.0, -11), std::ldexp(1.0, -25)};
    case DType::fp32: return {0.0, 0.0};
  }
  return {0.0, 0.0};
}

// t(a): how far saturation moves an element of magnitude a (0 unless a > 448 * 2^kFp8TopScaleExp,
// which only a block with that scale holds: e4m3.hpp).
inline double fp8_saturation_error(double a) {
  const double top = double(kE4m3Max) * std::ldexp(1.0, kFp8TopScaleExp);
  return a > top ? a - top : 0.0;
}

// The largest scale exponent fp8_scale_exp gives any amax in [0, m] (m >= 0; an m beyond fp32's
// range counts as FLT_MAX: a block's amax is a finite fp32).
inline int fp8_scale_exp_at_most(double m) {
  const double top_binade = std::ldexp(1.75, 127);  // from here to 1.9375 * 2^127 the scale is 2^120
  if (m > top_binade) return kFp8TopScaleExp + 1;
  float mf = static_cast<float>(m);
  if (double(mf) < m) mf = std::nextafter(mf, INFINITY);  // never below m
  return fp8_scale_exp(mf);
}

// The exact sum S (in double) of every element and the bound of |y - S| for output y.
struct Fp8Reference {
  std::vector<double> exact, bound;
};

// inputs[p][i]: rank p's element i as the dtype holds it; quantizations: 1 (one-shot), 2 (two-shot).
inline Fp8Reference fp8_reference(const std::vector<std::vector<float>>& inputs, DType out, int quantizations) {
  const double u8 = std::ldexp(1.0, -4), d8 = std::ldexp(1.0, -10), u32 = std::ldexp(1.0, -24);
  const double u_out = fp8_output_rounding(out).relative;
  const double a_out = fp8_output_rounding(out).absolute;
  const int world = static_cast<int>(inputs.size());
  const double m = world - 1;
  const double gamma = m * u32 / (1.0 - m * u32);
  const std::size_t n = inputs.empty() ? 0 : inputs[0].size();
  const std::size_t blk = static_cast<std::size_t>(kFp8BlockElems);
  Fp8Reference ref;
  ref.exact.assign(n, 0.0);
  ref.bound.assign(n, 0.0);
  std::vector<double> e1(n, 0.0);
  for (std::size_t b0 = 0; b0 < n; b0 += blk) {
    const std::size_t b1 = b0 + blk < n ? b0 + blk : n;
    std::vector<double> quant(b1 - b0, 0.0), terms(b1 - b0, 0.0);
    for (const auto& x : inputs) {
      float amax = 0;
      for (std::size_t i = b0; i < b1; ++i) amax = std::fmax(amax, finite_abs(x[i]));
      const double s = std::ldexp(1.0, fp8_scale_exp(amax));
      for (std::size_t i = b0; i < b1; ++i) {
        const double a = std::fabs(double(x[i]));
        ref.exact[i] += double(x[i]);
        quant[i - b0] += u8 * a + d8 * s + fp8_saturation_error(a);
        terms[i - b0] += (1.0 + u8) * a + d8 * s;
      }
    }
    double m2 = 0;
    for (std::size_t i = b0; i < b1; ++i) {
      e1[i] = quant[i - b0] + gamma * terms[i - b0];
      m2 = std::fmax(m2, std::fabs(ref.exact[i]) + e1[i]);
    }
    const double s2 = std::ldexp(1.0, fp8_scale_exp_at_most(m2));
    for (std::size_t i = b0; i < b1; ++i) {
      const double big = std::fabs(ref.exact[i]) + e1[i];
      const double e2 = quantizations >= 2 ? u8 * big + d8 * s2 + fp8_saturation_error(big) : 0.0;
      ref.bound[i] = e1[i] + e2 + u_out * (big + e2) + a_out;
    }
  }
  return ref;
}

// The distributions of the lossy check's inputs (the harness cycles through them by seed).
enum class Fp8Inputs : std::uint8_t { normal, heavy_tailed, block_outlier, wide_range };
inline constexpr int kFp8InputKinds = 4;

inline const char* fp8_inputs_name(Fp8Inputs k) {
  switch (k) {
    case Fp8Inputs::normal: return "normal";
    case Fp8Inputs::heavy_tailed: return "heavy-tailed";
    case Fp8Inputs::block_outlier: return "one outlier per block";
    case Fp8Inputs::wide_range: return "wide range";
  }
  return "?";
}

// A uniform double in (0, 1] from (seed, rank, i, salt): splitmix64.
inline double fp8_unit_hash(std::uint64_t seed, int rank, std::size_t i, std::uint64_t salt) {
  std::uint64_t z = seed * 0x9E3779B97F4A7C15ull + std::uint64_t(rank) * 0xBF58476D1CE4E5B9ull +
                    std::uint64_t(i) * 0x94D049BB133111EBull + salt * 0xD6E8FEB86659FD93ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  return (double(z >> 11) + 1.0) / 9007199254740992.0;
}

// Element i of rank's input (before rounding to the dtype). Magnitudes stay below ~2^12, so a
// sum over 8 ranks fits fp16. normal: N(0, 1); heavy_tailed: N(0,1) / U(0.01, 1] (Cauchy-like
// tails up to ~500); block_outlier: N(0, 1) with one element of every 32-block (its position from
// the hash) 100..400 times larger in magnitude; wide_range: signs random, magnitudes 2^U(-24, 8)
// (uniform in the exponent: many binades inside one block, e4m3 subnormals exercised).
inline float fp8_input(std::uint64_t seed, int rank, std::size_t i, Fp8Inputs kind) {
  const double u1 = fp8_unit_hash(seed, rank, i, 1), u2 = fp8_unit_hash(seed, rank, i, 2);
  const double normal = std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
  switch (kind) {
    case Fp8Inputs::normal: return static_cast<float>(normal);
    case Fp8Inputs::heavy_tailed: return static_cast<float>(normal / (0.01 + 0.99 * fp8_unit_hash(seed, rank, i, 3)));
    case Fp8Inputs::block_outlier: {
      const std::size_t blk = static_cast<std::size_t>(kFp8BlockElems);
      const std::size_t pos = static_cast<std::size_t>(fp8_unit_hash(seed, rank, i / blk, 4) * blk) % blk;
      if (i % blk != pos) return static_cast<float>(normal);
      return static_cast<float>((normal < 0 ? -1 : 1) * (100.0 + 300.0 * fp8_unit_hash(seed, rank, i, 5)));
    }
    case Fp8Inputs::wide_range: {
      const double mag = std::exp2(-24.0 + 32.0 * fp8_unit_hash(seed, rank, i, 6));
      return static_cast<float>(u2 < 0.5 ? -mag : mag);
    }
  }
  return 0.0f;
}

}  // namespace arbench::algo
