// twoshot kernel.
// Purpose: all-reduce for mid/large messages: reduce-scatter (each rank pulls and reduces the
// 1/N of the packs it owns from every peer's staging), a second per-block barrier, then
// all-gather (each rank pulls the other owners' sums).
// Requirements: symmetric scratch (staging_scratch_bytes), 16-byte aligned in/out, blocks of all
// ranks co-resident (SymmLaunchPolicy), RankState per rank in its own device memory.
// Protocol: include/arbench/algo/symm/twoshot.hpp (shared with the host twin).
#include <cuda_runtime.h>

#include "arbench/algo/launch_policy.hpp"
#include "arbench/algo/symm/twoshot.hpp"
#include "arbench/core/cuda_check.hpp"
#include "kernels/mem_device.cuh"
#include "kernels/symm/symm_kernels.hpp"

namespace arbench {
namespace {

template <DType D>
__global__ void __launch_bounds__(algo::SymmLaunchPolicy::kThreads, algo::SymmLaunchPolicy::kMinBlocksPerSm)
    twoshot_kernel(const algo::SymmArgs a) {
  const algo::BlockCtx c{static_cast<int>(blockIdx.x), static_cast<int>(gridDim.x),
                         static_cast<int>(threadIdx.x), static_cast<int>(blockDim.x)};
  algo::twoshot_block<DeviceMem, D>(a, c);  // a timeout is in a.state->error
}

}  // namespace

void launch_twoshot(const algo::SymmArgs& a, DType t, int blocks, Stream stream) {
  const auto s = static_cast<cudaStream_t>(stream);
  constexpr int kThreads = algo::SymmLaunchPolicy::kThreads;
  switch (t) {
    case DType::bf16: twoshot_kernel<DType::bf16><<<blocks, kThreads, 0, s>>>(a); break;
    case DType::fp16: twoshot_kernel<DType::fp16><<<blocks, kThreads, 0, s>>>(a); break;
    case DType::fp32: twoshot_kernel<DType::fp32><<<blocks, kThreads, 0, s>>>(a); break;
  }
  ARB_CUDA_CHECK(cudaGetLastError());
}

}  // namespace arbench
