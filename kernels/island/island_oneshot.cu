// island-oneshot kernel.
// Purpose: all-reduce for decode-sized messages on a box of islands (GPUs under one switch or
// root complex): one-shot LL within the island, then the island's whole partial sum across the
// boundary to one partner per rank (P2P, or pinned host memory), then the islands' sums added.
// No barrier: every step is LL lines (data and epoch in one 8-byte word), polled locally.
// Requirements: island scratch (IslandVariant: oneshot_island_bytes + the mailbox on the P2P
// path), 16-byte aligned in/out, blocks of all ranks co-resident (SymmLaunchPolicy), RankState
// per rank in its own device memory.
// Protocol: include/arbench/algo/island/island_oneshot.hpp (shared with the host twin).
#include <cuda_runtime.h>

#include "arbench/algo/island/island_oneshot.hpp"
#include "arbench/algo/launch_policy.hpp"
#include "arbench/core/cuda_check.hpp"
#include "kernels/island/island_kernels.hpp"
#include "kernels/mem_device.cuh"

namespace arbench {
namespace {

template <DType D>
__global__ void __launch_bounds__(algo::SymmLaunchPolicy::kThreads, algo::SymmLaunchPolicy::kMinBlocksPerSm)
    island_oneshot_kernel(const algo::IslandArgs a) {
  const algo::BlockCtx c{static_cast<int>(blockIdx.x), static_cast<int>(gridDim.x),
                         static_cast<int>(threadIdx.x), static_cast<int>(blockDim.x)};
  algo::island_oneshot_block<DeviceMem, D>(a, c);  // a timeout is in a.state->error
}

}  // namespace

void launch_island_oneshot(const algo::IslandArgs& a, DType t, int blocks, Stream stream) {
  const auto s = static_cast<cudaStream_t>(stream);
  constexpr int kThreads = algo::SymmLaunchPolicy::kThreads;
  switch (t) {
    case DType::bf16: island_oneshot_kernel<DType::bf16><<<blocks, kThreads, 0, s>>>(a); break;
    case DType::fp16: island_oneshot_kernel<DType::fp16><<<blocks, kThreads, 0, s>>>(a); break;
    case DType::fp32: island_oneshot_kernel<DType::fp32><<<blocks, kThreads, 0, s>>>(a); break;
  }
  ARB_CUDA_CHECK(cudaGetLastError());
}

}  // namespace arbench
