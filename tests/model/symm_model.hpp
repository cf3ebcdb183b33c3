// oneshot-pull, oneshot-push and twoshot (include/arbench/algo/symm/) under Relacy, on the shared
// driver (grid_world.hpp: one Relacy thread per (rank, block, thread), `ops` ops back to back
// with kernel boundaries, the oracle check in after()). Shadowed: the barrier flags, the staging
// packs or LL line halves, the per-block epoch counters. With Weak::ll_split(_sc) each LL half is
// two shadow words (data, flag) instead of one.
#pragma once

#include "tests/model/grid_world.hpp"

namespace arbench::model {

template <TwinKernel Kern, int World, int Blocks, int Threads, bool Split>
struct SymmWorld final : PackWorld<SymmWorld<Kern, World, Blocks, Threads, Split>, algo::RankState, 6, Kern, World,
                                   Blocks, Threads> {
  using Base = typename SymmWorld::PackWorld;
  using Base::cfg, Base::n, Base::packs, Base::ranks, Base::kMaxPacks;
  template <class M>
  using For = SymmWorld<Kern, World, Blocks, Threads, splits_ll(M::kWeak)>;
  static constexpr bool kLl = Kern == TwinKernel::oneshot_push;
  static constexpr std::size_t kScratchBytes =
      kLl ? algo::ll_scratch_bytes(kMaxPacks, World) : algo::staging_scratch_bytes(kMaxPacks);
  static constexpr std::size_t kLlWords =
      kLl ? World * algo::kEpochSlots * World * kMaxPacks * algo::kLinesPerPack * 2 : 0;

  algo::SymmArgs args[World][kMaxOps];
  FlagCell flags[algo::kFlagPhases * Blocks * World * World];
  std::array<PackVar, kLl ? 0 : World * algo::kEpochSlots * kMaxPacks> staging;
  std::array<WordCell, Split ? 0 : kLlWords> ll_words;
  std::array<LlHalf, Split ? kLlWords : 0> ll_halves;
  Counter counters[World * Blocks];

  SymmWorld() {
    for (int r = 0; r < World; ++r) ranks[r].scratch = guarded_scratch(r, kScratchBytes);
    register_shadows(algo::flag_fill(cfg.start));
    for (int r = 0; r < World; ++r)
      for (int op = 0; op < cfg.ops; ++op) args[r][op] = this->symm_args(r, ranks[r].in[op], ranks[r].out[op]);
  }

  void register_shadows(std::uint32_t fill) {
    std::size_t nf = 0, ns = 0, nl = 0, nc = 0;
    for (int r = 0; r < World; ++r) {
      void* s = ranks[r].scratch;
      this->add_barrier_flags(flags, nf, s, fill);
      for (int slot = 0; slot < algo::kEpochSlots; ++slot) {
        if constexpr (!kLl) this->add_packs(staging.data(), ns, algo::staging_ptr(s, slot, packs), packs);
        else
          for (int snd = 0; snd < World; ++snd) {
            const LlLine* l = algo::ll_ptr(s, slot, snd, World, packs);
            if constexpr (Split) add_halves(nl, l, packs * algo::kLinesPerPack, fill);
            else this->add_lines(ll_words.data(), nl, l, packs * algo::kLinesPerPack, fill);
          }
      }
      this->add_epoch_counters(counters, nc, ranks[r].state, fill);
    }
  }
  void add_halves(std::size_t& nl, const LlLine* first, std::size_t lines, std::uint32_t fill) {
    const LlLine init = algo::ll_fill(fill);
    for (std::size_t i = 0; i < lines; ++i)
      for (int h = 0; h < 2; ++h) {
        LlHalf& c = ll_halves[nl++];
        c.data($).store(c.latest_data = algo::ll_data(init, h), rl::mo_relaxed);
        c.flag($).store(c.latest_flag = algo::ll_flag(init, h), rl::mo_relaxed);
        this->index.add(&first[i].h[h], ShadowIndex::kLlHalf, &c);
      }
  }

  template <class Mem>
  void launch(const typename Base::Pos& at, int op, int) {
    const algo::SymmArgs& a = args[at.rank][op];
    if constexpr (Kern == TwinKernel::oneshot_pull) algo::oneshot_pull_block<Mem, kD>(a, at.ctx());
    if constexpr (Kern == TwinKernel::oneshot_push) algo::oneshot_push_block<Mem, kD>(a, at.ctx());
    if constexpr (Kern == TwinKernel::twoshot) algo::twoshot_block<Mem, kD>(a, at.ctx());
  }
};

template <class M, TwinKernel Kern, int World, int Blocks, int Threads>
using SymmTest = ModelTest<M, SymmWorld<Kern, World, Blocks, Threads, splits_ll(M::kWeak)>>;

}  // namespace arbench::model
