// The native ring (include/arbench/algo/ring/ring.hpp) under Relacy, on the shared driver
// (grid_world.hpp): block ch of every rank runs channel ch, one Relacy thread per (rank, channel,
// thread). Shadowed: every channel's credit, slot flags and receive slots, and the per-channel
// transfer counter RankState::seq. after(): no error (timeout or overwrite) and the oracle's sums.
#pragma once

#include "tests/model/grid_world.hpp"

namespace arbench::model {

template <int World, int Channels, int Threads>
struct RingWorld final
    : PackWorld<RingWorld<World, Channels, Threads>, algo::RingState, 6, TwinKernel::ring, World, Channels, Threads> {
  using Base = typename RingWorld::PackWorld;
  using Base::cfg, Base::n, Base::packs, Base::ranks;
  static constexpr const char* kErrorWhat = "a wait expired or a slot was overwritten";
  static constexpr std::size_t kMaxChunk = 2;
  static constexpr int kSlots = algo::RingPolicy::kSlots;
  static constexpr std::size_t kScratchBytes = algo::kRingDataOffset + Channels * kSlots * kMaxChunk * sizeof(Pack);

  algo::RingGeometry g{};
  algo::RingArgs args[World][kMaxOps];
  FlagCell flags[World * Channels * (1 + kSlots)];  // credit + slot flags per channel
  PackVar slots[World * Channels * kSlots * kMaxChunk];
  Counter counters[World * Channels];

  RingWorld() {
    g.packs = packs;
    g.world = World;
    g.channels = Channels;
    g.chunk_packs = cfg.chunk_packs;
    RL_ASSERT(cfg.chunk_packs <= kMaxChunk);
    const std::uint32_t fill = algo::flag_fill(cfg.start);
    std::size_t nf = 0, ns = 0, nc = 0;
    for (int r = 0; r < World; ++r) {
      void* s = ranks[r].scratch = guarded_scratch(r, kScratchBytes);
      for (int ch = 0; ch < Channels; ++ch) {
        this->add_flag(flags[nf++], algo::ring_credit_ptr(s, ch), fill);
        for (int sl = 0; sl < kSlots; ++sl) {
          this->add_flag(flags[nf++], algo::ring_flag_ptr(s, ch, sl), fill);
          this->add_packs(slots, ns, algo::ring_slot_ptr(s, g, ch, sl), g.chunk_packs);
        }
        this->add_counter(counters[nc++], &ranks[r].state.seq[ch], fill);
      }
    }
    for (int r = 0; r < World; ++r)
      for (int op = 0; op < cfg.ops; ++op) {
        algo::RingArgs& a = args[r][op];
        a = algo::RingArgs{};
        a.in = ranks[r].in[op];
        a.out = ranks[r].out[op];
        a.n = n;
        a.g = g;
        a.own = ranks[r].scratch;
        a.next = ranks[(r + 1) % World].scratch;
        a.prev = ranks[(r + World - 1) % World].scratch;
        a.state = &ranks[r].state;
        a.timeout_ns = this->timeout_ns();
        a.rank = r;
        a.pos = r;
        a.prev_rank = (r + World - 1) % World;
        a.next_rank = (r + 1) % World;
        a.test_skip_credit_wait = cfg.skip_credit_wait ? 1 : 0;
      }
  }

  template <class Mem>
  void launch(const typename Base::Pos& at, int op, int) {
    algo::ring_channel<Mem, kD>(args[at.rank][op], at.ctx());
  }
};

template <class M, int World, int Channels, int Threads>
using RingTest = ModelTest<M, RingWorld<World, Channels, Threads>>;

}  // namespace arbench::model
