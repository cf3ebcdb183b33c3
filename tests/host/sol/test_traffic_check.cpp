// Every variant has a traffic pattern, and every pattern is an all-reduce's (bench/sol/
// traffic_check.hpp), on the host registry here (tests/app/test_sol_run.cpp: the built-in one,
// GPU variants included), and the check fails on the plants it exists for.
#include <gtest/gtest.h>

#include "arbench/traffic_schedules.hpp"
#include "kernels/ce/ce_entry.hpp"
#include "kernels/nccl/nccl_allreduce.hpp"
#include "kernels/peers/peer_text.hpp"
#include "kernels/peers/peer_traffic.hpp"
#include "gpu_only_variants.hpp"
#include "sol_fixture.hpp"
#include "sol/traffic_check.hpp"

using namespace arbench;
using namespace arbench::sol;

namespace {

Traffic forgets_a_peer(const TrafficQuery& q) {
  Traffic t;
  if (one_rank(q, &t)) return t;
  TrafficSchedule s = oneshot_schedule("one-shot that forgets rank 0", TrafficDirection::pull, q.c.world,
                                       double(q.c.bytes), 2, 1);
  std::erase_if(s.phases[0].flows, [](const TrafficFlow& f) { return f.from == 0 && f.to == 1; });
  t.schedules.push_back(s);
  return t;
}

Traffic declines_everything(const TrafficQuery& /*q*/) {
  Traffic t;
  t.why_none = "never runs";
  t.declined = true;
  return t;
}

Traffic forgets_to_decline(const TrafficQuery& q) {
  Traffic t = ce_island_traffic(q);
  t.declined = false;
  return t;
}

}  // namespace

TEST(SolTrafficCheck, EveryHostVariantHasAnAllReducePattern) {
  Registry r;
  register_host_variants(r);
  ASSERT_GE(r.entries().size(), 14u);
  const auto gaps = traffic_gaps(r);
  for (const auto& g : gaps) ADD_FAILURE() << g;
}

TEST(SolTrafficCheck, AVariantWithoutAPatternFails) {
  Registry r;
  register_host_variants(r);
  r.add(sol_fixture::traffic_entry("planted"));
  const auto gaps = traffic_gaps(r);
  ASSERT_EQ(gaps.size(), 1u);
  EXPECT_EQ(gaps[0], "planted: no traffic pattern (VariantText::traffic / VariantEntry::traffic)");
}

TEST(SolTrafficCheck, APatternWithTheWrongPeerCountFails) {
  Registry r;
  r.add(sol_fixture::traffic_entry("planted", &forgets_a_peer));
  const auto gaps = traffic_gaps(r);
  ASSERT_FALSE(gaps.empty());
  EXPECT_NE(gaps[0].find("planted at 2 ranks"), std::string::npos) << gaps[0];
  EXPECT_NE(gaps[0].find("missing 0->1"), std::string::npos) << gaps[0];
}

// The GPU-only variants' patterns, checked here without the GPU half of the registry: NCCL's
// configurations and the peers (kernels/peers/peer_traffic.cpp), every configuration of each.
TEST(SolTrafficCheck, NcclAndThePeersHaveAllReducePatternsInEveryConfiguration) {
  Registry r;
  sol_fixture::add_gpu_only_variants(r);
  for (const auto& e : r.entries()) EXPECT_TRUE(e.name.rfind("nccl", 0) == 0 || !e.configs.empty()) << e.name;
  const auto gaps = traffic_gaps(r);
  for (const auto& g : gaps) ADD_FAILURE() << g;
}

// FlashInfer's PCIe-IPC kernels at 8 ranks follow their own 4+4 islands whatever the case's are:
// the check runs against those (Traffic::island_of), and a schedule that crossed to the wrong
// partner would fail it.
TEST(SolTrafficCheck, FlashInferAtEightRanksFollowsItsOwnIslands) {
  Case c;
  c.variant = "flashinfer-pcie-ipc";
  c.world = 8;
  c.bytes = 1 << 20;
  TrafficQuery q{c, "staged", {0, 0, 1, 1, 2, 2, 3, 3}, {}, {}};  // the box's islands: pairs
  Traffic t = flashinfer_pcie_ipc_traffic(q);
  ASSERT_EQ(t.schedules.size(), 1u);
  EXPECT_EQ(t.island_of, (std::vector<int>{0, 0, 0, 0, 1, 1, 1, 1}));
  EXPECT_EQ(traffic_problem(t.schedules[0], query_of(t, q)), "");
  ASSERT_EQ(t.schedules[0].phases.size(), 3u);
  t.schedules[0].phases[1].flows[0].to = 1;  // rank 0's partner inside its own island
  EXPECT_NE(traffic_problem(t.schedules[0], query_of(t, q)).find("stays inside island"), std::string::npos);
  q.config = "flat-staged";
  EXPECT_EQ(flashinfer_pcie_ipc_traffic(q).schedules.at(0).phases.at(0).shape, TrafficShape::all_pairs);
  q.c.world = 4;
  q.config = "unstaged";
  const Traffic four = flashinfer_pcie_ipc_traffic(q);
  EXPECT_EQ(four.schedules.at(0).phases.size(), 1u);  // one-shot push
  EXPECT_EQ(four.schedules.at(0).phases[0].direction, TrafficDirection::push);
}

// ce-island runs on islands of one size only: on the check's 1+2 halves at 3 ranks it declines
// the case (as its Support does), which is no gap; at 2, 4 and 8 ranks it has its pattern. A
// pattern that is merely missing there (not declined) is a gap, and so is a variant that declines
// every case.
TEST(SolTrafficCheck, CeIslandDeclinesUnequalIslandsOnly) {
  Case c;
  c.variant = "ce-island";
  c.world = 3;
  c.bytes = 1 << 20;
  const Traffic three = ce_island_traffic({c, "", {0, 1, 1}, {}, {}});
  EXPECT_TRUE(three.declined);
  EXPECT_NE(three.why_none.find("different sizes"), std::string::npos) << three.why_none;
  c.world = 4;
  EXPECT_FALSE(ce_island_traffic({c, "", {0, 0, 1, 1}, {}, {}}).schedules.empty());
  for (TrafficFn fn : {&forgets_to_decline, &declines_everything}) {
    Registry r;
    r.add(sol_fixture::traffic_entry("planted", fn));
    const auto gaps = traffic_gaps(r);
    ASSERT_FALSE(gaps.empty());
    if (fn == &forgets_to_decline) {
      EXPECT_NE(gaps[0].find("planted at 3 ranks"), std::string::npos) << gaps[0];
      for (const auto& g : gaps) EXPECT_EQ(g.find(" at 4 ranks"), std::string::npos) << g;
    } else {
      EXPECT_NE(gaps.back().find("declines every case"), std::string::npos) << gaps.back();
    }
  }
}
