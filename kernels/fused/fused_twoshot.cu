// fused-twoshot kernel.
// Purpose: all-reduce + residual add + RMSNorm in one kernel for larger token counts: each rank
// reduces and normalises only the token rows it owns (reduce-scatter by rows), publishes r and y
// in its scratch, and after a second per-block barrier copies the other owners' rows
// (all-gather). Works for tokens < ranks and tokens not a multiple of ranks.
// Requirements: symmetric scratch (fused_scratch_bytes(P, true)), kThreads == kNormLanes, blocks
// of all ranks co-resident (FusedLaunchPolicy), RankState per rank in its own device memory.
// Protocol: include/arbench/algo/fused/fused_twoshot.hpp (shared with the host twin); math:
// include/arbench/algo/rmsnorm.hpp.
#include <cuda_runtime.h>

#include "arbench/algo/fused/fused_twoshot.hpp"
#include "arbench/core/cuda_check.hpp"
#include "kernels/fused/fused_kernels.hpp"
#include "kernels/mem_device.cuh"

namespace arbench {
namespace {

template <DType D>
__global__ void __launch_bounds__(algo::FusedLaunchPolicy::kThreads, algo::FusedLaunchPolicy::kMinBlocksPerSm)
    fused_twoshot_kernel(const algo::FusedArgs a) {
  __shared__ float lanes[algo::kNormLanes];
  const algo::BlockCtx c{static_cast<int>(blockIdx.x), static_cast<int>(gridDim.x), static_cast<int>(threadIdx.x),
                         static_cast<int>(blockDim.x)};
  algo::fused_twoshot_block<DeviceMem, D>(a, c, lanes);  // a timeout is in a.s.state->error
}

}  // namespace

void launch_fused_twoshot(const algo::FusedArgs& a, DType t, int blocks, Stream stream) {
  const auto s = static_cast<cudaStream_t>(stream);
  constexpr int kThreads = algo::FusedLaunchPolicy::kThreads;
  switch (t) {
    case DType::bf16: fused_twoshot_kernel<DType::bf16><<<blocks, kThreads, 0, s>>>(a); break;
    case DType::fp16: fused_twoshot_kernel<DType::fp16><<<blocks, kThreads, 0, s>>>(a); break;
    case DType::fp32: fused_twoshot_kernel<DType::fp32><<<blocks, kThreads, 0, s>>>(a); break;
  }
  ARB_CUDA_CHECK(cudaGetLastError());
}

}  // namespace arbench
