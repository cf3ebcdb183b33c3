// fused-oneshot kernel.
// Purpose: all-reduce + residual add + RMSNorm in one kernel for decode-sized messages: every
// rank stages its x rows in symmetric scratch, meets its peers at a per-block barrier, pulls
// every peer's rows, reduces in rank order, adds the residual and normalises (block per row).
// Requirements: symmetric scratch (fused_scratch_bytes(P, false)), kThreads == kNormLanes, blocks
// of all ranks co-resident (FusedLaunchPolicy), RankState per rank in its own device memory.
// Protocol: include/arbench/algo/fused/fused_oneshot.hpp (shared with the host twin); math:
// include/arbench/algo/rmsnorm.hpp.
#include <cuda_runtime.h>

#include "arbench/algo/fused/fused_oneshot.hpp"
#include "arbench/core/cuda_check.hpp"
#include "kernels/fused/fused_kernels.hpp"
#include "kernels/mem_device.cuh"

namespace arbench {
namespace {

template <DType D>
__global__ void __launch_bounds__(algo::FusedLaunchPolicy::kThreads, algo::FusedLaunchPolicy::kMinBlocksPerSm)
    fused_oneshot_kernel(const algo::FusedArgs a) {
  __shared__ float lanes[algo::kNormLanes];
  const algo::BlockCtx c{static_cast<int>(blockIdx.x), static_cast<int>(gridDim.x), static_cast<int>(threadIdx.x),
                         static_cast<int>(blockDim.x)};
  algo::fused_oneshot_block<DeviceMem, D>(a, c, lanes);  // a timeout is in a.s.state->error
}

}  // namespace

void launch_fused_oneshot(const algo::FusedArgs& a, DType t, int blocks, Stream stream) {
  const auto s = static_cast<cudaStream_t>(stream);
  constexpr int kThreads = algo::FusedLaunchPolicy::kThreads;
  switch (t) {
    case DType::bf16: fused_oneshot_kernel<DType::bf16><<<blocks, kThreads, 0, s>>>(a); break;
    case DType::fp16: fused_oneshot_kernel<DType::fp16><<<blocks, kThreads, 0, s>>>(a); break;
    case DType::fp32: fused_oneshot_kernel<DType::fp32><<<blocks, kThreads, 0, s>>>(a); break;
  }
  ARB_CUDA_CHECK(cudaGetLastError());
}

}  // namespace arbench
