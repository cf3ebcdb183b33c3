// fused-oneshot kernel.
// Purpose: all-reduce + residual add + RMSNorm in one kernel for decode-sized messages: every
// rank stages its x rows in symmetric scratch, meets its peers at a per-block barrier, pulls
// every peer's rows, reduces in rank order, adds the residual and normalises (block per row).
// Requirements: symmetric scratch (fused_scratch_bytes(P, false)), kThreads == kNormLanes, blocks
// of all ranks co-resident (FusedLaunchPolicy), RankState per rank in its own device memory.
// Protocol: include/arbench/algo/fused/fused_oneshot.hpp (shared with the host twin); math:
// include/arbench/algo/rmsnorm.hpp.
#include "arbench/algo/fused/fused_oneshot.hpp"
#include "kernels/block_kernel.cuh"
#include "kernels/fused/fused_kernels.hpp"

namespace arbench {

ARB_NORM_KERNEL(fused_oneshot_kernel, launch_fused_oneshot, algo::FusedLaunchPolicy, algo::FusedArgs,
                algo::fused_oneshot_block)

}  // namespace arbench
