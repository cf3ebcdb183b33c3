// oneshot-push kernel.
// Purpose: all-reduce for small messages with no barrier and no separate flag: every rank
// writes (pushes) its input into every peer's LL scratch as 16-byte lines that carry the epoch
// next to the data, then polls its own scratch until all peers' lines of this epoch are there
// and reduces in rank order.
// Requirements: symmetric scratch (ll_scratch_bytes: 4 x world x message bytes), 16-byte
// aligned in/out, blocks of all ranks co-resident (SymmLaunchPolicy), RankState per rank in its
// own device memory.
// Protocol: include/arbench/algo/symm/oneshot_push.hpp (shared with the host twin).
#include <cuda_runtime.h>

#include "arbench/algo/launch_policy.hpp"
#include "arbench/algo/symm/oneshot_push.hpp"
#include "arbench/core/cuda_check.hpp"
#include "kernels/mem_device.cuh"
#include "kernels/symm/symm_kernels.hpp"

namespace arbench {
namespace {

template <DType D>
__global__ void __launch_bounds__(algo::SymmLaunchPolicy::kThreads, algo::SymmLaunchPolicy::kMinBlocksPerSm)
    oneshot_push_kernel(const algo::SymmArgs a) {
  const algo::BlockCtx c{static_cast<int>(blockIdx.x), static_cast<int>(gridDim.x),
                         static_cast<int>(threadIdx.x), static_cast<int>(blockDim.x)};
  algo::oneshot_push_block<DeviceMem, D>(a, c);  // a timeout is in a.state->error
}

}  // namespace

void launch_oneshot_push(const algo::SymmArgs& a, DType t, int blocks, Stream stream) {
  const auto s = static_cast<cudaStream_t>(stream);
  constexpr int kThreads = algo::SymmLaunchPolicy::kThreads;
  switch (t) {
    case DType::bf16: oneshot_push_kernel<DType::bf16><<<blocks, kThreads, 0, s>>>(a); break;
    case DType::fp16: oneshot_push_kernel<DType::fp16><<<blocks, kThreads, 0, s>>>(a); break;
    case DType::fp32: oneshot_push_kernel<DType::fp32><<<blocks, kThreads, 0, s>>>(a); break;
  }
  ARB_CUDA_CHECK(cudaGetLastError());
}

}  // namespace arbench
