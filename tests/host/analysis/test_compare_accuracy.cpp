// compare tracks a lossy variant's error figures like a time (analysis/accuracy.hpp): on a planted
// result pair whose FP8 case's error rose beyond the threshold, the case is a regression and the
// gate fails (exit 1) — with identical timings, under --correctness-only, and whatever the device
// state; a rise within the threshold, or a fall, passes; a figure one file lacks is said, not
// judged; the text, markdown and JSON reports show both figures.
#include <gtest/gtest.h>

#include "tests/host/analysis/compare_test_util.hpp"

namespace arbench {
namespace {

using nlohmann::json;
using namespace testing;  // the synthetic results

const std::string kFp8 = ar_name("twoshot-fp8", 8, 1 << 20), kExact = ar_name("twoshot", 8, 1 << 20);

// BASE and NEW with the same samples; the FP8 case's figures are the arguments.
std::pair<ResultFile, ResultFile> pair_of(std::optional<double> base_abs, std::optional<double> base_rms,
                                          std::optional<double> new_abs, std::optional<double> new_rms) {
  const auto fp8 = jittered(40, 0.01, 40, 1), exact = jittered(60, 0.01, 40, 2);
  const json base = make_result({{kFp8, fp8, true, base_abs, base_rms}, {kExact, exact}});
  const json next = make_result({{kFp8, fp8, true, new_abs, new_rms}, {kExact, exact}});
  return {as_file(base, "base.json"), as_file(next, "new.json")};
}

const CaseComparison& row_of(const CompareReport& rep, const std::string& name) {
  for (const auto& r : rep.rows)
    if (r.name == name) return r;
  throw std::runtime_error("no row " + name);
}

TEST(CompareAccuracy, RisingErrorIsARegression) {
  const auto [base, next] = pair_of(0.0625, 0.0091, 0.125, 0.0182);  // a planted wrong scale: x2
  for (const bool correctness_only : {false, true}) {
    CompareOptions opt;
    opt.correctness_only = correctness_only;
    const CompareReport rep = compare_results(base, next, opt);
    const CaseComparison& r = row_of(rep, kFp8);
    EXPECT_EQ(r.result.verdict, Verdict::same);  // the times did not move
    ASSERT_TRUE(r.accuracy);
    EXPECT_TRUE(r.error_rose());
    EXPECT_TRUE(r.counted);
    EXPECT_EQ(rep.error_rises, 1);
    EXPECT_EQ(rep.error_compared, 1);
    EXPECT_EQ(rep.regressions, 1);
    EXPECT_EQ(compare_exit_code(rep), 1) << "correctness_only " << correctness_only;
    EXPECT_EQ(rep.rows.front().name, kFp8);  // worst first
    EXPECT_FALSE(row_of(rep, kExact).accuracy);  // exact variants have no figures to compare
  }
  const CompareReport rep = compare_results(base, next, {});
  const std::string text = format_compare(rep, ReportFormat::text);
  EXPECT_NE(text.find("same, error rose"), std::string::npos) << text;
  EXPECT_NE(text.find("Error figures of lossy variants: 1 case(s) compared, 1 rose beyond the threshold +5.0% "
                      "(regressions):"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("rms_rel_err 0.91% -> 1.82% (+100%) (rose)"), std::string::npos) << text;
  EXPECT_NE(text.find("max_abs_err 0.0625 -> 0.125 (+100%) (rose)"), std::string::npos) << text;
  EXPECT_NE(text.find("1 regression(s) (1 with a rising error)"), std::string::npos) << text;
  const std::string md = format_compare(rep, ReportFormat::markdown);
  EXPECT_NE(md.find("- `" + kFp8 + "`: error rose"), std::string::npos) << md;
  const json j = json::parse(format_compare(rep, ReportFormat::json));
  EXPECT_EQ(j["gate"], "fail");
  EXPECT_EQ(j["error_rises"], 1);
  for (const json& c : j["cases"]) {
    if (c["name"] == kExact) {
      EXPECT_TRUE(c["accuracy"].is_null());
      continue;
    }
    EXPECT_EQ(c["accuracy"]["rose"], true);
    EXPECT_EQ(c["accuracy"]["rms_rel_err"]["base"], 0.0091);
    EXPECT_EQ(c["accuracy"]["rms_rel_err"]["new"], 0.0182);
    EXPECT_EQ(c["accuracy"]["max_abs_err"]["rose"], true);
    EXPECT_TRUE(c["counted"]);
  }
}

TEST(CompareAccuracy, EitherFigureRisingCounts) {
  const auto [base, next] = pair_of(0.0625, 0.0091, 0.0625, 0.0100);  // rms +9.9%, max the same
  const CompareReport rep = compare_results(base, next, {});
  EXPECT_TRUE(row_of(rep, kFp8).error_rose());
  EXPECT_EQ(compare_exit_code(rep), 1);
}

TEST(CompareAccuracy, WithinTheThresholdOrFallingPasses) {
  for (const auto& [abs, rms] : {std::pair{0.0640, 0.0095},   // +2.4%, +4.4%: within 5%
                                 std::pair{0.0312, 0.0045}}) {  // better
    const auto [base, next] = pair_of(0.0625, 0.0091, abs, rms);
    const CompareReport rep = compare_results(base, next, {});
    EXPECT_FALSE(row_of(rep, kFp8).error_rose()) << abs;
    EXPECT_EQ(rep.error_rises, 0);
    EXPECT_EQ(compare_exit_code(rep), 0) << format_compare(rep, ReportFormat::text);
    EXPECT_NE(format_compare(rep, ReportFormat::text).find("1 case(s) compared, 0 rose"), std::string::npos);
  }
  // The bar is compare's threshold: +4.4% fails a 2% threshold.
  const auto [base, next] = pair_of(0.0625, 0.0091, 0.0640, 0.0095);
  CompareOptions tight;
  tight.verdict.threshold = 0.02;
  EXPECT_EQ(compare_exit_code(compare_results(base, next, tight)), 1);
}

TEST(CompareAccuracy, FromExactAnyErrorIsARise) {
  EXPECT_TRUE(error_rose(0, 1e-9, 0.05));
  EXPECT_FALSE(error_rose(0, 0, 0.05));
  EXPECT_FALSE(error_rose(0.01, 0.0105, 0.05));
  EXPECT_TRUE(error_rose(0.01, 0.0106, 0.05));
  const auto [base, next] = pair_of(0.0, 0.0, 0.0, 0.001);
  const CompareReport rep = compare_results(base, next, {});
  EXPECT_EQ(compare_exit_code(rep), 1);
  EXPECT_NE(format_compare(rep, ReportFormat::text).find("rms_rel_err 0% -> 0.1% (was exact) (rose)"),
            std::string::npos)
      << format_compare(rep, ReportFormat::text);
}

TEST(CompareAccuracy, AFigureOneFileLacksIsSaidNotJudged) {
  const auto [base, next] = pair_of(0.0625, 0.0091, std::nullopt, std::nullopt);  // NEW ran --no-check
  const CompareReport rep = compare_results(base, next, {});
  const CaseComparison& r = row_of(rep, kFp8);
  ASSERT_TRUE(r.accuracy);
  EXPECT_FALSE(r.error_rose());
  EXPECT_EQ(compare_exit_code(rep), 0);
  const std::string text = format_compare(rep, ReportFormat::text);
  EXPECT_NE(text.find(kFp8 + ": not judged"), std::string::npos) << text;
  EXPECT_NE(text.find("max_abs_err not in NEW; rms_rel_err not in NEW (not judged: a run with --no-check"),
            std::string::npos)
      << text;
}

}  // namespace
}  // namespace arbench
