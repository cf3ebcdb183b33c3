// Layout and arguments of the allreduce_rmsnorm kernels (norm-only, fused-oneshot,
// fused-twoshot), shared by kernels, twins and the host code that allocates the memory.
//
// Symmetric scratch per rank (same layout on every rank), on top of symm_layout.hpp:
//   [flags]    as symm_layout.hpp (barrier flags, single writer per word)
//   [staging]  Pack[kEpochSlots][P]               x of this rank, row-padded: row t, pack k at
//                                                 t * row_packs + k; P = tokens * row_packs
//   [gather]   Pack[kEpochSlots][2][P]            fused-twoshot only: the owner's r ([0]) and
//                                                 y ([1]) rows, what peers all-gather
// Rows are padded to whole packs so every row of the scratch starts 16-byte aligned, also when
// the user's H is not a multiple of the elements per pack.
// Local state: RankState (epochs per block, error record), as the symmetric-memory variants.
#pragma once

#include <cstddef>

#include "arbench/algo/launch_policy.hpp"
#include "arbench/algo/rmsnorm.hpp"
#include "arbench/algo/symm_layout.hpp"

namespace arbench::algo {

inline constexpr int kGatherParts = 2;  // r and y

ARB_HD Pack* gather_ptr(void* scratch, int slot, int part, std::size_t padded_packs) {
  return staging_ptr(scratch, 0, padded_packs) +
         (static_cast<std::size_t>(kEpochSlots) +
          static_cast<std::size_t>(slot * kGatherParts + part)) * padded_packs;
}

inline constexpr std::size_t fused_scratch_bytes(std::size_t padded_packs, bool with_gather) {
  return staging_scratch_bytes(padded_packs) +
         (with_gather ? static_cast<std::size_t>(kEpochSlots * kGatherParts) * padded_packs * sizeof(Pack) : 0);
}

// What a fused kernel needs, by value. s: the symmetric-memory part (s.in = own x, s.packs = P,
// s.n = tokens * H, s.out unused); io: own residual/weight/outputs.
struct FusedArgs {
  SymmArgs s;
  NormIo io;
  int tokens = 0;
};

// The norm-only kernel (the second half of the unfused variants): sum is the all-reduce output.
struct NormArgs {
  const void* sum = nullptr;
  NormIo io;
  int tokens = 0;
  std::uint64_t* phases = nullptr;  // own phase record (phase_record.hpp); null: not recorded
  int first_mark = 0;               // its three marks follow the all-reduce's (kNormMarks)
};

// Grid of the fused kernels: one block per row it can own (block-per-row norm), capped like the
// symmetric-memory kernels (all blocks of all ranks sharing a device must be resident at once).
struct FusedLaunchPolicy {
  static constexpr int kThreads = kNormLanes;  // must divide kNormLanes (rmsnorm.hpp)
  static_assert(kNormLanes % kThreads == 0);
  static constexpr int kMinBlocksPerSm = SymmLaunchPolicy::kMinBlocksPerSm;
  static constexpr int blocks(int rows, int sms, int ranks_per_device, int requested) {
    const int cap = SymmLaunchPolicy::max_blocks(sms, ranks_per_device);
    const int want = requested > 0 ? requested : rows;
    return want < 1 ? 1 : (want < cap ? want : cap);
  }
  // The norm-only kernel: one block per row. It never waits, so the GPU needs no residency cap
  // (cap = rows); a host twin caps it by the CPU cores it has.
  static constexpr int norm_blocks(int rows, int cap) {
    const int want = rows < 1 ? 1 : rows;
    return cap > 0 && cap < want ? cap : want;
  }
  // Threads per block of a host twin's block-faithful mode: up to the kernel's, and a divisor of
  // kNormLanes (every thread owns the same number of lanes of the sum of squares).
  static constexpr bool threads_ok(int threads) {
    return threads >= 1 && threads <= kThreads && kNormLanes % threads == 0;
  }
};

}  // namespace arbench::algo
