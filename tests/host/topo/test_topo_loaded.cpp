// Loaded links, host half: GB/s from the probe's times (a hand-computed case), the summaries and
// the dense-interconnect score against a fixture whose derived fields were computed by an
// independent script (tests/fixtures/topo/make_loaded_fixture.py), the report text against the
// fixture's golden output, and the JSON round trip.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "arbench/core/errors.hpp"
#include "topo/loaded.hpp"

namespace arbench::topo {
namespace {

std::string fixture_path(const std::string& name) {
  return std::string(ARBENCH_SOURCE_DIR) + "/tests/fixtures/topo/" + name;
}

nlohmann::json fixture() {
  std::ifstream in(fixture_path("loaded_4gpu.json"));
  return nlohmann::json::parse(in);
}

const std::vector<std::string> kLabels = {"cuda:0", "cuda:1", "cuda:2", "cuda:3"};

// 3 GPUs, 1e9 bytes x 1 repetition per link. Push: GPU g's links are its row.
//   links 0->1, 0->2: 20 ms (50 GB/s); 1->0, 1->2: 40 ms (25 GB/s); 2->0: 10 ms, 2->1 not measured
//   GPU times 20, 40, 10 ms -> per GPU 2e9/0.02 = 100, 2e9/0.04 = 50, 1e9/0.01 = 100 GB/s
//   aggregate: 5e9 bytes / 40 ms (the slowest GPU) = 125 GB/s
LoadedTimes hand_times() {
  LoadedTimes t;
  t.link_ms = {{std::nullopt, 20.0, 20.0}, {40.0, std::nullopt, 40.0}, {10.0, std::nullopt, std::nullopt}};
  t.gpu_ms = {20.0, 40.0, 10.0};
  return t;
}

Links idle_all(double gbps, std::size_t n) {
  Links l;
  LinkMatrix m;
  m.unit = "GB/s";
  m.values.assign(n, std::vector<std::optional<double>>(n, gbps));
  for (std::size_t i = 0; i < n; ++i) m.values[i][i] = std::nullopt;
  l.matrices[std::string(kCeUnidir)] = m;
  return l;
}

TEST(TopoLoaded, GbpsFromTimesHandComputed) {
  const LoadedPattern p = loaded_pattern(kLoadedCePush, "m", kCeUnidir, false, 1'000'000'000, 1, hand_times());
  EXPECT_DOUBLE_EQ(*p.links.values[0][1], 50);
  EXPECT_DOUBLE_EQ(*p.links.values[1][0], 25);
  EXPECT_DOUBLE_EQ(*p.links.values[2][0], 100);
  EXPECT_FALSE(p.links.values[2][1]);
  EXPECT_DOUBLE_EQ(*p.gpu_gbps[0], 100);
  EXPECT_DOUBLE_EQ(*p.gpu_gbps[1], 50);
  EXPECT_DOUBLE_EQ(*p.gpu_gbps[2], 100);
  EXPECT_DOUBLE_EQ(*p.aggregate_gbps, 125);
  // Score: 5 links measured under load, idle 50 GB/s each -> ideal 250, score 0.5, x(N-1) = 1.0.
  const LoadedSummary s = summarize_loaded(p, idle_all(50, 3));
  EXPECT_EQ(s.links, 5);
  EXPECT_DOUBLE_EQ(*s.ideal_gbps, 250);
  EXPECT_DOUBLE_EQ(*s.idle_mean_gbps, 50);
  EXPECT_DOUBLE_EQ(*s.score, 0.5);
  EXPECT_DOUBLE_EQ(*s.per_gpu_link_score, 1.0);
  EXPECT_EQ(s.worst_from, 1);
  EXPECT_EQ(s.worst_to, 0);
  EXPECT_DOUBLE_EQ(*s.worst_gbps, 25);
  EXPECT_DOUBLE_EQ(*s.worst_idle_gbps, 50);
  EXPECT_DOUBLE_EQ(*s.min_gpu_gbps, 50);
  EXPECT_DOUBLE_EQ(*s.max_gpu_gbps, 100);
}

TEST(TopoLoaded, PullCountsAGpusColumn) {
  // The same times read as pull: GPU g's links are its column (data from every peer into g).
  // GPU 0: 1->0 (40 ms) and 2->0 (10 ms) over 20 ms... its own time says 20 ms: 2e9/0.02 = 100.
  // GPU 1: 0->1 only (2->1 unmeasured): 1e9/0.04 = 25. GPU 2: 0->2, 1->2: 2e9/0.01 = 200.
  const LoadedPattern p = loaded_pattern(kLoadedCePull, "m", kCeUnidir, true, 1'000'000'000, 1, hand_times());
  EXPECT_DOUBLE_EQ(*p.gpu_gbps[0], 100);
  EXPECT_DOUBLE_EQ(*p.gpu_gbps[1], 25);
  EXPECT_DOUBLE_EQ(*p.gpu_gbps[2], 200);
  EXPECT_DOUBLE_EQ(*p.aggregate_gbps, 5e9 / 0.04 / 1e9);
}

TEST(TopoLoaded, NoScoreWithoutTheIdleLinks) {
  const LoadedPattern p = loaded_pattern(kLoadedSmPush, "m", kPushUnidir, false, 1'000'000'000, 1, hand_times());
  const LoadedSummary s = summarize_loaded(p, idle_all(50, 3));  // has ce_unidir only
  EXPECT_FALSE(s.score);
  EXPECT_NE(s.why.find("no idle matrix 'push_unidir_gbps'"), std::string::npos) << s.why;
  LoadedTimes off;
  off.skipped = "SM probes turned off";
  off.gpu_ms.resize(3);
  const LoadedPattern q = loaded_pattern(kLoadedSmPush, "m", kPushUnidir, false, 16, 1, off);
  EXPECT_EQ(q.links.skipped, "SM probes turned off");
  EXPECT_TRUE(q.links.values.empty());
}

TEST(TopoLoaded, FixtureSummariesMatchTheIndependentScript) {
  const nlohmann::json f = fixture();
  const Links idle = links_from_json(f, "fixture");
  const LoadedLinks l = loaded_from_json(f["loaded"], idle.bus_ids.size(), "fixture");
  ASSERT_EQ(l.patterns.size(), 4u);
  for (const LoadedPattern& p : l.patterns) {
    SCOPED_TRACE(p.name);
    const auto& want = f["loaded"]["patterns"][p.name]["summary"];
    const LoadedSummary s = summarize_loaded(p, idle);
    EXPECT_EQ(s.links, want["links"].get<int>());
    EXPECT_NEAR(*s.aggregate_gbps, want["aggregate_gbps"].get<double>(), 1e-9);
    EXPECT_NEAR(*s.ideal_gbps, want["ideal_gbps"].get<double>(), 1e-9);
    EXPECT_NEAR(*s.score, want["score"].get<double>(), 1e-12);
    EXPECT_NEAR(*s.per_gpu_link_score, want["per_gpu_link_score"].get<double>(), 1e-12);
    EXPECT_EQ(s.worst_from, want["worst_link"]["from"].get<int>());
    EXPECT_EQ(s.worst_to, want["worst_link"]["to"].get<int>());
    EXPECT_NEAR(*s.worst_gbps, want["worst_link"]["gbps"].get<double>(), 1e-9);
    EXPECT_NEAR(*s.worst_idle_gbps, want["worst_link"]["idle_gbps"].get<double>(), 1e-12);
  }
  const LoadedLatencySummary lat = summarize_loaded_latency(l, idle);
  const auto& want = f["loaded"]["latency_summary"];
  EXPECT_NEAR(*lat.idle_median_us, want["idle_median_us"].get<double>(), 1e-12);
  EXPECT_NEAR(*lat.loaded_median_us, want["loaded_median_us"].get<double>(), 1e-12);
  EXPECT_EQ(lat.worst_from, want["worst_link"]["from"].get<int>());
  EXPECT_EQ(lat.worst_to, want["worst_link"]["to"].get<int>());
  // The JSON arbench writes carries the same numbers, and the headline score is ce_pull's.
  const nlohmann::json back = loaded_to_json(l, idle);
  EXPECT_EQ(back["score_pattern"], "ce_pull");
  EXPECT_NEAR(back["score"].get<double>(), f["loaded"]["score"].get<double>(), 1e-12);
  for (const char* name : {"ce_push", "ce_pull", "sm_push", "sm_pull"}) {
    EXPECT_EQ(back["patterns"][name]["links"], f["loaded"]["patterns"][name]["links"]) << name;
    EXPECT_EQ(back["patterns"][name]["direction"], f["loaded"]["patterns"][name]["direction"]) << name;
  }
  EXPECT_EQ(back["latency_us"], f["loaded"]["latency_us"]);
}

TEST(TopoLoaded, FixtureReportMatchesTheGoldenText) {
  const nlohmann::json f = fixture();
  const Links idle = links_from_json(f, "fixture");
  const LoadedLinks l = loaded_from_json(f["loaded"], idle.bus_ids.size(), "fixture");
  const std::string text = render_loaded(l, idle, kLabels);
  const std::string golden = fixture_path("loaded_4gpu.txt");
  if (std::getenv("ARBENCH_UPDATE_GOLDEN")) std::ofstream(golden) << text;
  std::ifstream in(golden);
  std::stringstream want;
  want << in.rdbuf();
  EXPECT_EQ(text, want.str()) << "regenerate with ARBENCH_UPDATE_GOLDEN=1 after an intended change";
  // What a reader needs is there: the score with its arithmetic, the worst link beside its idle
  // value, the latency under load, and the null cell's reason.
  EXPECT_NE(text.find("Dense-interconnect score (ce_pull"), std::string::npos);
  EXPECT_NE(text.find("0.235"), std::string::npos);
  EXPECT_NE(text.find("cuda:0->cuda:3"), std::string::npos);
  EXPECT_NE(text.find("1->2: the load ended before the ping-pong did"), std::string::npos);
}

TEST(TopoLoaded, SkippedAndMalformed) {
  LoadedLinks l;
  l.bytes = 16;
  l.repetitions = 1;
  l.skipped = "fewer than 2 GPUs: no link to load";
  EXPECT_NE(render_loaded(l, Links{}, {"cuda:0"}).find("skipped: fewer than 2 GPUs"), std::string::npos);
  const nlohmann::json j = loaded_to_json(l, Links{});
  EXPECT_EQ(j["skipped"], "fewer than 2 GPUs: no link to load");
  EXPECT_EQ(loaded_from_json(j, 1, "x").skipped, l.skipped);
  nlohmann::json bad = fixture()["loaded"];
  bad["patterns"].erase("sm_pull");
  EXPECT_THROW(loaded_from_json(bad, 4, "x"), UsageError);
  EXPECT_THROW(loaded_from_json(fixture()["loaded"], 3, "x"), UsageError);  // 4x4 matrices, 3 GPUs
}

}  // namespace
}  // namespace arbench::topo
