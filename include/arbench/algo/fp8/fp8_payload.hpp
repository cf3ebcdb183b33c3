// The FP8-on-the-wire payload of oneshot-fp8 and twoshot-fp8 (protocols: symm/oneshot_pull.hpp,
// symm/twoshot.hpp; the payload interface: symm/payload.hpp). docs/variants.md, "FP8 on the wire".
//
// Format: the message is cut into blocks of kFp8BlockElems elements, each quantized to e4m3 with
// its own power-of-two scale (fp8/e4m3.hpp). A work item (a "unit") is kFp8BlocksPerUnit blocks
// and travels as kFp8UnitPacks 16-byte packs: pack 0 holds the blocks' scales (fp32 bits, one
// word per block), packs 1 + 2j and 2 + 2j the 32 codes of block j (byte i of the pair = element
// i of the block). So the scale travels with its blocks in the same staging item, published by
// the same flag. On the wire: 144 bytes per 128 elements (bf16/fp16: 0.5625 of the bytes; fp32:
// 0.28). Elements past the message's end quantize as zeros and are never stored.
// Reduction: each rank's blocks are dequantized (exact: code * 2^k) and summed in fp32 in rank
// order 0..N-1; the sum is rounded once to the output dtype. Two-shot quantizes twice: every
// rank's input for the reduce-scatter, and the owner's fp32 sum again for the all-gather; the
// owner writes the dequantized requantized sum to its own output too, so all ranks agree bitwise.
// Non-finite inputs: an element that is NaN or +-inf is sent as NaN (it does not set the block's
// scale), so its output element is NaN; the other elements of its block are unaffected.
#pragma once

#include <cstdint>

#include "arbench/algo/faults.hpp"
#include "arbench/algo/fp8/e4m3.hpp"
#include "arbench/algo/pack.hpp"
#include "arbench/algo/symm_layout.hpp"

namespace arbench::algo {

inline constexpr int kFp8BlockElems = 32;
inline constexpr int kFp8BlocksPerUnit = 4;
inline constexpr std::size_t kFp8UnitElems = std::size_t(kFp8BlockElems) * kFp8BlocksPerUnit;
inline constexpr std::size_t kFp8UnitPacks = 1 + 2 * kFp8BlocksPerUnit;

ARB_HD_CONSTEXPR std::size_t fp8_units(std::size_t n) { return (n + kFp8UnitElems - 1) / kFp8UnitElems; }
// Staging packs of one slot (SymmArgs::packs of the FP8 variants).
ARB_HD_CONSTEXPR std::size_t fp8_slot_packs(std::size_t n) { return fp8_units(n) * kFp8UnitPacks; }

// Quantizes the 32 values x of one block into codes q (2 packs); returns the scale's fp32 bits
// (what travels with the block). Mem: only for the planted faults (faults.hpp), which the
// production policies fold away.
template <class Mem>
ARB_HD std::uint32_t fp8_quantize_block(const float (&x)[kFp8BlockElems], Pack (&q)[2]) {
  float amax = 0.0f;
  ARB_UNROLL
  for (int i = 0; i < kFp8BlockElems; ++i) {
    const float m = finite_abs(x[i]);
    amax = m > amax ? m : amax;
  }
  const int k = fp8_scale_exp(planted<Mem>(Fault::fp8_amax_ignored) ? finite_abs(x[0]) : amax);
  const float inv = pow2f(-k);
  q[0] = Pack{{0u, 0u, 0u, 0u}};
  q[1] = Pack{{0u, 0u, 0u, 0u}};
  ARB_UNROLL
  for (int i = 0; i < kFp8BlockElems; ++i)
    q[i >> 4].w[(i >> 2) & 3] |= std::uint32_t{e4m3_encode(x[i] * inv)} << ((i & 3) * 8);
  if constexpr (planted<Mem>(Fault::fp8_scale_doubled)) return f32_bits(pow2f(k + 1));
  if constexpr (planted<Mem>(Fault::fp8_scale_dropped)) return f32_bits(1.0f);
  return f32_bits(pow2f(k));
}

// Element i of a block's codes, dequantized with scale s (exact).
ARB_HD float fp8_dequant(const Pack (&q)[2], int i, float s) {
  return e4m3_decode(static_cast<std::uint8_t>(q[i >> 4].w[(i >> 2) & 3] >> ((i & 3) * 8))) * s;
}

template <DType D>
struct Fp8Payload {
  using E = ElemOps<D>;
  static constexpr std::size_t kUnitPacks = kFp8UnitPacks;
  static constexpr int kPacksPerBlock = kFp8BlockElems / E::kPerPack;

  ARB_HD static std::size_t items(const SymmArgs& a) { return fp8_units(a.n); }

  // The input pack of element 0 of block j of unit k.
  ARB_HD static std::size_t first_pack(std::size_t k, int j) {
    return (k * kFp8BlocksPerUnit + static_cast<std::size_t>(j)) * kPacksPerBlock;
  }

  ARB_HD static void load_block(const SymmArgs& a, std::size_t k, int j, float (&x)[kFp8BlockElems]) {
    const std::size_t p0 = first_pack(k, j);
    ARB_UNROLL
    for (int ip = 0; ip < kPacksPerBlock; ++ip) {
      const Pack p = load_pack<D>(a.in, p0 + ip, a.n);
      ARB_UNROLL
      for (int e = 0; e < E::kPerPack; ++e) x[ip * E::kPerPack + e] = E::get(p, e);
    }
  }

  ARB_HD static void store_block(const SymmArgs& a, std::size_t k, int j, const float (&y)[kFp8BlockElems]) {
    const std::size_t p0 = first_pack(k, j);
    ARB_UNROLL
    for (int ip = 0; ip < kPacksPerBlock; ++ip) {
      Pack p{{0u, 0u, 0u, 0u}};
      ARB_UNROLL
      for (int e = 0; e < E::kPerPack; ++e) E::set(p, e, y[ip * E::kPerPack + e]);
      store_pack<D>(a.out, p0 + ip, a.n, p);
    }
  }

  template <class Mem>
  ARB_HD static void stage(const SymmArgs& a, Pack* own, std::size_t k) {
    Pack* u = own + k * kUnitPacks;
    Pack scales{{0u, 0u, 0u, 0u}};
    ARB_UNROLL
    for (int j = 0; j < kFp8BlocksPerUnit; ++j) {
      float x[kFp8BlockElems];
      load_block(a, k, j, x);
      Pack q[2];
      scales.w[j] = fp8_quantize_block<Mem>(x, q);
      Mem::store_data(u + 1 + 2 * j, q[0]);
      Mem::store_data(u + 2 + 2 * j, q[1]);
    }
    Mem::store_data(u, scales);
  }

  // Block j of unit k summed over ranks 0..N-1 in order, in fp32; sc: every rank's scale pack.
  template <class Mem>
  ARB_HD static void sum_block(const SymmArgs& a, int slot, std::size_t k, int j, const Pack (&sc)[kLayoutMaxRanks],
                               float (&acc)[kFp8BlockElems]) {
    ARB_UNROLL
    for (int p = 0; p < kLayoutMaxRanks; ++p) {
      if (p >= a.world) continue;
      const Pack* u = staging_ptr(a.scratch[p], slot, a.packs) + k * kUnitPacks;
      const Pack q[2] = {Mem::load_data(u + 1 + 2 * j), Mem::load_data(u + 2 + 2 * j)};
      const float s = bits_f32(sc[p].w[j]);
      ARB_UNROLL
      for (int i = 0; i < kFp8BlockElems; ++i) {
        const float v = fp8_dequant(q, i, s);
        acc[i] = p == 0 ? v : acc[i] + v;
      }
    }
  }

  template <class Mem>
  ARB_HD static void load_scales(const SymmArgs& a, int slot, std::size_t k, Pack (&sc)[kLayoutMaxRanks]) {
    ARB_UNROLL
    for (int p = 0; p < kLayoutMaxRanks; ++p)
      if (p < a.world) sc[p] = Mem::load_data(staging_ptr(a.scratch[p], slot, a.packs) + k * kUnitPacks);
  }

  template <class Mem>
  ARB_HD static void reduce(const SymmArgs& a, int slot, std::size_t k) {
    Pack sc[kLayoutMaxRanks] = {};
    load_scales<Mem>(a, slot, k, sc);
    ARB_UNROLL
    for (int j = 0; j < kFp8BlocksPerUnit; ++j) {
      float acc[kFp8BlockElems];
      sum_block<Mem>(a, slot, k, j, sc, acc);
      store_block(a, k, j, acc);
    }
  }

  // The sum is quantized again into own staging (for the gather), and the output gets exactly
  // what the peers will make of it.
  template <class Mem>
  ARB_HD static void reduce_own(const SymmArgs& a, int slot, Pack* own, std::size_t k) {
    Pack sc[kLayoutMaxRanks] = {};
    load_scales<Mem>(a, slot, k, sc);
    Pack* u = own + k * kUnitPacks;
    Pack scales{{0u, 0u, 0u, 0u}};
    ARB_UNROLL
    for (int j = 0; j < kFp8BlocksPerUnit; ++j) {
      float acc[kFp8BlockElems];
      sum_block<Mem>(a, slot, k, j, sc, acc);
      Pack q[2];
      scales.w[j] = fp8_quantize_block<Mem>(acc, q);
      Mem::store_data(u + 1 + 2 * j, q[0]);
      Mem::store_data(u + 2 + 2 * j, q[1]);
      ARB_UNROLL
      for (int i = 0; i < kFp8BlockElems; ++i) acc[i] = fp8_dequant(q, i, bits_f32(scales.w[j]));
      store_block(a, k, j, acc);
    }
    Mem::store_data(u, scales);
  }

  template <class Mem>
  ARB_HD static void gather(const SymmArgs& a, const Pack* src, std::size_t k) {
    const Pack* u = src + k * kUnitPacks;
    const Pack scales = Mem::load_data(u);
    ARB_UNROLL
    for (int j = 0; j < kFp8BlocksPerUnit; ++j) {
      const Pack q[2] = {Mem::load_data(u + 1 + 2 * j), Mem::load_data(u + 2 + 2 * j)};
      float y[kFp8BlockElems];
      ARB_UNROLL
      for (int i = 0; i < kFp8BlockElems; ++i) y[i] = fp8_dequant(q, i, bits_f32(scales.w[j]));
      store_block(a, k, j, y);
    }
  }
};

}  // namespace arbench::algo
