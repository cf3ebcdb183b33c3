// FP8 e4m3 (OCP "E4M3FN": bias 7, no infinities, NaN = S.1111.111, largest finite 448) and the
// power-of-two block scale of the FP8-on-the-wire variants (docs/variants.md, "FP8 on the wire").
//
// Purpose: one conversion for the CUDA kernels and their host twins. It is integer arithmetic on
// the fp32 bit pattern plus multiplications by powers of two, which are exact, so the kernel and
// the twin produce the same bits on any IEEE fp32 machine (no dependence on FMA contraction, the
// host's rounding mode or a hardware cvt instruction).
//   encode: round to nearest even; finite values beyond 448 saturate to +-448 (the scale keeps
//           every finite input of a block inside the range, so this only matters for callers that
//           pass unscaled values); a NaN or an infinity becomes NaN (0x7f): e4m3 has no infinity,
//           and saturating one to 448 would hide it in a plausible-looking number. (cuda_fp8.h's
//           __NV_SATFINITE conversion saturates infinities: CUDA 13.0.88, cuda_fp8.hpp.)
//   decode: exact (every e4m3 value is an fp32 value); 0x7f/0xff decode to a quiet NaN.
// Block scale: s = 2^k, the smallest k >= kFp8MinScaleExp with amax <= 448 * s (amax: the largest
// finite |x| of the block), so amax / s lies in (224, 448]: no finite element saturates, and
// x / s and q * s are exact (powers of two), leaving the e4m3 rounding as the only error.
#pragma once

#include <cstdint>

#include "arbench/core/dtype.hpp"
#include "arbench/core/hd.hpp"

namespace arbench::algo {

inline constexpr float kE4m3Max = 448.0f;
inline constexpr std::uint8_t kE4m3Nan = 0x7f;
inline constexpr std::uint8_t kE4m3MaxCode = 0x7e;
// The smallest scale exponent: keeps s and 1/s normal fp32 numbers (blocks whose amax is below
// 448 * 2^-126 ~ 5e-36 lose relative precision; the error bound carries the term).
inline constexpr int kFp8MinScaleExp = -126;

// fp32 -> e4m3, round to nearest even, finite overflow saturates, non-finite -> NaN (see above).
ARB_HD std::uint8_t e4m3_encode(float x) {
  const std::uint32_t u = f32_bits(x);
  const std::uint8_t sign = static_cast<std::uint8_t>((u >> 24) & 0x80u);
  const std::uint32_t a = u & 0x7fffffffu;
  if (a >= 0x7f800000u) return kE4m3Nan;
  const int e32 = static_cast<int>(a >> 23) - 127;
  if (e32 >= -6) {
    // Normal e4m3: keep 3 mantissa bits, rounding the dropped 20 to nearest even; a carry runs
    // into the exponent, as it should.
    std::uint32_t q = a >> 20;
    const std::uint32_t rem = a & 0xfffffu;
    if (rem > 0x80000u || (rem == 0x80000u && (q & 1u))) ++q;
    const std::uint32_t code = q - (static_cast<std::uint32_t>(127 - 7) << 3);
    return static_cast<std::uint8_t>(sign | (code > kE4m3MaxCode ? kE4m3MaxCode : code));
  }
  // Subnormal e4m3 (multiples of 2^-9, code = the multiple, 8 being the smallest normal).
  if (a < 0x00800000u) return sign;  // fp32 subnormal or zero: far below 2^-10
  const std::uint32_t sig = (a & 0x7fffffu) | 0x800000u;  // |x| = sig * 2^(e32 - 23)
  const int shift = 14 - e32;                              // |x| / 2^-9 = sig >> shift, shift >= 21
  if (shift >= 25) return sign;                            // < 2^-10: rounds to zero
  std::uint32_t q = sig >> shift;
  const std::uint32_t rem = sig & ((1u << shift) - 1u);
  const std::uint32_t half = 1u << (shift - 1);
  if (rem > half || (rem == half && (q & 1u))) ++q;
  return static_cast<std::uint8_t>(sign | q);
}

// e4m3 -> fp32, exact; NaN codes give a quiet NaN of that sign.
ARB_HD float e4m3_decode(std::uint8_t c) {
  const std::uint32_t sign = static_cast<std::uint32_t>(c & 0x80u) << 24;
  const std::uint32_t e = (c >> 3) & 0xfu;
  const std::uint32_t m = c & 0x7u;
  if ((c & 0x7fu) == 0x7fu) return bits_f32(sign | 0x7fc00000u);
  if (e == 0) return bits_f32(sign | f32_bits(static_cast<float>(m) * 0.001953125f));  // m * 2^-9
  return bits_f32(sign | ((e + 120u) << 23) | (m << 20));
}

// 2^k as fp32, for kFp8MinScaleExp <= k <= 127.
ARB_HD float pow2f(int k) { return bits_f32(static_cast<std::uint32_t>(k + 127) << 23); }

// The block's scale exponent k (s = 2^k) for amax = the largest finite |x| of the block (>= 0):
// the smallest k >= kFp8MinScaleExp with amax <= 448 * 2^k; 0 for amax == 0.
ARB_HD int fp8_scale_exp(float amax) {
  const std::uint32_t a = f32_bits(amax) & 0x7fffffffu;
  if (a == 0u) return 0;
  if (a < 0x00800000u) return kFp8MinScaleExp;  // fp32 subnormal amax
  const int e = static_cast<int>(a >> 23) - 127;  // amax = 1.m * 2^e
  // 448 = 1.75 * 2^8: 1.m <= 1.75 fits 448 * 2^(e-8), else one more binade.
  const int k = (a & 0x7fffffu) <= 0x600000u ? e - 8 : e - 7;
  return k < kFp8MinScaleExp ? kFp8MinScaleExp : k;
}

// |x| if finite, else 0 (a non-finite element does not set its block's scale).
ARB_HD float finite_abs(float x) {
  const std::uint32_t a = f32_bits(x) & 0x7fffffffu;
  return a >= 0x7f800000u ? 0.0f : bits_f32(a);
}

}  // namespace arbench::algo
