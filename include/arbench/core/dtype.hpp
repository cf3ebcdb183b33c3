// Element types arbench reduces, and their bit-exact conversions to and from fp32.
// The conversions are ARB_HD so a host twin rounds exactly as the CUDA kernel does
// (round-to-nearest-even), which keeps twin results bitwise comparable with the reference.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string_view>
#include <type_traits>

#include "arbench/core/hd.hpp"

namespace arbench {

enum class DType : std::uint8_t { bf16, fp16, fp32 };

inline constexpr DType kAllDTypes[] = {DType::bf16, DType::fp16, DType::fp32};

ARB_HD_CONSTEXPR std::size_t dtype_size(DType t) { return t == DType::fp32 ? 4 : 2; }

constexpr std::string_view dtype_name(DType t) {
  switch (t) {
    case DType::bf16: return "bf16";
    case DType::fp16: return "fp16";
    case DType::fp32: return "fp32";
  }
  return "?";
}

inline std::optional<DType> parse_dtype(std::string_view s) {
  for (DType t : kAllDTypes)
    if (dtype_name(t) == s) return t;
  return std::nullopt;
}

// The one dtype -> template switch: calls f(DTypeTag<t>{}), so `f` (a generic lambda) can
// instantiate a template on the run-time type with decltype(tag)::value.
template <DType D>
using DTypeTag = std::integral_constant<DType, D>;

template <class F>
decltype(auto) with_dtype(DType t, F&& f) {
  switch (t) {
    case DType::bf16: return f(DTypeTag<DType::bf16>{});
    case DType::fp16: return f(DTypeTag<DType::fp16>{});
    case DType::fp32: break;
  }
  return f(DTypeTag<DType::fp32>{});
}

// ---- bit-level conversions (identical on host and device) ----

ARB_HD std::uint32_t f32_bits(float f) {
#if defined(__CUDA_ARCH__)
  return __float_as_uint(f);
#else
  std::uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
#endif
}

ARB_HD float bits_f32(std::uint32_t u) {
#if defined(__CUDA_ARCH__)
  return __uint_as_float(u);
#else
  float f;
  std::memcpy(&f, &u, 4);
  return f;
#endif
}

ARB_HD float bf16_to_f32(std::uint16_t h) { return bits_f32(std::uint32_t(h) << 16); }

ARB_HD std::uint16_t f32_to_bf16(float f) {
  std::uint32_t u = f32_bits(f);
  if ((u & 0x7fffffffu) > 0x7f800000u) return std::uint16_t((u >> 16) | 0x40);  // quiet NaN
  u += 0x7fffu + ((u >> 16) & 1u);  // round to nearest even
  return std::uint16_t(u >> 16);
}

ARB_HD float fp16_to_f32(std::uint16_t h) {
  std::uint32_t sign = std::uint32_t(h & 0x8000u) << 16;
  std::uint32_t exp = (h >> 10) & 0x1fu;
  std::uint32_t man = h & 0x3ffu;
  if (exp == 0) {
    if (man == 0) return bits_f32(sign);
    // subnormal: value = man * 2^-24
    float v = float(man) * (1.0f / 16777216.0f);
    return sign ? -v : v;
  }
  if (exp == 31) return bits_f32(sign | 0x7f800000u | (man << 13));
  return bits_f32(sign | ((exp + 112u) << 23) | (man << 13));
}

ARB_HD std::uint16_t f32_to_fp16(float f) {
  std::uint32_t u = f32_bits(f);
  std::uint32_t sign = (u >> 16) & 0x8000u;
  std::uint32_t a = u & 0x7fffffffu;
  if (a > 0x7f800000u) return std::uint16_t(sign | 0x7e00u);  // NaN
  if (a >= 0x477ff000u) return std::uint16_t(sign | 0x7c00u);  // rounds to >= 65520: inf
  if (a < 0x38800000u) {  // below 2^-14: subnormal or zero, round to nearest even on 2^-24
    if (a < 0x33000000u) return std::uint16_t(sign);  // < 2^-25 rounds to 0
    std::uint32_t man = (a & 0x7fffffu) | 0x800000u;
    int shift = 126 - int(a >> 23);  // 14 - (e - 127) + 13 ... bits to drop
    std::uint32_t rounded = man >> shift;
    std::uint32_t rem = man & ((1u << shift) - 1u);
    std::uint32_t half = 1u << (shift - 1);
    if (rem > half || (rem == half && (rounded & 1u))) ++rounded;
    return std::uint16_t(sign | rounded);
  }
  std::uint32_t r = a + 0xfffu + ((a >> 13) & 1u);  // round to nearest even at bit 13
  return std::uint16_t(sign | ((r - 0x38000000u) >> 13));
}

// Load one element of `t` stored at `p[i]` as fp32; store fp32 `v` into `p[i]` rounded to `t`.
ARB_HD float load_as_f32(const void* p, std::size_t i, DType t) {
  switch (t) {
    case DType::bf16: return bf16_to_f32(static_cast<const std::uint16_t*>(p)[i]);
    case DType::fp16: return fp16_to_f32(static_cast<const std::uint16_t*>(p)[i]);
    default: return static_cast<const float*>(p)[i];
  }
}

ARB_HD void store_from_f32(void* p, std::size_t i, DType t, float v) {
  switch (t) {
    case DType::bf16: static_cast<std::uint16_t*>(p)[i] = f32_to_bf16(v); break;
    case DType::fp16: static_cast<std::uint16_t*>(p)[i] = f32_to_fp16(v); break;
    default: static_cast<float*>(p)[i] = v; break;
  }
}

// Units in the last place of `t` at magnitude |v| (the spacing of representable values there).
inline double ulp_of(DType t, double v) {
  const int mant_bits = t == DType::bf16 ? 7 : t == DType::fp16 ? 10 : 23;
  const int min_exp = t == DType::fp16 ? -14 : -126;  // exponent of the smallest normal
  int e = 0;
  if (v != 0.0) {
    std::frexp(v, &e);  // v = m * 2^e, 0.5 <= |m| < 1
    e -= 1;
  }
  if (v == 0.0 || e < min_exp) e = min_exp;
  return std::ldexp(1.0, e - mant_bits);
}

}  // namespace arbench
