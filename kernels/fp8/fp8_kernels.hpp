// CUDA side of oneshot-fp8 and twoshot-fp8: one launcher per kernel file
// (kernels/block_kernel.cuh), and the GPU variant built on Fp8Variant (kernels/fp8/fp8_gpu.cu).
#pragma once

#include <memory>

#include "arbench/algo/symm_layout.hpp"
#include "arbench/variant.hpp"
#include "kernels/fp8/fp8_variant.hpp"

namespace arbench {

// Enqueue one op of rank a.rank on `stream` (a cudaStream_t): `blocks` x Fp8LaunchPolicy::kThreads.
void launch_oneshot_fp8(const algo::SymmArgs& a, DType t, int blocks, Stream stream);
void launch_twoshot_fp8(const algo::SymmArgs& a, DType t, int blocks, Stream stream);

std::unique_ptr<Variant> make_fp8_gpu(Fp8Algo algo, SymmOptions opt = {});

// Registry entry with the GPU factory only (register_host.cpp adds the twin).
VariantEntry fp8_gpu_entry(Fp8Algo algo);

}  // namespace arbench
