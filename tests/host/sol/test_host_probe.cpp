// The pattern probe on CPU threads (bench/sol/host_probe.hpp): every pattern of a small plan is
// measured, every figure is labelled CPU timing, and a spent budget skips the rest, saying so.
#include <gtest/gtest.h>

#include "sol/host_probe.hpp"

using namespace arbench;
using namespace arbench::sol;

TEST(SolHostProbe, MeasuresEveryPatternWithCpuThreads) {
  const auto plan = probe_plan(4, {2, 4}, {}, {{4, {0, 0, 1, 1}}});
  HostProbeOptions opt;
  opt.sizes = {std::size_t{16} << 10, std::size_t{32} << 10};
  opt.budget_s = 60;  // a loaded 2-core machine: the plan, not the budget, must end it
  const PatternRates r = run_host_pattern_probe(plan, 4, opt);
  EXPECT_EQ(r.timing, "cpu");
  EXPECT_NE(r.method.find("CPU timing"), std::string::npos);
  ASSERT_EQ(r.positions, (std::vector<std::string>{"rank:0", "rank:1", "rank:2", "rank:3"}));
  ASSERT_EQ(r.patterns.size(), plan.size());
  for (const auto& p : r.patterns) {
    EXPECT_FALSE(p.skipped) << p.key << ": " << *p.skipped;
    EXPECT_EQ(p.sizes.size(), 2u) << p.key;
    for (const auto& [from, to] : p.flows) {
      const auto gbps = p.flow_gbps(from, to);
      ASSERT_TRUE(gbps) << p.key << " " << from << "->" << to;
      EXPECT_GT(*gbps, 0);
    }
    ASSERT_TRUE(p.slowest_idle_hop_us()) << p.key;
    // One crossing, the fastest over every pattern (no copies run while it is measured).
    EXPECT_EQ(*p.slowest_idle_hop_us(), *r.patterns.front().slowest_idle_hop_us()) << p.key;
    EXPECT_GT(*p.slowest_idle_hop_us(), 0) << p.key;
    EXPECT_FALSE(p.slowest_hop_us()) << p.key << ": under the copies' load a CPU hop prices the scheduler";
  }
  EXPECT_NE(r.find(TrafficShape::island_across, TrafficDirection::push, 4), nullptr);
}

TEST(SolHostProbe, ASpentBudgetSkipsTheRestSayingSo) {
  HostProbeOptions opt;
  opt.budget_s = 0;
  const PatternRates r = run_host_pattern_probe(probe_plan(2, {2}, {}, {}), 2, opt);
  for (const auto& p : r.patterns) {
    ASSERT_TRUE(p.skipped) << p.key;
    EXPECT_NE(p.notes.back().find("time budget"), std::string::npos) << p.notes.back();
  }
}
