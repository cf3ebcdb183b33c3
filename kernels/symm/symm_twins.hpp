// Host twins of oneshot-pull, oneshot-push and twoshot: the protocols of include/arbench/algo/
// run with the HostMem policy, one CPU thread per rank, its blocks one after another.
#pragma once

#include <memory>

#include "arbench/variant.hpp"
#include "kernels/symm/symm_variant.hpp"

namespace arbench {

std::unique_ptr<Variant> make_symm_twin(SymmAlgo algo, SymmOptions opt = {});

// Registry entries (host factories only; register_cuda.cu adds the GPU ones).
VariantEntry oneshot_pull_host_entry();
VariantEntry oneshot_push_host_entry();
VariantEntry twoshot_host_entry();

}  // namespace arbench
