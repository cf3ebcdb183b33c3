// add_rmsnorm kernel: the norm-only second half of unfused-nccl and unfused-oneshot.
// Purpose: residual add + RMSNorm of the all-reduce output `sum`, block per token row; writes
// residual_out (r) and norm_out (y) with the math of include/arbench/algo/rmsnorm.hpp, so its
// outputs are bitwise those of the fused kernels and of the host twins.
// Requirements: kThreads == kNormLanes threads per block (the lane tree); any grid (blocks loop
// over split_range rows; no waits, so no residency requirement); buffers 2-byte (4 for fp32)
// aligned, 16-byte aligned when H is a multiple of a pack.
// Protocol: none (no peer access).
#include "arbench/algo/fused/norm_rows.hpp"
#include "kernels/block_kernel.cuh"
#include "kernels/fused/fused_kernels.hpp"

namespace arbench {

ARB_NORM_KERNEL(add_rmsnorm_kernel, launch_add_rmsnorm, algo::FusedLaunchPolicy, algo::NormArgs,
                algo::norm_rows_block)

}  // namespace arbench
