// oneshot-pull, oneshot-push and twoshot (include/arbench/algo/symm/) under Relacy: one Relacy
// thread per (rank, block, thread), each running `ops` ops of its block back to back with a
// kernel boundary between them, on buffers whose peer-visible words are shadowed: barrier flags,
// staging packs or LL line halves, and the per-block epoch counters. after() checks every op's
// output of every rank against the exact oracle and that no wait expired; in the missing-rank
// scenario (rank 1 never launches) that rank 0 recorded the timeout and wrote no output.
#pragma once

#include "tests/model/model_world.hpp"
#include "tests/model/relacy_mem.hpp"

namespace arbench::model {

template <TwinKernel Kern, int World, int Blocks, int Threads, bool Split>
struct SymmWorld final : EnvBase {
  static constexpr bool kLl = Kern == TwinKernel::oneshot_push;
  static constexpr std::size_t kMaxPacks = 6;
  static constexpr std::size_t kScratchBytes =
      kLl ? algo::ll_scratch_bytes(kMaxPacks, World) : algo::staging_scratch_bytes(kMaxPacks);
  static constexpr std::size_t kLlWords =
      kLl ? World * algo::kEpochSlots * World * kMaxPacks * algo::kLinesPerPack * 2 : 0;
  using Pos = GridPos<World, Blocks, Threads>;

  struct Rank {
    void* scratch;  // guarded_scratch: the protocol's pointer arithmetic, never dereferenced
    algo::RankState state;
    Pack in[kMaxOps][kMaxPacks], out[kMaxOps][kMaxPacks];
  };

  ModelConfig cfg;
  std::size_t n = 0, packs = 0;
  Rank ranks[World];
  algo::SymmArgs args[World][kMaxOps];
  BlockSync<World, Blocks, Threads> sync;
  FlagCell flags[algo::kFlagPhases * Blocks * World * World];
  std::array<PackVar, kLl ? 0 : World * algo::kEpochSlots * kMaxPacks> staging;
  std::array<WordCell, Split ? 0 : kLlWords> ll_words;
  std::array<LlHalf, Split ? kLlWords : 0> ll_halves;
  Counter counters[World * Blocks];

  bool sync_and(bool ok) override { return sync.sync_and(ok); }

  SymmWorld() : cfg(g_cfg) {
    g_env = this;
    n = cfg.elems;
    waits.enabled = cfg.park_waits && cfg.scenario == Scenario::ops;
    waits.threads = World * Blocks * Threads;
    packs = algo::pack_count(n, kD);
    RL_ASSERT(packs <= kMaxPacks && cfg.ops <= kMaxOps);
    std::memset(static_cast<void*>(ranks), 0, sizeof ranks);
    const std::uint32_t fill = algo::flag_fill(cfg.start);
    for (int r = 0; r < World; ++r) {
      Rank& R = ranks[r];
      R.scratch = guarded_scratch(r, kScratchBytes);
      for (int op = 0; op < cfg.ops; ++op) {
        for (std::size_t i = 0; i < n; ++i) store_from_f32(R.in[op], i, kD, input_value(r, op, i));
        std::memset(R.out[op], kPoison, sizeof R.out[op]);
      }
    }
    register_shadows(fill);
    for (int r = 0; r < World; ++r)
      for (int op = 0; op < cfg.ops; ++op) {
        algo::SymmArgs& a = args[r][op];
        a = algo::SymmArgs{};
        a.in = ranks[r].in[op];
        a.out = ranks[r].out[op];
        a.n = n;
        a.packs = packs;
        for (int p = 0; p < World; ++p) a.scratch[p] = ranks[p].scratch;
        a.state = &ranks[r].state;
        a.timeout_ns = cfg.scenario == Scenario::missing_rank ? cfg.missing_polls : ~std::uint64_t{0} >> 2;
        a.rank = r;
        a.world = World;
      }
  }

  // What a peer can see, registered with the model: flags, staging or LL lines; the counters.
  void register_shadows(std::uint32_t fill) {
    std::size_t nf = 0, ns = 0, nl = 0, nc = 0;
    for (int r = 0; r < World; ++r) {
      void* s = ranks[r].scratch;
      for (int ph = 0; ph < algo::kFlagPhases; ++ph)
        for (int b = 0; b < Blocks; ++b)
          for (int snd = 0; snd < World; ++snd) {
            flags[nf].a($).store(flags[nf].latest = fill, rl::mo_relaxed);
            index.add(algo::flag_ptr(s, ph, b, snd), ShadowIndex::kFlag, &flags[nf++]);
          }
      for (int slot = 0; slot < algo::kEpochSlots; ++slot) {
        if constexpr (kLl) {
          const LlLine init = algo::ll_fill(fill);
          for (int snd = 0; snd < World; ++snd) {
            LlLine* l = algo::ll_ptr(s, slot, snd, World, packs);
            for (std::size_t i = 0; i < packs * algo::kLinesPerPack; ++i)
              for (int h = 0; h < 2; ++h) {
                if constexpr (Split) {
                  LlHalf& c = ll_halves[nl++];
                  c.data($).store(c.latest_data = algo::ll_data(init, h), rl::mo_relaxed);
                  c.flag($).store(c.latest_flag = algo::ll_flag(init, h), rl::mo_relaxed);
                  index.add(&l[i].h[h], ShadowIndex::kLlHalf, &c);
                } else {
                  WordCell& c = ll_words[nl++];
                  c.a($).store(c.latest = init.h[h], rl::mo_relaxed);
                  index.add(&l[i].h[h], ShadowIndex::kLlWord, &c);
                }
              }
          }
        } else {
          Pack* p = algo::staging_ptr(s, slot, packs);
          for (std::size_t k = 0; k < packs; ++k) index.add(p + k, ShadowIndex::kPack, &staging[ns++]);
        }
      }
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
      const algo::SymmArgs& a = args[at.rank][op];
      if constexpr (Kern == TwinKernel::oneshot_pull) algo::oneshot_pull_block<Mem, kD>(a, at.ctx());
      if constexpr (Kern == TwinKernel::oneshot_push) algo::oneshot_push_block<Mem, kD>(a, at.ctx());
      if constexpr (Kern == TwinKernel::twoshot) algo::twoshot_block<Mem, kD>(a, at.ctx());
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
      MODEL_CHECK(ranks[r].state.error.claimed == 0u, "a wait expired (or the protocol recorded an error)");
      for (int op = 0; op < cfg.ops; ++op)
        for (std::size_t i = 0; i < n; ++i)
          MODEL_CHECK(load_as_f32(ranks[r].out[op], i, kD) == oracle_sum(World, op, i), "output differs from the oracle");
    }
  }
};

template <class M, TwinKernel Kern, int World, int Blocks, int Threads>
struct SymmTest : rl::test_suite<SymmTest<M, Kern, World, Blocks, Threads>, World * Blocks * Threads> {
  using Mem = M;
  template <class M2>
  using With = SymmTest<M2, Kern, World, Blocks, Threads>;  // the same point with another policy
  static constexpr TwinKernel kKernel = Kern;
  static constexpr int kWorld = World, kBlocks = Blocks, kThreads = Threads;
  SymmWorld<Kern, World, Blocks, Threads, splits_ll(M::kWeak)> w;
  void thread(unsigned tid) { w.template run_thread<M>(static_cast<int>(tid)); }
  void after() { w.check(); }
};

}  // namespace arbench::model
