// The FP8-on-the-wire payload of oneshot-fp8 and twoshot-fp8 (protocols: symm/oneshot_pull.hpp,
// symm/twoshot.hpp; the payload interface: symm/payload.hpp). docs/variants.md, "FP8 on the wire".
//
// Format: the message is cut into blocks of kFp8BlockElems = 32 elements, each quantized to e4m3
// with its own power-of-two scale (fp8/e4m3.hpp), which travels as one E8M0 byte. A work item (a
// "unit") is one block: 2 packs of codes (byte i of the pair = element i) and its scale byte.
// Slot layout, pack-major so that a warp's 32 units are 32 adjacent packs (512 contiguous bytes,
// every sector whole): for U units,
//   packs [0, U)        code pack 0 of unit k at k        (elements 0..15)
//   packs [U, 2U)       code pack 1 of unit k at U + k    (elements 16..31)
//   bytes from pack 2U  the scale byte of unit k at byte k (fp8_scale_packs(U) packs)
// On the wire: 33 bytes per 32 elements (bf16/fp16: 0.516 of the bytes; fp32: 0.258). Elements
// past the message's end quantize as zeros and are never stored.
// Reduction: each rank's block is dequantized (exact: code * 2^k) and summed in fp32 in rank
// order 0..N-1; the sum is rounded once to the output dtype. The codes and scales of every rank
// are loaded back to back before any is decoded: one wave of PCIe reads per unit
// (scripts/round_trips.py checks it). Two-shot quantizes twice: every rank's input for the
// reduce-scatter, and the owner's fp32 sum again for the all-gather; the owner writes the
// dequantized requantized sum to its own output too, so all ranks agree bitwise.
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
inline constexpr std::size_t kFp8UnitElems = kFp8BlockElems;  // a unit is one block
inline constexpr int kFp8CodePacks = 2;                        // 32 codes

ARB_HD_CONSTEXPR std::size_t fp8_units(std::size_t n) { return (n + kFp8UnitElems - 1) / kFp8UnitElems; }
// Packs of the scale plane: one byte per unit.
ARB_HD_CONSTEXPR std::size_t fp8_scale_packs(std::size_t units) { return (units + sizeof(Pack) - 1) / sizeof(Pack); }
// Staging packs of one slot (SymmArgs::packs of the FP8 variants).
ARB_HD_CONSTEXPR std::size_t fp8_slot_packs(std::size_t n) {
  return kFp8CodePacks * fp8_units(n) + fp8_scale_packs(fp8_units(n));
}

// Where unit k's parts are in a slot of U units (layout above).
ARB_HD Pack* fp8_code(Pack* slot, std::size_t units, int i, std::size_t k) { return slot + i * units + k; }
ARB_HD const Pack* fp8_code(const Pack* slot, std::size_t units, int i, std::size_t k) { return slot + i * units + k; }
ARB_HD std::uint8_t* fp8_scale_byte(Pack* slot, std::size_t units, std::size_t k) {
  return reinterpret_cast<std::uint8_t*>(slot + kFp8CodePacks * units) + k;
}
ARB_HD const std::uint8_t* fp8_scale_byte(const Pack* slot, std::size_t units, std::size_t k) {
  return reinterpret_cast<const std::uint8_t*>(slot + kFp8CodePacks * units) + k;
}

// Keeps the first use of a loaded word where the code puts it (no instruction). Without it nvcc
// (sm_120) hoisted a scale's shift next to its load, inside that rank's `if`: the warp then waited
// for each rank's scale before the next rank's loads issued (scripts/round_trips.py: 8 waits per
// unit instead of 1).
ARB_HD void fp8_keep_here(std::uint32_t& v) {
#if defined(__CUDA_ARCH__)
  asm("" : "+r"(v));
#else
  (void)v;
#endif
}

// Quantizes the 32 values x of one block into codes q (2 packs); returns the scale's E8M0 byte
// (what travels with the block). Mem: only for the planted faults (faults.hpp), which the
// production policies fold away.
template <class Mem>
ARB_HD std::uint8_t fp8_quantize_block(const float (&x)[kFp8BlockElems], Pack (&q)[kFp8CodePacks]) {
  float amax = 0.0f;
  ARB_UNROLL
  for (int i = 0; i < kFp8BlockElems; ++i) {
    const float m = finite_abs(x[i]);
    amax = m > amax ? m : amax;
  }
  const int k = fp8_scale_exp(planted<Mem>(Fault::fp8_amax_ignored) ? finite_abs(x[0]) : amax);
  const float inv = pow2f(-k);
  ARB_UNROLL
  for (int w = 0; w < 8; ++w) {  // word w of the codes: elements 4w .. 4w+3
    const std::uint32_t lo = e4m3x2_encode(x[4 * w] * inv, x[4 * w + 1] * inv);
    const std::uint32_t hi = e4m3x2_encode(x[4 * w + 2] * inv, x[4 * w + 3] * inv);
    q[w >> 2].w[w & 3] = lo | (hi << 16);
  }
  if constexpr (planted<Mem>(Fault::fp8_scale_doubled)) return e8m0_of_exp(k + 1);
  if constexpr (planted<Mem>(Fault::fp8_scale_dropped)) return e8m0_of_exp(0);
  return e8m0_of_exp(k);
}

// The 32 elements of a block's codes, dequantized with scale s (exact).
ARB_HD void fp8_dequant(const Pack (&q)[kFp8CodePacks], float s, float (&y)[kFp8BlockElems]) {
  ARB_UNROLL
  for (int w = 0; w < 8; ++w) {
    const std::uint32_t word = q[w >> 2].w[w & 3];
    float a, b, c, d;
    e4m3x2_decode(word & 0xffffu, a, b);
    e4m3x2_decode(word >> 16, c, d);
    y[4 * w] = a * s;
    y[4 * w + 1] = b * s;
    y[4 * w + 2] = c * s;
    y[4 * w + 3] = d * s;
  }
}

template <DType D>
struct Fp8Payload {
  using E = ElemOps<D>;
  static constexpr int kPacksPerBlock = kFp8BlockElems / E::kPerPack;

  ARB_HD static std::size_t items(const SymmArgs& a) { return fp8_units(a.n); }

  ARB_HD static void load_block(const SymmArgs& a, std::size_t k, float (&x)[kFp8BlockElems]) {
    const std::size_t p0 = k * kPacksPerBlock;
    Pack p[kPacksPerBlock];
    ARB_UNROLL
    for (int ip = 0; ip < kPacksPerBlock; ++ip) p[ip] = load_pack<D>(a.in, p0 + ip, a.n);
    ARB_UNROLL
    for (int ip = 0; ip < kPacksPerBlock; ++ip)
      ARB_UNROLL
      for (int e = 0; e < E::kPerPack; ++e) x[ip * E::kPerPack + e] = E::get(p[ip], e);
  }

  ARB_HD static void store_block(const SymmArgs& a, std::size_t k, const float (&y)[kFp8BlockElems]) {
    const std::size_t p0 = k * kPacksPerBlock;
    ARB_UNROLL
    for (int ip = 0; ip < kPacksPerBlock; ++ip) {
      Pack p{{0u, 0u, 0u, 0u}};
      ARB_UNROLL
      for (int e = 0; e < E::kPerPack; ++e) E::set(p, e, y[ip * E::kPerPack + e]);
      store_pack<D>(a.out, p0 + ip, a.n, p);
    }
  }

  // Unit k's codes and scale into `slot` (own staging).
  template <class Mem>
  ARB_HD static void put(Pack* slot, std::size_t units, std::size_t k, const Pack (&q)[kFp8CodePacks], std::uint8_t e) {
    Mem::store_data(fp8_code(slot, units, 0, k), q[0]);
    Mem::store_data(fp8_code(slot, units, 1, k), q[1]);
    Mem::store_byte(fp8_scale_byte(slot, units, k), e);
  }

  template <class Mem>
  ARB_HD static void stage(const SymmArgs& a, Pack* own, std::size_t k) {
    float x[kFp8BlockElems];
    load_block(a, k, x);
    Pack q[kFp8CodePacks];
    const std::uint8_t e = fp8_quantize_block<Mem>(x, q);
    put<Mem>(own, fp8_units(a.n), k, q, e);
  }

  // Unit k of every rank's staging summed over ranks 0..N-1 in order, in fp32. Every rank's codes
  // and scale are loaded before the first is decoded: one wave of remote loads, not one per rank.
  template <class Mem>
  ARB_HD static void sum_ranks(const SymmArgs& a, int slot, std::size_t k, float (&acc)[kFp8BlockElems]) {
    const std::size_t units = fp8_units(a.n);
    Pack q[kLayoutMaxRanks][kFp8CodePacks] = {};
    std::uint32_t e[kLayoutMaxRanks] = {};
    ARB_UNROLL
    for (int p = 0; p < kLayoutMaxRanks; ++p) {
      if (p >= a.world) continue;
      const Pack* s = staging_ptr(a.scratch[p], slot, a.packs);
      q[p][0] = Mem::load_peer(fp8_code(s, units, 0, k));
      q[p][1] = Mem::load_peer(fp8_code(s, units, 1, k));
      e[p] = Mem::load_peer_byte(fp8_scale_byte(s, units, k));
    }
    ARB_UNROLL
    for (int p = 0; p < kLayoutMaxRanks; ++p) {
      if (p >= a.world) continue;
      fp8_keep_here(e[p]);
      float v[kFp8BlockElems];
      fp8_dequant(q[p], e8m0_scale(e[p]), v);
      ARB_UNROLL
      for (int i = 0; i < kFp8BlockElems; ++i) acc[i] = p == 0 ? v[i] : acc[i] + v[i];
    }
  }

  template <class Mem>
  ARB_HD static void reduce(const SymmArgs& a, int slot, std::size_t k) {
    float acc[kFp8BlockElems];
    sum_ranks<Mem>(a, slot, k, acc);
    store_block(a, k, acc);
  }

  // The sum is quantized again into own staging (for the gather), and the output gets exactly
  // what the peers will make of it.
  template <class Mem>
  ARB_HD static void reduce_own(const SymmArgs& a, int slot, Pack* own, std::size_t k) {
    float acc[kFp8BlockElems];
    sum_ranks<Mem>(a, slot, k, acc);
    Pack q[kFp8CodePacks];
    const std::uint8_t e = fp8_quantize_block<Mem>(acc, q);
    put<Mem>(own, fp8_units(a.n), k, q, e);
    fp8_dequant(q, e8m0_scale(e), acc);
    store_block(a, k, acc);
  }

  template <class Mem>
  ARB_HD static void gather(const SymmArgs& a, const Pack* src, std::size_t k) {
    const std::size_t units = fp8_units(a.n);
    const Pack q[kFp8CodePacks] = {Mem::load_peer(fp8_code(src, units, 0, k)),
                                   Mem::load_peer(fp8_code(src, units, 1, k))};
    const std::uint32_t e = Mem::load_peer_byte(fp8_scale_byte(src, units, k));
    float y[kFp8BlockElems];
    fp8_dequant(q, e8m0_scale(e), y);
    store_block(a, k, y);
  }
};

}  // namespace arbench::algo
