// Host twin of the native ring: the protocol of include/arbench/algo/ring.hpp run with the
// HostMem policy, one CPU thread per rank, its channels one after another.
#pragma once

#include <memory>

#include "arbench/variant.hpp"
#include "kernels/ring/ring_variant.hpp"

namespace arbench {

std::unique_ptr<RingVariant> make_ring_twin(RingOptions opt = {});

// Registry entry with the host factory only (register_cuda.cu adds the GPU one).
VariantEntry ring_host_entry();

}  // namespace arbench
