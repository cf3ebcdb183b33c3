// add_rmsnorm kernel: the norm-only second half of unfused-nccl and unfused-oneshot.
// Purpose: residual add + RMSNorm of the all-reduce output `sum`, block per token row; writes
// residual_out (r) and norm_out (y) with the math of include/arbench/algo/rmsnorm.hpp, so its
// outputs are bitwise those of the fused kernels and of the host twins.
// Requirements: kThreads == kNormLanes threads per block (the lane tree); any grid (blocks loop
// over split_range rows; no waits, so no residency requirement); buffers 2-byte (4 for fp32)
// aligned, 16-byte aligned when H is a multiple of a pack.
// Protocol: none (no peer access).
#include <cuda_runtime.h>

#include "arbench/algo/fused/norm_rows.hpp"
#include "arbench/core/cuda_check.hpp"
#include "kernels/fused/fused_kernels.hpp"
#include "kernels/mem_device.cuh"

namespace arbench {
namespace {

template <DType D>
__global__ void __launch_bounds__(algo::FusedLaunchPolicy::kThreads, algo::FusedLaunchPolicy::kMinBlocksPerSm)
    add_rmsnorm_kernel(const algo::NormArgs a) {
  __shared__ float lanes[algo::kNormLanes];
  const algo::BlockCtx c{static_cast<int>(blockIdx.x), static_cast<int>(gridDim.x), static_cast<int>(threadIdx.x),
                         static_cast<int>(blockDim.x)};
  algo::norm_rows_block<DeviceMem, D>(a, c, lanes);
}

}  // namespace

void launch_add_rmsnorm(const algo::NormArgs& a, DType t, int blocks, Stream stream) {
  const auto s = static_cast<cudaStream_t>(stream);
  constexpr int kThreads = algo::FusedLaunchPolicy::kThreads;
  switch (t) {
    case DType::bf16: add_rmsnorm_kernel<DType::bf16><<<blocks, kThreads, 0, s>>>(a); break;
    case DType::fp16: add_rmsnorm_kernel<DType::fp16><<<blocks, kThreads, 0, s>>>(a); break;
    case DType::fp32: add_rmsnorm_kernel<DType::fp32><<<blocks, kThreads, 0, s>>>(a); break;
  }
  ARB_CUDA_CHECK(cudaGetLastError());
}

}  // namespace arbench
