// Phase timeline (docs/latency-breakdown.md): the marks an op records at its protocol's phase
// boundaries, and the record they land in.
//
// A rank's record is uint64 nanoseconds [kPhaseBlocks][kMaxPhaseMarks]: thread 0 of block b
// writes mark m at record[b * kMaxPhaseMarks + m] with the policy's clock (kernel: %globaltimer;
// host twin: steady_clock). 0 means "not recorded" (the block did not run, or stopped early).
// Each variant names its marks in the order one block reaches them; the interval that ends at a
// mark belongs to one bucket of the breakdown ("entry skew · staging · wait for peers ·
// reduce+store · exit skew").
#pragma once

#include <cstddef>
#include <cstdint>

namespace arbench {

inline constexpr int kMaxPhaseMarks = 40;  // ring at 8 ranks: 2 + 2 * (2*7 - 2 + 1) + 2 = 30
inline constexpr int kPhaseBlocks = 64;    // == algo::kMaxBlocks (every grid fits)
inline constexpr std::size_t kPhaseRecordWords = static_cast<std::size_t>(kPhaseBlocks) * kMaxPhaseMarks;
inline constexpr std::size_t kPhaseRecordBytes = kPhaseRecordWords * sizeof(std::uint64_t);

// Which part of the breakdown the interval ending at a mark counts toward. The first mark of
// every variant is `entry` (nothing ends there); its spread over ranks is the entry skew.
enum class PhaseBucket : std::uint8_t { entry, staging, wait, reduce, exit };

struct PhaseMark {
  const char* name;
  PhaseBucket ends;  // the bucket of the interval from the previous mark to this one
};

}  // namespace arbench
