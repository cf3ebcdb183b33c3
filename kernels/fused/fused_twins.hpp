// Host twins of unfused-oneshot, fused-oneshot and fused-twoshot: the protocols and the norm math
// of include/arbench/algo/ run with the HostMem policy, one CPU thread per rank, its blocks one
// after another. unfused-nccl has no twin (NCCL needs GPUs).
#pragma once

#include <memory>

#include "arbench/variant.hpp"
#include "kernels/fused/fused_variant.hpp"

namespace arbench {

std::unique_ptr<Variant> make_fused_twin(FusedAlgo algo, FusedOptions opt = {});

// Registry entries (host factories only; register_cuda.cu adds the GPU ones). The unfused-nccl
// entry carries only the reason why it has no twin; it is listed first so the unfused baselines
// of a shape run (and feed the fusion counters) before the fused variants.
VariantEntry unfused_nccl_host_entry();
VariantEntry unfused_oneshot_host_entry();
VariantEntry fused_oneshot_host_entry();
VariantEntry fused_twoshot_host_entry();

}  // namespace arbench
