// LL lines: data and its epoch flag in the same 8-byte word (the "low latency" protocol).
//
// Purpose: one-shot push writes its data straight into a peer's scratch with no separate flag
// and no barrier. Each 16-byte line carries 8 data bytes: {d0, epoch, d1, epoch}. PCIe and the
// GPU guarantee 8-byte stores arrive whole, so a reader that sees `epoch` in a word also sees
// that word's data; the two halves of a line may arrive separately, hence one flag per half.
// A 16-byte pack travels as two lines (2x the bytes: LL trades bandwidth for latency).
// Rules: an LL region is only ever written with LL lines (never mixed with flag/barrier
// protocols); readers compare flags for equality with the op's epoch (epoch.hpp), and regions
// are double-buffered by epoch_slot(), so a slot holds epoch e, e-2 or its initial fill.
#pragma once

#include <cstdint>

#include "arbench/algo/pack.hpp"
#include "arbench/core/hd.hpp"

namespace arbench::algo {

// h[i] = data_i | (epoch << 32): each 8-byte half is one word the hardware stores whole.
struct alignas(16) LlLine {
  std::uint64_t h[2];
};

inline constexpr int kLinesPerPack = 2;

ARB_HD LlLine ll_encode(std::uint32_t d0, std::uint32_t d1, std::uint32_t epoch) {
  const std::uint64_t f = static_cast<std::uint64_t>(epoch) << 32;
  return LlLine{{f | d0, f | d1}};
}

ARB_HD std::uint32_t ll_flag(const LlLine& l, int half) { return static_cast<std::uint32_t>(l.h[half] >> 32); }
ARB_HD std::uint32_t ll_data(const LlLine& l, int half) { return static_cast<std::uint32_t>(l.h[half]); }

ARB_HD bool ll_valid(const LlLine& l, std::uint32_t epoch) {
  return ll_flag(l, 0) == epoch && ll_flag(l, 1) == epoch;
}

// The flag to report when a line is not (yet) valid: the half that is behind.
ARB_HD std::uint32_t ll_seen(const LlLine& l, std::uint32_t epoch) {
  return ll_flag(l, 0) != epoch ? ll_flag(l, 0) : ll_flag(l, 1);
}

// A line holding only the fill value in both flags (initial content of an LL region).
ARB_HD LlLine ll_fill(std::uint32_t fill) { return ll_encode(0u, 0u, fill); }

}  // namespace arbench::algo
