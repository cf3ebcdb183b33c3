// island-twoshot kernel.
// Purpose: all-reduce for mid/large messages on a box of islands: reduce-scatter within the
// island (each rank pulls its 1/k shard from its island peers' staging), the shard's island
// partial across the boundary (posted writes + a release flag, to one partner per rank when the
// islands are equal; P2P or pinned host memory), the islands' sums added, all-gather within the
// island. The cross-island link carries the message once per direction.
// Requirements: island scratch (IslandVariant: twoshot_island_bytes + the mailbox on the P2P
// path), 16-byte aligned in/out, blocks of all ranks co-resident (SymmLaunchPolicy), RankState
// per rank in its own device memory.
// Protocol: include/arbench/algo/island/island_twoshot.hpp (shared with the host twin).
#include "arbench/algo/island/island_twoshot.hpp"
#include "arbench/algo/launch_policy.hpp"
#include "kernels/block_kernel.cuh"
#include "kernels/island/island_kernels.hpp"

namespace arbench {

ARB_BLOCK_KERNEL(island_twoshot_kernel, launch_island_twoshot, algo::SymmLaunchPolicy, algo::IslandArgs,
                 algo::island_twoshot_block)

}  // namespace arbench
