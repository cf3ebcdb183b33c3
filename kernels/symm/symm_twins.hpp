// Host twins of oneshot-pull, oneshot-push and twoshot: the protocols of include/arbench/algo/
// run sequentially or block-faithfully (grid_twin.hpp, chosen by Tuning::host_threads).
// SymmTwin<Mem> works with any host memory policy: HostMem in production (make_symm_twin), the
// mutant policies of the mutation score in tests (make_twin_with, grid_twin.hpp).
#pragma once

#include <memory>

#include "arbench/algo/launch_policy.hpp"
#include "arbench/algo/symm/oneshot_pull.hpp"
#include "arbench/algo/symm/oneshot_push.hpp"
#include "arbench/algo/symm/twoshot.hpp"
#include "arbench/variant.hpp"
#include "kernels/symm/grid_twin.hpp"
#include "kernels/symm/symm_variant.hpp"

namespace arbench {

template <class Mem>
class SymmTwin final : public GridTwin<SymmTwin<Mem>, SymmVariant, algo::SymmLaunchPolicy> {
 public:
  using GridTwin<SymmTwin<Mem>, SymmVariant, algo::SymmLaunchPolicy>::GridTwin;

  template <DType D>
  bool block(const algo::SymmArgs& a, const algo::BlockCtx& c) const {
    switch (this->algo_) {
      case SymmAlgo::oneshot_pull: return algo::oneshot_pull_block<Mem, D>(a, c);
      case SymmAlgo::oneshot_push: return algo::oneshot_push_block<Mem, D>(a, c);
      case SymmAlgo::twoshot: return algo::twoshot_block<Mem, D>(a, c);
    }
    return false;
  }
};

template <class Mem>
struct TwinOf<SymmAlgo, Mem> {
  using type = SymmTwin<Mem>;
};

// The twin with HostMem.
std::unique_ptr<Variant> make_symm_twin(SymmAlgo algo, SymmOptions opt = {}, TwinOptions twin = {});

// Registry entry with the host factory only (register_cuda.cu adds the GPU one).
VariantEntry symm_host_entry(SymmAlgo algo);

}  // namespace arbench
