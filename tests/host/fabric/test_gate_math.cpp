// The start gate's bookkeeping (kernels/fabric/cuda/gate_math.hpp): a sample whose gate gave up is
// recognised (and so discarded), the start skew is the spread of release times on one clock, and
// the clock offsets come from the fastest ping-pong round.
#include <gtest/gtest.h>

#include "kernels/fabric/cuda/gate_math.hpp"

namespace arbench {
namespace {

using Offsets = std::vector<std::optional<std::int64_t>>;

TEST(GateMath, ATimedOutGateMarksOnlyItsOwnSample) {
  std::vector<GateRecord> recs(4);
  for (auto& r : recs) r.token = 7;
  EXPECT_FALSE(gate_timed_out(recs, 7));
  recs[2].timed_out = 7;
  EXPECT_TRUE(gate_timed_out(recs, 7));
  EXPECT_FALSE(gate_timed_out(recs, 8)) << "an old timeout must not discard a later sample";
}

TEST(GateMath, SkewIsTheSpreadOfReleasesOnRankZerosClock) {
  std::vector<GateRecord> recs(3);
  for (auto& r : recs) r.token = 5;
  recs[0].release_ns = 1'000'000;
  recs[1].release_ns = 1'000'400;  // clock 1 runs 300 ns ahead of clock 0: released 100 ns after rank 0
  recs[2].release_ns = 999'950;    // clock 2 runs 100 ns behind: released 50 ns after rank 0
  const auto skew = start_skew_s(recs, 5, Offsets{0, 300, -100});
  ASSERT_TRUE(skew.has_value());
  EXPECT_NEAR(*skew, 100e-9, 1e-15);
}

TEST(GateMath, SkewIsUnknownWithoutEveryStampOrOffset) {
  std::vector<GateRecord> recs(2);
  recs[0].token = recs[1].token = 9;
  EXPECT_FALSE(start_skew_s(recs, 9, Offsets{0, std::nullopt}).has_value());
  recs[1].token = 8;  // rank 1's record is from an earlier sample
  EXPECT_FALSE(start_skew_s(recs, 9, Offsets{0, 0}).has_value());
}

TEST(GateMath, ClockOffsetFromTheShortestRoundTrip) {
  // Peer clock = rank 0's clock + 5000 ns. Round 1 is slow and asymmetric (misleading), round 2
  // is fast and symmetric: the estimate must come from round 2.
  std::vector<PingRound> rounds = {
      {1000, 1000 + 3000 + 5000, 1000 + 4000},  // 3 us out, 1 us back: would say +6000
      {20000, 20000 + 500 + 5000, 20000 + 1000},
      {0, 0, 0},  // did not complete
  };
  const auto off = estimate_clock_offset(rounds);
  ASSERT_TRUE(off.has_value());
  EXPECT_EQ(*off, 5000);
  EXPECT_FALSE(estimate_clock_offset({{0, 0, 0}}).has_value());
}

}  // namespace
}  // namespace arbench
