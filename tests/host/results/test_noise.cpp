// The order-statistic confidence interval of the median (the noise adaptive sampling and
// compare use): ranks from the exact binomial, bounds, coverage and relative width.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "results/stats/noise.hpp"

using namespace arbench;

TEST(MedianInterval, RanksFromTheExactBinomial) {
  // Fewer than 6 samples cannot cover the median with 95%: even [min, max] misses it with 2/2^n.
  for (int n = 0; n <= 5; ++n) EXPECT_EQ(median_interval_rank(n, 0.95), 0) << n;
  EXPECT_EQ(median_interval_rank(6, 0.95), 1);    // [x1, x6]: 1 - 2/64 = 96.9%
  EXPECT_EQ(median_interval_rank(10, 0.95), 2);   // [x2, x9]: 1 - 2*11/1024 = 97.9%
  EXPECT_EQ(median_interval_rank(50, 0.95), 18);  // [x18, x33], the textbook table's ranks
  EXPECT_EQ(median_interval_rank(100, 0.95), 40); // [x40, x61]
  EXPECT_EQ(median_interval_rank(10, 0.50), 4);   // a narrower interval for a lower confidence
}

TEST(MedianInterval, BoundsCoverageAndNoise) {
  std::vector<double> s;
  for (int i = 10; i >= 1; --i) s.push_back(100 + i);  // 101..110, unsorted
  const MedianInterval ci = median_interval(s);
  ASSERT_TRUE(ci.known);
  EXPECT_DOUBLE_EQ(ci.lower, 102);  // x_(2)
  EXPECT_DOUBLE_EQ(ci.upper, 109);  // x_(9)
  EXPECT_DOUBLE_EQ(ci.median, 105.5);
  EXPECT_NEAR(ci.confidence, 1 - 2.0 * 11 / 1024, 1e-12);
  EXPECT_NEAR(ci.noise, 7 / 105.5, 1e-12);
}

TEST(MedianInterval, TooFewSamplesIsUnknown) {
  const MedianInterval ci = median_interval(std::vector<double>{1, 2, 3, 4, 5});
  EXPECT_FALSE(ci.known);
  EXPECT_DOUBLE_EQ(ci.median, 3);
  EXPECT_FALSE(median_interval(std::vector<double>{}).known);
}

TEST(MedianInterval, NarrowsAsSamplesGrow) {
  // Same spread, more samples: the interval of the median shrinks roughly like 1/sqrt(n).
  auto uniform = [](int n) {
    std::vector<double> v;
    for (int i = 0; i < n; ++i) v.push_back(100 + 10.0 * (i + 0.5) / n);
    return v;
  };
  const double n100 = median_interval(uniform(100)).noise, n400 = median_interval(uniform(400)).noise;
  EXPECT_LT(n400, n100 * 0.6);
  EXPECT_GT(n400, n100 * 0.4);
}
