// Percentiles: linear interpolation between closest ranks (numpy's default).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "results/stats/stats.hpp"

using namespace arbench;

TEST(Stats, PercentilesMatchNumpy) {
  // numpy.percentile([1..10], [10, 50, 90, 99]) = 1.9, 5.5, 9.1, 9.91
  std::vector<double> v = {10, 2, 3, 4, 5, 6, 7, 8, 9, 1};
  EXPECT_NEAR(percentile(v, 0.10), 1.9, 1e-12);
  EXPECT_NEAR(percentile(v, 0.50), 5.5, 1e-12);
  EXPECT_NEAR(percentile(v, 0.90), 9.1, 1e-12);
  EXPECT_NEAR(percentile(v, 0.99), 9.91, 1e-12);
  EXPECT_DOUBLE_EQ(percentile(v, 0.0), 1);
  EXPECT_DOUBLE_EQ(percentile(v, 1.0), 10);
}

TEST(Stats, EdgeCases) {
  EXPECT_DOUBLE_EQ(percentile({}, 0.5), 0.0);
  EXPECT_DOUBLE_EQ(percentile({7}, 0.99), 7.0);
  Summary s = summarize({3, 1, 2});
  EXPECT_EQ(s.count, 3);
  EXPECT_DOUBLE_EQ(s.median, 2);
  EXPECT_DOUBLE_EQ(s.min, 1);
  EXPECT_DOUBLE_EQ(s.max, 3);
}

namespace {

// docs/method.md, "Two regimes": percentiles interpolate linearly between the closest ranks
// (numpy's default): sorted x[0..n-1], position q*(n-1), x[floor] + frac * (x[floor+1] - x[floor]).
// Written out again here, independently of percentile(), so summarize() is checked against the
// definition, not against itself.
double by_definition(std::vector<double> x, double q) {
  std::sort(x.begin(), x.end());
  const double pos = q * double(x.size() - 1);
  const double below = std::floor(pos);
  const std::size_t i = std::size_t(below);
  if (i + 1 >= x.size()) return x.back();
  return x[i] * (1 - (pos - below)) + x[i + 1] * (pos - below);
}

}  // namespace

// Each figure of summarize(), worked by hand: 11 values, so position q*10 is exact for p10, p50,
// p90 (ranks 1, 5, 9) and p99 falls between ranks 9 and 10 (position 9.9).
TEST(Stats, SummarizeFiguresByHand) {
  const std::vector<double> v = {50, 10, 40, 0, 30, 20, 100, 70, 60, 80, 90};  // sorted: 0,10,...,100
  const Summary s = summarize(v);
  EXPECT_EQ(s.count, 11);
  EXPECT_DOUBLE_EQ(s.min, 0);
  EXPECT_DOUBLE_EQ(s.max, 100);
  EXPECT_DOUBLE_EQ(s.p10, 10);
  EXPECT_DOUBLE_EQ(s.median, 50);
  EXPECT_DOUBLE_EQ(s.p90, 90);
  EXPECT_NEAR(s.p99, 99, 1e-9);  // 90 + 0.9 * (100 - 90)
  // 4 values, uneven gaps: p10 at position 0.3 -> 1 + 0.3 * 2; p90 at 2.7 -> 7 + 0.7 * 8.
  const Summary t = summarize({15, 1, 7, 3});
  EXPECT_NEAR(t.p10, 1.6, 1e-12);
  EXPECT_NEAR(t.median, 5, 1e-12);
  EXPECT_NEAR(t.p90, 12.6, 1e-12);
  EXPECT_NEAR(t.p99, 7 + 0.97 * 8, 1e-12);
}

// Random lengths and values (heavy right tail, as latencies have), against the definition.
TEST(Stats, SummarizeMatchesTheDefinitionOnRandomSamples) {
  std::mt19937_64 rng(25);
  std::lognormal_distribution<double> latency(3.0, 0.8);
  for (int n : {2, 3, 7, 10, 50, 101, 1000}) {
    std::vector<double> v(static_cast<std::size_t>(n));
    for (double& x : v) x = latency(rng);
    const Summary s = summarize(v);
    const double tol = 1e-9 * by_definition(v, 1.0);
    EXPECT_NEAR(s.p10, by_definition(v, 0.10), tol) << n;
    EXPECT_NEAR(s.median, by_definition(v, 0.50), tol) << n;
    EXPECT_NEAR(s.p90, by_definition(v, 0.90), tol) << n;
    EXPECT_NEAR(s.p99, by_definition(v, 0.99), tol) << n;
    EXPECT_DOUBLE_EQ(s.min, by_definition(v, 0.0)) << n;
    EXPECT_DOUBLE_EQ(s.max, by_definition(v, 1.0)) << n;
    EXPECT_LE(s.p10, s.median);
    EXPECT_LE(s.median, s.p90);
    EXPECT_LE(s.p90, s.p99);
  }
}
