// fused-island-oneshot kernel.
// Purpose: all-reduce + residual add + RMSNorm in one kernel for decode shapes on a box of
// islands: island-oneshot's three LL steps (island peers, one partner across, the islands'
// sums), then residual add + RMSNorm of each row (block per row).
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

ARB_NORM_KERNEL(fused_island_kernel, launch_fused_island, algo::FusedLaunchPolicy, algo::FusedIslandArgs,
                algo::fused_island_block)

}  // namespace arbench
