// twoshot-fp8 kernel.
// Purpose: mid/large all-reduce with about half the bytes on the wire. Quantization 1: every
// rank quantizes its input to FP8 e4m3 (a power-of-two scale per 32 elements) for the
// reduce-scatter; each owner dequantizes and sums its 1/N in rank order in fp32. Quantization 2:
// the owner quantizes that sum again for the all-gather and writes its dequantized form to its
// own output, as every peer does, so all ranks agree bitwise.
// Requirements: symmetric scratch (staging_scratch_bytes(fp8_slot_packs(n))), 16-byte aligned
// in/out, blocks of all ranks co-resident (Fp8LaunchPolicy), RankState per rank in its own
// device memory.
// Protocol: twoshot's (include/arbench/algo/symm/twoshot.hpp) with the FP8 payload
// (include/arbench/algo/fp8/fp8_payload.hpp), shared with the host twin.
#include "arbench/algo/fp8/fp8_protocols.hpp"
#include "arbench/algo/launch_policy.hpp"
#include "kernels/block_kernel.cuh"
#include "kernels/fp8/fp8_kernels.hpp"

namespace arbench {

ARB_BLOCK_KERNEL(twoshot_fp8_kernel, launch_twoshot_fp8, algo::Fp8LaunchPolicy, algo::SymmArgs,
                 algo::twoshot_fp8_block)

}  // namespace arbench
