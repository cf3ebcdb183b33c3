// fused-island-oneshot and fused-island-twoshot (include/arbench/algo/island/fused_island.hpp)
// under Relacy: island_model.hpp's islands and memory (P2P layout: island scratch, then the
// mailbox) with fused_model.hpp's rows (x, residual, weight, norm_out, residual_out, the norm's
// block-shared lanes). The staged message is the row-padded packs (tokens x row_packs). after():
// every op's norm_out and residual_out of every rank bitwise equal to the expectation (the same
// row math on the exact sums; each island's partial is exact on the oracle's integers);
// missing-rank: every launched rank recorded a timeout and wrote no output.
#pragma once

#include "tests/model/fused_model.hpp"
#include "tests/model/island/island_model.hpp"

namespace arbench::model {

template <TwinKernel Kern, int World, int Blocks, int Threads>
struct FusedIslandWorld final : EnvBase {
  static constexpr bool kLl = Kern == TwinKernel::fused_island;
  static_assert(kLl || Kern == TwinKernel::fused_island_twoshot);
  static constexpr int kMaxTokens = 3, kMaxHidden = 27, kIslands = 2;
  static constexpr std::size_t kMaxElems = (kMaxTokens * kMaxHidden + 7) / 8 * 8;
  static constexpr std::size_t kMaxPacks = kMaxTokens * 4;  // row_packs(27, bf16) = 4
  static constexpr std::size_t kIslandBytes =
      kLl ? algo::oneshot_island_bytes(kMaxPacks, World) : algo::twoshot_island_bytes(kMaxPacks);
  static constexpr std::size_t kMailboxBytes =
      kLl ? algo::oneshot_mailbox_bytes(kMaxPacks, kIslands) : algo::twoshot_mailbox_bytes(kMaxPacks, kIslands);
  static constexpr std::size_t kScratchBytes = algo::mailbox_offset(kIslandBytes) + kMailboxBytes;
  static constexpr std::size_t kLinesPerRank = algo::kEpochSlots * (World + kIslands) * kMaxPacks * algo::kLinesPerPack * 2;
  using Pos = GridPos<World, Blocks, Threads>;
  using Row = std::uint16_t[kMaxElems];  // bf16

  struct Rank {
    void* scratch;  // guarded_scratch: island scratch, then the mailbox
    void* mailbox;
    algo::RankState state;
    alignas(16) Row x[kMaxOps], norm_out[kMaxOps], residual_out[kMaxOps];
    float lanes[Blocks][algo::kNormLanes];  // block-shared memory
  };

  ModelConfig cfg;
  std::size_t n = 0, rp = 0, packs = 0;
  alignas(16) Row residual, weight, want_y[kMaxOps], want_r[kMaxOps];
  Rank ranks[World];
  algo::FusedIslandArgs args[World][kMaxOps];
  BlockSync<World, Blocks, Threads> sync;
  FlagCell flags[(algo::kFlagPhases + (kLl ? 0 : 1)) * Blocks * World * World];
  std::array<PackVar, kLl ? 0 : World * algo::kEpochSlots * (1 + kIslands) * kMaxPacks> packs_shadow;
  std::array<WordCell, kLl ? World * kLinesPerRank : 0> ll_words;
  Counter counters[World * Blocks];

  bool sync_and(bool ok) override { return sync.sync_and(ok); }

  FusedIslandWorld() : cfg(g_cfg) {
    g_env = this;
    waits.enabled = cfg.park_waits && cfg.scenario == Scenario::ops;
    waits.threads = World * Blocks * Threads;
    const int H = cfg.hidden;
    n = static_cast<std::size_t>(cfg.tokens) * static_cast<std::size_t>(H);
    rp = algo::row_packs(H, kD);
    packs = static_cast<std::size_t>(cfg.tokens) * rp;
    RL_ASSERT(cfg.tokens <= kMaxTokens && H <= kMaxHidden && cfg.ops <= kMaxOps);
    RL_ASSERT(cfg.island_world == World && cfg.islands.islands == kIslands);
    std::memset(static_cast<void*>(ranks), 0, sizeof ranks);
    for (std::size_t i = 0; i < n; ++i) {
      store_from_f32(residual, i, kD, static_cast<float>(static_cast<int>(i % 3) - 1));
      store_from_f32(weight, i % static_cast<std::size_t>(H), kD, 1.0f + 0.25f * static_cast<float>(i % 4));
    }
    for (int r = 0; r < World; ++r) {
      Rank& R = ranks[r];
      R.scratch = guarded_scratch(r, kScratchBytes);
      R.mailbox = static_cast<unsigned char*>(R.scratch) + algo::mailbox_offset(kIslandBytes);
      for (int op = 0; op < cfg.ops; ++op) {
        for (std::size_t i = 0; i < n; ++i) store_from_f32(R.x[op], i, kD, input_value(r, op, i));
        std::memset(R.norm_out[op], kPoison, sizeof(Row));
        std::memset(R.residual_out[op], kPoison, sizeof(Row));
      }
    }
    expect();
    register_shadows(algo::flag_fill(cfg.start));
    for (int r = 0; r < World; ++r)
      for (int op = 0; op < cfg.ops; ++op) fill_args(r, op);
  }

  void expect() {
    for (int op = 0; op < cfg.ops; ++op) {
      alignas(16) Row s;
      for (std::size_t i = 0; i < n; ++i) store_from_f32(s, i, kD, oracle_sum(World, op, i));
      algo::NormIo io = norm_io(want_r[op], want_y[op]);
      float lanes[algo::kNormLanes];
      for (int row = 0; row < cfg.tokens; ++row)
        algo::add_norm_row<SeqMem, kD>(io, static_cast<std::size_t>(row), algo::BlockCtx{}, lanes, [&](std::size_t k) {
          return algo::load_row_pack<kD>(s, cfg.hidden, static_cast<std::size_t>(row), k);
        });
    }
  }
  algo::NormIo norm_io(void* r_out, void* y_out) const {
    algo::NormIo io;
    io.residual = residual;
    io.weight = weight;
    io.norm_out = y_out;
    io.residual_out = r_out;
    io.hidden = cfg.hidden;
    return io;
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

  // As IslandWorld::register_shadows, on the row-padded packs.
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

  void fill_args(int r, int op) {
    const algo::IslandMap& m = cfg.islands;
    Rank& R = ranks[r];
    algo::IslandArgs s{};
    s.in = R.x[op];
    s.n = n;
    s.packs = packs;
    for (int p = 0; p < World; ++p) {
      if (algo::island_of(m, p) == algo::island_of(m, r)) s.scratch[p] = ranks[p].scratch;  // P2P in the island
      s.mailbox[p] = ranks[p].mailbox;
    }
    s.state = &R.state;
    s.timeout_ns = cfg.scenario == Scenario::missing_rank ? cfg.missing_polls : ~std::uint64_t{0} >> 2;
    s.map = m;
    s.sources = algo::cross_sources(m, r);
    s.rank = r;
    s.world = World;
    args[r][op] = algo::FusedIslandArgs{s, norm_io(R.residual_out[op], R.norm_out[op]), cfg.tokens};
  }

  template <class Mem>
  void run_thread(int tid) {
    const Pos at(tid);
    const bool missing = cfg.scenario == Scenario::missing_rank;
    if (missing && at.rank == 1) return;  // never launched
    const int ops = missing ? 1 : cfg.ops;
    float* lanes = ranks[at.rank].lanes[at.block];
    for (int op = 0; op < ops; ++op) {
      sync.kernel_begin(tid, op);
      if constexpr (kLl) algo::fused_island_block<Mem, kD>(args[at.rank][op], at.ctx(), lanes);
      else algo::fused_island_twoshot_block<Mem, kD>(args[at.rank][op], at.ctx(), lanes);
      sync.kernel_end(tid, op);
    }
  }

  void check() {
    const std::size_t bytes = n * dtype_size(kD);
    if (cfg.scenario == Scenario::missing_rank) {
      for (int r = 0; r < World; ++r) {
        if (r == 1) continue;
        MODEL_CHECK(ranks[r].state.error.claimed != 0u, "no wait expired although rank 1 never launched");
        MODEL_CHECK(untouched(ranks[r].norm_out[0], bytes) && untouched(ranks[r].residual_out[0], bytes),
                    "a rank wrote output in an op whose waits expired");
      }
      return;
    }
    for (int r = 0; r < World; ++r) {
      MODEL_CHECK(ranks[r].state.error.claimed == 0u, "a wait expired (or the protocol recorded an error)");
      for (int op = 0; op < cfg.ops; ++op) {
        MODEL_CHECK(std::memcmp(ranks[r].residual_out[op], want_r[op], bytes) == 0,
                    "residual_out differs from the expectation");
        MODEL_CHECK(std::memcmp(ranks[r].norm_out[op], want_y[op], bytes) == 0, "norm_out differs from the expectation");
      }
    }
  }
};

template <class M, TwinKernel Kern, int World, int Blocks, int Threads>
struct FusedIslandTest : rl::test_suite<FusedIslandTest<M, Kern, World, Blocks, Threads>, World * Blocks * Threads> {
  using Mem = M;
  template <class M2>
  using With = FusedIslandTest<M2, Kern, World, Blocks, Threads>;  // the same point with another policy
  static constexpr TwinKernel kKernel = Kern;
  static constexpr int kWorld = World, kBlocks = Blocks, kThreads = Threads;
  FusedIslandWorld<Kern, World, Blocks, Threads> w;
  void thread(unsigned tid) { w.template run_thread<M>(static_cast<int>(tid)); }
  void after() { w.check(); }
};

}  // namespace arbench::model
