// CUDA side of the allreduce_rmsnorm family: one launcher per kernel file
// (kernels/block_kernel.cuh), and the GPU variants built on FusedVariant (kernels/fused/fused_gpu.cu).
#pragma once

#include <memory>

#include "arbench/algo/fused/fused_layout.hpp"
#include "arbench/variant.hpp"
#include "kernels/fused/fused_variant.hpp"

namespace arbench {

// Enqueue on `stream` (a cudaStream_t): `blocks` x FusedLaunchPolicy::kThreads.
void launch_add_rmsnorm(const algo::NormArgs& a, DType t, int blocks, Stream stream);
void launch_fused_oneshot(const algo::FusedArgs& a, DType t, int blocks, Stream stream);
void launch_fused_twoshot(const algo::FusedArgs& a, DType t, int blocks, Stream stream);

std::unique_ptr<Variant> make_fused_gpu(FusedAlgo algo, FusedOptions opt = {});

// Registry entry with the GPU factory only (register_host.cpp adds the twin).
VariantEntry fused_gpu_entry(FusedAlgo algo);

}  // namespace arbench
