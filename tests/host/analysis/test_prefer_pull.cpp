// A result that records the doctor's "pull beats push on this box" (provenance.box_findings, from
// `arbench run --doctor`): tune and settings take oneshot-pull over oneshot-push where push is not
// significantly faster, and keep push where it is; without the finding, the fastest median wins.
#include <gtest/gtest.h>

#include "analysis/tune.hpp"
#include "analysis/tune_report.hpp"
#include "settings/findings.hpp"
#include "settings/measured.hpp"
#include "tests/host/results/synthetic_result.hpp"

namespace arbench {
namespace {

using testing::ar_name;

// At 1 KiB push and pull overlap (push's median a hair lower, nowhere near significant); at 64 KiB
// push is clearly faster. twoshot and nccl are slower everywhere.
nlohmann::json result(std::optional<bool> pull_beats_push) {
  std::vector<double> push_1k, pull_1k;
  for (int i = 0; i < 30; ++i) {
    push_1k.push_back(5.0 + 0.01 * i);
    pull_1k.push_back(5.0 + 0.01 * i + 0.001);
  }
  std::vector<testing::SynthCase> cases = {
      {ar_name("oneshot-push", 8, 1024), push_1k},
      {ar_name("oneshot-pull", 8, 1024), pull_1k},
      {ar_name("twoshot", 8, 1024), testing::jittered(9, 0.01, 30, 3)},
      {ar_name("nccl", 8, 1024), testing::jittered(20, 0.01, 30, 4)},
      {ar_name("oneshot-push", 8, 65536), testing::jittered(10, 0.01, 30, 5)},
      {ar_name("oneshot-pull", 8, 65536), testing::jittered(14, 0.01, 30, 6)},
      {ar_name("twoshot", 8, 65536), testing::jittered(16, 0.01, 30, 7)},
      {ar_name("nccl", 8, 65536), testing::jittered(30, 0.01, 30, 8)},
  };
  nlohmann::json j = testing::make_result(cases);
  if (pull_beats_push)
    j["arbench"]["provenance"]["box_findings"] = {{"source", "doctor.json"}, {"verdict", "slows"},
                                                  {"pull_beats_push", *pull_beats_push}};
  return j;
}

TEST(PreferPull, ResultFileReadsTheFinding) {
  EXPECT_EQ(parse_result_json(result(true), "r.json").pull_beats_push, true);
  EXPECT_EQ(parse_result_json(result(false), "r.json").pull_beats_push, false);
  EXPECT_EQ(parse_result_json(result(std::nullopt), "r.json").pull_beats_push, std::nullopt);
}

TEST(PreferPull, TuneTakesThePullTwinWherePushIsNotSignificantlyFaster) {
  const TuneReport plain = tune_results(parse_result_json(result(std::nullopt), "r.json"), 0.01);
  ASSERT_EQ(plain.tables.size(), 1u);
  EXPECT_EQ(plain.tables[0].points[0].best, "oneshot-push");
  EXPECT_FALSE(plain.tables[0].points[0].preferred_pull);

  const TuneReport rep = tune_results(parse_result_json(result(true), "r.json"), 0.01);
  EXPECT_TRUE(rep.prefer_pull);
  const TunePoint& small = rep.tables[0].points[0];
  EXPECT_EQ(small.best, "oneshot-pull");
  EXPECT_EQ(small.runner_up, "oneshot-push");
  EXPECT_TRUE(small.preferred_pull);
  EXPECT_LT(small.margin, 0);  // the push variant's median is the lower one
  const TunePoint& large = rep.tables[0].points[1];
  EXPECT_EQ(large.best, "oneshot-push");  // significantly faster: the measurement outranks the probe
  EXPECT_FALSE(large.preferred_pull);
  EXPECT_EQ(rep.tables[0].rules.front().variant, "oneshot-pull");
  const nlohmann::json table = dispatch_table_json(rep);
  EXPECT_EQ(table["tables"][0]["points"][0]["preferred"], "pull");
  EXPECT_FALSE(table["tables"][0]["points"][1].contains("preferred"));
  const std::string text = format_tune(rep, ReportFormat::text);
  EXPECT_NE(text.find("pull beats push on this box"), std::string::npos) << text;
  EXPECT_NE(text.find("oneshot-pull *"), std::string::npos) << text;
  // "pull beats push: false" changes nothing.
  EXPECT_EQ(tune_results(parse_result_json(result(false), "r.json"), 0.01).tables[0].points[0].best,
            "oneshot-push");
}

TEST(PreferPull, SettingsLetPullStandForOneShot) {
  for (const bool prefer : {false, true}) {
    const std::string path =
        testing::write_temp(result(prefer ? std::optional<bool>(true) : std::nullopt).dump(), "prefer_pull");
    const auto m = load_measured({path}, "bf16", std::nullopt);
    const Findings f = find_advantages(*m, 8, VerdictOptions{});
    ASSERT_EQ(f.custom.evidence.size(), 2u);
    EXPECT_EQ(f.custom.evidence[0].chosen, prefer ? "oneshot-pull" : "oneshot-push") << prefer;
    EXPECT_EQ(f.custom.evidence[1].chosen, "oneshot-push") << prefer;  // push beats pull at 64 KiB
    EXPECT_EQ(f.shots.evidence[0].chosen, prefer ? "oneshot-pull" : "oneshot-push") << prefer;
    std::filesystem::remove(path);
  }
}

}  // namespace
}  // namespace arbench
