// Arguments and memory layout of the island variants (island-oneshot, island-twoshot,
// fused-island-oneshot), shared by kernels, twins and the host code that allocates the memory.
//
// Two kinds of memory, one of each per rank:
//   island scratch   device memory every rank of the same island addresses directly (P2P);
//                    same layout on every rank:
//     [flags]    uint32 flag[kFlagPhases][kMaxBlocks][kMaxRanks] as symm_layout.hpp (island
//                barriers of island-twoshot; single writer per word)
//     [data]     at kDataOffset: island-oneshot: LL LlLine[kEpochSlots][world][packs*2] ([s] =
//                from island peer s, as oneshot-push); island-twoshot: staging Pack[kEpochSlots][packs]
//   mailbox          where the other islands deliver: in the rank's island scratch after its data
//                    (the P2P path: senders write across the boundary into device memory), or
//                    pinned host memory mapped into every GPU (the host path, for pairs without
//                    P2P: senders write into host memory, the receiver polls it, as NCCL's SHM
//                    transport). Layout:
//     island-oneshot   LL LlLine[kEpochSlots][islands][packs*2]      ([g] = island g's partial)
//     island-twoshot   [flags] uint32 flag[kMaxBlocks][kMaxRanks]    (block b: sender s's epoch)
//                      [data]  at kDataOffset: Pack[kEpochSlots][islands][packs]
// Local state: RankState (epochs per block, error record), as the symmetric-memory variants.
#pragma once

#include <cstddef>
#include <cstdint>

#include "arbench/algo/island/island_map.hpp"
#include "arbench/algo/ll.hpp"
#include "arbench/algo/symm_layout.hpp"

namespace arbench::algo {

// What an island protocol needs, by value (the kernel's argument and the twin's input alike).
struct IslandArgs {
  const void* in = nullptr;  // own input, n elements (fused: x, row-padded packs in s.packs)
  void* out = nullptr;       // own output, may equal `in`
  std::size_t n = 0;
  std::size_t packs = 0;
  void* scratch[kLayoutMaxRanks] = {};  // island scratch of every rank of this rank's island (others: null)
  void* mailbox[kLayoutMaxRanks] = {};  // every rank's mailbox, as this rank addresses it
  RankState* state = nullptr;           // own local state
  std::uint64_t timeout_ns = 0;
  std::uint64_t* phases = nullptr;  // own phase record; null: not recorded
  IslandMap map;
  std::uint32_t sources = 0;  // island_map.hpp cross_sources(map, rank): whom a timeout across blames
  int rank = 0;
  int world = 1;
};

// ---- island-oneshot ------------------------------------------------------------------------

inline constexpr std::size_t ll_region_bytes(std::size_t packs, int parts) {
  return static_cast<std::size_t>(kEpochSlots) * static_cast<std::size_t>(parts) * packs * kLinesPerPack *
         sizeof(LlLine);
}

// Pack k's first LL line from sender `from` (island scratch) or of island `from`'s partial
// (mailbox): an LL region [kEpochSlots][parts][packs * kLinesPerPack] at `base`.
ARB_HD LlLine* ll_region_line(void* base, int slot, int from, int parts, std::size_t packs, std::size_t k) {
  const std::size_t lines = packs * kLinesPerPack;
  return static_cast<LlLine*>(base) +
         (static_cast<std::size_t>(slot) * static_cast<std::size_t>(parts) + static_cast<std::size_t>(from)) * lines +
         k * kLinesPerPack;
}

ARB_HD LlLine* intra_line(void* scratch, int slot, int from, int world, std::size_t packs, std::size_t k) {
  return ll_region_line(static_cast<unsigned char*>(scratch) + kDataOffset, slot, from, world, packs, k);
}

// Bytes of island-oneshot's island scratch before its mailbox, and its mailbox.
inline constexpr std::size_t oneshot_island_bytes(std::size_t packs, int world) {
  return kDataOffset + ll_region_bytes(packs, world);
}
inline constexpr std::size_t oneshot_mailbox_bytes(std::size_t packs, int islands) {
  return ll_region_bytes(packs, islands);
}

// ---- island-twoshot ------------------------------------------------------------------------

inline constexpr std::size_t kCrossFlagWords = static_cast<std::size_t>(kMaxBlocks) * kLayoutMaxRanks;
static_assert(kCrossFlagWords * sizeof(std::uint32_t) <= kDataOffset);

// The flag sender `from` stores (block b) into a receiver's mailbox once its data is there.
ARB_HD std::uint32_t* cross_flag(void* mailbox, int block, int from) {
  return static_cast<std::uint32_t*>(mailbox) + static_cast<std::size_t>(block) * kLayoutMaxRanks +
         static_cast<std::size_t>(from);
}

// Island g's partial sums in a mailbox, slot `slot` (pack k at [k]).
ARB_HD Pack* cross_data(void* mailbox, int slot, int island, int islands, std::size_t packs) {
  return reinterpret_cast<Pack*>(static_cast<unsigned char*>(mailbox) + kDataOffset) +
         (static_cast<std::size_t>(slot) * static_cast<std::size_t>(islands) + static_cast<std::size_t>(island)) * packs;
}

inline constexpr std::size_t twoshot_island_bytes(std::size_t packs) { return staging_scratch_bytes(packs); }
inline constexpr std::size_t twoshot_mailbox_bytes(std::size_t packs, int islands) {
  return kDataOffset + static_cast<std::size_t>(kEpochSlots) * static_cast<std::size_t>(islands) * packs * sizeof(Pack);
}

// Where a rank's mailbox starts in its island scratch on the P2P path (256-byte aligned).
inline constexpr std::size_t mailbox_offset(std::size_t island_bytes) { return (island_bytes + 255) / 256 * 256; }

}  // namespace arbench::algo
