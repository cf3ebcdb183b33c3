// island-twoshot kernel.
// Purpose: all-reduce for mid/large messages on a box of islands: reduce-scatter within the
// island (each rank pulls its 1/k shard from its island peers' staging), the shard's island
// partial across the boundary (posted writes + a release flag, to one partner per rank when the
// islands are equal; P2P or pinned host memory), the islands' sums added, all-gather within the
// island. The cross-island link carries the message once per direction.
// Requirements: island scratch (IslandVariant: twoshot_island_bytes + the mailbox on the P2P
// path), 16-byte aligned in/out, blocks of all ranks co-resident (SymmLaunchPolicy), RankState
// per rank in its own device memory.
// Protocol: include/arbench/algo/island/island_twoshot.hpp (shared with the host twin).
#include <cuda_runtime.h>

#include "arbench/algo/island/island_twoshot.hpp"
#include "arbench/algo/launch_policy.hpp"
#include "arbench/core/cuda_check.hpp"
#include "kernels/island/island_kernels.hpp"
#include "kernels/mem_device.cuh"

namespace arbench {
namespace {

template <DType D>
__global__ void __launch_bounds__(algo::SymmLaunchPolicy::kThreads, algo::SymmLaunchPolicy::kMinBlocksPerSm)
    island_twoshot_kernel(const algo::IslandArgs a) {
  const algo::BlockCtx c{static_cast<int>(blockIdx.x), static_cast<int>(gridDim.x),
                         static_cast<int>(threadIdx.x), static_cast<int>(blockDim.x)};
  algo::island_twoshot_block<DeviceMem, D>(a, c);  // a timeout is in a.state->error
}

}  // namespace

void launch_island_twoshot(const algo::IslandArgs& a, DType t, int blocks, Stream stream) {
  const auto s = static_cast<cudaStream_t>(stream);
  constexpr int kThreads = algo::SymmLaunchPolicy::kThreads;
  switch (t) {
    case DType::bf16: island_twoshot_kernel<DType::bf16><<<blocks, kThreads, 0, s>>>(a); break;
    case DType::fp16: island_twoshot_kernel<DType::fp16><<<blocks, kThreads, 0, s>>>(a); break;
    case DType::fp32: island_twoshot_kernel<DType::fp32><<<blocks, kThreads, 0, s>>>(a); break;
  }
  ARB_CUDA_CHECK(cudaGetLastError());
}

}  // namespace arbench
