// The floor of a case (bench/sol/floor.hpp) from fixed rates and latencies (sol_fixture.hpp), each
// expectation computed by hand:  floor = hop x round trips + sum over phases of
// max over flows (bytes x steps / rate under the phase's pattern).
#include <gtest/gtest.h>

#include "arbench/traffic_schedules.hpp"
#include "kernels/nccl/nccl_allreduce.hpp"
#include "kernels/ring/ring_variant.hpp"
#include "kernels/symm/symm_variant.hpp"
#include "sol/floor.hpp"
#include "sol_fixture.hpp"

using namespace arbench;
using namespace arbench::sol;

namespace {

TrafficQuery query(const std::string& variant, int world, std::size_t bytes) {
  Case c;
  c.variant = variant;
  c.world = world;
  c.bytes = bytes;
  return TrafficQuery{c, variant_config(variant), {}, {}, {}};
}

SolFloor floor_of(const Traffic& t, const TrafficQuery& q, const PatternRates& r,
                  const std::optional<RoundTrips>& kernel = std::nullopt) {
  const FloorInputs in{&r, {}, "fixture"};
  std::string why;
  const auto f = traffic_floor(t, q, in, kernel, &why);
  if (!f) throw std::runtime_error("no floor: " + why);
  return *f;
}

}  // namespace

TEST(SolFloor, OneShotPullAtEightRanksUsesTheLoadedRateAndTheSlowestHop) {
  const PatternRates r = sol_fixture::rates();
  const auto q = query("oneshot-pull", 8, 1 << 20);
  const SolFloor f = floor_of(oneshot_pull_traffic(q), q, r);
  // 1 MiB per flow at 10 GB/s (SM at 1M beats copy engines' 8 and SM's 6 at 64K): 104.8576 us;
  // hops: the slowest of the pattern's idle hops, 3.0 us (not its loaded 6.0), x 2 waits (barrier,
  // one wave).
  EXPECT_NEAR(f.transfer_us, 104.8576, 1e-9);
  EXPECT_DOUBLE_EQ(f.hop_us, 3.0);
  EXPECT_DOUBLE_EQ(f.round_trips, 2);
  EXPECT_NEAR(f.sol_us, 110.8576, 1e-9);
  ASSERT_EQ(f.phases.size(), 1u);
  EXPECT_EQ(f.phases[0].pattern, "w8 all-pairs pull");
  EXPECT_EQ(f.phases[0].mover, "SM");
  EXPECT_DOUBLE_EQ(f.phases[0].busiest_bytes, 1 << 20);
}

TEST(SolFloor, PushTakesTheFasterEngineWhenPostedWritesCollapse) {
  const PatternRates r = sol_fixture::rates();
  const auto q = query("oneshot-push", 8, 65536);
  const SolFloor f = floor_of(oneshot_push_traffic(q), q, r);
  // LL lines: 128 KiB per flow; SM stores collapsed to 7 GB/s, copy engines 20: 6.5536 us; hop 4.0 x 1.
  EXPECT_NEAR(f.transfer_us, 6.5536, 1e-9);
  EXPECT_EQ(f.phases[0].mover, "copy engine");
  EXPECT_NEAR(f.sol_us, 10.5536, 1e-9);
}

TEST(SolFloor, RingIsBoundByItsSlowestEdgeOverEveryStep) {
  const PatternRates r = sol_fixture::rates();
  const auto q = query("ring", 8, 8 << 20);
  const SolFloor f = floor_of(ring_traffic(q), q, r);
  // 14 steps of 1 MiB over the 7->0 edge at 20 GB/s: 734.0032 us, the last landing a hop (2.5)
  // later; the chain of 14 waits (2.5 each) over the other edges' 40 GB/s is shorter (402.0016 us).
  EXPECT_NEAR(f.transfer_us, 734.0032, 1e-9);
  EXPECT_DOUBLE_EQ(f.phases[0].busiest_bytes, 14.0 * (1 << 20));
  EXPECT_DOUBLE_EQ(f.phases[0].gbps, 20);
  EXPECT_NEAR(f.latency_us, 35, 1e-9);
  EXPECT_NEAR(f.sol_us, 736.5032, 1e-9);
}

TEST(SolFloor, TwoShotAddsItsPhases) {
  const PatternRates r = sol_fixture::rates();
  const auto q = query("twoshot", 8, 8 << 20);
  const SolFloor f = floor_of(twoshot_traffic(q), q, r);
  // Two all-pairs pull phases of a 1 MiB shard at 10 GB/s; hop 3.0 x 4 waits.
  EXPECT_NEAR(f.transfer_us, 2 * 104.8576, 1e-9);
  EXPECT_NEAR(f.sol_us, 2 * 104.8576 + 12, 1e-9);
}

TEST(SolFloor, NcclChoosingItsAlgorithmGetsTheLowestScheduleThatWasMeasured) {
  const PatternRates r = sol_fixture::rates();  // no chain pattern: the tree cannot be priced
  const auto q = query("nccl", 8, 1 << 20);
  const SolFloor f = floor_of(nccl_traffic(q), q, r);
  // Ring, Simple: 14 steps of 128 KiB over 7->0 at 20 GB/s = 91.7504 us, the last a hop (2.5)
  // later; the chain of 14 waits over the 40 GB/s edges is shorter (35 + 45.8752).
  EXPECT_NE(f.schedule.find("ring (simple)"), std::string::npos) << f.schedule;
  EXPECT_NEAR(f.sol_us, 91.7504 + 2.5, 1e-9);
  EXPECT_NE(f.notes.back().find("the lowest of 6 schedules"), std::string::npos);
}

TEST(SolFloor, TheLoadedHopOnlyWhereNoIdleOneWasMeasuredSayingSo) {
  PatternRates r = sol_fixture::rates();
  for (auto& p : r.patterns) std::fill(p.idle_latency_us.begin(), p.idle_latency_us.end(), std::nullopt);
  const auto q = query("oneshot-pull", 8, 1 << 20);
  const SolFloor f = floor_of(oneshot_pull_traffic(q), q, r);
  // A topo file from before idle hops: the loaded 6.0 us x 2 waits, and a note that says so.
  EXPECT_DOUBLE_EQ(f.hop_us, 6.0);
  EXPECT_NEAR(f.sol_us, 104.8576 + 12, 1e-9);
  ASSERT_FALSE(f.notes.empty());
  EXPECT_NE(f.notes.back().find("no idle hop"), std::string::npos) << f.notes.back();
  EXPECT_TRUE(floor_of(oneshot_pull_traffic(q), q, sol_fixture::rates()).notes.empty());
}

TEST(SolFloor, TheKernelsRoundTripsReplaceTheSchedules) {
  const PatternRates r = sol_fixture::rates();
  const auto q = query("oneshot-pull", 8, 1 << 20);
  const SolFloor f = floor_of(oneshot_pull_traffic(q), q, r, RoundTrips{5, "round-trip table: planted"});
  EXPECT_NEAR(f.sol_us, 104.8576 + 3.0 * 5, 1e-9);
  EXPECT_EQ(f.round_trips_source, "round-trip table: planted");
}

// Concurrency is in the rates: the same flows priced with two GPUs at a time would be 5x faster.
// The floor of eight ranks never takes the two-rank pattern's rates: without its own pattern it has
// none (the measurement mutant `sol_ignores_concurrency` plants exactly that lookup).
TEST(SolFloor, AFloorThatIgnoresConcurrencyWouldBeWrong) {
  PatternRates r = sol_fixture::rates();
  const auto q = query("oneshot-pull", 8, 1 << 20);
  const SolFloor loaded = floor_of(oneshot_pull_traffic(q), q, r);
  const auto q2 = query("oneshot-pull", 2, 1 << 20);
  const SolFloor pair = floor_of(oneshot_pull_traffic(q2), q2, r);
  EXPECT_NEAR(pair.sol_us, 1048576 / 50.0 / 1e3 + 2 * 1.0, 1e-9);
  EXPECT_GT(loaded.sol_us, 4 * pair.sol_us);
  std::erase_if(r.patterns, [](const MeasuredPattern& p) { return p.world == 8 && p.direction == TrafficDirection::pull; });
  std::string why;
  const FloorInputs in{&r, {}, "fixture"};
  EXPECT_FALSE(traffic_floor(oneshot_pull_traffic(q), q, in, std::nullopt, &why));
  EXPECT_NE(why.find("w8 all-pairs pull was not measured"), std::string::npos) << why;
}

TEST(SolFloor, APatternErrorIsReportedNeverPriced) {
  const PatternRates r = sol_fixture::rates();
  const auto q = query("oneshot-pull", 8, 1 << 20);
  Traffic t = oneshot_pull_traffic(q);
  std::erase_if(t.schedules[0].phases[0].flows, [](const TrafficFlow& f) { return f.to == 3 && f.from == 6; });
  const FloorInputs in{&r, {}, "fixture"};
  std::string why;
  EXPECT_FALSE(traffic_floor(t, q, in, std::nullopt, &why));
  EXPECT_NE(why.find("a pattern error"), std::string::npos) << why;
  EXPECT_NE(why.find("missing 6->3"), std::string::npos) << why;
}

TEST(SolFloor, RanksMapToTheProbedGpusByPosition) {
  const PatternRates r = sol_fixture::rates();
  const auto q = query("ring", 8, 8 << 20);
  // The run's rank 7 sits on the GPU the probe knew as position 0, and so on backwards: the ring
  // 0->1->...->7->0 of ranks is 7->6->...->0->7 of positions, flows the probe did not measure.
  const FloorInputs in{&r, {7, 6, 5, 4, 3, 2, 1, 0}, "fixture"};
  std::string why;
  const auto f = traffic_floor(ring_traffic(q), q, in, std::nullopt, &why);
  ASSERT_TRUE(f) << why;
  EXPECT_DOUBLE_EQ(f->phases[0].gbps, 40);  // the pattern's fastest flow, said in a note
  EXPECT_NE(f->notes.front().find("did not measure"), std::string::npos);
  const FloorInputs missing{&r, {0, 1, 2, -1, 4, 5, 6, 7}, "fixture"};
  EXPECT_FALSE(traffic_floor(ring_traffic(q), q, missing, std::nullopt, &why));
  EXPECT_NE(why.find("rank 3's GPU is not among the probed ones"), std::string::npos) << why;
}

TEST(SolFloor, ACaseFasterThanItsFloorIsFlaggedNotASuccess) {
  Registry reg;
  reg.add(sol_fixture::traffic_entry("oneshot-pull", &oneshot_pull_traffic));
  const PatternRates r = sol_fixture::rates();
  CaseResult c;
  c.c = query("oneshot-pull", 8, 1 << 20).c;
  c.latency_us.median = 100;  // below the floor of 110.8576 us
  annotate_floor(c, reg, {}, FloorInputs{&r, {}, "fixture"}, nullptr);
  ASSERT_TRUE(c.sol);
  EXPECT_TRUE(below_floor(c));
  EXPECT_NEAR(*pct_of_sol(c), 110.8576, 1e-9);
  EXPECT_NE(c.sol->notes.back().find("faster than its floor"), std::string::npos);
  c.latency_us.median = 221.7152;
  annotate_floor(c, reg, {}, FloorInputs{&r, {}, "fixture"}, nullptr);
  EXPECT_FALSE(below_floor(c));
  EXPECT_NEAR(*pct_of_sol(c), 50.0, 1e-9);
  c.c.variant = "unknown";
  annotate_floor(c, reg, {}, FloorInputs{&r, {}, "fixture"}, nullptr);
  EXPECT_FALSE(c.sol);
  EXPECT_EQ(c.sol_none, "the variant has no traffic pattern");
}
