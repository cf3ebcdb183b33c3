// Each phase of a floor pays its waits at its own link's hop, a pipelined kernel costs its slowest
// phase and the fill, and the peers' schedules are priced as their code runs (bench/sol/floor.hpp,
// kernels/peers/peer_traffic.cpp). Every figure by hand.
#include <gtest/gtest.h>

#include "arbench/traffic_schedules.hpp"
#include "kernels/peers/peer_traffic.hpp"
#include "sol/floor.hpp"
#include "sol_fixture.hpp"

using namespace arbench;
using namespace arbench::sol;

namespace {

const std::vector<int> kHalves = {0, 0, 0, 0, 1, 1, 1, 1};

// 8 ranks as FlashInfer's islands see them: inside a half every flow 20 GB/s and a 0.5 us hop;
// across, 10 GB/s and a 4.0 us hop (the host bridge).
PatternRates two_halves() {
  PatternRates r;
  r.method = "fixture";
  for (int i = 0; i < 8; ++i) r.positions.push_back("rank:" + std::to_string(i));
  std::vector<TrafficFlow> pairs;
  for (int k = 0; k < 8; ++k) pairs.push_back({k, (k + 4) % 8, 1});
  r.patterns.push_back(sol_fixture::measured(TrafficShape::island_inside, TrafficDirection::push, 8,
                                             island_inside_phase("", TrafficDirection::push, kHalves, 1), 20, 0,
                                             {{0, 1}}, {0.5}));
  r.patterns.push_back(sol_fixture::measured(TrafficShape::island_across, TrafficDirection::push, 8,
                                             island_across_phase("", TrafficDirection::push, pairs), 10, 0, {{0, 4}},
                                             {4.0}));
  return r;
}

TrafficQuery query(const std::string& variant, const std::string& config, int world, std::size_t bytes) {
  Case c;
  c.variant = variant;
  c.world = world;
  c.bytes = bytes;
  c.tokens = int(bytes / (2 * 8192));
  c.hidden = 8192;
  return TrafficQuery{c, config, kHalves, {}, {}};
}

SolFloor floor_of(const TrafficQuery& q, Traffic (*fn)(const TrafficQuery&), const PatternRates& r) {
  std::string why;
  const auto f = traffic_floor(fn(q), q, FloorInputs{&r, {}, "fixture"}, std::nullopt, &why);
  if (!f) throw std::runtime_error("no floor: " + why);
  return *f;
}

}  // namespace

// FlashInfer's staged 8-rank kernel: 4 MiB, a 1 MiB shard per flow: 52.4288 us inside, 104.8576
// across, 52.4288 inside; waits 2 x 0.5 + 1 x 4.0 + 2 x 0.5 = 6.0 us. Every wait at the slowest
// hop (5 x 4.0) or at the fastest (5 x 0.5) would give 229.7152 or 212.2152: neither is this.
TEST(SolFloorPhases, EachPhasePaysItsWaitsAtItsOwnLinksHop) {
  const PatternRates r = two_halves();
  const SolFloor f = floor_of(query("flashinfer-pcie-ipc", "staged", 8, 4 << 20), &flashinfer_pcie_ipc_traffic, r);
  ASSERT_EQ(f.phases.size(), 3u);
  EXPECT_DOUBLE_EQ(f.phases[0].hop_us, 0.5);
  EXPECT_DOUBLE_EQ(f.phases[1].hop_us, 4.0);
  EXPECT_DOUBLE_EQ(f.phases[2].hop_us, 0.5);
  EXPECT_DOUBLE_EQ(f.phases[0].waits + f.phases[1].waits + f.phases[2].waits, 5);
  EXPECT_NEAR(f.latency_us, 6.0, 1e-9);
  EXPECT_NEAR(f.transfer_us, 209.7152, 1e-9);
  EXPECT_NEAR(f.sol_us, 215.7152, 1e-9);
  EXPECT_NEAR(f.hop_us, 6.0 / 5, 1e-12);  // the mean hop a wait was priced at
}

// The 8-rank unstaged kernel pushes every pack three times in a row, no barrier: its phases
// overlap, so the floor is the slowest phase (104.8576 across) plus the fill (0.5 + 4.0 + 0.5),
// not the 209.7152 us of the three phases added.
TEST(SolFloorPhases, APipelinedKernelCostsItsSlowestPhasePlusTheFill) {
  const PatternRates r = two_halves();
  const SolFloor f = floor_of(query("flashinfer-pcie-ipc", "unstaged", 8, 4 << 20), &flashinfer_pcie_ipc_traffic, r);
  EXPECT_TRUE(f.pipelined);
  EXPECT_DOUBLE_EQ(f.round_trips, 3);
  EXPECT_NEAR(f.transfer_us, 104.8576, 1e-9);
  EXPECT_NEAR(f.sol_us, 104.8576 + 5.0, 1e-9);
  EXPECT_NE(f.notes.back().find("pipelined"), std::string::npos) << f.notes.back();
}

// A phase whose links differ: a ring of 8 whose 7->0 edge runs at 20 GB/s and the others at 40
// (sol_fixture::rates), 14 steps of 1 MiB. Its busiest link carries every step back to back
// (734.0032 us) and the last still lands a hop (2.5) later; the chain of waits, 14 hops and 14 steps
// at the fast links' 26.2144 us, is shorter (402.0016): the floor is the larger, 736.5032 us, not
// the 769.0032 of every hop added to the busiest link's every step (a ring does not wait on its
// slow edge at every step: tests/host/sol/test_ideal_execution.cpp holds it below an execution).
TEST(SolFloorPhases, ARingWhoseLinksDifferIsBoundByItsBusiestLinkOrItsChainOfWaits) {
  const PatternRates r = sol_fixture::rates();
  std::string why;
  const TrafficSchedule s = ring_schedule("ring", {0, 1, 2, 3, 4, 5, 6, 7}, 1 << 20, 14, 1);
  const auto f = schedule_floor(s, 8, FloorInputs{&r, {}, "fixture"}, std::nullopt, &why);
  ASSERT_TRUE(f) << why;
  EXPECT_NEAR(f->sol_us, 734.0032 + 2.5, 1e-9);
  EXPECT_NE(f->notes.back().find("busiest link"), std::string::npos) << f->notes.back();
}

// The peers' schedules as their code runs them: directions per phase and the waits.
TEST(SolFloorPhases, ThePeersArePricedFromTheirCode) {
  struct Expect {
    Traffic (*fn)(const TrafficQuery&);
    std::string config;
    int world;
    int waits;
    std::vector<TrafficDirection> directions;
    bool pipelined;
  };
  const auto push = TrafficDirection::push, pull = TrafficDirection::pull;
  const std::vector<Expect> expect = {
      {&flashinfer_pcie_ipc_traffic, "unstaged", 2, 1, {push}, false},
      {&flashinfer_pcie_ipc_traffic, "unstaged", 4, 1, {push}, false},
      {&flashinfer_pcie_ipc_traffic, "staged", 4, 2, {push, push}, false},        // two barriers
      {&flashinfer_pcie_ipc_traffic, "flat-staged", 8, 2, {push, push}, false},   // two barriers
      {&flashinfer_pcie_ipc_traffic, "staged-ring", 4, 6, {push}, false},         // a barrier per pass
      {&flashinfer_pcie_ipc_traffic, "unstaged", 8, 3, {push, push, push}, true},  // three sentinel pushes
      {&flashinfer_pcie_ipc_traffic, "staged", 8, 5, {push, push, push}, false},
      {&flashinfer_pcie_ipc_traffic, "staged-ring", 8, 11, {push, push, push}, false},
      {&vllm_custom_traffic, "1stage", 4, 3, {pull}, false},
      {&vllm_custom_traffic, "2stage", 4, 4, {pull, pull}, false},  // no closing barrier
      {&flashinfer_fused_traffic, "oneshot", 8, 1, {push}, false},
      {&flashinfer_fused_traffic, "twoshot", 8, 3, {pull, push}, false},  // loads, then stores into every rank
  };
  for (const Expect& e : expect) {
    const auto q = query("peer", e.config, e.world, 1 << 20);
    const Traffic t = e.fn(q);
    ASSERT_EQ(t.schedules.size(), 1u) << e.config;
    const TrafficSchedule& s = t.schedules[0];
    const std::string where = s.name + " at " + std::to_string(e.world);
    EXPECT_EQ(s.round_trips, e.waits) << where;
    EXPECT_EQ(s.pipelined, e.pipelined) << where;
    ASSERT_EQ(s.phases.size(), e.directions.size()) << where;
    for (std::size_t k = 0; k < s.phases.size(); ++k) EXPECT_EQ(s.phases[k].direction, e.directions[k]) << where;
    EXPECT_EQ(traffic_problem(s, query_of(t, q)), "") << where;
    EXPECT_NE(s.waits_source.find("not counted from its PTX"), std::string::npos) << where;
  }
}

// flashinfer-fused is priced as the kernel its case runs: plain (vLLM's rule) is one-shot at every
// size on 12.x, where FlashInfer's own rule ([flashinfer]) picks two-shot above 168 tokens at 8 ranks
// and hidden 8192; a recorded `kernel` wins; without a capability (a dry run) both are priced.
TEST(SolFloorPhases, TheFusedPeerIsPricedAsTheKernelItsEngineRuns) {
  const std::size_t bytes = std::size_t(256) * 8192 * 2;  // 256 tokens
  const auto phases_of = [](const Traffic& t) {
    std::vector<std::size_t> n;
    for (const TrafficSchedule& s : t.schedules) n.push_back(s.phases.size());
    return n;
  };
  TrafficQuery vllm = query("flashinfer-fused", "", 8, bytes);
  vllm.settings = {{"capability", "12.0"}};
  EXPECT_EQ(phases_of(flashinfer_fused_traffic(vllm)), std::vector<std::size_t>{1});
  TrafficQuery own = query("flashinfer-fused", "flashinfer", 8, bytes);
  EXPECT_EQ(phases_of(flashinfer_fused_traffic(own)), std::vector<std::size_t>{2});
  TrafficQuery recorded = vllm;
  recorded.settings.push_back({"kernel", "twoshot"});
  recorded.settings.erase(recorded.settings.begin());
  EXPECT_EQ(phases_of(flashinfer_fused_traffic(recorded)), std::vector<std::size_t>{2});
  EXPECT_EQ(phases_of(flashinfer_fused_traffic(query("flashinfer-fused", "", 8, bytes))),
            (std::vector<std::size_t>{1, 2}));
}

// A schedule whose phases' waits do not add up to its count is a pattern error, never priced.
TEST(SolFloorPhases, PhaseWaitsThatDoNotAddUpAreAPatternError) {
  const auto q = query("twoshot", "", 8, 1 << 20);
  TrafficSchedule s = twoshot_schedule("two-shot", {}, 8, 1 << 17, 1 << 17, 1);
  EXPECT_EQ(traffic_problem(s, q), "");
  s.phases[1].waits = 1;
  EXPECT_NE(traffic_problem(s, q).find("its phases' waits add up to 3, not the schedule's 4"), std::string::npos)
      << traffic_problem(s, q);
}
