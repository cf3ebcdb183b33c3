// fused-twoshot kernel.
// Purpose: all-reduce + residual add + RMSNorm in one kernel for larger token counts: each rank
// reduces and normalises only the token rows it owns (reduce-scatter by rows), publishes r and y
// in its scratch, and after a second per-block barrier copies the other owners' rows
// (all-gather). Works for tokens < ranks and tokens not a multiple of ranks.
// Requirements: symmetric scratch (fused_scratch_bytes(P, true)), kThreads == kNormLanes, blocks
// of all ranks co-resident (FusedLaunchPolicy), RankState per rank in its own device memory.
// Protocol: include/arbench/algo/fused/fused_twoshot.hpp (shared with the host twin); math:
// include/arbench/algo/rmsnorm.hpp.
#include "arbench/algo/fused/fused_twoshot.hpp"
#include "kernels/block_kernel.cuh"
#include "kernels/fused/fused_kernels.hpp"

namespace arbench {

ARB_NORM_KERNEL(fused_twoshot_kernel, launch_fused_twoshot, algo::FusedLaunchPolicy, algo::FusedArgs,
                algo::fused_twoshot_block)

}  // namespace arbench
