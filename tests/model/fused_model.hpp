// The all-reduce + residual add + RMSNorm kernels under Relacy, on the row worlds (row_world.hpp):
// fused-oneshot and fused-twoshot (include/arbench/algo/fused/), and add_rmsnorm, the norm-only
// kernel, as the unfused variant runs it: oneshot-pull into a private sum buffer, a kernel
// boundary, then norm_rows_block (two launches per op). Shadowed: barrier flags, staging packs
// (row-padded for the fused kernels), fused-twoshot's gather rows, the per-block epoch counters.
#pragma once

#include "tests/model/row_world.hpp"

namespace arbench::model {

template <TwinKernel Kern, int World, int Blocks, int Threads>
struct FusedWorld final : RowWorld<FusedWorld<Kern, World, Blocks, Threads>, Kern, World, Blocks, Threads> {
  static_assert(Kern == TwinKernel::add_rmsnorm || Kern == TwinKernel::fused_oneshot ||
                Kern == TwinKernel::fused_twoshot);
  using Base = typename FusedWorld::RowWorld;
  using Base::cfg, Base::n, Base::packs, Base::ranks, Base::kMaxPacks;
  static constexpr bool kGather = Kern == TwinKernel::fused_twoshot;
  static constexpr bool kUnfused = Kern == TwinKernel::add_rmsnorm;
  static constexpr int kLaunchesPerOp = kUnfused ? 2 : 1;
  static constexpr std::size_t kScratchBytes = algo::fused_scratch_bytes(kMaxPacks, kGather);
  static constexpr int kGatherCells = kGather ? algo::kEpochSlots * algo::kGatherParts * kMaxPacks : 0;

  algo::FusedArgs args[World][kMaxOps];
  algo::SymmArgs pull[World][kMaxOps];  // add_rmsnorm's all-reduce
  algo::NormArgs norm[World][kMaxOps];  // add_rmsnorm's norm
  FlagCell flags[algo::kFlagPhases * Blocks * World * World];
  PackVar staging[World * algo::kEpochSlots * kMaxPacks];
  std::array<PackVar, World * kGatherCells> gather;
  Counter counters[World * Blocks];

  FusedWorld() {
    if constexpr (kUnfused) packs = algo::pack_count(n, kD);  // the all-reduce stages n, not rows
    register_shadows(algo::flag_fill(cfg.start));
    for (int r = 0; r < World; ++r)
      for (int op = 0; op < cfg.ops; ++op) {
        const algo::NormIo io = this->norm_io(r, op);
        pull[r][op] = this->symm_args(r, ranks[r].x[op], ranks[r].sum[op]);
        args[r][op] = algo::FusedArgs{this->symm_args(r, ranks[r].x[op], nullptr), io, cfg.tokens};
        norm[r][op] = algo::NormArgs{};
        norm[r][op].sum = ranks[r].sum[op];
        norm[r][op].io = io;
        norm[r][op].tokens = cfg.tokens;
      }
  }

  void register_shadows(std::uint32_t fill) {
    std::size_t nf = 0, ns = 0, ng = 0, nc = 0;
    for (int r = 0; r < World; ++r) {
      void* s = ranks[r].scratch = guarded_scratch(r, kScratchBytes);
      this->add_barrier_flags(flags, nf, s, fill);
      for (int slot = 0; slot < algo::kEpochSlots; ++slot) {
        this->add_packs(staging, ns, algo::staging_ptr(s, slot, packs), packs);
        if constexpr (kGather)
          for (int part = 0; part < algo::kGatherParts; ++part)
            this->add_packs(gather.data(), ng, algo::gather_ptr(s, slot, part, packs), packs);
      }
      this->add_epoch_counters(counters, nc, ranks[r].state, fill);
    }
  }

  template <class Mem>
  void launch(const typename Base::Pos& at, int op, [[maybe_unused]] int k) {
    float* lanes = ranks[at.rank].lanes[at.block];
    if constexpr (Kern == TwinKernel::fused_oneshot) algo::fused_oneshot_block<Mem, kD>(args[at.rank][op], at.ctx(), lanes);
    if constexpr (Kern == TwinKernel::fused_twoshot) algo::fused_twoshot_block<Mem, kD>(args[at.rank][op], at.ctx(), lanes);
    if constexpr (kUnfused) {
      if (k == 0) algo::oneshot_pull_block<Mem, kD>(pull[at.rank][op], at.ctx());
      else algo::norm_rows_block<Mem, kD>(norm[at.rank][op], at.ctx(), lanes);
    }
  }
};

template <class M, TwinKernel Kern, int World, int Blocks, int Threads>
using FusedTest = ModelTest<M, FusedWorld<Kern, World, Blocks, Threads>>;

}  // namespace arbench::model
