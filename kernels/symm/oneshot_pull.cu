// oneshot-pull kernel.
// Purpose: all-reduce for small messages with one barrier: every rank copies its input into its
// symmetric staging slot, meets its peers at a per-block barrier, then reads (pulls) every
// peer's staging over the fabric and reduces in rank order.
// Requirements: symmetric scratch (staging_scratch_bytes), 16-byte aligned in/out, blocks of all
// ranks co-resident (SymmLaunchPolicy), RankState per rank in its own device memory.
// Protocol: include/arbench/algo/symm/oneshot_pull.hpp (shared with the host twin).
#include <cuda_runtime.h>

#include "arbench/algo/launch_policy.hpp"
#include "arbench/algo/symm/oneshot_pull.hpp"
#include "arbench/core/cuda_check.hpp"
#include "kernels/mem_device.cuh"
#include "kernels/symm/symm_kernels.hpp"

namespace arbench {
namespace {

template <DType D>
__global__ void __launch_bounds__(algo::SymmLaunchPolicy::kThreads, algo::SymmLaunchPolicy::kMinBlocksPerSm)
    oneshot_pull_kernel(const algo::SymmArgs a) {
  const algo::BlockCtx c{static_cast<int>(blockIdx.x), static_cast<int>(gridDim.x),
                         static_cast<int>(threadIdx.x), static_cast<int>(blockDim.x)};
  algo::oneshot_pull_block<DeviceMem, D>(a, c);  // a timeout is in a.state->error
}

}  // namespace

void launch_oneshot_pull(const algo::SymmArgs& a, DType t, int blocks, Stream stream) {
  const auto s = static_cast<cudaStream_t>(stream);
  constexpr int kThreads = algo::SymmLaunchPolicy::kThreads;
  switch (t) {
    case DType::bf16: oneshot_pull_kernel<DType::bf16><<<blocks, kThreads, 0, s>>>(a); break;
    case DType::fp16: oneshot_pull_kernel<DType::fp16><<<blocks, kThreads, 0, s>>>(a); break;
    case DType::fp32: oneshot_pull_kernel<DType::fp32><<<blocks, kThreads, 0, s>>>(a); break;
  }
  ARB_CUDA_CHECK(cudaGetLastError());
}

}  // namespace arbench
