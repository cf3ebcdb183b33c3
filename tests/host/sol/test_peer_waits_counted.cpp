// The peers' waits as a peers build prices them: the flag waits counted in their PTX
// (scripts/peer_waits.py) plus the data waves their code shows, in place of the written ones; the
// written ones, said so, where no count is known.
#include <gtest/gtest.h>

#include <cstddef>
#include <string>
#include <vector>

#include "kernels/peers/peer_traffic.hpp"

namespace arbench {
namespace {

TrafficQuery query(const char* variant, int world, std::size_t bytes, const char* config) {
  Case c;
  c.variant = variant;
  c.world = world;
  c.bytes = bytes;
  return TrafficQuery{c, config, {}, {}, {}};
}

std::vector<int> waits_of(const TrafficSchedule& s) {
  std::vector<int> w;
  for (const TrafficPhase& p : s.phases) w.push_back(p.waits);
  return w;
}

TEST(PeerWaitsCounted, WithoutACountTheWrittenWaitsStandAndTheFloorSaysSo) {
  const Traffic t = flashinfer_pcie_ipc_traffic(query("flashinfer-pcie-ipc", 8, 1 << 20, "unstaged"));
  ASSERT_EQ(t.schedules.size(), 1u);
  EXPECT_EQ(t.schedules[0].round_trips, 3);
  EXPECT_NE(t.schedules[0].waits_source.find("not counted from its PTX"), std::string::npos);
}

// One thread of FlashInfer's 8-rank unstaged kernel polls twice (the island peers' packs, then the
// partner's sum); the third wait of the written chain is another thread's. The count, lower, is
// the floor's: taken off the last phase, and the schedule still adds up (traffic_problem).
TEST(PeerWaitsCounted, ACountBelowTheWrittenChainLowersTheLastPhases) {
  const TrafficQuery q = query("flashinfer-pcie-ipc", 8, 1 << 20, "unstaged");
  const Traffic t = flashinfer_pcie_ipc_traffic_counted(q, {{"flashinfer-pcie-ipc/8/unstaged", 2}});
  ASSERT_EQ(t.schedules.size(), 1u);
  const TrafficSchedule& s = t.schedules[0];
  EXPECT_EQ(s.round_trips, 2);
  EXPECT_EQ(waits_of(s), (std::vector<int>{1, 1, 0}));
  EXPECT_EQ(traffic_problem(s, query_of(t, q)), "");
  EXPECT_NE(s.waits_source.find("counted in the peer's PTX (flashinfer-pcie-ipc/8/unstaged: 2"), std::string::npos);
  EXPECT_NE(s.waits_source.find("written from the code: 3"), std::string::npos);
  // staged: (2, 1, 2) written, 4 counted -> (2, 1, 1)
  const Traffic staged = flashinfer_pcie_ipc_traffic_counted(query("flashinfer-pcie-ipc", 8, 1 << 20, "staged"),
                                                             {{"flashinfer-pcie-ipc/8/staged", 4}});
  EXPECT_EQ(waits_of(staged.schedules.at(0)), (std::vector<int>{2, 1, 1}));
}

// vLLM's kernels pull: their data waves (one stage: 1; two stages: 2) are added to the flag waits
// the PTX shows (two barriers each), which gives the written counts back (3 and 4).
TEST(PeerWaitsCounted, DataWavesFromTheCodeAreAddedToTheCountedFlagWaits) {
  const PeerWaitCounts counted = {{"vllm-custom/4/1stage", 2}, {"vllm-custom/4/2stage", 2}};
  const Traffic one = vllm_custom_traffic_counted(query("vllm-custom", 4, 1 << 16, "1stage"), counted);
  const Traffic two = vllm_custom_traffic_counted(query("vllm-custom", 4, 1 << 16, "2stage"), counted);
  EXPECT_EQ(one.schedules.at(0).round_trips, 3);
  EXPECT_EQ(two.schedules.at(0).round_trips, 4);
  EXPECT_EQ(waits_of(two.schedules.at(0)), (std::vector<int>{2, 2}));
  EXPECT_NE(two.schedules.at(0).waits_source.find("+ 2 data wave(s)"), std::string::npos);
  // a key of another world size is not this case's count
  const Traffic eight = vllm_custom_traffic_counted(query("vllm-custom", 8, 1 << 16, "1stage"), counted);
  EXPECT_NE(eight.schedules.at(0).waits_source.find("not counted from its PTX"), std::string::npos);
}

// A count above the written one (a wait the reading missed) raises the last phase.
TEST(PeerWaitsCounted, ACountAboveTheWrittenOneRaisesTheLastPhase) {
  Case c;
  c.variant = "flashinfer-fused";
  c.world = 4;
  c.tokens = 8;
  c.hidden = 4096;
  c.bytes = 8 * 4096 * 2;
  TrafficQuery q{c, "twoshot", {}, {}, {}};
  const Traffic t = flashinfer_fused_traffic_counted(q, {{"flashinfer-fused/4/twoshot", 3}});
  ASSERT_EQ(t.schedules.size(), 1u);
  EXPECT_EQ(t.schedules[0].round_trips, 4);  // 3 flag waits + the shards' data wave
  EXPECT_EQ(waits_of(t.schedules[0]), (std::vector<int>{2, 2}));
  EXPECT_EQ(traffic_problem(t.schedules[0], query_of(t, q)), "");
}

}  // namespace
}  // namespace arbench
