// oneshot-pull kernel.
// Purpose: all-reduce for small messages with one barrier: every rank copies its input into its
// symmetric staging slot, meets its peers at a per-block barrier, then reads (pulls) every
// peer's staging over the fabric and reduces in rank order.
// Requirements: symmetric scratch (staging_scratch_bytes), 16-byte aligned in/out, blocks of all
// ranks co-resident (SymmLaunchPolicy), RankState per rank in its own device memory.
// Protocol: include/arbench/algo/symm/oneshot_pull.hpp (shared with the host twin).
#include "arbench/algo/launch_policy.hpp"
#include "arbench/algo/symm/oneshot_pull.hpp"
#include "kernels/block_kernel.cuh"
#include "kernels/symm/symm_kernels.hpp"

namespace arbench {

ARB_BLOCK_KERNEL(oneshot_pull_kernel, launch_oneshot_pull, algo::SymmLaunchPolicy, algo::SymmArgs,
                 algo::oneshot_pull_block)

}  // namespace arbench
