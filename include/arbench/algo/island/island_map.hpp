// Islands: which rank is in which island, and who sends its island's partial sum to whom.
//
// An island is a group of ranks with fast P2P among them (GPUs under one PCIe switch or root
// complex, bench/islands/ derives them from the PCIe tree). Islands are numbered in the order of
// their lowest rank; the ranks of an island are ordered by rank ("position" 0..k-1).
// Everything a kernel reads is packed into integers (4 bits per rank, 8 bits per island), so no
// kernel ever indexes an argument array with a run-time index (which would copy the whole
// argument struct to local memory: a stack frame, which the resource gate forbids).
//
// Cross-island partners (island-oneshot, fused-island-oneshot): rank at position l of island h
// receives island g's partial from the rank at position (l mod k_g) of island g. With equal
// islands that is one partner per rank, rank i of A <-> rank i of B; with unequal ones (3 + 5)
// a rank of the smaller island serves ceil(k_h / k_g) ranks of the larger, and the extra ranks
// of the larger island send nothing. Every rank receives exactly one copy of every other
// island's partial. The destinations are computed once on the host (make_island_map).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "arbench/algo/faults.hpp"
#include "arbench/algo/pack.hpp"
#include "arbench/algo/symm_layout.hpp"
#include "arbench/core/hd.hpp"

namespace arbench::algo {

inline constexpr int kMaxIslands = kLayoutMaxRanks;

struct IslandMap {
  std::uint32_t island_nibbles = 0;  // bits 4r..4r+3: the island of rank r
  std::uint32_t index_nibbles = 0;   // bits 4r..4r+3: the position of rank r in its island
  std::uint64_t member_bytes = 0;    // bits 8g..8g+7: the ranks of island g, as a bitmask
  std::uint64_t dest_bytes = 0;      // bits 8r..8r+7: the ranks rank r sends its island's partial to
  int islands = 1;
};

ARB_HD int island_of(const IslandMap& m, int rank) {
  return static_cast<int>((m.island_nibbles >> (4 * rank)) & 0xfu);
}
ARB_HD int island_index(const IslandMap& m, int rank) {
  return static_cast<int>((m.index_nibbles >> (4 * rank)) & 0xfu);
}
ARB_HD unsigned island_members(const IslandMap& m, int island) {
  return static_cast<unsigned>((m.member_bytes >> (8 * island)) & 0xffu);
}
ARB_HD int count_ranks(unsigned mask) {
  int n = 0;
  ARB_UNROLL
  for (int b = 0; b < kLayoutMaxRanks; ++b) n += static_cast<int>((mask >> b) & 1u);
  return n;
}
ARB_HD int island_size(const IslandMap& m, int island) { return count_ranks(island_members(m, island)); }

// The rank at `position` of island g (-1 when the island has fewer ranks).
ARB_HD int island_rank(const IslandMap& m, int island, int position) {
  const unsigned mem = island_members(m, island);
  int seen = 0, out = -1;
  ARB_UNROLL
  for (int b = 0; b < kLayoutMaxRanks; ++b) {
    if (((mem >> b) & 1u) == 0u) continue;
    if (seen == position) out = b;
    ++seen;
  }
  return out;
}

// The other ranks of `rank`'s island.
ARB_HD unsigned island_peers(const IslandMap& m, int rank) {
  return island_members(m, island_of(m, rank)) & ~(1u << rank);
}

// The rank whose copy of island g's partial `rank` receives: position (own position mod k_g).
ARB_HD int cross_source(const IslandMap& m, int rank, int island) {
  return island_rank(m, island, island_index(m, rank) % island_size(m, island));
}

// The ranks `rank` sends its island's partial to (see the top of this file). The
// cross_dest_dropped fault of the mutation score keeps only the partner at the sender's own
// position in each island, as if islands always had equal sizes ("rank i <-> rank i").
template <class Mem>
ARB_HD unsigned cross_destinations(const IslandMap& m, int rank) {
  const unsigned all = static_cast<unsigned>((m.dest_bytes >> (8 * rank)) & 0xffu);
  if constexpr (planted<Mem>(Fault::cross_dest_dropped)) {
    unsigned same = 0;
    for (int h = 0; h < m.islands; ++h)
      if (h != island_of(m, rank) && island_index(m, rank) < island_size(m, h))
        same |= 1u << island_rank(m, h, island_index(m, rank));
    return all & same;
  } else {
    return all;
  }
}

// island-twoshot's form of the same fault: whether `rank` still sends to `dest` (a rank whose
// shard meets its own); the fault keeps only the rank at its own position.
template <class Mem>
ARB_HD bool cross_dest_kept(const IslandMap& m, int rank, int dest) {
  if constexpr (planted<Mem>(Fault::cross_dest_dropped))
    return island_index(m, dest) == island_index(m, rank);
  else
    return (void)m, (void)rank, (void)dest, true;
}

// ---- host side -----------------------------------------------------------------------------

// Why `island_of` (one label per rank, any integers) cannot be the islands of `world` ranks;
// empty when it can. Labels are only compared, never used as indices.
inline std::string island_map_problem(const std::vector<int>& island_of, int world) {
  if (world < 1 || world > kLayoutMaxRanks)
    return "world size " + std::to_string(world) + " outside 1.." + std::to_string(kLayoutMaxRanks);
  if (static_cast<int>(island_of.size()) != world)
    return std::to_string(island_of.size()) + " island labels for " + std::to_string(world) + " ranks";
  return {};
}

// The map of `world` ranks whose islands are island_of[r] (labels; ranks with equal labels
// share an island). Islands are renumbered in the order of their lowest rank. Throws nothing:
// check island_map_problem first (an invalid input gives one island of every rank).
inline IslandMap make_island_map(const std::vector<int>& island_of, int world) {
  IslandMap m;
  if (!island_map_problem(island_of, world).empty()) {
    m.member_bytes = (1u << (world > 0 && world <= kLayoutMaxRanks ? world : 1)) - 1u;
    return m;
  }
  std::vector<int> label_of_island, index(static_cast<std::size_t>(world), 0);
  std::vector<int> island(static_cast<std::size_t>(world), 0);
  for (int r = 0; r < world; ++r) {
    int g = 0;
    while (g < static_cast<int>(label_of_island.size()) && label_of_island[static_cast<std::size_t>(g)] != island_of[static_cast<std::size_t>(r)]) ++g;
    if (g == static_cast<int>(label_of_island.size())) label_of_island.push_back(island_of[static_cast<std::size_t>(r)]);
    island[static_cast<std::size_t>(r)] = g;
  }
  m.islands = static_cast<int>(label_of_island.size());
  for (int r = 0; r < world; ++r) {
    const int g = island[static_cast<std::size_t>(r)];
    const int pos = count_ranks(static_cast<unsigned>((m.member_bytes >> (8 * g)) & 0xffu));
    m.island_nibbles |= static_cast<std::uint32_t>(g) << (4 * r);
    m.index_nibbles |= static_cast<std::uint32_t>(pos) << (4 * r);
    m.member_bytes |= std::uint64_t{1} << (8 * g + r);
  }
  for (int r = 0; r < world; ++r) {
    const int g = island[static_cast<std::size_t>(r)];
    const int kg = island_size(m, g), j = algo::island_index(m, r);
    std::uint64_t dests = 0;
    for (int h = 0; h < m.islands; ++h) {
      if (h == g) continue;
      for (int l = j; l < island_size(m, h); l += kg) dests |= std::uint64_t{1} << island_rank(m, h, l);
    }
    m.dest_bytes |= dests << (8 * r);
  }
  return m;
}

// What a rank's arguments carry of cross_source (the kernels read it with a shift, since
// computing it costs registers): bits 4h..4h+3 the rank whose copy of island h's partial `rank`
// receives (its own island: itself).
inline std::uint32_t cross_sources(const IslandMap& m, int rank) {
  std::uint32_t out = 0;
  for (int h = 0; h < m.islands; ++h)
    out |= static_cast<std::uint32_t>(h == island_of(m, rank) ? rank : cross_source(m, rank, h)) << (4 * h);
  return out;
}

// island_of of a map, by rank (0-based island numbers).
inline std::vector<int> island_labels(const IslandMap& m, int world) {
  std::vector<int> out;
  for (int r = 0; r < world; ++r) out.push_back(island_of(m, r));
  return out;
}

// The islands of `island_of` as `--islands` takes them: islands in the order of their lowest
// rank, separated by ','; an island's ranks as runs `a-b` (or `a`) joined by '+': "0-3,4-7",
// "0-2,3-7", "0+2,1+3".
inline std::string islands_text(const std::vector<int>& island_of) {
  const int world = static_cast<int>(island_of.size());
  if (!island_map_problem(island_of, world).empty()) return "?";
  const IslandMap m = make_island_map(island_of, world);
  std::string out;
  for (int g = 0; g < m.islands; ++g) {
    if (g > 0) out += ',';
    const unsigned mem = island_members(m, g);
    bool first = true;
    for (int r = 0; r < world; ++r) {
      if (((mem >> r) & 1u) == 0u || (r > 0 && ((mem >> (r - 1)) & 1u) != 0u)) continue;  // a run starts at r
      int end = r;
      while (end + 1 < world && ((mem >> (end + 1)) & 1u) != 0u) ++end;
      out += (first ? "" : "+") + std::to_string(r) + (end > r ? "-" + std::to_string(end) : std::string());
      first = false;
    }
  }
  return out;
}

}  // namespace arbench::algo
