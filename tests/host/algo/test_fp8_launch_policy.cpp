// The FP8 kernels' grid (Fp8LaunchPolicy, include/arbench/algo/launch_policy.hpp): never fewer
// blocks than oneshot-pull's grid for the same message, at least a block per 256 units, and
// within the same residency cap and --blocks override.
#include <gtest/gtest.h>

#include <cstddef>

#include "arbench/algo/fp8/fp8_payload.hpp"
#include "arbench/algo/launch_policy.hpp"
#include "arbench/algo/pack.hpp"

namespace arbench::algo {
namespace {

using F = Fp8LaunchPolicy;
using S = SymmLaunchPolicy;

// 64 KiB of bf16 (32768 elements: 1024 units, 4096 packs): oneshot-pull launches 8 blocks of 512
// threads; FP8 at a block per 256 units would launch 4.
static_assert(S::blocks(4096, 188, 1, 0) == 8);
static_assert(F::blocks(1024, 4096, 188, 1, 0) == 8);
// fp32 (16384 elements: 512 units, 4096 packs) likewise; 8 ranks on one GPU share its SMs.
static_assert(F::blocks(512, 4096, 188, 1, 0) == 8);
static_assert(F::blocks(1024, 4096, 16, 8, 0) == 2);
// Large messages: the cap; --blocks overrides within it.
static_assert(F::blocks(1u << 20, 1u << 22, 188, 1, 0) == kMaxBlocks);
static_assert(F::blocks(1, 1, 188, 1, 7) == 7);
static_assert(F::blocks(1, 1, 132, 8, 40) == 16);

TEST(Fp8LaunchPolicy, NeverFewerBlocksThanOneshotPullAtTheSameSize) {
  int checked = 0;
  for (DType t : {DType::bf16, DType::fp16, DType::fp32})
    for (int e = 4; e <= 26; ++e)
      for (std::size_t extra : {0, 16, 48}) {
      const std::size_t bytes = (std::size_t{1} << e) + extra;
      const std::size_t n = bytes / dtype_size(t), units = fp8_units(n), packs = pack_count(n, t);
      for (int sms : {4, 16, 132, 188})
        for (int rpd : {1, 2, 8}) {
          const int f = F::blocks(units, packs, sms, rpd, 0), pull = S::blocks(packs, sms, rpd, 0);
          const int cap = S::max_blocks(sms, rpd);
          EXPECT_GE(f, pull) << dtype_name(t) << " " << bytes << " B, " << sms << " SMs, " << rpd << " ranks/GPU";
          EXPECT_LE(f, cap);
          // Enough threads for every unit at once whenever the cap allows it.
          const std::size_t need = (units + F::kThreads - 1) / F::kThreads;
          EXPECT_GE(std::size_t(f), need < std::size_t(cap) ? need : std::size_t(cap));
          ++checked;
        }
      }
  EXPECT_GT(checked, 2000);
}

}  // namespace
}  // namespace arbench::algo
