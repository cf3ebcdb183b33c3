// oneshot-push kernel.
// Purpose: all-reduce for small messages with no barrier and no separate flag: every rank
// writes (pushes) its input into every peer's LL scratch as 16-byte lines that carry the epoch
// next to the data, then polls its own scratch until all peers' lines of this epoch are there
// and reduces in rank order.
// Requirements: symmetric scratch (ll_scratch_bytes: 4 x world x message bytes), 16-byte
// aligned in/out, blocks of all ranks co-resident (SymmLaunchPolicy), RankState per rank in its
// own device memory.
// Protocol: include/arbench/algo/symm/oneshot_push.hpp (shared with the host twin).
#include "arbench/algo/launch_policy.hpp"
#include "arbench/algo/symm/oneshot_push.hpp"
#include "kernels/block_kernel.cuh"
#include "kernels/symm/symm_kernels.hpp"

namespace arbench {

ARB_BLOCK_KERNEL(oneshot_push_kernel, launch_oneshot_push, algo::SymmLaunchPolicy, algo::SymmArgs,
                 algo::oneshot_push_block)

}  // namespace arbench
