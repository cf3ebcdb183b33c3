// Partitions: which rank and which block own which range of packs.
//
// Purpose: the kernel and its host twin must agree exactly on who touches what; all of it is
// here, as pure functions of (count, parts, index).
// Rules shared by every symmetric-memory protocol in arbench:
//   - Ranges are contiguous and balanced: the first (count % parts) parts get one extra item.
//   - Block b of every rank handles the same sub-ranges, and only talks to block b of its peers
//     (flags are per block). No grid-wide sync is ever needed, and a host twin may run the
//     blocks of a rank one after another.
//   - twoshot: rank r owns owned_range(packs, world, r), 1/world of the packs (the partial tail
//     pack, if any, is simply the last pack: its owner handles it like any other pack); block b
//     handles the b-th sub-range of every owned range. Parts may be empty (fewer packs than
//     parts): an empty part still takes part in its block's flags.
#pragma once

#include <cstddef>

#include "arbench/algo/faults.hpp"
#include "arbench/algo/mem_policy.hpp"
#include "arbench/core/hd.hpp"

namespace arbench::algo {

struct Range {
  std::size_t begin = 0;
  std::size_t end = 0;
  ARB_HD_CONSTEXPR std::size_t size() const { return end - begin; }
  ARB_HD_CONSTEXPR bool empty() const { return end == begin; }
};

// Part `index` of `count` items cut into `parts` balanced contiguous ranges.
ARB_HD_CONSTEXPR Range split_range(std::size_t count, int parts, int index) {
  const std::size_t p = static_cast<std::size_t>(parts);
  const std::size_t i = static_cast<std::size_t>(index);
  const std::size_t base = count / p;
  const std::size_t extra = count % p;
  const std::size_t begin = i * base + (i < extra ? i : extra);
  return Range{begin, begin + base + (i < extra ? 1u : 0u)};
}

// Sub-range `index` of `outer` cut into `parts`.
ARB_HD_CONSTEXPR Range split_within(Range outer, int parts, int index) {
  const Range r = split_range(outer.size(), parts, index);
  return Range{outer.begin + r.begin, outer.begin + r.end};
}

// The part of `whole` that block c.block handles: split_within(whole, c.blocks, c.block). Every
// protocol cuts its work over blocks with this, so the partition_edge fault of the mutation
// score (every block but the last also takes its neighbour's first item: two blocks write it)
// reaches all of them.
template <class Mem>
ARB_HD_CONSTEXPR Range block_share(Range whole, const BlockCtx& c) {
  Range r = split_within(whole, c.blocks, c.block);
  if (planted<Mem>(Fault::partition_edge) && c.block + 1 < c.blocks && r.end < whole.end) ++r.end;
  return r;
}

// One-shot: block b of every rank handles packs block_range(packs, blocks, b) of the message.
ARB_HD_CONSTEXPR Range block_range(std::size_t packs, int blocks, int block) {
  return split_range(packs, blocks, block);
}

// twoshot: the packs rank `rank` reduces (reduce-scatter) and then serves (all-gather).
ARB_HD_CONSTEXPR Range owned_range(std::size_t packs, int world, int rank) {
  return split_range(packs, world, rank);
}

// twoshot: the part of `owner`'s range that block b handles, on every rank.
ARB_HD_CONSTEXPR Range owned_block_range(std::size_t packs, int world, int owner, int blocks,
                                         int block) {
  return split_within(owned_range(packs, world, owner), blocks, block);
}

}  // namespace arbench::algo
