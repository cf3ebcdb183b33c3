// The phase timeline in the outputs (bench/results/phase_report.hpp): the JSON `phases` object
// the writer's validator accepts (and a broken one it names), and the console breakdown.
#include <gtest/gtest.h>

#include <string>

#include "results/phase_report.hpp"
#include "results/report.hpp"
#include "tests/host/results/synthetic_result.hpp"
#include "tests/host/text_checks.hpp"

namespace arbench {
namespace {

using nlohmann::json;

PhaseTimeline small_timeline() {
  PhaseTimeline t;
  t.marks = {"entry", "exit"};
  t.buckets = {PhaseBucket::entry, PhaseBucket::reduce};
  t.clock = "steady_clock";
  t.resolution_ns = 20;
  t.ops = 5;
  t.span_us = 3.0000000004;
  t.op_us = 4;
  t.latency_us = 4;
  t.after_last_arrival_us = 2;
  t.breakdown = {1, 0, 0, 2, 0};
  t.ranks = {{0, {0, 3}, 0, {0, 3}}, {1, {1, 2.5}, 1, {1, 2.5}}};
  return t;
}

TEST(PhaseReport, JsonObjectNamesEveryFieldRoundedToTheNanosecond) {
  const json j = phases_to_json(small_timeline());
  EXPECT_EQ(j["span_us"], 3.0);
  EXPECT_EQ(j["mark_buckets"], json::array({"entry_skew", "reduce"}));
  EXPECT_EQ(j["breakdown_us"]["reduce"], 2.0);
  EXPECT_EQ(j["ranks"][1]["slowest_block"], 1);
  EXPECT_EQ(j["clocks_aligned"], true);
}

TEST(PhaseReport, TheValidatorChecksAPhasesObject) {
  json doc = testing::make_result({{testing::ar_name("oneshot-pull", 2, 1024), {5, 6, 7}}});
  auto& c = doc["arbench"]["cases"][0];
  c["skew_us"] = 0;
  c["phases"] = phases_to_json(small_timeline());
  EXPECT_EQ(validate_result_json(doc), std::vector<std::string>{});
  c["phases"].erase("span_us");
  c["skew_us"] = "2";
  const auto problems = validate_result_json(doc);
  ASSERT_EQ(problems.size(), 2u);
  EXPECT_NE(problems[0].find("'skew_us' is not a number"), std::string::npos) << problems[0];
  EXPECT_NE(problems[1].find("missing 'span_us'"), std::string::npos) << problems[1];
}

TEST(PhaseReport, ConsoleBreakdownOnlyForCasesWithATimeline) {
  CaseResult with, without;
  with.c = Case{"oneshot-pull", Family::allreduce, DType::bf16, 2, 1024};
  with.c.skew_us = 2;
  with.phases = small_timeline();
  without.c = Case{"oneshot-push", Family::allreduce, DType::bf16, 2, 1024};
  EXPECT_EQ(phase_breakdown_table({without}), "");
  const std::string text = phase_breakdown_table({with, without});
  test::expect_contains_all(text, {"phases: median of recorded ops, us",
                                   "entry = entry skew, wait = wait for peers, reduce = reduce+store, exit = exit skew",
                                   "allreduce/oneshot-pull/bf16/gpus:2/bytes:1024/skew:2",
                                   "skew:2     4.00       2.00     1.00     0.00     0.00     2.00     0.00\n"});
  EXPECT_EQ(text.find("oneshot-push"), std::string::npos) << text;
}

}  // namespace
}  // namespace arbench
