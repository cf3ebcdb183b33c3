// Oracle inputs: small integers that are exact in bf16, fp16 and fp32, and whose sums over up
// to kMaxRanks ranks stay exact, so every all-reduce result can be checked bit for bit.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "arbench/core/dtype.hpp"

namespace arbench {

// Value of element i on `rank`: an integer in [-4, 4] from a cheap hash of (seed, rank, i).
inline int oracle_value(std::uint64_t seed, int rank, std::size_t i) {
  std::uint64_t z = seed * 0x9E3779B97F4A7C15ull + std::uint64_t(rank) * 0xBF58476D1CE4E5B9ull + i;
  z ^= z >> 31;
  z *= 0x94D049BB133111EBull;
  z ^= z >> 29;
  return int(z % 9u) - 4;
}

// Fill `n` elements of `t` at `dst` (host memory) with rank's oracle input.
inline void fill_oracle(void* dst, DType t, std::size_t n, std::uint64_t seed, int rank) {
  for (std::size_t i = 0; i < n; ++i) store_from_f32(dst, i, t, float(oracle_value(seed, rank, i)));
}

// The exact all-reduce of the oracle inputs of ranks 0..world-1, as `t` bytes.
inline std::vector<std::uint8_t> oracle_sum(DType t, std::size_t n, std::uint64_t seed, int world) {
  std::vector<std::uint8_t> out(n * dtype_size(t));
  for (std::size_t i = 0; i < n; ++i) {
    int s = 0;
    for (int r = 0; r < world; ++r) s += oracle_value(seed, r, i);
    store_from_f32(out.data(), i, t, float(s));
  }
  return out;
}

// Whether element i of `got` is element i of `want` (both of `t`): bit for bit, but with
// `signed_zeros` false a +0.0 and a -0.0 are the same (Variant::signed_zeros: a peer whose kernels
// send a zero as -0.0). Every other difference, a NaN poison left in place or a stale value, is a
// wrong element either way.
inline bool same_element(const void* got, const void* want, DType t, std::size_t i, bool signed_zeros = true) {
  const std::size_t es = dtype_size(t);
  const auto* g = static_cast<const std::uint8_t*>(got) + i * es;
  const auto* w = static_cast<const std::uint8_t*>(want) + i * es;
  bool same = true, zeros = true;
  for (std::size_t b = 0; b < es; ++b) {
    same = same && g[b] == w[b];
    // A zero of either sign: every byte zero but the sign bit (the top bit of the last byte).
    const std::uint8_t mask = b + 1 == es ? 0x7f : 0xff;
    zeros = zeros && (g[b] & mask) == 0 && (w[b] & mask) == 0;
  }
  return same || (!signed_zeros && zeros);
}

// Elements of `got` that differ from `want` (both `n` elements of `t`): bitwise, and with
// `signed_zeros` false a +0.0 against a -0.0 is no difference (same_element).
inline std::size_t count_wrong(const void* got, const void* want, DType t, std::size_t n, bool signed_zeros = true) {
  std::size_t wrong = 0;
  for (std::size_t i = 0; i < n; ++i)
    if (!same_element(got, want, t, i, signed_zeros)) ++wrong;
  return wrong;
}

}  // namespace arbench
