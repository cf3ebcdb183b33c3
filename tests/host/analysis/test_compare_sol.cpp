// compare tracks `% of SOL` like a time (analysis/compare.hpp): the samples in units of each file's
// own floor go through the same rule. A case that fell further from an unchanged floor is a
// regression; one whose floor moved at all (the box's rates changed, or were probed anew) is
// reported, not counted unless --strict; files without floors compare as before.
#include <gtest/gtest.h>

#include "tests/host/analysis/compare_test_util.hpp"

namespace arbench {
namespace {

using nlohmann::json;
using namespace testing;

const std::string kCase = ar_name("oneshot-pull", 8, 65536), kOther = ar_name("ring", 8, 65536);

std::pair<ResultFile, ResultFile> pair_of(double base_us, std::optional<double> base_sol, double new_us,
                                          std::optional<double> new_sol) {
  const auto other = jittered(60, 0.01, 40, 2);
  const json base = make_result({{kCase, jittered(base_us, 0.01, 40, 1), true, {}, {}, base_sol}, {kOther, other}});
  const json next = make_result({{kCase, jittered(new_us, 0.01, 40, 3), true, {}, {}, new_sol}, {kOther, other}});
  return {as_file(base, "base.json"), as_file(next, "new.json")};
}

const CaseComparison& row_of(const CompareReport& rep, const std::string& name) {
  for (const auto& r : rep.rows)
    if (r.name == name) return r;
  throw std::runtime_error("no row " + name);
}

// The time the same (within the threshold), and % of SOL fell because the floor moved.
::testing::AssertionResult same_time_floor_moved(const CaseComparison& r) {
  if (r.result.verdict != Verdict::same) return ::testing::AssertionFailure() << "the time's verdict is not same";
  if (!r.sol) return ::testing::AssertionFailure() << "no % of SOL";
  if (!r.sol->fell() || !r.sol->floor_moved)
    return ::testing::AssertionFailure() << "fell " << r.sol->fell() << ", floor moved " << r.sol->floor_moved;
  return ::testing::AssertionSuccess();
}

TEST(CompareSol, FallingFurtherFromAnUnchangedFloorIsARegression) {
  const auto [base, next] = pair_of(10, 5.0, 12, 5.0);  // 50% of SOL -> 41.7%
  const CompareReport rep = compare_results(base, next, {});
  const CaseComparison& r = row_of(rep, kCase);
  ASSERT_TRUE(r.sol);
  EXPECT_TRUE(r.sol_fell());
  EXPECT_TRUE(r.sol->counted);
  EXPECT_FALSE(r.sol->floor_moved);
  EXPECT_NEAR(r.sol->base_pct, 50, 1);
  EXPECT_NEAR(r.sol->new_pct, 41.7, 1);
  EXPECT_EQ(rep.sol_compared, 1);
  EXPECT_EQ(rep.sol_falls, 1);
  EXPECT_EQ(compare_exit_code(rep), 1);
  const std::string text = format_compare(rep, ReportFormat::text);
  EXPECT_NE(text.find("slower, % of SOL fell"), std::string::npos) << text;
  EXPECT_NE(text.find("% of SOL (100 x floor / median): 1 case(s) with a floor in both, 1 fell:"), std::string::npos)
      << text;
  const json j = json::parse(format_compare(rep, ReportFormat::json));
  EXPECT_EQ(j["sol_falls"], 1);
  for (const auto& c : j["cases"])
    if (c["name"] == kCase) {
      EXPECT_TRUE(c["sol"]["fell"].get<bool>());
      EXPECT_EQ(c["sol"]["verdict"], "slower");
    } else {
      EXPECT_TRUE(c["sol"].is_null());
    }
}

TEST(CompareSol, AFloorThatMovedIsReportedNotCountedUnlessStrict) {
  // The same time; the box's rates rose, the floor fell from 5 to 3 us: 50% -> 30% of SOL.
  const auto [base, next] = pair_of(10, 5.0, 10, 3.0);
  const CompareReport rep = compare_results(base, next, {});
  const CaseComparison& r = row_of(rep, kCase);
  ASSERT_TRUE(same_time_floor_moved(r));
  EXPECT_FALSE(r.counted);
  EXPECT_NE(r.sol->not_counted.find("the floor moved"), std::string::npos);
  EXPECT_EQ(compare_exit_code(rep), 0);
  EXPECT_NE(format_compare(rep, ReportFormat::text).find("floor 5.00 -> 3.00 us (moved)"), std::string::npos);
  CompareOptions strict;
  strict.strict = true;
  EXPECT_EQ(compare_exit_code(compare_results(base, next, strict)), 1);
  CompareOptions cpu;
  cpu.correctness_only = true;  // CPU timings: a floor is a time too
  EXPECT_EQ(compare_exit_code(compare_results(base, next, cpu)), 0);
}

TEST(CompareSol, AFloorThatMovedWithinTheThresholdDoesNotGateATimeWithinIt) {
  // Time +4% (within the 5% threshold: same); the floor, probed anew, 4% lower: sample / floor
  // moves 8.3%, a fall, but only the probe's noise put it past the threshold.
  const auto [base, next] = pair_of(10, 5.0, 10.4, 4.8);
  const CompareReport rep = compare_results(base, next, {});
  const CaseComparison& r = row_of(rep, kCase);
  ASSERT_TRUE(same_time_floor_moved(r));
  EXPECT_FALSE(r.sol->counted);
  EXPECT_EQ(compare_exit_code(rep), 0);
  EXPECT_EQ(rep.not_counted, 1);
  EXPECT_NE(format_compare(rep, ReportFormat::text).find("% of SOL fell (not counted)"), std::string::npos);
}

TEST(CompareSol, UnchangedOrAbsentFloorsChangeNothing) {
  const auto [base, next] = pair_of(10, 5.0, 10, 5.0);
  const CompareReport same = compare_results(base, next, {});
  EXPECT_EQ(row_of(same, kCase).sol->result.verdict, Verdict::same);
  EXPECT_EQ(compare_exit_code(same), 0);
  const auto [old_base, new_next] = pair_of(10, std::nullopt, 10, 5.0);  // a baseline from before floors
  const CompareReport old = compare_results(old_base, new_next, {});
  EXPECT_FALSE(row_of(old, kCase).sol);
  EXPECT_EQ(old.sol_compared, 0);
  EXPECT_EQ(format_compare(old, ReportFormat::text).find("% of SOL"), std::string::npos);
}

}  // namespace
}  // namespace arbench
