// Host twins of oneshot-pull, oneshot-push and twoshot against the oracle: 1..8 ranks, every
// dtype, sizes from one pack to 8 MB (also not multiples of world x pack), back-to-back ops,
// epochs started near the 2^32 wrap-around, in-place, forced block counts.
// Under ThreadSanitizer (ctest label tsan) the same cases run with smaller sizes.
#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include "tests/host/kernels/twin_harness.hpp"

namespace arbench::testing {
namespace {

constexpr SymmAlgo kAlgos[] = {SymmAlgo::oneshot_pull, SymmAlgo::oneshot_push, SymmAlgo::twoshot};

// Element counts for a world: one pack, a partial pack, around world x pack, odd mid sizes.
std::vector<std::size_t> sizes_for(DType t, int world) {
  const std::size_t per = 16 / dtype_size(t);
  const std::size_t wp = per * static_cast<std::size_t>(world);
  std::vector<std::size_t> s = {per, 1, per - 1, wp - 1, wp + 1, 3 * wp + per / 2, 1000};
  s.push_back(kTsan ? 4099 : 65537);  // several blocks (8 KB per block)
  return s;
}

TEST(TwinSymm, AllWorldsDtypesAndSizes) {
  for (int world = 1; world <= 8; ++world) {
    HostFabric fabric(world);
    for (SymmAlgo a : kAlgos)
      for (DType t : kAllDTypes)
        for (std::size_t n : sizes_for(t, world)) {
          TwinRun r{a, t, world, n, 1};
          ASSERT_EQ(run_twin_case(fabric, r), 0u) << describe(r);
        }
  }
}

TEST(TwinSymm, EightMegabytes) {
  // 8 MB plus a partial pack, so the tail path runs at full size too: every dtype with 2 ranks,
  // bf16 with 8. oneshot-push needs 4 x world x bytes of LL scratch per rank (2 GB in all for 8
  // ranks at 8 MB, mostly page faults on the host), so with 8 ranks it runs at 1 MB.
  const std::size_t big = kTsan ? (256u << 10) : (8u << 20);
  const std::size_t push8 = kTsan ? (64u << 10) : (1u << 20);
  for (int world : {2, 8}) {
    HostFabric fabric(world);
    for (SymmAlgo a : kAlgos)
      for (DType t : kAllDTypes) {
        if (world == 8 && t != DType::bf16) continue;
        const std::size_t bytes = (a == SymmAlgo::oneshot_push && world == 8) ? push8 : big;
        TwinRun r{a, t, world, bytes / dtype_size(t) + 3, 1};
        ASSERT_EQ(run_twin_case(fabric, r), 0u) << describe(r);
      }
  }
}

TEST(TwinSymm, BackToBackOpsRotateEpochsAndSlots) {
  HostFabric fabric(4);
  for (SymmAlgo a : kAlgos)
    for (int blocks : {1, 3}) {
      TwinRun r{a, DType::bf16, 4, 4 * 8 * 37 + 5, kTsan ? 6 : 25};
      r.blocks = blocks;
      ASSERT_EQ(run_twin_case(fabric, r), 0u) << describe(r);
    }
}

TEST(TwinSymm, EpochsAcrossTheWrapAround) {
  HostFabric fabric(3);
  for (SymmAlgo a : kAlgos)
    for (std::uint32_t start : {0xfffffffbu, 0xffffffffu, 0u}) {
      TwinRun r{a, DType::fp16, 3, 3 * 8 * 5 + 1, 8};
      r.blocks = 2;
      r.opt.start_epoch = start;
      ASSERT_EQ(run_twin_case(fabric, r), 0u) << describe(r);
    }
}

TEST(TwinSymm, InPlace) {
  HostFabric fabric(5);
  for (SymmAlgo a : kAlgos)
    for (DType t : kAllDTypes) {
      TwinRun r{a, t, 5, 5 * 8 * 300 + 7, 3};
      r.in_place = true;
      r.blocks = 3;
      ASSERT_EQ(run_twin_case(fabric, r), 0u) << describe(r);
    }
}

TEST(TwinSymm, ManyBlocksFewPacks) {
  // More blocks than packs: empty ranges must still take part in their block's barriers.
  HostFabric fabric(8);
  for (SymmAlgo a : kAlgos) {
    TwinRun r{a, DType::fp32, 8, 9, 3};
    r.blocks = algo::SymmLaunchPolicy::kHostSms;
    ASSERT_EQ(run_twin_case(fabric, r), 0u) << describe(r);
  }
}

}  // namespace
}  // namespace arbench::testing
