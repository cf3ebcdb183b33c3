// Verdicts on synthetic samples: identical, shifted 10% either way, very noisy, and
// significant-but-tiny; plus the rule itself at its boundaries, and the run's drift figure.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "analysis/verdict/verdict.hpp"
#include "tests/host/results/synthetic_result.hpp"

namespace arbench {
namespace {

using testing::jittered;

const VerdictOptions kDefaults{};  // alpha 0.01, threshold 5%

TEST(Verdict, IdenticalSamplesAreSame) {
  const std::vector<double> s = jittered(20.0, 0.02, 50, 1);
  const SampleComparison c = compare_samples(s, s, kDefaults);
  EXPECT_EQ(c.verdict, Verdict::same);
  EXPECT_DOUBLE_EQ(c.ratio, 1.0);
  EXPECT_GT(c.p_value, 0.9);
}

TEST(Verdict, SameDistributionDifferentDrawsIsSame) {
  const SampleComparison c =
      compare_samples(jittered(20.0, 0.02, 50, 1), jittered(20.0, 0.02, 50, 2), kDefaults);
  EXPECT_EQ(c.verdict, Verdict::same);
}

TEST(Verdict, TenPercentSlowerIsSlower) {
  const SampleComparison c =
      compare_samples(jittered(20.0, 0.02, 50, 1), jittered(22.0, 0.02, 50, 2), kDefaults);
  EXPECT_EQ(c.verdict, Verdict::slower);
  EXPECT_NEAR(c.ratio, 1.10, 0.02);
  EXPECT_LT(c.p_value, 1e-6);
  EXPECT_TRUE(is_regression(c.verdict));
}

TEST(Verdict, TenPercentFasterIsFaster) {
  const SampleComparison c =
      compare_samples(jittered(20.0, 0.02, 50, 1), jittered(18.0, 0.02, 50, 2), kDefaults);
  EXPECT_EQ(c.verdict, Verdict::faster);
  EXPECT_FALSE(is_regression(c.verdict));
}

TEST(Verdict, VeryNoisyTenPercentShiftIsNoisy) {
  // Samples spread over +-50% of the median; the median moves 10% but the sets overlap heavily.
  std::vector<double> base, next;
  for (int i = 0; i <= 20; ++i) {
    base.push_back(50.0 + 5.0 * i);  // 50..150, median 100
    next.push_back(60.0 + 5.0 * i);  // 60..160, median 110
  }
  const SampleComparison c = compare_samples(base, next, kDefaults);
  EXPECT_NEAR(c.ratio, 1.10, 1e-12);
  EXPECT_GT(c.p_value, 0.01);
  EXPECT_EQ(c.verdict, Verdict::noisy);
  EXPECT_FALSE(is_regression(c.verdict));
}

TEST(Verdict, SignificantButBelowThresholdIsSame) {
  // 1% slower with almost no spread and many samples: real, but not material.
  const SampleComparison c =
      compare_samples(jittered(20.0, 0.001, 200, 1), jittered(20.2, 0.001, 200, 2), kDefaults);
  EXPECT_LT(c.p_value, 1e-10);
  EXPECT_EQ(c.verdict, Verdict::same);
}

TEST(Verdict, SingleSamplesCanNeverBeSignificant) {
  // One repetition per side (plain Google Benchmark JSON): a big change stays "noisy".
  const SampleComparison c =
      compare_samples(std::vector<double>{10}, std::vector<double>{20}, kDefaults);
  EXPECT_EQ(c.verdict, Verdict::noisy);
}

TEST(Verdict, MissingNewSamplesIsFailed) {
  const SampleComparison c = compare_samples(std::vector<double>{10}, {}, kDefaults);
  EXPECT_EQ(c.verdict, Verdict::failed);
  EXPECT_TRUE(is_regression(c.verdict));
}

TEST(Verdict, RuleBoundaries) {
  EXPECT_EQ(classify(1.05, 0.001, kDefaults), Verdict::slower);  // threshold is inclusive
  EXPECT_EQ(classify(1.049, 0.001, kDefaults), Verdict::same);
  EXPECT_EQ(classify(0.95, 0.001, kDefaults), Verdict::faster);
  EXPECT_EQ(classify(1.20, 0.01, kDefaults), Verdict::noisy);    // alpha is exclusive
  EXPECT_EQ(classify(1.20, 0.0099, kDefaults), Verdict::slower);
  const VerdictOptions loose{0.05, 0.20};
  EXPECT_EQ(classify(1.10, 0.001, loose), Verdict::same);
  EXPECT_EQ(classify(1.25, 0.04, loose), Verdict::slower);
}

TEST(Verdict, NamesRoundTrip) {
  for (Verdict v : {Verdict::failed, Verdict::slower, Verdict::noisy, Verdict::same,
                    Verdict::faster})
    EXPECT_EQ(parse_verdict(verdict_name(v)), v);
  EXPECT_FALSE(parse_verdict("better").has_value());
}

TEST(Verdict, Median) {
  EXPECT_DOUBLE_EQ(median_of(std::vector<double>{3, 1, 2}), 2);
  EXPECT_DOUBLE_EQ(median_of(std::vector<double>{4, 1, 3, 2}), 2.5);
  EXPECT_TRUE(std::isnan(median_of(std::vector<double>{})));
}

// The whole run's drift: the geometric mean of the ratios (not their arithmetic mean, 5 here),
// 1 without ratios, and the figure judge_run reports.
TEST(Verdict, GeometricMeanIsTheRunsDrift) {
  EXPECT_DOUBLE_EQ(geometric_mean(std::vector<double>{2, 8}), 4);
  EXPECT_NEAR(geometric_mean(std::vector<double>{1.1, 0.9, 1.0}), std::cbrt(1.1 * 0.9), 1e-12);
  EXPECT_DOUBLE_EQ(geometric_mean(std::vector<double>{}), 1);
  const std::vector<double> ratios{1.02, 1.06, 1.04, 1.03, 1.05, 1.04, 1.02, 1.06, 1.04, 1.04};
  EXPECT_DOUBLE_EQ(judge_run(ratios, {}).geomean_ratio, geometric_mean(ratios));
  EXPECT_NEAR(judge_run(ratios, {}).geomean_ratio, 1.04, 1e-3);
}

}  // namespace
}  // namespace arbench
