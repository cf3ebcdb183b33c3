// twoshot kernel.
// Purpose: all-reduce for mid/large messages: reduce-scatter (each rank pulls and reduces the
// 1/N of the packs it owns from every peer's staging), a second per-block barrier, then
// all-gather (each rank pulls the other owners' sums).
// Requirements: symmetric scratch (staging_scratch_bytes), 16-byte aligned in/out, blocks of all
// ranks co-resident (SymmLaunchPolicy), RankState per rank in its own device memory.
// Protocol: include/arbench/algo/symm/twoshot.hpp (shared with the host twin).
#include "arbench/algo/launch_policy.hpp"
#include "arbench/algo/symm/twoshot.hpp"
#include "kernels/block_kernel.cuh"
#include "kernels/symm/symm_kernels.hpp"

namespace arbench {

ARB_BLOCK_KERNEL(twoshot_kernel, launch_twoshot, algo::SymmLaunchPolicy, algo::SymmArgs, algo::twoshot_block)

}  // namespace arbench
