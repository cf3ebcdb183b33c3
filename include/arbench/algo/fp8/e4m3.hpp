// FP8 e4m3 (OCP "E4M3FN": bias 7, no infinities, NaN = S.1111.111, largest finite 448), the
// power-of-two block scale of the FP8-on-the-wire variants and its E8M0 byte (docs/variants.md,
// "FP8 on the wire").
//
// Purpose: one conversion for the CUDA kernels and their host twins, bit for bit.
//   reference (host, and devices below sm_89): integer arithmetic on the fp32 bit pattern plus
//           multiplications by powers of two, which are exact on any IEEE fp32 machine;
//   sm_89 and later: the hardware conversions, two elements an instruction and no branch:
//           cvt.rn.satfinite.e4m3x2.f32 to encode, cvt.rn.f16x2.e4m3x2 (then cvt.f32.f16) to
//           decode. tests/host/algo/test_fp8_cvt_model.cpp checks, for all 256 codes and a sweep
//           of fp32 inputs, that the reference equals a host model of what the PTX ISA documents
//           for those instructions (below): kernel and twin agree as far as that model is the
//           hardware. The GPU test (tests/gpu/test_fp8_gpu.cpp) compares them on its inputs, which
//           include no non-finite or subnormal values yet.
//   encode: round to nearest even; finite values beyond 448 saturate to +-448 (the scale keeps
//           every finite input of a block inside the range, except the largest elements of a block
//           at the top of fp32's range: the block scale below); a NaN or an infinity becomes NaN with its sign: 0x7f, or 0xff
//           when negative, as CUDA's own reference conversion encodes a negative NaN
//           (__nv_cvt_double_to_fp8: `res = 0x7FU` for a NaN, then `res |= sign`; CUDA 13.0.88,
//           cuda_fp8.hpp). e4m3 has no infinity, and saturating one to 448 would hide it in a
//           plausible-looking number. (cuda_fp8.h's __NV_SATFINITE conversion saturates
//           infinities, and its float path makes every NaN 0x7f: the same file.)
//   decode: exact (every e4m3 value is an fp32 value); 0x7f/0xff decode to a quiet NaN.
// The PTX instructions (PTX ISA, "cvt"): .satfinite makes a NaN input a NaN and an input whose
// magnitude exceeds the format's largest finite value (448), infinities included, that value
// with the input's sign; .rn rounds to nearest, ties to even; e4m3x2 packs input a in bits 15..8
// and b in bits 7..0 (f16x2 from e4m3x2: the upper byte to the upper half). The sign a NaN result
// gets is not documented, and an infinity saturates, so the kernel replaces the code of every
// non-finite input after the conversion (one select an element): that keeps kernel and twin
// equal whatever the hardware does with a NaN's sign.
// Exactness needs IEEE subnormals: a dequantized value can be an fp32 subnormal (2^-9 * 2^-126),
// so the FP8 sources are compiled with -ftz=false whatever the build's flags (CMakeLists.txt),
// and scripts/ptx_memory_ops.py fails on any .ftz instruction in their PTX.
// Block scale: s = 2^k, the smallest k >= kFp8MinScaleExp with amax <= 448 * s (amax: the largest
// finite |x| of the block), so amax / s lies in (224, 448]: no finite element saturates, and
// x / s and q * s are exact (powers of two), leaving the e4m3 rounding as the only error. One
// exception keeps every decoded value finite: an amax of at least 1.9375 * 2^127 (bf16's largest
// finite value, 1.9921875 * 2^127, is one) would get k = 120, and amax / s = 1.m * 2^7 >= 248
// rounds to 256 (248 is the tie between 240 and 256, and 240's mantissa is odd), which decodes as
// 256 * 2^120 = 2^128: +inf. Such a block gets k = 119 (kFp8TopScaleExp) instead: its elements
// above 448 * 2^119 = 1.75 * 2^127 saturate to it, off by less than 1/8 of themselves (the error
// bound carries the term: fp8_bound.hpp). The scale travels as one E8M0 byte, k + 127 (k lies in
// [-126, 120], so the byte in [1, 247]): the same number as an fp32 word, in a quarter of the bytes.
#pragma once

#include <cstdint>

#include "arbench/core/dtype.hpp"
#include "arbench/core/hd.hpp"

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 890
#define ARB_FP8_CVT 1  // the hardware e4m3 conversions (sm_89+)
#else
#define ARB_FP8_CVT 0
#endif

namespace arbench::algo {

inline constexpr float kE4m3Max = 448.0f;
inline constexpr std::uint8_t kE4m3Nan = 0x7f;  // positive NaN; a negative one is 0xff
inline constexpr std::uint8_t kE4m3MaxCode = 0x7e;
// The smallest scale exponent: keeps s and 1/s normal fp32 numbers (blocks whose amax is below
// 448 * 2^-126 ~ 5e-36 lose relative precision; the error bound carries the term).
inline constexpr int kFp8MinScaleExp = -126;
inline constexpr int kE8m0Bias = 127;
// The scale of a block whose amax is at least 1.9375 * 2^127 (fp8_scale_exp): the only blocks
// whose largest elements saturate (to 448 * 2^119 = 1.75 * 2^127).
inline constexpr int kFp8TopScaleExp = 119;

// The code of a non-finite input: NaN with the input's sign.
ARB_HD std::uint8_t e4m3_nan_of(std::uint32_t fp32_bits) {
  return static_cast<std::uint8_t>(((fp32_bits >> 24) & 0x80u) | kE4m3Nan);
}

// fp32 -> e4m3 (the reference): round to nearest even, finite overflow saturates, non-finite ->
// NaN of the input's sign.
ARB_HD std::uint8_t e4m3_encode(float x) {
  const std::uint32_t u = f32_bits(x);
  const std::uint8_t sign = static_cast<std::uint8_t>((u >> 24) & 0x80u);
  const std::uint32_t a = u & 0x7fffffffu;
  if (a >= 0x7f800000u) return e4m3_nan_of(u);
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

// e4m3 -> fp32 (the reference), exact; NaN codes give a quiet NaN of that sign.
ARB_HD float e4m3_decode(std::uint8_t c) {
  const std::uint32_t sign = static_cast<std::uint32_t>(c & 0x80u) << 24;
  const std::uint32_t e = (c >> 3) & 0xfu;
  const std::uint32_t m = c & 0x7u;
  if ((c & 0x7fu) == 0x7fu) return bits_f32(sign | 0x7fc00000u);
  if (e == 0) return bits_f32(sign | f32_bits(static_cast<float>(m) * 0.001953125f));  // m * 2^-9
  return bits_f32(sign | ((e + 120u) << 23) | (m << 20));
}

// Two elements at once: lo in bits 7..0, hi in bits 15..8 (the wire's byte order: element i at
// byte i). The kernel's path on sm_89+, the reference elsewhere; equal bit for bit (above).
ARB_HD std::uint32_t e4m3x2_encode(float lo, float hi) {
#if ARB_FP8_CVT
  unsigned short pair;
  asm("cvt.rn.satfinite.e4m3x2.f32 %0, %1, %2;" : "=h"(pair) : "f"(hi), "f"(lo));
  const std::uint32_t ul = f32_bits(lo), uh = f32_bits(hi);
  const std::uint32_t cl = (ul & 0x7f800000u) == 0x7f800000u ? e4m3_nan_of(ul) : (pair & 0xffu);
  const std::uint32_t ch = (uh & 0x7f800000u) == 0x7f800000u ? e4m3_nan_of(uh) : (pair >> 8);
  return cl | (ch << 8);
#else
  return std::uint32_t{e4m3_encode(lo)} | (std::uint32_t{e4m3_encode(hi)} << 8);
#endif
}

// The two elements of a pair (bits 7..0 and 15..8 of `pair`), decoded.
ARB_HD void e4m3x2_decode(std::uint32_t pair, float& lo, float& hi) {
#if ARB_FP8_CVT
  unsigned int h2;
  asm("cvt.rn.f16x2.e4m3x2 %0, %1;" : "=r"(h2) : "h"(static_cast<unsigned short>(pair)));
  asm("cvt.f32.f16 %0, %1;" : "=f"(lo) : "h"(static_cast<unsigned short>(h2)));
  asm("cvt.f32.f16 %0, %1;" : "=f"(hi) : "h"(static_cast<unsigned short>(h2 >> 16)));
#else
  lo = e4m3_decode(static_cast<std::uint8_t>(pair));
  hi = e4m3_decode(static_cast<std::uint8_t>(pair >> 8));
#endif
}

// 2^k as fp32, for kFp8MinScaleExp <= k <= 127.
ARB_HD float pow2f(int k) { return bits_f32(static_cast<std::uint32_t>(k + 127) << 23); }

// The block's scale exponent k (s = 2^k) for amax = the largest finite |x| of the block (>= 0):
// the smallest k >= kFp8MinScaleExp with amax <= 448 * 2^k; 0 for amax == 0; and
// kFp8TopScaleExp for amax >= 1.9375 * 2^127, where that k (120) would decode amax as +inf (above).
ARB_HD int fp8_scale_exp(float amax) {
  const std::uint32_t a = f32_bits(amax) & 0x7fffffffu;
  if (a == 0u) return 0;
  if (a < 0x00800000u) return kFp8MinScaleExp;  // fp32 subnormal amax
  const int e = static_cast<int>(a >> 23) - 127;  // amax = 1.m * 2^e
  const std::uint32_t m = a & 0x7fffffu;
  // 1.m >= 1.9375 (m >= 0x780000) in fp32's top binade: 1.m * 2^7 rounds to 2^8, and 2^8 * 2^120
  // is no fp32 number.
  if (e == 127 && m >= 0x780000u) return kFp8TopScaleExp;
  // 448 = 1.75 * 2^8: 1.m <= 1.75 fits 448 * 2^(e-8), else one more binade.
  const int k = m <= 0x600000u ? e - 8 : e - 7;
  return k < kFp8MinScaleExp ? kFp8MinScaleExp : k;
}

// The scale 2^k on the wire: E8M0, the biased exponent k + 127 in one byte; and back (exact).
ARB_HD std::uint8_t e8m0_of_exp(int k) { return static_cast<std::uint8_t>(k + kE8m0Bias); }
ARB_HD float e8m0_scale(std::uint32_t byte) { return bits_f32((byte & 0xffu) << 23); }

// |x| if finite, else 0 (a non-finite element does not set its block's scale).
ARB_HD float finite_abs(float x) {
  const std::uint32_t a = f32_bits(x) & 0x7fffffffu;
  return a >= 0x7f800000u ? 0.0f : bits_f32(a);
}

}  // namespace arbench::algo
