// The start gate's bookkeeping (kernels/fabric/cuda/gate_math.hpp): a sample whose gate gave up is
// recognised (and so discarded), the start skew is the spread of release times on one clock, and
// the clock offsets come from the fastest ping-pong round.
#include <gtest/gtest.h>

#include <algorithm>

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

TEST(GateMath, TheClockEstimateCarriesItsErrorBound) {
  const auto e = estimate_clock({{1000, 1000 + 300 + 7000, 1000 + 600}, {5000, 5000 + 900 + 7000, 5000 + 1800}});
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(e->offset_ns, 7000);
  EXPECT_EQ(e->error_ns, 300u) << "half the shortest round trip";
}

double spread(const std::vector<double>& v) {
  return *std::max_element(v.begin(), v.end()) - *std::min_element(v.begin(), v.end());
}

// The device barrier's residual bias: in one round the last rank to arrive leaves one posted write
// before the others (its tokens are still on their way to them); the gate's kGateRounds rounds
// release every rank together. Before, the gate ran one round: the last rank started ~1 us early.
TEST(GateMath, TwoRoundsReleaseEveryRankTogether) {
  // The ranks see the host word up to a few microseconds apart (each polls host memory over
  // PCIe); rank 2 arrives last, when every other token has long arrived.
  const std::vector<double> arrive = {0, 2000, 5000, 3000};
  const double d = 1000;  // one P2P write, ns
  const std::vector<std::vector<double>> same(4, std::vector<double>(4, d));
  const auto one = modelled_release_ns(arrive, same, 1);
  EXPECT_DOUBLE_EQ(one[2], 5000) << "one round: the last rank leaves at once";
  EXPECT_DOUBLE_EQ(spread(one), d) << "one round: a write latency of bias";
  const auto gate = modelled_release_ns(arrive, same, kGateRounds);
  EXPECT_LT(spread(gate), 0.05 * d) << "the gate's rounds must release the ranks together";
  // Unequal pairs (a far pair at 1.5 us): what remains is the difference between latencies.
  std::vector<std::vector<double>> mixed = same;
  mixed[0][3] = mixed[3][0] = 1500;
  EXPECT_LE(spread(modelled_release_ns(arrive, mixed, kGateRounds)), 500 + 1e-9);
}

// With one process per GPU each process knows its own ranks' releases; on rank 0's clock, the
// maximum over the processes of (latest, minus earliest) gives the skew across all of them.
TEST(GateMath, SkewAcrossProcessesFromEachProcesssExtremes) {
  const std::uint64_t base = 1'700'000'000'000'000'000ull;  // a %globaltimer reading: doubles lose ns here
  std::vector<GateRecord> p0(1), p1(1);
  p0[0] = {0, 4, base + 10'000};
  p1[0] = {0, 4, base + 10'250 + 3'000};  // clock of process 1 runs 3000 ns ahead: released 250 ns later
  const auto e0 = release_extremes(p0, 4, Offsets{0}, base);
  const auto e1 = release_extremes(p1, 4, Offsets{3000}, base);
  ASSERT_TRUE(e0 && e1);
  const double skew_ns = std::max(e0->latest, e1->latest) + std::max(e0->minus_earliest, e1->minus_earliest);
  EXPECT_DOUBLE_EQ(skew_ns, 250.0);
  EXPECT_FALSE(release_extremes(p1, 4, Offsets{std::nullopt}, base).has_value()) << "an unknown offset";
}

}  // namespace
}  // namespace arbench
