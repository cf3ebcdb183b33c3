// island-oneshot kernel.
// Purpose: all-reduce for decode-sized messages on a box of islands (GPUs under one switch or
// root complex): one-shot LL within the island, then the island's whole partial sum across the
// boundary to one partner per rank (P2P, or pinned host memory), then the islands' sums added.
// No barrier: every step is LL lines (data and epoch in one 8-byte word), polled locally.
// Requirements: island scratch (IslandVariant: oneshot_island_bytes + the mailbox on the P2P
// path), 16-byte aligned in/out, blocks of all ranks co-resident (SymmLaunchPolicy), RankState
// per rank in its own device memory.
// Protocol: include/arbench/algo/island/island_oneshot.hpp (shared with the host twin).
#include "arbench/algo/island/island_oneshot.hpp"
#include "arbench/algo/launch_policy.hpp"
#include "kernels/block_kernel.cuh"
#include "kernels/island/island_kernels.hpp"

namespace arbench {

ARB_BLOCK_KERNEL(island_oneshot_kernel, launch_island_oneshot, algo::SymmLaunchPolicy, algo::IslandArgs,
                 algo::island_oneshot_block)

}  // namespace arbench
