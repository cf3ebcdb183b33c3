// Traffic patterns (arbench/traffic.hpp): the phase builders, and the check that a schedule is an
// all-reduce's, against plants it must reject (a one-shot that forgets a peer, a ring that is two
// cycles, too few ring steps, island flows that stay inside).
#include <gtest/gtest.h>

#include "arbench/traffic.hpp"
#include "arbench/traffic_schedules.hpp"
#include "kernels/fp8/fp8_variant.hpp"
#include "kernels/fused/fused_variant.hpp"
#include "kernels/island/island_variant.hpp"
#include "kernels/nccl/nccl_allreduce.hpp"
#include "kernels/ring/ring_variant.hpp"
#include "kernels/symm/symm_variant.hpp"

using namespace arbench;

namespace {

TrafficQuery query(int world, std::size_t bytes, std::vector<int> islands = {}) {
  Case c;
  c.variant = "x";
  c.world = world;
  c.bytes = bytes;
  return TrafficQuery{c, "", std::move(islands), {}, {}};
}

double bytes_into(const TrafficPhase& p, int rank) {
  double b = 0;
  for (const auto& f : p.flows) b += f.to == rank ? f.bytes * p.steps : 0;
  return b;
}

}  // namespace

TEST(Traffic, OneShotPullEveryRankLoadsTheMessageFromEveryPeer) {
  const Traffic t = oneshot_pull_traffic(query(8, 65536));
  ASSERT_EQ(t.schedules.size(), 1u);
  const TrafficSchedule& s = t.schedules[0];
  ASSERT_EQ(s.phases.size(), 1u);
  EXPECT_EQ(s.phases[0].shape, TrafficShape::all_pairs);
  EXPECT_EQ(s.phases[0].direction, TrafficDirection::pull);
  EXPECT_EQ(s.phases[0].flows.size(), 56u);  // 8 x 7
  for (int r = 0; r < 8; ++r) EXPECT_DOUBLE_EQ(bytes_into(s.phases[0], r), 7 * 65536.0);
  EXPECT_EQ(s.round_trips, 2);  // the barrier, then one wave
  EXPECT_EQ(traffic_problem(s, query(8, 65536)), "");
}

TEST(Traffic, PushSendsLlLinesTwoShotMovesShardsRingSteps) {
  const auto q = query(4, 4096);
  const TrafficSchedule push = oneshot_push_traffic(q).schedules.at(0);
  EXPECT_EQ(push.phases[0].direction, TrafficDirection::push);
  EXPECT_DOUBLE_EQ(push.phases[0].flows[0].bytes, 8192);  // LL: 8 data bytes per 16
  EXPECT_DOUBLE_EQ(push.wire_ratio, 2);
  const TrafficSchedule two = twoshot_traffic(q).schedules.at(0);
  ASSERT_EQ(two.phases.size(), 2u);
  EXPECT_DOUBLE_EQ(two.phases[0].flows[0].bytes, 1024);  // a quarter
  EXPECT_DOUBLE_EQ(bytes_into(two.phases[0], 0) + bytes_into(two.phases[1], 0), 2 * 3 * 1024);  // 2(N-1)/N M
  const TrafficSchedule ring = ring_traffic(q).schedules.at(0);
  EXPECT_EQ(ring.phases[0].steps, 6);  // 2(N-1)
  EXPECT_EQ(ring.phases[0].flows.size(), 4u);
  EXPECT_DOUBLE_EQ(bytes_into(ring.phases[0], 2), 6 * 1024.0);
  for (const auto* s : {&push, &two, &ring}) EXPECT_EQ(traffic_problem(*s, q), "") << s->name;
}

TEST(Traffic, Fp8SendsItsCodesAndScalesNotTheMessage) {
  const auto q = query(8, 65536);  // 32768 bf16 elements
  const TrafficSchedule s = oneshot_fp8_traffic(q).schedules.at(0);
  const double wire = double(algo::fp8_slot_packs(32768) * 16);
  EXPECT_DOUBLE_EQ(s.phases[0].flows[0].bytes, wire);
  EXPECT_LT(wire, 65536 * 0.6);
  EXPECT_DOUBLE_EQ(s.wire_ratio, wire / 65536);
  EXPECT_EQ(traffic_problem(s, q), "");
}

TEST(Traffic, IslandOneShotCrossesToPartnersOnly) {
  const auto q = query(8, 1024, {0, 0, 0, 0, 1, 1, 1, 1});
  const TrafficSchedule s = island_oneshot_traffic(q).schedules.at(0);
  ASSERT_EQ(s.phases.size(), 2u);
  EXPECT_EQ(s.phases[0].flows.size(), 24u);  // 2 islands x 4 x 3
  EXPECT_EQ(s.phases[1].flows.size(), 8u);   // rank i <-> rank i + 4
  EXPECT_EQ(traffic_problem(s, q), "");
  const TrafficSchedule two = island_twoshot_traffic(query(8, 1024, {0, 0, 0, 1, 1, 1, 1, 1})).schedules.at(0);
  EXPECT_EQ(traffic_problem(two, query(8, 1024, {0, 0, 0, 1, 1, 1, 1, 1})), "");
}

TEST(Traffic, NcclForcedConfigurationIsOneScheduleItsChoiceIsEvery) {
  auto q = query(8, 1 << 20);
  q.config = "ring/ll";
  const Traffic forced = nccl_traffic(q);
  ASSERT_EQ(forced.schedules.size(), 1u);
  EXPECT_NE(forced.schedules[0].name.find("ring"), std::string::npos);
  EXPECT_DOUBLE_EQ(forced.schedules[0].wire_ratio, 2);
  q.config = "";
  q.settings = {{"NCCL_ALGO", "(NCCL's choice)"}, {"NCCL_PROTO", "Simple"}};
  EXPECT_EQ(nccl_traffic(q).schedules.size(), 2u);  // ring and tree, Simple
  q.settings = {{"NCCL_ALGO", "^ring"}};
  const Traffic tree = nccl_traffic(q);
  ASSERT_EQ(tree.schedules.size(), 3u);  // the tree, each protocol
  EXPECT_EQ(tree.schedules[0].phases[0].shape, TrafficShape::chain);
  for (const auto& s : nccl_traffic(query(8, 1 << 20)).schedules) EXPECT_EQ(traffic_problem(s, query(8, 1 << 20)), "");
  auto symm = query(4, 4096);
  EXPECT_EQ(nccl_symm_traffic(symm).schedules.size(), 2u);  // AGxLL_R and RSxLD_AGxST
  symm.settings = {{"nccl_symm_kernels", "off: NCCL 2.29.2 runs its symmetric kernels only when ..."}};
  EXPECT_EQ(nccl_symm_traffic(symm).schedules.size(), 6u);  // as nccl: ring and tree, every protocol
}

TEST(Traffic, OneRankHasNone) {
  const Traffic t = oneshot_pull_traffic(query(1, 1024));
  EXPECT_TRUE(t.schedules.empty());
  EXPECT_NE(t.why_none.find("one rank"), std::string::npos);
}

// Plants: schedules the check must reject, each for the reason it names.
TEST(Traffic, APatternWithTheWrongPeerCountFails) {
  const auto q = query(8, 1024);
  TrafficSchedule s = oneshot_schedule("planted", TrafficDirection::pull, 8, 1024, 2, 1);
  std::erase_if(s.phases[0].flows, [](const TrafficFlow& f) { return f.from == 5 && f.to == 2; });
  const std::string why = traffic_problem(s, q);
  EXPECT_NE(why.find("missing 5->2"), std::string::npos) << why;
  // The same forgotten peer, every rank: each reads N-2 peers.
  TrafficSchedule short_of_one = oneshot_schedule("planted", TrafficDirection::pull, 8, 1024, 2, 1);
  std::erase_if(short_of_one.phases[0].flows, [](const TrafficFlow& f) { return f.from == (f.to + 1) % 8; });
  EXPECT_NE(traffic_problem(short_of_one, q), "");
  // Unlabelled, the reachability rule alone still sees rank 2 never hears from rank 5.
  s.phases[0].shape = TrafficShape::island_across;
  auto islands = query(8, 1024, {0, 1, 2, 3, 4, 5, 6, 7});
  EXPECT_NE(traffic_problem(s, islands).find("rank 2 hears from no rank of island 5"), std::string::npos)
      << traffic_problem(s, islands);
}

TEST(Traffic, ARingThatIsNotOneCycleOrTooShortFails) {
  const auto q = query(4, 4096);
  TrafficSchedule two_cycles = ring_schedule("planted", {0, 1, 2, 3}, 1024, 6, 1);
  two_cycles.phases[0].flows = {{0, 1, 1024}, {1, 0, 1024}, {2, 3, 1024}, {3, 2, 1024}};
  EXPECT_NE(traffic_problem(two_cycles, q).find("cycle of 2"), std::string::npos) << traffic_problem(two_cycles, q);
  TrafficSchedule half = ring_schedule("planted", {0, 1, 2, 3}, 1024, 3, 1);
  half.phases[0].steps = 3;  // the reduce-scatter alone: N-1 steps
  EXPECT_NE(traffic_problem(half, q).find("less than the message"), std::string::npos) << traffic_problem(half, q);
}

TEST(Traffic, FlowsOutsideTheWorldOrToItselfFail) {
  const auto q = query(4, 4096);
  TrafficSchedule s = oneshot_schedule("planted", TrafficDirection::push, 4, 4096, 1, 1);
  s.phases[0].flows[0].to = 4;
  EXPECT_NE(traffic_problem(s, q).find("outside ranks 0..3"), std::string::npos);
  s.phases[0].flows[0].to = s.phases[0].flows[0].from;
  EXPECT_NE(traffic_problem(s, q).find("to itself"), std::string::npos);
  TrafficSchedule inside = island_oneshot_traffic(query(4, 4096, {0, 0, 1, 1})).schedules.at(0);
  inside.phases[1].flows.push_back({0, 1, 8192});  // an "across" flow that stays home
  EXPECT_NE(traffic_problem(inside, query(4, 4096, {0, 0, 1, 1})).find("stays inside island"), std::string::npos);
}
