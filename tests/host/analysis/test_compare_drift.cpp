// The run-level verdict: a drift every case shares fails the gate even when no case moves by
// the threshold (+4% on 100 cases under a 5% threshold) or every case is too noisy to call
// (+30%, 4 samples a side); a run against itself, and per-case noise without a shift, pass.
// The bootstrap interval is deterministic, the rule's edges are where docs/regression.md says,
// and a run-level slower is counted like a case's (not under correctness_only).
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "tests/host/analysis/compare_test_util.hpp"
#include "tests/host/text_checks.hpp"

namespace arbench {
namespace {

using nlohmann::json;
using namespace testing;  // the synthetic results

// `count` cases (distinct sizes, medians 20..20+count us); NEW's case i is BASE's scaled by
// factor(i). spread and samples set each case's jitter and sample count (same on both sides).
struct Drift {
  int count = 100;
  double spread = 0.01;
  int samples = 40;
};

template <class Factor>
std::pair<ResultFile, ResultFile> drifted(const Drift& d, Factor factor) {
  std::vector<SynthCase> base, next;
  for (int i = 0; i < d.count; ++i) {
    const std::string name = ar_name("nccl", 8, 1024ull * std::uint64_t(i + 1));
    const double center = 20 + i;
    base.push_back({name, jittered(center, d.spread, d.samples, unsigned(i + 1))});
    next.push_back({name, jittered(center * factor(i), d.spread, d.samples, unsigned(i + 5000))});
  }
  return {as_file(make_result(base), "base.json"), as_file(make_result(next), "new.json")};
}

int count_verdict(const CompareReport& rep, Verdict v) {
  int n = 0;
  for (const CaseComparison& r : rep.rows) n += r.result.verdict == v ? 1 : 0;
  return n;
}

TEST(CompareDrift, UniformFourPercentOnEveryCaseFailsTheGate) {
  const auto [base, next] = drifted({}, [](int) { return 1.04; });
  const CompareReport rep = compare_results(base, next, {});
  EXPECT_EQ(count_verdict(rep, Verdict::same), 100);  // each case alone: under the 5% threshold
  EXPECT_EQ(rep.regressions, 0);
  ASSERT_TRUE(rep.run.result.judged);
  EXPECT_EQ(rep.run.result.verdict, Verdict::slower);
  EXPECT_NEAR(rep.run.result.geomean_ratio, 1.04, 0.003);
  EXPECT_DOUBLE_EQ(rep.geomean_ratio, rep.run.result.geomean_ratio);  // one figure: no case left out
  EXPECT_GT(rep.run.result.ci_lower, 1.025);
  EXPECT_LT(rep.run.result.ci_upper, 1.05);
  EXPECT_DOUBLE_EQ(rep.run.threshold, 0.025);  // half of the per-case threshold
  EXPECT_TRUE(rep.run.counted);
  EXPECT_EQ(compare_exit_code(rep), 1);
  const std::string text = format_compare(rep, ReportFormat::text);
  test::expect_contains_all(text, {"whole run: slower: geometric mean +4.0% over 100 case(s) (99% CI +",
                                   "the interval lies above the run threshold +2.5%: a regression (fails the gate)",
                                   "no regression in 100 compared case(s)",
                                   "\nthe whole run is slower: a regression\n"});
  const json j = json::parse(format_compare(rep, ReportFormat::json));
  EXPECT_EQ(j["run"]["verdict"], "slower");
  EXPECT_EQ(j["run"]["counted"], true);
  EXPECT_EQ(j["run"]["cases"], 100);
  EXPECT_GT(j["run"]["ci_lower"].get<double>(), 1.025);
  EXPECT_EQ(j["gate"], "fail");
}

TEST(CompareDrift, ThirtyPercentOnNoisyCasesFailsTheGate) {
  // 4 samples a side: the exact U test's smallest two-sided p is 2/70 > alpha, so no case can be
  // significant; a 10% spread keeps every ratio above 1.05, so every case is `noisy`.
  const auto [base, next] = drifted({100, 0.10, 4}, [](int) { return 1.30; });
  const CompareReport rep = compare_results(base, next, {});
  EXPECT_EQ(count_verdict(rep, Verdict::noisy), 100);
  EXPECT_EQ(rep.regressions, 0);
  EXPECT_EQ(rep.run.result.verdict, Verdict::slower);
  EXPECT_GT(rep.run.result.ci_lower, 1.2);
  EXPECT_EQ(compare_exit_code(rep), 1);
}

TEST(CompareDrift, ARunAgainstItselfPasses) {
  const auto [base, next] = drifted({}, [](int) { return 1.0; });
  const CompareReport rep = compare_results(base, base, {});
  EXPECT_EQ(rep.run.result.verdict, Verdict::same);
  EXPECT_DOUBLE_EQ(rep.run.result.ci_lower, 1.0);
  EXPECT_DOUBLE_EQ(rep.run.result.ci_upper, 1.0);
  EXPECT_EQ(compare_exit_code(rep), 0);
}

TEST(CompareDrift, PerCaseNoiseWithoutAShiftPasses) {
  std::mt19937 gen(11);
  std::vector<double> factors;
  for (int i = 0; i < 100; ++i) factors.push_back(0.96 + 0.08 * (double(gen()) / 4294967296.0));
  const auto [base, next] = drifted({100, 0.02, 40}, [&](int i) { return factors[std::size_t(i)]; });
  const CompareReport rep = compare_results(base, next, {});
  EXPECT_EQ(rep.regressions, 0);
  EXPECT_EQ(rep.run.result.verdict, Verdict::same);
  EXPECT_LT(rep.run.result.ci_lower, 1.0);  // the interval holds "no change"
  EXPECT_GT(rep.run.result.ci_upper, 1.0);
  EXPECT_EQ(compare_exit_code(rep), 0);
}

TEST(CompareDrift, UniformSpeedupIsFasterAndPasses) {
  const auto [base, next] = drifted({}, [](int) { return 0.96; });
  const CompareReport rep = compare_results(base, next, {});
  EXPECT_EQ(rep.run.result.verdict, Verdict::faster);
  EXPECT_EQ(compare_exit_code(rep), 0);
  EXPECT_NE(format_compare(rep, ReportFormat::text).find("(informational)"), std::string::npos);
}

TEST(CompareDrift, CorrectnessOnlyReportsButDoesNotGate) {
  const auto [base, next] = drifted({}, [](int) { return 1.04; });
  CompareOptions opt;
  opt.correctness_only = true;
  const CompareReport rep = compare_results(base, next, opt);
  EXPECT_EQ(rep.run.result.verdict, Verdict::slower);
  EXPECT_FALSE(rep.run.counted);
  EXPECT_EQ(rep.run.not_counted, "timings not gated (correctness only)");
  EXPECT_EQ(compare_exit_code(rep), 0);
}

TEST(CompareDrift, RunThresholdMovesTheBar) {
  const auto [base, next] = drifted({}, [](int) { return 1.04; });
  CompareOptions opt;
  opt.run_threshold = 0.05;  // +4% is under it: not even noisy
  EXPECT_EQ(compare_results(base, next, opt).run.result.verdict, Verdict::same);
  opt.run_threshold = -1;
  opt.verdict.threshold = 0.25;  // the CPU nightly's: the default bar is 12.5%
  EXPECT_DOUBLE_EQ(run_threshold(opt), 0.125);
  EXPECT_EQ(compare_exit_code(compare_results(base, next, opt)), 0);
}

TEST(CompareDrift, TooFewCasesGiveNoRunVerdict) {
  const auto [base, next] = drifted({9, 0.10, 4}, [](int) { return 1.30; });
  const CompareReport rep = compare_results(base, next, {});
  EXPECT_FALSE(rep.run.result.judged);
  EXPECT_EQ(compare_exit_code(rep), 0);  // 9 noisy cases: nothing counts
  EXPECT_NE(rep.run.reason.find("9 case(s) to judge, a run-level verdict needs at least 10"), std::string::npos);
  const json j = json::parse(format_compare(rep, ReportFormat::json));
  EXPECT_TRUE(j["run"]["verdict"].is_null());
  EXPECT_TRUE(j["run"]["ci_lower"].is_null());
}

TEST(RunVerdictRule, EdgesAndDeterminism) {
  EXPECT_EQ(classify_run(1.04, 1.025, 1.05, 0.025), Verdict::slower);  // the bar itself counts
  EXPECT_EQ(classify_run(1.04, 1.024, 1.05, 0.025), Verdict::noisy);
  EXPECT_EQ(classify_run(0.96, 0.95, 0.975, 0.025), Verdict::faster);
  EXPECT_EQ(classify_run(1.02, 1.01, 1.03, 0.025), Verdict::same);
  std::vector<double> ratios;
  std::mt19937 gen(3);
  for (int i = 0; i < 50; ++i) ratios.push_back(std::exp(0.05 * (double(gen()) / 4294967296.0 - 0.5)));
  const RunVerdict a = judge_run(ratios, {}), b = judge_run(ratios, {});
  EXPECT_EQ(a.ci_lower, b.ci_lower);
  EXPECT_EQ(a.ci_upper, b.ci_upper);
  EXPECT_LT(a.ci_lower, a.geomean_ratio);
  EXPECT_GT(a.ci_upper, a.geomean_ratio);
  // The 99% interval of a mean of 50 values of spread sd ~1.4%: about +-0.5% wide a side; a
  // bootstrap that drew no variety (or a fixed index) would give a zero width.
  EXPECT_GT(a.ci_upper - a.ci_lower, 0.004);
  EXPECT_LT(a.ci_upper - a.ci_lower, 0.02);
}

}  // namespace
}  // namespace arbench
