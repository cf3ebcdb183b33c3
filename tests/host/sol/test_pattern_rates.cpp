// The pattern probe's figures as data (bench/sol/pattern_rates.hpp): assembled from the probe's
// results size by size, written into a topo file and read back whole, and refused, naming the
// place, when malformed. Also the plan the probe runs (probe_plan.hpp).
#include <gtest/gtest.h>

#include <algorithm>

#include <filesystem>
#include <fstream>

#include "arbench/core/errors.hpp"
#include "kernels/symm/symm_variant.hpp"
#include "sol/floor.hpp"
#include "sol/pattern_rates.hpp"
#include "sol/probe_plan.hpp"
#include "sol_fixture.hpp"

using namespace arbench;
using namespace arbench::sol;

namespace {

std::filesystem::path temp_file(const std::string& name, const std::string& text) {
  const auto p = std::filesystem::temp_directory_path() / (name + "." + std::to_string(::getpid()) + ".json");
  std::ofstream(p) << text;
  return p;
}

}  // namespace

TEST(SolProbePlan, EverySchedulesShapeForEveryWorldSize) {
  const auto plan = probe_plan(8, {2, 4, 8, 16}, {{8, {0, 2, 1, 3, 4, 5, 6, 7}}}, {{8, {0, 0, 0, 0, 1, 1, 1, 1}}});
  std::vector<std::string> keys;
  for (const auto& p : plan) keys.push_back(p.pattern.name);
  for (const char* k : {"w2 all-pairs push", "w2 all-pairs pull", "w2 ring push", "w2 chain push", "w4 ring push",
                        "w8 all-pairs pull", "w8 island-inside push", "w8 island-inside pull", "w8 island-across push"})
    EXPECT_NE(std::find(keys.begin(), keys.end(), k), keys.end()) << k;
  EXPECT_EQ(std::count_if(keys.begin(), keys.end(), [](const std::string& k) { return k.rfind("w16", 0) == 0; }), 0);
  EXPECT_EQ(std::count_if(keys.begin(), keys.end(), [](const std::string& k) { return k.find("island") != std::string::npos; }), 3);
  const auto ring8 = std::find_if(plan.begin(), plan.end(), [](const PlannedPattern& p) { return p.pattern.name == "w8 ring push"; });
  ASSERT_NE(ring8, plan.end());
  EXPECT_EQ(ring8->pattern.flows[0].to, 2);  // the ring order given: 0 -> 2
  EXPECT_EQ(ring8->pattern.latency_pairs.back(), (std::pair<int, int>{7, 0}));  // its closing edge
  const auto pull = std::find_if(plan.begin(), plan.end(), [](const PlannedPattern& p) { return p.pattern.name == "w8 all-pairs pull"; });
  EXPECT_EQ(pull->pattern.flows.size(), 56u);
  EXPECT_TRUE(pull->pattern.flows[0].pull);
  // Its hops include the lowest and the highest rank (across the root on a PCIe tree), not only
  // neighbours: every all-pairs wait ends with the slowest pair.
  const auto& hops = pull->pattern.latency_pairs;
  EXPECT_TRUE(std::count(hops.begin(), hops.end(), std::pair<int, int>{0, 7}) +
                  std::count(hops.begin(), hops.end(), std::pair<int, int>{7, 0}) ==
              1)
      << hops.size();
}

TEST(SolPatternRates, AssembledSizeBySizeKeepingTheFastest) {
  const auto plan = probe_plan(2, {2}, {}, {});
  PatternRates r;
  r.positions = {"a", "b"};
  std::vector<topo::PatternResult> small, large;
  for (const auto& p : plan) {
    small.push_back({p.pattern.name, {4.0, 5.0}, std::nullopt, {6.0, std::nullopt}, {}, {}});
    large.push_back({p.pattern.name, {9.0, 8.0}, std::nullopt, {7.0, 7.5}, {1.25}, {}, {0.5}});
  }
  large.back().skipped = "budget spent";
  add_size(r, plan, 65536, small);
  add_size(r, plan, 1 << 20, large);
  ASSERT_EQ(r.patterns.size(), plan.size());
  const MeasuredPattern* pull = r.find(TrafficShape::all_pairs, TrafficDirection::pull, 2);
  ASSERT_NE(pull, nullptr);
  std::string mover;
  EXPECT_DOUBLE_EQ(*pull->flow_gbps(0, 1, &mover), 9.0);
  EXPECT_EQ(mover, "SM");
  EXPECT_DOUBLE_EQ(*pull->flow_gbps(1, 0, &mover), 8.0);
  EXPECT_DOUBLE_EQ(*pull->slowest_hop_us(), 1.25);
  EXPECT_DOUBLE_EQ(*pull->slowest_idle_hop_us(), 0.5);
  const MeasuredPattern& last = r.patterns.back();  // measured at 64K only: its 1M note says why
  EXPECT_EQ(last.sizes.size(), 1u);
  EXPECT_NE(last.notes.back().find("1M: budget spent"), std::string::npos);
  EXPECT_DOUBLE_EQ(*last.flow_gbps(0, 1, &mover), 6.0);
  EXPECT_EQ(mover, "copy engine");
}

TEST(SolPatternRates, AProbeResultRoundTripsThroughTheTopoFile) {
  const PatternRates r = sol_fixture::rates();
  nlohmann::json topo = {{"schema", "arbench-topo/1"}, {"source", "machine"}, {"patterns", pattern_rates_to_json(r)}};
  const auto file = temp_file("sol_topo", topo.dump(2));
  const auto back = read_pattern_rates(file);
  std::filesystem::remove(file);
  ASSERT_TRUE(back);
  EXPECT_EQ(pattern_rates_to_json(*back), pattern_rates_to_json(r));
  // And it prices a case as the original does.
  Case c;
  c.variant = "oneshot-pull";
  c.world = 8;
  c.bytes = 1 << 20;
  const TrafficQuery q{c, "", {}, {}, {}};
  std::string why;
  const auto a = traffic_floor(oneshot_pull_traffic(q), q, FloorInputs{&r, {}, ""}, std::nullopt, &why);
  const auto b = traffic_floor(oneshot_pull_traffic(q), q, FloorInputs{&*back, {}, ""}, std::nullopt, &why);
  ASSERT_TRUE(a && b);
  EXPECT_DOUBLE_EQ(a->sol_us, b->sol_us);
  const auto old = temp_file("sol_topo_old", R"({"schema": "arbench-topo/1", "source": "machine"})");
  EXPECT_FALSE(read_pattern_rates(old));  // a file from before the patterns: no rates, no error
  std::filesystem::remove(old);
}

TEST(SolPatternRates, AFileWithoutIdleHopsReadsWithTheLoadedOnesOnly) {
  nlohmann::json j = pattern_rates_to_json(sol_fixture::rates());
  for (auto& p : j["patterns"]) p.erase("idle_latency_us");  // written before idle hops were measured
  const PatternRates back = pattern_rates_from_json(j, "old.json");
  const MeasuredPattern* pull = back.find(TrafficShape::all_pairs, TrafficDirection::pull, 8);
  ASSERT_NE(pull, nullptr);
  EXPECT_FALSE(pull->slowest_idle_hop_us());
  EXPECT_DOUBLE_EQ(*pull->slowest_hop_us(), 6.0);
  j["patterns"][0]["idle_latency_us"] = {1.0};  // two pairs, one figure
  EXPECT_THROW((void)pattern_rates_from_json(j, "x"), UsageError);
}

TEST(SolPatternRates, MalformedObjectsAreRefusedNamingWhere) {
  nlohmann::json j = pattern_rates_to_json(sol_fixture::rates());
  j["patterns"][0]["flows"][3] = {0, 9};
  try {
    (void)pattern_rates_from_json(j, "topo.json \"patterns\"");
    FAIL() << "accepted a flow outside the positions";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("pattern 'w8 all-pairs pull' flows"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("outside the 8 positions"), std::string::npos) << e.what();
  }
  j = pattern_rates_to_json(sol_fixture::rates());
  j["patterns"][1]["sizes"][0]["sm_gbps"].erase(0);
  EXPECT_THROW((void)pattern_rates_from_json(j, "x"), UsageError);
  j = pattern_rates_to_json(sol_fixture::rates());
  j["schema"] = "arbench-patterns/0";
  EXPECT_THROW((void)pattern_rates_from_json(j, "x"), UsageError);
}

TEST(SolPatternRates, TheTableFits120Columns) {
  const std::string text = render_pattern_rates(sol_fixture::rates());
  EXPECT_NE(text.find("w8 all-pairs push"), std::string::npos);
  EXPECT_NE(text.find("7.0..7.0"), std::string::npos);    // SM under the push pattern
  EXPECT_NE(text.find("20.0..40.0"), std::string::npos);  // the ring: 7->0 at 20, the rest at 40
  EXPECT_NE(text.find("loaded hop us"), std::string::npos);
  EXPECT_NE(text.find("3.00           6.00"), std::string::npos) << text;  // w8 all-pairs pull: idle 3, loaded 6
  for (std::size_t at = 0, nl; at < text.size(); at = nl + 1) {
    nl = text.find('\n', at);
    EXPECT_LE(nl - at, 120u) << text.substr(at, nl - at);
  }
}
