// Host twins of island-oneshot, island-twoshot, fused-island-oneshot and fused-island-twoshot: the protocols of
// include/arbench/algo/island/ run sequentially or block-faithfully (kernels/twin_grid.hpp,
// chosen by Tuning::host_threads). IslandTwin<Mem> works with any host memory policy: HostMem in
// production (make_island_twin), the mutant policies of the mutation score and the cross-link
// policy of the model tests (CrossLinkMem) in tests (make_island_twin_with). Both cross-island
// paths run here: P2P, or host memory when the fabric's islands lack P2P (HostFabricOptions).
#pragma once

#include <memory>

#include "arbench/algo/fused/fused_layout.hpp"
#include "arbench/algo/island/fused_island.hpp"
#include "arbench/algo/island/island_oneshot.hpp"
#include "arbench/algo/island/island_twoshot.hpp"
#include "arbench/algo/launch_policy.hpp"
#include "arbench/variant.hpp"
#include "kernels/island/island_variant.hpp"
#include "kernels/twin_grid.hpp"

namespace arbench {

template <class Mem>
class IslandTwin final : public IslandVariant {
 public:
  IslandTwin(IslandAlgo algo, IslandOptions opt, TwinOptions twin) : IslandVariant(algo, opt), grids_(twin) {}

  Support supports(const Case& c, const Fabric& f) const override {
    if (f.backend() != Backend::host) return Support::no("the island twins run on the host fabric");
    return IslandVariant::supports(c, f);
  }

  void prepare(const Case& c, Fabric& f, const OpBuffers& b, const Tuning& t) override {
    const bool ok = fused() ? algo::FusedLaunchPolicy::threads_ok(t.host_threads)
                            : algo::SymmLaunchPolicy::threads_ok(t.host_threads);
    grids_.choose(t.host_threads, ok, island_algo_name(algo_));
    IslandVariant::prepare(c, f, b, t);
    grids_.prepare(f.world(), fused() ? algo::kNormLanes * sizeof(float) : 0, f.timeout_s());
  }

  void launch(int rank, Stream /*stream*/) override {
    with_dtype(dtype_, [&](auto d) { run<decltype(d)::value>(rank); });
  }

 protected:
  // The kernels' policies (block-faithful: with the host's cores as SMs).
  int choose_blocks(const Fabric& /*f*/, const Tuning& t, std::size_t work) const override {
    return grid_for(grids_.sms(algo::SymmLaunchPolicy::kHostSms), 1, t.blocks, work);
  }
  int threads() const override { return grids_.threads(); }

 private:
  template <DType D>
  void run(int rank) {
    if (fused()) {
      const algo::FusedIslandArgs a = fused_args(rank);
      grids_.launch(rank, blocks(), [&](const algo::BlockCtx& c, void* shared) {
        auto* lanes = static_cast<float*>(shared);
        return algo_ == IslandAlgo::fused_twoshot ? algo::fused_island_twoshot_block<Mem, D>(a, c, lanes)
                                                  : algo::fused_island_block<Mem, D>(a, c, lanes);
      });
      return;
    }
    const algo::IslandArgs a = island_args(rank);
    grids_.launch(rank, blocks(), [&](const algo::BlockCtx& c, void* /*shared*/) {
      return algo_ == IslandAlgo::twoshot ? algo::island_twoshot_block<Mem, D>(a, c)
                                          : algo::island_oneshot_block<Mem, D>(a, c);
    });
  }

  TwinGrids grids_;
};

template <class Mem>
std::unique_ptr<IslandVariant> make_island_twin_with(IslandAlgo algo, IslandOptions opt = {}, TwinOptions twin = {}) {
  return std::make_unique<IslandTwin<Mem>>(algo, opt, twin);
}

// The twin with HostMem.
std::unique_ptr<IslandVariant> make_island_twin(IslandAlgo algo, IslandOptions opt = {}, TwinOptions twin = {});

// Registry entry with the host factory only (register_cuda.cu adds the GPU one).
VariantEntry island_host_entry(IslandAlgo algo);

}  // namespace arbench
