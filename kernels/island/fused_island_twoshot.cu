// fused-island-twoshot kernel.
// Purpose: all-reduce + residual add + RMSNorm in one kernel for decode shapes of a few tokens
// and up on a box of islands: island-twoshot's steps on each block's rows (reduce-scatter in the
// island, 1/k shards across, the islands' sums), the island peers' sums gathered into own
// staging, then residual add + RMSNorm of each row (block per row).
// Requirements: island scratch for tokens * row_packs packs (IslandVariant), kThreads ==
// kNormLanes, blocks of all ranks co-resident (FusedLaunchPolicy), RankState per rank in its own
// device memory.
// Protocol: include/arbench/algo/island/fused_island.hpp (shared with the host twin); math:
// include/arbench/algo/rmsnorm.hpp.
#include "arbench/algo/fused/fused_layout.hpp"
#include "arbench/algo/island/fused_island.hpp"
#include "kernels/block_kernel.cuh"
#include "kernels/island/island_kernels.hpp"

namespace arbench {

ARB_NORM_KERNEL(fused_island_twoshot_kernel, launch_fused_island_twoshot, algo::FusedLaunchPolicy,
                algo::FusedIslandArgs, algo::fused_island_twoshot_block)

}  // namespace arbench
