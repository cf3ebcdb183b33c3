// fused-island-twoshot kernel.
// Purpose: all-reduce + residual add + RMSNorm in one kernel for decode shapes of a few tokens
// and up on a box of islands: island-twoshot's steps on each block's rows (reduce-scatter in the
// island, 1/k shards across, the islands' sums), the island peers' sums gathered into own
// staging, then residual add + RMSNorm of each row (block per row).
// Requirements: island scratch for tokens * row_packs packs (IslandVariant), kThreads ==
// kNormLanes, blocks of all ranks co-resident (FusedLaunchPolicy), RankState per rank in its own
// device memory.
// Protocol: include/arbench/algo/island/fused_island.hpp (shared with the host twin); math:
// include/arbench/algo/rmsnorm.hpp.
#include <cuda_runtime.h>

#include "arbench/algo/fused/fused_layout.hpp"
#include "arbench/algo/island/fused_island.hpp"
#include "arbench/core/cuda_check.hpp"
#include "kernels/island/island_kernels.hpp"
#include "kernels/mem_device.cuh"

namespace arbench {
namespace {

template <DType D>
__global__ void __launch_bounds__(algo::FusedLaunchPolicy::kThreads, algo::FusedLaunchPolicy::kMinBlocksPerSm)
    fused_island_twoshot_kernel(const algo::FusedIslandArgs a) {
  __shared__ float lanes[algo::kNormLanes];
  const algo::BlockCtx c{static_cast<int>(blockIdx.x), static_cast<int>(gridDim.x), static_cast<int>(threadIdx.x),
                         static_cast<int>(blockDim.x)};
  algo::fused_island_twoshot_block<DeviceMem, D>(a, c, lanes);  // a timeout is in a.s.state->error
}

}  // namespace

void launch_fused_island_twoshot(const algo::FusedIslandArgs& a, DType t, int blocks, Stream stream) {
  const auto s = static_cast<cudaStream_t>(stream);
  constexpr int kThreads = algo::FusedLaunchPolicy::kThreads;
  switch (t) {
    case DType::bf16: fused_island_twoshot_kernel<DType::bf16><<<blocks, kThreads, 0, s>>>(a); break;
    case DType::fp16: fused_island_twoshot_kernel<DType::fp16><<<blocks, kThreads, 0, s>>>(a); break;
    case DType::fp32: fused_island_twoshot_kernel<DType::fp32><<<blocks, kThreads, 0, s>>>(a); break;
  }
  ARB_CUDA_CHECK(cudaGetLastError());
}

}  // namespace arbench
