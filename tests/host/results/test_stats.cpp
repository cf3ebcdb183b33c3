// Percentiles: linear interpolation between closest ranks (numpy's default).
#include <gtest/gtest.h>

#include "results/stats.hpp"

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
