// CUDA side of oneshot-pull, oneshot-push and twoshot: one launcher per kernel file
// (kernels/block_kernel.cuh), and the GPU variant built on SymmVariant (kernels/symm/symm_gpu.cu).
#pragma once

#include <memory>

#include "arbench/algo/symm_layout.hpp"
#include "arbench/variant.hpp"
#include "kernels/symm/symm_variant.hpp"

namespace arbench {

// Enqueue one op of rank a.rank on `stream` (a cudaStream_t): `blocks` x SymmLaunchPolicy::kThreads.
void launch_oneshot_pull(const algo::SymmArgs& a, DType t, int blocks, Stream stream);
void launch_oneshot_push(const algo::SymmArgs& a, DType t, int blocks, Stream stream);
void launch_twoshot(const algo::SymmArgs& a, DType t, int blocks, Stream stream);

std::unique_ptr<Variant> make_symm_gpu(SymmAlgo algo, SymmOptions opt = {});

// Registry entry with the GPU factory only (register_host.cpp adds the twin).
VariantEntry symm_gpu_entry(SymmAlgo algo);

}  // namespace arbench
