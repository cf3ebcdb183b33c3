// Host twins of oneshot-pull, oneshot-push and twoshot: the protocols of include/arbench/algo/
// run sequentially or block-faithfully (kernels/twin_grid.hpp, chosen by Tuning::host_threads).
// SymmTwin<Mem> works with any host memory policy: HostMem in production (make_symm_twin), the
// mutant policies of the mutation score in tests (make_symm_twin_with).
#pragma once

#include <memory>

#include "arbench/algo/launch_policy.hpp"
#include "arbench/algo/symm/oneshot_pull.hpp"
#include "arbench/algo/symm/oneshot_push.hpp"
#include "arbench/algo/symm/twoshot.hpp"
#include "arbench/variant.hpp"
#include "kernels/symm/symm_variant.hpp"
#include "kernels/twin_grid.hpp"

namespace arbench {

template <class Mem>
class SymmTwin final : public SymmVariant {
 public:
  SymmTwin(SymmAlgo algo, SymmOptions opt, TwinOptions twin) : SymmVariant(algo, opt), grids_(twin) {}

  void prepare(const Case& c, Fabric& f, const OpBuffers& b, const Tuning& t) override {
    grids_.choose(t.host_threads, algo::SymmLaunchPolicy::threads_ok(t.host_threads), symm_algo_name(algo_));
    SymmVariant::prepare(c, f, b, t);
    grids_.prepare(f.world(), 0, f.timeout_s());
  }

  void launch(int rank, Stream /*stream*/) override {
    const algo::SymmArgs a = args_for(rank);
    with_dtype(dtype_, [&](auto d) { run<decltype(d)::value>(rank, a); });
  }

 protected:
  // The kernel's policy (block-faithful: with the host's cores as SMs).
  int choose_blocks(const Fabric& /*f*/, const Tuning& t, std::size_t packs) const override {
    return grid_for(grids_.sms(algo::SymmLaunchPolicy::kHostSms), 1, t.blocks, packs);
  }
  int threads() const override { return grids_.threads(); }

 private:
  template <DType D>
  void run(int rank, const algo::SymmArgs& a) {
    grids_.launch(rank, blocks(), [&](const algo::BlockCtx& c, void* /*shared*/) {
      switch (algo_) {
        case SymmAlgo::oneshot_pull: return algo::oneshot_pull_block<Mem, D>(a, c);
        case SymmAlgo::oneshot_push: return algo::oneshot_push_block<Mem, D>(a, c);
        case SymmAlgo::twoshot: return algo::twoshot_block<Mem, D>(a, c);
      }
      return false;
    });
  }

  TwinGrids grids_;
};

template <class Mem>
std::unique_ptr<SymmVariant> make_symm_twin_with(SymmAlgo algo, SymmOptions opt = {}, TwinOptions twin = {}) {
  return std::make_unique<SymmTwin<Mem>>(algo, opt, twin);
}

// The twin with HostMem.
std::unique_ptr<Variant> make_symm_twin(SymmAlgo algo, SymmOptions opt = {}, TwinOptions twin = {});

// Registry entry with the host factory only (register_cuda.cu adds the GPU one).
VariantEntry symm_host_entry(SymmAlgo algo);

}  // namespace arbench
