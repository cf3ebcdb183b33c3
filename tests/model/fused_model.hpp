// The all-reduce + residual add + RMSNorm kernels under Relacy: fused-oneshot and fused-twoshot
// (include/arbench/algo/fused/), and add_rmsnorm, the norm-only kernel, as the unfused variant
// runs it: oneshot-pull into a private sum buffer, a kernel boundary, then norm_rows_block (two
// launches per op). Shadowed: barrier flags, staging packs (row-padded for the fused kernels),
// fused-twoshot's gather rows, the per-block epoch counters. The norm's lanes are real
// block-shared floats (the lane tree's missing barrier shows as a wrong sum, not a race).
// after(): every op's norm_out and residual_out of every rank bitwise equal to the expectation,
// computed before the threads start by the same row math (add_norm_row) on the exact sums;
// missing-rank: rank 0 recorded the timeout and wrote no output.
#pragma once

#include "tests/model/model_world.hpp"
#include "tests/model/relacy_mem.hpp"

namespace arbench::model {

// The policy of the expectation: one thread, nothing to order.
struct SeqMem {
  static void block_sync() {}
  static void store_data(Pack* p, const Pack& v) { *p = v; }
};

template <TwinKernel Kern, int World, int Blocks, int Threads>
struct FusedWorld final : EnvBase {
  static_assert(Kern == TwinKernel::add_rmsnorm || Kern == TwinKernel::fused_oneshot ||
                Kern == TwinKernel::fused_twoshot);
  static constexpr bool kGather = Kern == TwinKernel::fused_twoshot;
  static constexpr bool kUnfused = Kern == TwinKernel::add_rmsnorm;
  static constexpr int kLaunchesPerOp = kUnfused ? 2 : 1;
  static constexpr int kMaxTokens = 3, kMaxHidden = 27;
  // A row buffer holds whole packs (16-byte multiples), so the arrays of them stay aligned.
  static constexpr std::size_t kMaxElems = (kMaxTokens * kMaxHidden + 7) / 8 * 8;
  static constexpr std::size_t kMaxPacks = kMaxTokens * 4;  // row_packs(27, bf16) = 4
  static constexpr std::size_t kScratchBytes = algo::fused_scratch_bytes(kMaxPacks, kGather);
  static constexpr int kGatherCells = kGather ? algo::kEpochSlots * algo::kGatherParts * kMaxPacks : 0;
  using Pos = GridPos<World, Blocks, Threads>;
  using Row = std::uint16_t[kMaxElems];  // bf16

  struct Rank {
    void* scratch;  // guarded_scratch
    algo::RankState state;
    alignas(16) Row x[kMaxOps], sum[kMaxOps], norm_out[kMaxOps], residual_out[kMaxOps];
    float lanes[Blocks][algo::kNormLanes];  // block-shared memory
  };

  ModelConfig cfg;
  std::size_t n = 0, rp = 0, packs = 0;  // packs: staged packs (row-padded; add_rmsnorm: of n)
  alignas(16) Row residual, weight, want_y[kMaxOps], want_r[kMaxOps];
  Rank ranks[World];
  algo::FusedArgs args[World][kMaxOps];
  algo::SymmArgs pull[World][kMaxOps];  // add_rmsnorm's all-reduce
  algo::NormArgs norm[World][kMaxOps];  // add_rmsnorm's norm
  BlockSync<World, Blocks, Threads> sync;
  FlagCell flags[algo::kFlagPhases * Blocks * World * World];
  PackVar staging[World * algo::kEpochSlots * kMaxPacks];
  std::array<PackVar, World * kGatherCells> gather;
  Counter counters[World * Blocks];

  bool sync_and(bool ok) override { return sync.sync_and(ok); }

  FusedWorld() : cfg(g_cfg) {
    g_env = this;
    waits.enabled = cfg.park_waits && cfg.scenario == Scenario::ops;
    waits.threads = World * Blocks * Threads;
    const int H = cfg.hidden;
    n = static_cast<std::size_t>(cfg.tokens) * static_cast<std::size_t>(H);
    rp = algo::row_packs(H, kD);
    packs = kUnfused ? algo::pack_count(n, kD) : static_cast<std::size_t>(cfg.tokens) * rp;
    RL_ASSERT(cfg.tokens <= kMaxTokens && H <= kMaxHidden && cfg.ops <= kMaxOps);
    std::memset(static_cast<void*>(ranks), 0, sizeof ranks);
    for (std::size_t i = 0; i < n; ++i) {
      store_from_f32(residual, i, kD, static_cast<float>(static_cast<int>(i % 3) - 1));
      store_from_f32(weight, i % static_cast<std::size_t>(H), kD, 1.0f + 0.25f * static_cast<float>(i % 4));
    }
    for (int r = 0; r < World; ++r)
      for (int op = 0; op < cfg.ops; ++op) {
        for (std::size_t i = 0; i < n; ++i) store_from_f32(ranks[r].x[op], i, kD, input_value(r, op, i));
        std::memset(ranks[r].norm_out[op], kPoison, sizeof(Row));
        std::memset(ranks[r].residual_out[op], kPoison, sizeof(Row));
        std::memset(ranks[r].sum[op], kPoison, sizeof(Row));
      }
    expect();
    register_shadows(algo::flag_fill(cfg.start));
    for (int r = 0; r < World; ++r)
      for (int op = 0; op < cfg.ops; ++op) fill_args(r, op);
  }

  // Every op's outputs from the exact sums, single-threaded (the lane tree's shape is fixed, so
  // any thread count gives the same bits).
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

  void register_shadows(std::uint32_t fill) {
    std::size_t nf = 0, ns = 0, ng = 0, nc = 0;
    for (int r = 0; r < World; ++r) {
      void* s = ranks[r].scratch = guarded_scratch(r, kScratchBytes);
      for (int ph = 0; ph < algo::kFlagPhases; ++ph)
        for (int b = 0; b < Blocks; ++b)
          for (int snd = 0; snd < World; ++snd) {
            flags[nf].a($).store(flags[nf].latest = fill, rl::mo_relaxed);
            index.add(algo::flag_ptr(s, ph, b, snd), ShadowIndex::kFlag, &flags[nf++]);
          }
      for (int slot = 0; slot < algo::kEpochSlots; ++slot) {
        Pack* p = algo::staging_ptr(s, slot, packs);
        for (std::size_t k = 0; k < packs; ++k) index.add(p + k, ShadowIndex::kPack, &staging[ns++]);
        if constexpr (kGather)
          for (int part = 0; part < algo::kGatherParts; ++part) {
            Pack* q = algo::gather_ptr(s, slot, part, packs);
            for (std::size_t k = 0; k < packs; ++k) index.add(q + k, ShadowIndex::kPack, &gather[ng++]);
          }
      }
      for (int b = 0; b < Blocks; ++b) {
        counters[nc].v($).store(fill);
        index.add(&ranks[r].state.epoch[b], ShadowIndex::kCounter, &counters[nc++]);
      }
    }
  }

  void fill_args(int r, int op) {
    Rank& R = ranks[r];
    algo::SymmArgs s{};
    s.in = R.x[op];
    s.n = n;
    s.packs = packs;
    for (int p = 0; p < World; ++p) s.scratch[p] = ranks[p].scratch;
    s.state = &R.state;
    s.timeout_ns = cfg.scenario == Scenario::missing_rank ? cfg.missing_polls : ~std::uint64_t{0} >> 2;
    s.rank = r;
    s.world = World;
    const algo::NormIo io = norm_io(R.residual_out[op], R.norm_out[op]);
    args[r][op] = algo::FusedArgs{s, io, cfg.tokens};
    s.out = R.sum[op];
    pull[r][op] = s;
    norm[r][op] = algo::NormArgs{};
    norm[r][op].sum = R.sum[op];
    norm[r][op].io = io;
    norm[r][op].tokens = cfg.tokens;
  }

  template <class Mem>
  void run_thread(int tid) {
    const Pos at(tid);
    const bool missing = cfg.scenario == Scenario::missing_rank;
    if (missing && at.rank == 1) return;  // never launched
    const int ops = missing ? 1 : cfg.ops;
    float* lanes = ranks[at.rank].lanes[at.block];
    for (int op = 0; op < ops; ++op) {
      const int launch = op * kLaunchesPerOp;
      sync.kernel_begin(tid, launch);
      if constexpr (Kern == TwinKernel::fused_oneshot) algo::fused_oneshot_block<Mem, kD>(args[at.rank][op], at.ctx(), lanes);
      if constexpr (Kern == TwinKernel::fused_twoshot) algo::fused_twoshot_block<Mem, kD>(args[at.rank][op], at.ctx(), lanes);
      if constexpr (kUnfused) algo::oneshot_pull_block<Mem, kD>(pull[at.rank][op], at.ctx());
      sync.kernel_end(tid, launch);
      if constexpr (kUnfused) {
        sync.kernel_begin(tid, launch + 1);
        algo::norm_rows_block<Mem, kD>(norm[at.rank][op], at.ctx(), lanes);
        sync.kernel_end(tid, launch + 1);
      }
    }
  }

  void check() {
    const std::size_t bytes = n * dtype_size(kD);
    if (cfg.scenario == Scenario::missing_rank) {
      MODEL_CHECK(ranks[0].state.error.claimed != 0u, "no wait expired although rank 1 never launched");
      MODEL_CHECK(untouched(ranks[0].norm_out[0], bytes) && untouched(ranks[0].residual_out[0], bytes),
                  "a rank wrote output in an op whose waits expired");
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
struct FusedTest : rl::test_suite<FusedTest<M, Kern, World, Blocks, Threads>, World * Blocks * Threads> {
  using Mem = M;
  template <class M2>
  using With = FusedTest<M2, Kern, World, Blocks, Threads>;  // the same point with another policy
  static constexpr TwinKernel kKernel = Kern;
  static constexpr int kWorld = World, kBlocks = Blocks, kThreads = Threads;
  FusedWorld<Kern, World, Blocks, Threads> w;
  void thread(unsigned tid) { w.template run_thread<M>(static_cast<int>(tid)); }
  void after() { w.check(); }
};

}  // namespace arbench::model
