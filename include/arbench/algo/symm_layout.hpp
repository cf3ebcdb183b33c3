// Layout of the per-rank memory of the symmetric-memory variants (oneshot-pull, oneshot-push,
// twoshot), shared by kernels, twins and the host code that allocates it.
//
// Symmetric scratch (every peer writes/reads it), one per rank, same layout on every rank:
//   [flags]  uint32 flag[kFlagPhases][kMaxBlocks][kMaxRanks]: flag[ph][b][s] is written only by
//            rank s (block b, barrier phase ph) with the epoch it arrived at. Single writer.
//   [data]   at kDataOffset, one of
//            staging  Pack[kEpochSlots][packs]                          (pull, twoshot)
//            LL       LlLine[kEpochSlots][world][packs*kLinesPerPack]   (push; [s] = from rank s)
// Local state (only its rank touches it): RankState, one per rank.
#pragma once

#include <cstddef>
#include <cstdint>

#include "arbench/algo/epoch.hpp"
#include "arbench/algo/ll.hpp"
#include "arbench/algo/pack.hpp"
#include "arbench/algo/wait.hpp"
#include "arbench/core/hd.hpp"

namespace arbench::algo {

inline constexpr int kLayoutMaxRanks = 8;  // == arbench::kMaxRanks (fabric.hpp), kept host-free
inline constexpr int kMaxBlocks = 64;
inline constexpr int kFlagPhases = 2;
inline constexpr std::size_t kFlagWords =
    static_cast<std::size_t>(kFlagPhases) * kMaxBlocks * kLayoutMaxRanks;
inline constexpr std::size_t kDataOffset = 4096;  // >= kFlagWords * 4, 256-byte aligned
static_assert(kFlagWords * sizeof(std::uint32_t) <= kDataOffset);

struct RankState {
  std::uint32_t epoch[kMaxBlocks];  // per block: the last epoch it completed (epoch.hpp)
  ErrorRecord error;
};

ARB_HD std::uint32_t* flag_ptr(void* scratch, int phase, int block, int sender) {
  return static_cast<std::uint32_t*>(scratch) +
         (static_cast<std::size_t>(phase) * kMaxBlocks + static_cast<std::size_t>(block)) *
             kLayoutMaxRanks +
         static_cast<std::size_t>(sender);
}

ARB_HD Pack* staging_ptr(void* scratch, int slot, std::size_t packs) {
  return reinterpret_cast<Pack*>(static_cast<unsigned char*>(scratch) + kDataOffset) +
         static_cast<std::size_t>(slot) * packs;
}

ARB_HD LlLine* ll_ptr(void* scratch, int slot, int sender, int world, std::size_t packs) {
  const std::size_t lines = packs * kLinesPerPack;
  return reinterpret_cast<LlLine*>(static_cast<unsigned char*>(scratch) + kDataOffset) +
         (static_cast<std::size_t>(slot) * static_cast<std::size_t>(world) +
          static_cast<std::size_t>(sender)) * lines;
}

inline constexpr std::size_t staging_scratch_bytes(std::size_t packs) {
  return kDataOffset + kEpochSlots * packs * sizeof(Pack);
}

inline constexpr std::size_t ll_scratch_bytes(std::size_t packs, int world) {
  return kDataOffset + static_cast<std::size_t>(kEpochSlots) * static_cast<std::size_t>(world) *
                           packs * kLinesPerPack * sizeof(LlLine);
}

// What a protocol needs, by value (the kernel's argument and the twin's input alike).
struct SymmArgs {
  const void* in = nullptr;  // own input (any memory of this rank), n elements
  void* out = nullptr;       // own output, may equal `in`
  std::size_t n = 0;         // elements
  std::size_t packs = 0;     // pack_count(n, dtype)
  void* scratch[kLayoutMaxRanks] = {};  // every rank's symmetric scratch, as this rank sees it
  RankState* state = nullptr;           // own local state
  std::uint64_t timeout_ns = 0;         // bound of one op's waits (wait.hpp OpBound)
  std::uint64_t* phases = nullptr;      // own phase record (phase_record.hpp); null: not recorded
  int rank = 0;
  int world = 1;
};

// a.scratch[r] for a run-time r, written as a select so the kernel never indexes its parameter
// array dynamically (which would copy the whole SymmArgs to local memory in every thread).
ARB_HD void* rank_scratch(const SymmArgs& a, int r) {
  void* s = a.scratch[0];
  ARB_UNROLL
  for (int p = 1; p < kLayoutMaxRanks; ++p)
    if (p == r) s = a.scratch[p];
  return s;
}

// arr[r] for a run-time r, written as a select as rank_scratch (a run-time index into a kernel
// argument copies the whole argument to local memory): the island protocols' arrays.
ARB_HD void* pick_ptr(void* const (&arr)[kLayoutMaxRanks], int r) {
  void* s = arr[0];
  ARB_UNROLL
  for (int p = 1; p < kLayoutMaxRanks; ++p)
    if (p == r) s = arr[p];
  return s;
}

}  // namespace arbench::algo
