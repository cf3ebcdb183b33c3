// CUDA side of the native ring (kernels/ring/ring.cu): its launcher, and the GPU variant on the
// cuda and single_gpu fabrics, built on RingVariant.
#pragma once

#include <memory>

#include "arbench/variant.hpp"
#include "kernels/ring/ring_variant.hpp"

namespace arbench {

// Enqueue one op of rank a.rank on `stream` (a cudaStream_t): `blocks` (a.g.channels) x
// RingPolicy::kThreads.
void launch_ring(const algo::RingArgs& a, DType t, int blocks, Stream stream);

std::unique_ptr<RingVariant> make_ring_gpu(RingOptions opt = {});

// Registry entry with the GPU factory only (register_host.cpp adds the twin).
VariantEntry ring_gpu_entry();

}  // namespace arbench
