// Host twin of the native ring against the oracle: 1..8 ranks, 1..8 channels, chunk sizes from
// one pack up, tails (sizes not multiples of world x channels x pack), every dtype, many
// back-to-back ops, transfer counters across the 2^32 wrap-around, in-place, custom ring
// orders, and a missing rank (an error, not a hang). Under ThreadSanitizer (ctest label tsan)
// the same cases run with smaller sizes.
#include <gtest/gtest.h>

#include <chrono>
#include <map>
#include <string>
#include <vector>

#include "arbench/core/errors.hpp"
#include "tests/host/kernels/ring_twin_harness.hpp"
#include "tests/host/thrown.hpp"

namespace arbench::testing {
namespace {

TEST(TwinRing, WorldsChannelsChunksDtypesAndTails) {
  const std::vector<int> channel_counts = std::vector<int>{1, 3, 8};
  const std::vector<std::size_t> chunks = kTsan ? std::vector<std::size_t>{0, 16, 48}
                                                : std::vector<std::size_t>{0, 16, 48, 1024};
  for (int world = 1; world <= 8; ++world) {
    HostFabric fabric(world);
    for (DType t : kAllDTypes)
      for (int ch : channel_counts)
        for (std::size_t chunk : chunks)
          for (std::size_t n : pipelined_sizes_for(t, world)) {
            RingRun r{t, world, n, 2, ch, chunk};
            ASSERT_EQ(run_ring_case(fabric, r), 0u) << describe(r);
          }
  }
}

TEST(TwinRing, PolicyDefaultsAtLargerSizes) {
  // Default channels and chunks at 1 MB: several channels, one round each (several rounds per
  // channel are covered above with small forced chunks).
  const std::size_t big = kTsan ? (96u << 10) : (1u << 20);
  for (int world : {2, 3, 8}) {
    HostFabric fabric(world);
    for (DType t : kAllDTypes) {
      RingRun r{t, world, big / dtype_size(t) + 3, 2};
      ASSERT_EQ(run_ring_case(fabric, r), 0u) << describe(r);
    }
  }
}

TEST(TwinRing, ManyBackToBackOpsRotateSlotsAndCredits) {
  // One-pack chunks: every op runs many transfers, so slots and credits wrap many times and
  // ops overlap (a fast rank starts op e+1 while its neighbours finish op e).
  HostFabric fabric(5);
  for (int ch : {1, 3}) {
    RingRun r{DType::bf16, 5, 5 * 8 * 13 + 3, kTsan ? 8 : 60, ch, 16};
    ASSERT_EQ(run_ring_case(fabric, r), 0u) << describe(r);
  }
}

TEST(TwinRing, TransferCountersAcrossTheWrapAround) {
  HostFabric fabric(4);
  for (std::uint32_t start : {0xfffffff0u, 0xffffffffu, 0u}) {
    RingRun r{DType::fp16, 4, 4 * 8 * 7 + 1, 6, 2, 32};
    r.opt.start_seq = start;
    ASSERT_EQ(run_ring_case(fabric, r), 0u) << describe(r);
  }
}

TEST(TwinRing, InPlace) {
  HostFabric fabric(6);
  for (DType t : kAllDTypes) {
    RingRun r{t, 6, 6 * 8 * 40 + 7, 3, 3, 64};
    r.in_place = true;
    ASSERT_EQ(run_ring_case(fabric, r), 0u) << describe(r);
  }
}

TEST(TwinRing, CustomRingOrders) {
  const std::vector<std::vector<int>> orders = {{0, 1, 3, 2}, {3, 2, 1, 0}, {2, 0, 3, 1}};
  HostFabric fabric(4);
  for (const auto& o : orders) {
    RingRun r{DType::fp32, 4, 4 * 4 * 21 + 2, 3, 2, 48};
    r.order = o;
    ASSERT_EQ(run_ring_case(fabric, r), 0u) << describe(r);
  }
}

TEST(TwinRing, ForcedOrderChannelsAndChunkAreApplied) {
  // Channels and chunk: the geometry the protocol runs with, and the recorded settings, are the
  // forced values (the policy would pick 1 channel and one round here). Order: with rank 3
  // missing, the rank that waits for it is its successor in the forced ring 2,0,3,1 (rank 1),
  // not in rank order (rank 0).
  constexpr double kBound = 0.2;
  HostFabric fabric(4, kBound);
  auto v = make_ring_twin();
  const RingRun r{DType::bf16, 4, 4 * 8 * 40, 1, 3, 48, {2, 0, 3, 1}, true};
  const TwinCase tc = prepare_ring_run(fabric, *v, r);
  EXPECT_EQ(v->geometry().channels, 3);
  EXPECT_EQ(v->geometry().chunk_packs, 3u);
  const auto recorded = v->settings();
  std::map<std::string, std::string> settings(recorded.begin(), recorded.end());
  EXPECT_EQ(settings["ring_channels"], "3");
  EXPECT_EQ(settings["ring_chunk"], "48");
  EXPECT_EQ(settings["ring_order"], "2,0,3,1");
  EXPECT_EQ(settings["ring_order_source"], "--ring-order");
  fabric.run([&](int rank, Stream st) {
    if (rank != 3) v->launch(rank, st);
  });
  if (const auto e = test::thrown<CaseError>([&] { v->check_errors(); })) {
    EXPECT_NE(std::string(e->what()).find("ring: rank 1 channel"), std::string::npos) << e->what();
    EXPECT_NE(std::string(e->what()).find("from rank 3"), std::string::npos) << e->what();
  }
}

TEST(TwinRing, BadRingOrderIsACaseErrorThatNamesIt) {
  HostFabric fabric(4);
  for (const std::vector<int>& bad : {std::vector<int>{0, 1, 2}, {0, 1, 2, 2}, {0, 1, 2, 4}}) {
    RingRun r{DType::bf16, 4, 64, 1};
    r.order = bad;
    try {
      run_ring_case(fabric, r);
      ADD_FAILURE() << "no error for --ring-order " << describe(r);
    } catch (const CaseError& e) {
      EXPECT_NE(std::string(e.what()).find("--ring-order"), std::string::npos) << e.what();
    }
  }
}

TEST(TwinRing, MissingRankIsAnErrorNotAHang) {
  constexpr double kBound = 0.2;
  constexpr int kWorld = 4;
  constexpr int kMissing = 2;
  HostFabric fabric(kWorld, kBound);
  auto v = make_ring_twin();
  const RingRun r{DType::bf16, kWorld, (4096 * 3 + 16) / 2, 1, 2, 0, {}, true};
  const TwinCase tc = prepare_ring_run(fabric, *v, r);
  const auto t0 = std::chrono::steady_clock::now();
  fabric.run([&](int rank, Stream st) {
    if (rank != kMissing) v->launch(rank, st);
  });
  const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_GE(took, kBound) << "gave up before the bound";
  EXPECT_LT(took, kBound * 4 + kWakeUpSlackS);
  if (const auto e = test::thrown<CaseError>([&] { v->check_errors(); })) {
    const std::string msg = e->what();
    EXPECT_NE(msg.find("ring: rank"), std::string::npos) << msg;
    EXPECT_NE(msg.find("from rank 2"), std::string::npos) << msg;
    EXPECT_EQ(e->exit_code(), kExitFailure);
  }
}

}  // namespace
}  // namespace arbench::testing
