// The island family under Relacy, on the shared driver (grid_world.hpp) with the islands' memory
// (island_memory.hpp): island-oneshot and island-twoshot (include/arbench/algo/island/) reduce
// `in` into `out` (PackWorld: the oracle's sums); fused-island-oneshot and fused-island-twoshot
// (fused_island.hpp) add the residual and the norm on rows (row_world.hpp: the staged message is
// the row-padded packs, tokens x row_packs; each island's partial is exact on the oracle's
// integers). Missing-rank: every launched rank recorded a timeout and wrote no output (every
// rank depends on rank 1's data).
#pragma once

#include <type_traits>

#include "tests/model/island/island_memory.hpp"
#include "tests/model/row_world.hpp"

namespace arbench::model {

template <TwinKernel Kern, int World, int Blocks, int Threads>
struct IslandWorld;

template <TwinKernel Kern, int World, int Blocks, int Threads>
using IslandWorldBase =
    std::conditional_t<Kern == TwinKernel::fused_island || Kern == TwinKernel::fused_island_twoshot,
                       RowWorld<IslandWorld<Kern, World, Blocks, Threads>, Kern, World, Blocks, Threads>,
                       PackWorld<IslandWorld<Kern, World, Blocks, Threads>, algo::RankState, 6, Kern, World, Blocks, Threads>>;

template <TwinKernel Kern, int World, int Blocks, int Threads>
struct IslandWorld final : IslandWorldBase<Kern, World, Blocks, Threads> {
  static constexpr bool kFused = Kern == TwinKernel::fused_island || Kern == TwinKernel::fused_island_twoshot;
  static constexpr bool kLl = Kern == TwinKernel::island_oneshot || Kern == TwinKernel::fused_island;
  static_assert(kFused || kLl || Kern == TwinKernel::island_twoshot);
  using Base = IslandWorldBase<Kern, World, Blocks, Threads>;
  using Islands = IslandMemory<kLl, World, Blocks, Base::kMaxPacks>;

  std::conditional_t<kFused, algo::FusedIslandArgs, algo::IslandArgs> args[World][kMaxOps];
  Islands mem;

  IslandWorld() {
    mem.place(*this);
    for (int r = 0; r < World; ++r)
      for (int op = 0; op < this->cfg.ops; ++op) {
        auto& R = this->ranks[r];
        if constexpr (kFused)
          args[r][op] = algo::FusedIslandArgs{Islands::args(*this, r, R.x[op], nullptr), this->norm_io(r, op),
                                              this->cfg.tokens};
        else args[r][op] = Islands::args(*this, r, R.in[op], R.out[op]);
      }
  }

  template <class M>
  void launch(const typename Base::Pos& at, int op, int) {
    const auto& a = args[at.rank][op];
    if constexpr (Kern == TwinKernel::island_oneshot) algo::island_oneshot_block<M, kD>(a, at.ctx());
    if constexpr (Kern == TwinKernel::island_twoshot) algo::island_twoshot_block<M, kD>(a, at.ctx());
    if constexpr (kFused) {
      float* lanes = this->ranks[at.rank].lanes[at.block];
      if constexpr (kLl) algo::fused_island_block<M, kD>(a, at.ctx(), lanes);
      else algo::fused_island_twoshot_block<M, kD>(a, at.ctx(), lanes);
    }
  }
};

template <class M, TwinKernel Kern, int World, int Blocks, int Threads>
using IslandTest = ModelTest<M, IslandWorld<Kern, World, Blocks, Threads>>;

}  // namespace arbench::model
