// The per-case efficiency counter: which links a case walks (its ring order), the slowest of
// them, and when the counter is left out.
#include <gtest/gtest.h>

#include "measure/link_efficiency.hpp"

using namespace arbench;

namespace {

const std::vector<std::string> kBus = {"0000:01:00.0", "0000:02:00.0", "0000:03:00.0", "0000:04:00.0"};

// Four GPUs at 50 GB/s one way, except 20 GB/s between GPU1 and GPU2 (both directions).
topo::Links four_gpus_one_slow_pair() {
  topo::Links l;
  l.bus_ids = kBus;
  topo::LinkMatrix m;
  m.unit = "GB/s";
  m.values.assign(4, std::vector<std::optional<double>>(4, 50.0));
  for (int i = 0; i < 4; ++i) m.values[i][i] = std::nullopt;
  m.values[1][2] = m.values[2][1] = 20.0;
  l.matrices[std::string(topo::kCeUnidir)] = m;
  return l;
}

CaseResult result(const std::string& variant, int world, const std::string& ring_order = "") {
  CaseResult r;
  r.c.variant = variant;
  r.c.world = world;
  r.busbw_gbps = 40.0;
  if (!ring_order.empty()) r.settings.emplace_back("ring_order", ring_order);
  return r;
}

}  // namespace

TEST(LinkEfficiency, RingInRankOrderMeetsTheSlowPair) {
  CaseResult r = result("ring", 4);
  annotate_link_efficiency(r, four_gpus_one_slow_pair(), kBus);
  EXPECT_DOUBLE_EQ(r.extra.at("slowest_link_GBps"), 20.0);
  EXPECT_DOUBLE_EQ(r.extra.at("link_efficiency"), 2.0);
}

TEST(LinkEfficiency, RecordedRingOrderAvoidsTheSlowPair) {
  CaseResult r = result("ring", 4, "0,2,3,1");  // edges 0-2, 2-3, 3-1, 1-0: never 1-2
  EXPECT_EQ(rank_walk(r, kBus), (std::vector<std::string>{kBus[0], kBus[2], kBus[3], kBus[1]}));
  annotate_link_efficiency(r, four_gpus_one_slow_pair(), kBus);
  EXPECT_DOUBLE_EQ(r.extra.at("slowest_link_GBps"), 50.0);
  EXPECT_DOUBLE_EQ(r.extra.at("link_efficiency"), 0.8);
}

TEST(LinkEfficiency, OneShotUsesEveryPairWhateverTheOrder) {
  CaseResult r = result("oneshot-pull", 4, "0,2,3,1");
  annotate_link_efficiency(r, four_gpus_one_slow_pair(), kBus);
  EXPECT_DOUBLE_EQ(r.extra.at("slowest_link_GBps"), 20.0);
}

TEST(LinkEfficiency, AnOrderThatIsNotAPermutationFallsBackToRankOrder) {
  for (const char* bad : {"0,2,2,1", "0,2,x,1", "0,2,3", "0,2,3,1,4", "0,2,3,7", "0;2;3;1", "0,2,3,1,"}) {
    CaseResult r = result("ring", 4, bad);
    EXPECT_EQ(rank_walk(r, kBus), kBus) << bad;
    annotate_link_efficiency(r, four_gpus_one_slow_pair(), kBus);
    EXPECT_DOUBLE_EQ(r.extra.at("slowest_link_GBps"), 20.0) << bad;
  }
}

TEST(LinkEfficiency, UsesTheFirstRanksGpusForSmallerWorlds) {
  CaseResult r = result("ring", 2);  // GPU0 and GPU1 only: 50 GB/s both ways
  annotate_link_efficiency(r, four_gpus_one_slow_pair(), kBus);
  EXPECT_DOUBLE_EQ(r.extra.at("slowest_link_GBps"), 50.0);
}

TEST(LinkEfficiency, LeftOutWhenItCannotBeKnown) {
  const topo::Links links = four_gpus_one_slow_pair();
  CaseResult failed = result("ring", 4);
  failed.ok = false;
  CaseResult one_rank = result("ring", 1);
  CaseResult too_many = result("ring", 5);
  for (CaseResult* r : {&failed, &one_rank, &too_many}) {
    annotate_link_efficiency(*r, links, kBus);
    EXPECT_TRUE(r->extra.empty()) << r->c.world;
  }
  // A GPU the links file does not know (measured on another machine or device set).
  CaseResult other = result("ring", 2);
  annotate_link_efficiency(other, links, {"0000:01:00.0", "0000:99:00.0"});
  EXPECT_TRUE(other.extra.empty());
  // A link that was not measured.
  topo::Links holes = links;
  holes.matrices[std::string(topo::kCeUnidir)].values[0][1] = std::nullopt;
  CaseResult r = result("ring", 2);
  annotate_link_efficiency(r, holes, kBus);
  EXPECT_TRUE(r.extra.empty());
}
