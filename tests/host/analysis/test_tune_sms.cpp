// The SMs each case takes (JSON `sms`, docs/output.md) in tune and compare: tune gives a tie within
// the noise (not significantly different, the medians' 95% intervals overlapping) to the variant
// that takes fewer SMs and says why; a variant clearly slower, or of unknown SMs, or a tie with too
// few samples to know its noise, changes nothing. `ce-ring` (a copy-engine variant: its reduce
// kernel's few SMs) need not be in the registry here: tune_results with no filter lets every
// variant compete. compare carries both files' SMs and names the cases whose SMs changed.
#include <gtest/gtest.h>

#include "analysis/compare.hpp"
#include "analysis/compare_report.hpp"
#include "analysis/tune.hpp"
#include "analysis/tune_report.hpp"
#include "tests/host/results/synthetic_result.hpp"

namespace arbench {
namespace {

using nlohmann::json;
using testing::ar_name;

constexpr std::uint64_t k1M = 1u << 20, k32M = 32u << 20;

// At 32 MiB ce-ring ties oneshot-pull (a hair slower, its samples interleaved with the fastest's);
// at 1 MiB ce-ring is clearly slower. twoshot is slower everywhere.
json fixture(bool with_sms, int samples = 30) {
  std::vector<double> pull, ce;
  for (int i = 0; i < samples; ++i) {
    pull.push_back(100.0 + 0.01 * i);
    ce.push_back(100.0 + 0.01 * i + 0.001);
  }
  json j = testing::make_result({
      {ar_name("oneshot-pull", 8, k32M), pull},
      {ar_name("ce-ring", 8, k32M), ce},
      {ar_name("twoshot", 8, k32M), testing::jittered(130, 0.01, samples, 3)},
      {ar_name("oneshot-pull", 8, k1M), testing::jittered(20, 0.01, samples, 4)},
      {ar_name("ce-ring", 8, k1M), testing::jittered(40, 0.01, samples, 5)},
  });
  if (with_sms)
    for (json& c : j["arbench"]["cases"]) c["sms"] = c["variant"] == "ce-ring" ? 2 : 64;
  return j;
}

const TunePoint& point(const TuneReport& rep, std::uint64_t size) {
  for (const TunePoint& p : rep.tables.at(0).points)
    if (p.size == size) return p;
  throw std::runtime_error("no point at " + std::to_string(size));
}

TEST(TuneSms, ATieWithinTheNoiseGoesToFewerSmsAndSaysWhy) {
  const TuneReport rep = tune_results(parse_result_json(fixture(true), "r.json"), 0.01);
  const TunePoint& big = point(rep, k32M);
  EXPECT_EQ(big.best, "ce-ring");
  EXPECT_EQ(big.runner_up, "oneshot-pull");
  EXPECT_TRUE(big.preferred_fewer_sms);
  EXPECT_FALSE(big.significant);
  EXPECT_LT(big.margin, 0);  // the fastest median was oneshot-pull's
  EXPECT_EQ(big.best_sms, 2);
  EXPECT_EQ(big.runner_up_sms, 64);
  const TunePoint& small = point(rep, k1M);  // clearly slower: the fastest stays
  EXPECT_EQ(small.best, "oneshot-pull");
  EXPECT_FALSE(small.preferred_fewer_sms);
  // The dispatch table follows the choice: ce-ring from 32 MiB up.
  ASSERT_EQ(rep.tables[0].rules.size(), 2u);
  EXPECT_EQ(rep.tables[0].rules[1].variant, "ce-ring");

  const std::string text = format_tune(rep, ReportFormat::text);
  EXPECT_NE(text.find("ce-ring +"), std::string::npos) << text;
  EXPECT_NE(text.find("+ 32 MiB: ce-ring (2 SMs) ties oneshot-pull (64 SMs) within the noise"), std::string::npos) << text;
  EXPECT_NE(text.find("a tie goes to fewer SMs"), std::string::npos) << text;
  const json tj = json::parse(format_tune(rep, ReportFormat::json));
  const json& jp = tj["tables"][0]["points"][1];
  EXPECT_EQ(jp["best"], "ce-ring");
  EXPECT_EQ(jp["preferred"], "fewer_sms");
  EXPECT_EQ(jp["best_sms"], 2);
  EXPECT_EQ(jp["runner_up_sms"], 64);
}

TEST(TuneSms, UnknownSmsOrUnknownNoiseTieNothing) {
  const TuneReport none = tune_results(parse_result_json(fixture(false), "r.json"), 0.01);
  EXPECT_EQ(point(none, k32M).best, "oneshot-pull");
  EXPECT_FALSE(point(none, k32M).preferred_fewer_sms);
  EXPECT_EQ(format_tune(none, ReportFormat::text).find("fewer SMs"), std::string::npos);
  // 4 samples each: no 95% interval of the median, so no noise to tie within.
  const TuneReport few = tune_results(parse_result_json(fixture(true, 4), "r.json"), 0.01);
  EXPECT_EQ(point(few, k32M).best, "oneshot-pull");
  EXPECT_EQ(point(few, k32M).best_sms, 64);
}

TEST(CompareSms, CarriesBothFilesSmsAndNamesTheCasesWhoseSmsChanged) {
  json base = fixture(true), next = fixture(true);
  for (json& c : next["arbench"]["cases"])
    if (c["variant"] == "oneshot-pull" && c["bytes"] == k32M) c["sms"] = 32;
  const CompareReport rep = compare_results(parse_result_json(base, "base.json"), parse_result_json(next, "new.json"), {});
  int changed = 0;
  for (const CaseComparison& r : rep.rows) {
    ASSERT_TRUE(r.base_sms && r.new_sms) << r.name;
    changed += r.sms_changed();
  }
  EXPECT_EQ(changed, 1);
  const std::string text = format_compare(rep, ReportFormat::text);
  EXPECT_NE(text.find("SMs taken changed"), std::string::npos) << text;
  EXPECT_NE(text.find(ar_name("oneshot-pull", 8, k32M) + ": 64 -> 32 SMs"), std::string::npos) << text;
  const json j = json::parse(format_compare(rep, ReportFormat::json));
  bool seen = false;
  for (const json& r : j["cases"])
    if (r["name"] == ar_name("oneshot-pull", 8, k32M)) seen = r["base_sms"] == 64 && r["new_sms"] == 32;
  EXPECT_TRUE(seen) << j.dump();
}

}  // namespace
}  // namespace arbench
