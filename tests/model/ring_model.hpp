// The native ring (include/arbench/algo/ring/ring.hpp) under Relacy: block ch of every rank runs
// channel ch, one Relacy thread per (rank, channel, thread), `ops` ops back to back with kernel
// boundaries, on scratch whose credits, slot flags and receive slots are shadowed; the
// per-channel transfer counter RankState::seq is a shadow counter. after(): every op's output
// equals the oracle and no error (timeout or overwrite) was recorded; missing-rank: rank 0
// recorded the timeout and wrote no output.
#pragma once

#include "tests/model/model_world.hpp"
#include "tests/model/relacy_mem.hpp"

namespace arbench::model {

template <int World, int Channels, int Threads>
struct RingWorld final : EnvBase {
  static constexpr std::size_t kMaxPacks = 6;
  static constexpr std::size_t kMaxChunk = 2;
  static constexpr int kSlots = algo::RingPolicy::kSlots;
  static constexpr std::size_t kScratchBytes = algo::kRingDataOffset + Channels * kSlots * kMaxChunk * sizeof(Pack);
  using Pos = GridPos<World, Channels, Threads>;

  struct Rank {
    void* scratch;  // guarded_scratch
    algo::RingState state;
    Pack in[kMaxOps][kMaxPacks], out[kMaxOps][kMaxPacks];
  };
  ModelConfig cfg;
  std::size_t n = 0;
  algo::RingGeometry g{};
  Rank ranks[World];
  algo::RingArgs args[World][kMaxOps];
  BlockSync<World, Channels, Threads> sync;
  FlagCell flags[World * Channels * (1 + kSlots)];  // credit + slot flags per channel
  PackVar slots[World * Channels * kSlots * kMaxChunk];
  Counter counters[World * Channels];

  bool sync_and(bool ok) override { return sync.sync_and(ok); }

  RingWorld() : cfg(g_cfg) {
    g_env = this;
    waits.enabled = cfg.park_waits && cfg.scenario == Scenario::ops;
    waits.threads = World * Channels * Threads;
    n = cfg.elems;
    g.packs = algo::pack_count(n, kD);
    g.world = World;
    g.channels = Channels;
    g.chunk_packs = cfg.chunk_packs;
    RL_ASSERT(g.packs <= kMaxPacks && cfg.chunk_packs <= kMaxChunk && cfg.ops <= kMaxOps);
    std::memset(static_cast<void*>(ranks), 0, sizeof ranks);
    const std::uint32_t fill = algo::flag_fill(cfg.start);
    std::size_t nf = 0, ns = 0, nc = 0;
    for (int r = 0; r < World; ++r) {
      Rank& R = ranks[r];
      R.scratch = guarded_scratch(r, kScratchBytes);
      for (int op = 0; op < cfg.ops; ++op) {
        for (std::size_t i = 0; i < n; ++i) store_from_f32(R.in[op], i, kD, input_value(r, op, i));
        std::memset(R.out[op], kPoison, sizeof R.out[op]);
      }
      void* s = R.scratch;
      for (int ch = 0; ch < Channels; ++ch) {
        flags[nf].a($).store(flags[nf].latest = fill, rl::mo_relaxed);
        index.add(algo::ring_credit_ptr(s, ch), ShadowIndex::kFlag, &flags[nf++]);
        for (int sl = 0; sl < kSlots; ++sl) {
          flags[nf].a($).store(flags[nf].latest = fill, rl::mo_relaxed);
          index.add(algo::ring_flag_ptr(s, ch, sl), ShadowIndex::kFlag, &flags[nf++]);
          Pack* p = algo::ring_slot_ptr(s, g, ch, sl);
          for (std::size_t i = 0; i < g.chunk_packs; ++i) index.add(p + i, ShadowIndex::kPack, &slots[ns++]);
        }
        counters[nc].v($).store(fill);
        index.add(&R.state.seq[ch], ShadowIndex::kCounter, &counters[nc++]);
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
        a.timeout_ns = cfg.scenario == Scenario::missing_rank ? cfg.missing_polls : ~std::uint64_t{0} >> 2;
        a.rank = r;
        a.pos = r;
        a.prev_rank = (r + World - 1) % World;
        a.next_rank = (r + 1) % World;
        a.test_skip_credit_wait = cfg.skip_credit_wait ? 1 : 0;
      }
  }

  template <class Mem>
  void run_thread(int tid) {
    const Pos at(tid);
    const bool missing = cfg.scenario == Scenario::missing_rank;
    if (missing && at.rank == 1) return;  // never launched
    const int ops = missing ? 1 : cfg.ops;
    for (int op = 0; op < ops; ++op) {
      sync.kernel_begin(tid, op);
      algo::ring_channel<Mem, kD>(args[at.rank][op], at.ctx());
      sync.kernel_end(tid, op);
    }
  }

  void check() {
    if (cfg.scenario == Scenario::missing_rank) {
      MODEL_CHECK(ranks[0].state.error.claimed != 0u, "no wait expired although rank 1 never launched");
      MODEL_CHECK(untouched(ranks[0].out[0], n * dtype_size(kD)), "a rank wrote output in an op whose waits expired");
      return;
    }
    for (int r = 0; r < World; ++r) {
      MODEL_CHECK(ranks[r].state.error.claimed == 0u, "a wait expired or a slot was overwritten");
      for (int op = 0; op < cfg.ops; ++op)
        for (std::size_t i = 0; i < n; ++i)
          MODEL_CHECK(load_as_f32(ranks[r].out[op], i, kD) == oracle_sum(World, op, i), "output differs from the oracle");
    }
  }
};

template <class M, int World, int Channels, int Threads>
struct RingTest : rl::test_suite<RingTest<M, World, Channels, Threads>, World * Channels * Threads> {
  using Mem = M;
  template <class M2>
  using With = RingTest<M2, World, Channels, Threads>;  // the same point with another policy
  static constexpr TwinKernel kKernel = TwinKernel::ring;
  static constexpr int kWorld = World, kBlocks = Channels, kThreads = Threads;
  RingWorld<World, Channels, Threads> w;
  void thread(unsigned tid) { w.template run_thread<M>(static_cast<int>(tid)); }
  void after() { w.check(); }
};

}  // namespace arbench::model
