// The memory of the island kernels (island_model.hpp: the four island kernels): every rank has one
// guarded scratch with the P2P path's layout, island scratch (barrier flags, then LL lines or
// staging) and then its mailbox at mailbox_offset (oneshot forms: LL lines per island; twoshot
// forms: cross flags and partials per island). IslandMemory holds the shadows of every word a
// peer can see in it (island barrier flags, intra-island LL lines or staging packs, mailbox LL
// lines or cross flags and partials, the per-block epoch counters), registers them, and makes a
// rank's IslandArgs. The islands come from the configuration (island_config, made outside the
// run: make_island_map allocates).
#pragma once

#include "tests/model/grid_world.hpp"

namespace arbench::model {

// A configuration whose islands are ranks 0..first-1 and first..world-1.
inline ModelConfig island_config(ModelConfig c, int world, int first) {
  std::vector<int> labels;
  for (int r = 0; r < world; ++r) labels.push_back(r < first ? 0 : 1);
  c.islands = algo::make_island_map(labels, world);
  c.island_world = world;
  return c;
}

// Ll: the oneshot forms' LL lines; else the twoshot forms' staging, cross flags and partials.
template <bool Ll, int World, int Blocks, std::size_t MaxPacks>
struct IslandMemory {
  static constexpr int kIslands = 2;
  static constexpr std::size_t kIslandBytes =
      Ll ? algo::oneshot_island_bytes(MaxPacks, World) : algo::twoshot_island_bytes(MaxPacks);
  static constexpr std::size_t kMailboxBytes =
      Ll ? algo::oneshot_mailbox_bytes(MaxPacks, kIslands) : algo::twoshot_mailbox_bytes(MaxPacks, kIslands);
  static constexpr std::size_t kScratchBytes = algo::mailbox_offset(kIslandBytes) + kMailboxBytes;
  static constexpr std::size_t kLinesPerRank =
      algo::kEpochSlots * (World + kIslands) * MaxPacks * algo::kLinesPerPack * 2;  // halves

  FlagCell flags[(algo::kFlagPhases + (Ll ? 0 : 1)) * Blocks * World * World];  // island barriers, cross flags
  std::array<PackVar, Ll ? 0 : World * algo::kEpochSlots * (1 + kIslands) * MaxPacks> packs_shadow;
  std::array<WordCell, Ll ? World * kLinesPerRank : 0> ll_words;
  Counter counters[World * Blocks];

  // Every rank's scratch and mailbox, and their shadows (w: the world, a GridWorld).
  template <class W>
  void place(W& w) {
    RL_ASSERT(w.cfg.island_world == World && w.cfg.islands.islands == kIslands);
    for (int r = 0; r < World; ++r) {
      w.ranks[r].scratch = guarded_scratch(r, kScratchBytes);
      w.ranks[r].mailbox = static_cast<unsigned char*>(w.ranks[r].scratch) + algo::mailbox_offset(kIslandBytes);
    }
    const std::uint32_t fill = algo::flag_fill(w.cfg.start);
    const std::size_t packs = w.packs, lines = packs * algo::kLinesPerPack;
    std::size_t nf = 0, np = 0, nl = 0, nc = 0;
    for (int r = 0; r < World; ++r) {
      void* s = w.ranks[r].scratch;
      void* mb = w.ranks[r].mailbox;
      w.add_barrier_flags(flags, nf, s, fill);
      for (int slot = 0; slot < algo::kEpochSlots; ++slot) {
        if constexpr (Ll) {
          for (int snd = 0; snd < World; ++snd)
            w.add_lines(ll_words.data(), nl, algo::intra_line(s, slot, snd, World, packs, 0), lines, fill);
          for (int g = 0; g < kIslands; ++g)
            w.add_lines(ll_words.data(), nl, algo::ll_region_line(mb, slot, g, kIslands, packs, 0), lines, fill);
        } else {
          w.add_packs(packs_shadow.data(), np, algo::staging_ptr(s, slot, packs), packs);
          for (int g = 0; g < kIslands; ++g)
            w.add_packs(packs_shadow.data(), np, algo::cross_data(mb, slot, g, kIslands, packs), packs);
        }
      }
      if constexpr (!Ll)
        for (int b = 0; b < Blocks; ++b)
          for (int snd = 0; snd < World; ++snd) w.add_flag(flags[nf++], algo::cross_flag(mb, b, snd), fill);
      w.add_epoch_counters(counters, nc, w.ranks[r].state, fill);
    }
  }

  // Rank r's arguments: P2P scratch of its island's ranks, every rank's mailbox.
  template <class W>
  static algo::IslandArgs args(W& w, int r, const void* in, void* out) {
    const algo::IslandMap& m = w.cfg.islands;
    algo::IslandArgs a{};
    a.in = in;
    a.out = out;
    a.n = w.n;
    a.packs = w.packs;
    for (int p = 0; p < World; ++p) {
      if (algo::island_of(m, p) == algo::island_of(m, r)) a.scratch[p] = w.ranks[p].scratch;  // P2P in the island
      a.mailbox[p] = w.ranks[p].mailbox;
    }
    a.state = &w.ranks[r].state;
    a.timeout_ns = w.timeout_ns();
    a.map = m;
    a.sources = algo::cross_sources(m, r);
    a.rank = r;
    a.world = World;
    return a;
  }
};

}  // namespace arbench::model
