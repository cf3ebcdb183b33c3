// Packs: the 16-byte unit every symmetric-memory kernel moves, loads and reduces.
//
// Purpose: one vectorised 16-byte access per thread per step (LD.128/ST.128 on the GPU), the
// widest single access PCIe peers serve efficiently. A message of n elements is cut into
// pack_count(n) packs; the last one is partial when n is not a multiple of elements-per-pack
// (the "tail"). Partial packs are loaded element by element with zeros after the end and stored
// element by element, so no kernel ever touches bytes past the caller's buffer.
// Requirements: every buffer base is 16-byte aligned (checked with is_pack_aligned by the
// variant's prepare); element types are the three DTypes, accessed through ElemOps<D>.
#pragma once

#include <cstddef>
#include <cstdint>

#include "arbench/core/dtype.hpp"
#include "arbench/core/hd.hpp"

// Fully unrolls a loop with a compile-time trip count in device code, so per-rank arrays stay in
// registers (a runtime-indexed array would spill to local memory). Empty on the host.
#if defined(__CUDA_ARCH__)
#define ARB_UNROLL _Pragma("unroll")
#else
#define ARB_UNROLL
#endif

namespace arbench::algo {

inline constexpr std::size_t kPackBytes = 16;

struct alignas(16) Pack {
  std::uint32_t w[4];
};

// Element access inside a pack for one dtype; conversions are the bit-exact ones of dtype.hpp,
// so a host twin rounds exactly like the kernel. bf16 and fp16 (this template): two 16-bit
// elements per 32-bit word, only the conversion differs; fp32: the specialisation below.
template <DType D>
struct ElemOps {
  static_assert(D == DType::bf16 || D == DType::fp16);
  static constexpr int kPerPack = 8;
  static constexpr std::size_t kBytes = 2;
  ARB_HD static float get(const Pack& p, int i) {
    const auto h = static_cast<std::uint16_t>(p.w[i >> 1] >> ((i & 1) * 16));
    return D == DType::bf16 ? bf16_to_f32(h) : fp16_to_f32(h);
  }
  ARB_HD static void set(Pack& p, int i, float v) {
    const std::uint32_t h = D == DType::bf16 ? f32_to_bf16(v) : f32_to_fp16(v);
    const int sh = (i & 1) * 16;
    p.w[i >> 1] = (p.w[i >> 1] & ~(0xffffu << sh)) | (h << sh);
  }
};

template <>
struct ElemOps<DType::fp32> {
  static constexpr int kPerPack = 4;
  static constexpr std::size_t kBytes = 4;
  ARB_HD static float get(const Pack& p, int i) { return bits_f32(p.w[i]); }
  ARB_HD static void set(Pack& p, int i, float v) { p.w[i] = f32_bits(v); }
};

ARB_HD_CONSTEXPR std::size_t elems_per_pack(DType t) { return kPackBytes / dtype_size(t); }

// Packs needed for n elements of t, the last one possibly partial.
ARB_HD_CONSTEXPR std::size_t pack_count(std::size_t n, DType t) {
  return (n + elems_per_pack(t) - 1) / elems_per_pack(t);
}

// Valid elements in pack k of an n-element message (elems_per_pack, or fewer for the tail).
ARB_HD_CONSTEXPR std::size_t elems_in_pack(std::size_t k, std::size_t n, DType t) {
  const std::size_t per = elems_per_pack(t);
  const std::size_t first = k * per;
  return first >= n ? 0 : (n - first < per ? n - first : per);
}

inline bool is_pack_aligned(const void* p) {
  return reinterpret_cast<std::uintptr_t>(p) % kPackBytes == 0;
}

// Pack k of an n-element message at `base`; a partial pack reads only the valid elements and
// fills the rest with zero bits.
template <DType D>
ARB_HD Pack load_pack(const void* base, std::size_t k, std::size_t n) {
  const std::size_t valid = elems_in_pack(k, n, D);
  if (valid == static_cast<std::size_t>(ElemOps<D>::kPerPack)) return static_cast<const Pack*>(base)[k];
  // Element by element, with compile-time indices into the pack so it stays in registers.
  Pack p{{0u, 0u, 0u, 0u}};
  if constexpr (ElemOps<D>::kBytes == 4) {
    const auto* src = static_cast<const std::uint32_t*>(base) + k * 4;
    ARB_UNROLL
    for (int i = 0; i < 4; ++i)
      if (static_cast<std::size_t>(i) < valid) p.w[i] = src[i];
  } else {
    const auto* src = static_cast<const std::uint16_t*>(base) + k * 8;
    ARB_UNROLL
    for (int i = 0; i < 8; ++i)
      if (static_cast<std::size_t>(i) < valid) p.w[i >> 1] |= std::uint32_t{src[i]} << ((i & 1) * 16);
  }
  return p;
}

// Stores pack k; a partial pack writes only the valid elements.
template <DType D>
ARB_HD void store_pack(void* base, std::size_t k, std::size_t n, const Pack& p) {
  const std::size_t valid = elems_in_pack(k, n, D);
  if (valid == static_cast<std::size_t>(ElemOps<D>::kPerPack)) {
    static_cast<Pack*>(base)[k] = p;
    return;
  }
  if constexpr (ElemOps<D>::kBytes == 4) {
    auto* dst = static_cast<std::uint32_t*>(base) + k * 4;
    ARB_UNROLL
    for (int i = 0; i < 4; ++i)
      if (static_cast<std::size_t>(i) < valid) dst[i] = p.w[i];
  } else {
    auto* dst = static_cast<std::uint16_t*>(base) + k * 8;
    ARB_UNROLL
    for (int i = 0; i < 8; ++i)
      if (static_cast<std::size_t>(i) < valid) dst[i] = static_cast<std::uint16_t>(p.w[i >> 1] >> ((i & 1) * 16));
  }
}

}  // namespace arbench::algo
