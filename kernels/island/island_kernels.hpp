// CUDA side of island-oneshot, island-twoshot, fused-island-oneshot and fused-island-twoshot: one
// launcher per kernel file (kernels/block_kernel.cuh), and the GPU variant built on IslandVariant
// (kernels/island/island_gpu.cu).
#pragma once

#include <memory>

#include "arbench/algo/island/fused_island.hpp"
#include "arbench/algo/island/island_layout.hpp"
#include "arbench/variant.hpp"
#include "kernels/island/island_variant.hpp"

namespace arbench {

// Enqueue one op of rank a.rank on `stream` (a cudaStream_t): `blocks` x the policy's threads.
void launch_island_oneshot(const algo::IslandArgs& a, DType t, int blocks, Stream stream);
void launch_island_twoshot(const algo::IslandArgs& a, DType t, int blocks, Stream stream);
void launch_fused_island(const algo::FusedIslandArgs& a, DType t, int blocks, Stream stream);
void launch_fused_island_twoshot(const algo::FusedIslandArgs& a, DType t, int blocks, Stream stream);

std::unique_ptr<IslandVariant> make_island_gpu(IslandAlgo algo, IslandOptions opt = {});

// Registry entry with the GPU factory only (register_host.cpp adds the twin).
VariantEntry island_gpu_entry(IslandAlgo algo);

}  // namespace arbench
