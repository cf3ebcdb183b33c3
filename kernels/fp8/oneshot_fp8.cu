// oneshot-fp8 kernel.
// Purpose: small-message all-reduce with half the bytes on the wire: every rank quantizes its
// input to FP8 e4m3 (a power-of-two scale per 32 elements) into its symmetric staging slot, meets
// its peers at a per-block barrier, pulls every peer's quantized units, dequantizes and sums them
// in rank order in fp32, and writes the input dtype. One quantization per value.
// Requirements: symmetric scratch (staging_scratch_bytes(fp8_slot_packs(n))), 16-byte aligned
// in/out, blocks of all ranks co-resident (Fp8LaunchPolicy), RankState per rank in its own
// device memory.
// Protocol: oneshot-pull's (include/arbench/algo/symm/oneshot_pull.hpp) with the FP8 payload
// (include/arbench/algo/fp8/fp8_payload.hpp), shared with the host twin.
#include "arbench/algo/fp8/fp8_protocols.hpp"
#include "arbench/algo/launch_policy.hpp"
#include "kernels/block_kernel.cuh"
#include "kernels/fp8/fp8_kernels.hpp"

namespace arbench {

ARB_BLOCK_KERNEL(oneshot_fp8_kernel, launch_oneshot_fp8, algo::Fp8LaunchPolicy, algo::SymmArgs,
                 algo::oneshot_fp8_block)

}  // namespace arbench
