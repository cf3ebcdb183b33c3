// island-oneshot and island-twoshot (include/arbench/algo/island/) under Relacy: one Relacy
// thread per (rank, block, thread), each running `ops` ops of its block back to back with a
// kernel boundary between them. The islands come from the configuration (ModelConfig::islands,
// made by island_config() outside the run: make_island_map allocates). Every rank has one
// guarded scratch with the P2P path's layout: island scratch (flags, then LL lines or staging),
// then its mailbox at mailbox_offset (island-oneshot: LL lines per island; island-twoshot: cross
// flags and partials per island). Shadowed: island barrier flags, intra-island LL lines or
// staging packs, mailbox LL lines or cross flags and partials; the per-block epoch counters.
// after() checks every op's output of every rank against the exact oracle and that no wait
// expired; in the missing-rank scenario (rank 1 never launches) that every launched rank
// recorded a timeout and wrote no output (every rank depends on rank 1's data).
#pragma once

#include "tests/model/model_world.hpp"
#include "tests/model/relacy_mem.hpp"

namespace arbench::model {

// A configuration whose islands are ranks 0..first-1 and first..world-1.
inline ModelConfig island_config(ModelConfig c, int world, int first) {
  std::vector<int> labels;
  for (int r = 0; r < world; ++r) labels.push_back(r < first ? 0 : 1);
  c.islands = algo::make_island_map(labels, world);
  c.island_world = world;
  return c;
}

template <TwinKernel Kern, int World, int Blocks, int Threads>
struct IslandWorld final : EnvBase {
  static constexpr bool kLl = Kern == TwinKernel::island_oneshot;
  static_assert(kLl || Kern == TwinKernel::island_twoshot);
  static constexpr std::size_t kMaxPacks = 6;
  static constexpr int kIslands = 2;
  static constexpr std::size_t kIslandBytes =
      kLl ? algo::oneshot_island_bytes(kMaxPacks, World) : algo::twoshot_island_bytes(kMaxPacks);
  static constexpr std::size_t kMailboxBytes =
      kLl ? algo::oneshot_mailbox_bytes(kMaxPacks, kIslands) : algo::twoshot_mailbox_bytes(kMaxPacks, kIslands);
  static constexpr std::size_t kScratchBytes = algo::mailbox_offset(kIslandBytes) + kMailboxBytes;
  static constexpr std::size_t kLinesPerRank =
      algo::kEpochSlots * (World + kIslands) * kMaxPacks * algo::kLinesPerPack * 2;  // halves
  using Pos = GridPos<World, Blocks, Threads>;

  struct Rank {
    void* scratch;  // guarded_scratch: island scratch, then the mailbox
    void* mailbox;
    algo::RankState state;
    Pack in[kMaxOps][kMaxPacks], out[kMaxOps][kMaxPacks];
  };

  ModelConfig cfg;
  std::size_t n = 0, packs = 0;
  Rank ranks[World];
  algo::IslandArgs args[World][kMaxOps];
  BlockSync<World, Blocks, Threads> sync;
  FlagCell flags[(algo::kFlagPhases + (kLl ? 0 : 1)) * Blocks * World * World];  // island barriers, cross flags
  std::array<PackVar, kLl ? 0 : World * algo::kEpochSlots * (1 + kIslands) * kMaxPacks> packs_shadow;
  std::array<WordCell, kLl ? World * kLinesPerRank : 0> ll_words;
  Counter counters[World * Blocks];

  bool sync_and(bool ok) override { return sync.sync_and(ok); }

  IslandWorld() : cfg(g_cfg) {
    g_env = this;
    n = cfg.elems;
    waits.enabled = cfg.park_waits && cfg.scenario == Scenario::ops;
    waits.threads = World * Blocks * Threads;
    packs = algo::pack_count(n, kD);
    RL_ASSERT(packs <= kMaxPacks && cfg.ops <= kMaxOps);
    RL_ASSERT(cfg.island_world == World && cfg.islands.islands == kIslands);
    std::memset(static_cast<void*>(ranks), 0, sizeof ranks);
    const std::uint32_t fill = algo::flag_fill(cfg.start);
    for (int r = 0; r < World; ++r) {
      Rank& R = ranks[r];
      R.scratch = guarded_scratch(r, kScratchBytes);
      R.mailbox = static_cast<unsigned char*>(R.scratch) + algo::mailbox_offset(kIslandBytes);
      for (int op = 0; op < cfg.ops; ++op) {
        for (std::size_t i = 0; i < n; ++i) store_from_f32(R.in[op], i, kD, input_value(r, op, i));
        std::memset(R.out[op], kPoison, sizeof R.out[op]);
      }
    }
    register_shadows(fill);
    const algo::IslandMap& m = cfg.islands;
    for (int r = 0; r < World; ++r)
      for (int op = 0; op < cfg.ops; ++op) {
        algo::IslandArgs& a = args[r][op];
        a = algo::IslandArgs{};
        a.in = ranks[r].in[op];
        a.out = ranks[r].out[op];
        a.n = n;
        a.packs = packs;
        for (int p = 0; p < World; ++p) {
          if (algo::island_of(m, p) == algo::island_of(m, r)) a.scratch[p] = ranks[p].scratch;  // P2P in the island
          a.mailbox[p] = ranks[p].mailbox;
        }
        a.state = &ranks[r].state;
        a.timeout_ns = cfg.scenario == Scenario::missing_rank ? cfg.missing_polls : ~std::uint64_t{0} >> 2;
        a.map = m;
        a.sources = algo::cross_sources(m, r);
        a.rank = r;
        a.world = World;
      }
  }

  void add_flag(std::size_t& nf, std::uint32_t* at, std::uint32_t fill) {
    flags[nf].a($).store(flags[nf].latest = fill, rl::mo_relaxed);
    index.add(at, ShadowIndex::kFlag, &flags[nf++]);
  }
  void add_lines(std::size_t& nl, algo::LlLine* first, std::size_t lines, std::uint32_t fill) {
    const algo::LlLine init = algo::ll_fill(fill);
    for (std::size_t i = 0; i < lines; ++i)
      for (int h = 0; h < 2; ++h) {
        WordCell& c = ll_words[nl++];
        c.a($).store(c.latest = init.h[h], rl::mo_relaxed);
        index.add(&first[i].h[h], ShadowIndex::kLlWord, &c);
      }
  }

  // What a peer can see, registered with the model.
  void register_shadows(std::uint32_t fill) {
    std::size_t nf = 0, np = 0, nl = 0, nc = 0;
    const std::size_t lines = packs * algo::kLinesPerPack;
    for (int r = 0; r < World; ++r) {
      void* s = ranks[r].scratch;
      void* mb = ranks[r].mailbox;
      for (int ph = 0; ph < algo::kFlagPhases; ++ph)
        for (int b = 0; b < Blocks; ++b)
          for (int snd = 0; snd < World; ++snd) add_flag(nf, algo::flag_ptr(s, ph, b, snd), fill);
      for (int slot = 0; slot < algo::kEpochSlots; ++slot) {
        if constexpr (kLl) {
          for (int snd = 0; snd < World; ++snd) add_lines(nl, algo::intra_line(s, slot, snd, World, packs, 0), lines, fill);
          for (int g = 0; g < kIslands; ++g)
            add_lines(nl, algo::ll_region_line(mb, slot, g, kIslands, packs, 0), lines, fill);
        } else {
          Pack* st = algo::staging_ptr(s, slot, packs);
          for (std::size_t k = 0; k < packs; ++k) index.add(st + k, ShadowIndex::kPack, &packs_shadow[np++]);
          for (int g = 0; g < kIslands; ++g) {
            Pack* d = algo::cross_data(mb, slot, g, kIslands, packs);
            for (std::size_t k = 0; k < packs; ++k) index.add(d + k, ShadowIndex::kPack, &packs_shadow[np++]);
          }
        }
      }
      if constexpr (!kLl)
        for (int b = 0; b < Blocks; ++b)
          for (int snd = 0; snd < World; ++snd) add_flag(nf, algo::cross_flag(mb, b, snd), fill);
      for (int b = 0; b < Blocks; ++b) {
        counters[nc].v($).store(fill);
        index.add(&ranks[r].state.epoch[b], ShadowIndex::kCounter, &counters[nc++]);
      }
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
      const algo::IslandArgs& a = args[at.rank][op];
      if constexpr (kLl) algo::island_oneshot_block<Mem, kD>(a, at.ctx());
      else algo::island_twoshot_block<Mem, kD>(a, at.ctx());
      sync.kernel_end(tid, op);
    }
  }

  void check() {
    if (cfg.scenario == Scenario::missing_rank) {
      for (int r = 0; r < World; ++r) {
        if (r == 1) continue;
        MODEL_CHECK(ranks[r].state.error.claimed != 0u, "no wait expired although rank 1 never launched");
        MODEL_CHECK(untouched(ranks[r].out[0], n * dtype_size(kD)), "a rank wrote output in an op whose waits expired");
      }
      return;
    }
    for (int r = 0; r < World; ++r) {
      MODEL_CHECK(ranks[r].state.error.claimed == 0u, "a wait expired (or the protocol recorded an error)");
      for (int op = 0; op < cfg.ops; ++op)
        for (std::size_t i = 0; i < n; ++i)
          MODEL_CHECK(load_as_f32(ranks[r].out[op], i, kD) == oracle_sum(World, op, i), "output differs from the oracle");
    }
  }
};

template <class M, TwinKernel Kern, int World, int Blocks, int Threads>
struct IslandTest : rl::test_suite<IslandTest<M, Kern, World, Blocks, Threads>, World * Blocks * Threads> {
  using Mem = M;
  template <class M2>
  using With = IslandTest<M2, Kern, World, Blocks, Threads>;  // the same point with another policy
  static constexpr TwinKernel kKernel = Kern;
  static constexpr int kWorld = World, kBlocks = Blocks, kThreads = Threads;
  IslandWorld<Kern, World, Blocks, Threads> w;
  void thread(unsigned tid) { w.template run_thread<M>(static_cast<int>(tid)); }
  void after() { w.check(); }
};

}  // namespace arbench::model
