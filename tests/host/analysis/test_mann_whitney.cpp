// Mann-Whitney U against textbook values. Reference p-values were computed independently with
// scipy.stats.mannwhitneyu (method="exact", or "asymptotic" with use_continuity=True, which is
// the tie-corrected normal approximation); critical values are from the standard U table.
#include <gtest/gtest.h>

#include <vector>

#include "analysis/verdict/mann_whitney.hpp"

namespace arbench {
namespace {

TEST(MannWhitney, TortoiseAndHareExact) {
  // Finishing order T H H H H H T T T T T H (the classic race example): U_T = 25, U_H = 11.
  const std::vector<double> t = {1, 7, 8, 9, 10, 11}, h = {2, 3, 4, 5, 6, 12};
  const MannWhitneyResult r = mann_whitney_u(t, h);
  EXPECT_DOUBLE_EQ(r.u_a, 25);
  EXPECT_DOUBLE_EQ(r.u_b, 11);
  EXPECT_TRUE(r.exact);
  EXPECT_NEAR(r.p_value, 0.30952380952380953, 1e-12);
}

TEST(MannWhitney, CompleteSeparationIsTwoOverChoose12Of6) {
  const std::vector<double> a = {1, 2, 3, 4, 5, 6}, b = {6.5, 7, 8, 9, 10, 11};
  const MannWhitneyResult r = mann_whitney_u(a, b);
  EXPECT_DOUBLE_EQ(r.u_a, 0);
  EXPECT_NEAR(r.p_value, 2.0 / 924.0, 1e-12);
}

TEST(MannWhitney, CriticalValuesForSixAndSix) {
  // Table: n1 = n2 = 6, two-sided alpha = 0.01 rejects U <= 2; alpha = 0.05 rejects U <= 5.
  const std::vector<double> b = {6, 7, 8, 10, 11, 12};
  const MannWhitneyResult u2 = mann_whitney_u(std::vector<double>{1, 2, 3, 4, 5, 9}, b);
  EXPECT_DOUBLE_EQ(u2.u_a, 3);
  EXPECT_NEAR(u2.p_value, 0.015151515151515152, 1e-12);
  EXPECT_GT(u2.p_value, 0.01);
  const MannWhitneyResult u1 = mann_whitney_u(std::vector<double>{1, 2, 3, 4, 5, 8},
                                              std::vector<double>{6, 7, 9, 10, 11, 12});
  EXPECT_DOUBLE_EQ(u1.u_a, 2);
  EXPECT_NEAR(u1.p_value, 0.008658008658008658, 1e-12);
  EXPECT_LT(u1.p_value, 0.01);
}

TEST(MannWhitney, TiesUseCorrectedNormalApproximation) {
  // Hollander & Wolfe's depression-scale data (also R's wilcox.test example): 1.06 and 1.29 tie.
  const std::vector<double> x = {1.83, 0.50, 1.62, 2.48, 1.68, 1.88, 1.55, 3.06, 1.30};
  const std::vector<double> y = {0.878, 0.647, 0.598, 2.05, 1.06, 1.29, 1.06, 3.14, 1.29};
  const MannWhitneyResult r = mann_whitney_u(x, y);
  EXPECT_TRUE(r.has_ties);
  EXPECT_FALSE(r.exact);
  EXPECT_DOUBLE_EQ(r.u_a, 58);
  EXPECT_NEAR(r.p_value, 0.13291945818531892, 1e-9);
}

TEST(MannWhitney, TiesAcrossSamples) {
  const std::vector<double> x = {1, 2, 2, 3, 4, 4, 5}, y = {3, 4, 4, 5, 6, 6, 7, 8};
  const MannWhitneyResult r = mann_whitney_u(x, y);
  EXPECT_DOUBLE_EQ(r.u_a, 8);  // tied pairs count one half each
  EXPECT_NEAR(r.p_value, 0.02228731901455301, 1e-9);
}

TEST(MannWhitney, LargerSamplesWithTies) {
  const std::vector<double> a = {10.3, 10.8, 10.3, 8.7,  10.9, 10.4, 9.5,  10.6, 10.4, 10.3,
                                 10.0, 10.5, 9.3,  9.8,  9.5,  10.6, 10.0, 9.7,  9.2,  9.7,
                                 10.0, 9.7,  11.3, 11.0, 7.3,  8.1,  9.8,  9.6,  10.2, 10.2};
  const std::vector<double> b = {12.9, 9.7,  10.4, 12.8, 11.4, 11.5, 10.3, 9.2,  11.0,
                                 10.9, 9.6,  10.1, 10.7, 9.9,  10.7, 10.9, 10.8, 10.3,
                                 11.4, 11.7, 11.1, 10.0, 11.5, 10.3, 11.7};
  const MannWhitneyResult r = mann_whitney_u(a, b);
  EXPECT_DOUBLE_EQ(r.u_a, 174.5);
  EXPECT_NEAR(r.p_value, 0.0007112649682271802, 1e-10);
}

TEST(MannWhitney, SymmetricInItsArguments) {
  const std::vector<double> x = {1, 2, 2, 3, 4, 4, 5}, y = {3, 4, 4, 5, 6, 6, 7, 8};
  const MannWhitneyResult xy = mann_whitney_u(x, y), yx = mann_whitney_u(y, x);
  EXPECT_DOUBLE_EQ(xy.u_a, yx.u_b);
  EXPECT_DOUBLE_EQ(xy.p_value, yx.p_value);
}

TEST(MannWhitney, DegenerateInputsGiveNoEvidence) {
  EXPECT_DOUBLE_EQ(mann_whitney_u(std::vector<double>{}, std::vector<double>{1, 2}).p_value, 1);
  const std::vector<double> same = {4, 4, 4, 4, 4};
  EXPECT_DOUBLE_EQ(mann_whitney_u(same, same).p_value, 1);
  const std::vector<double> x = {1, 2, 3, 4, 5};
  EXPECT_DOUBLE_EQ(mann_whitney_u(x, x).p_value, 1);
}

TEST(MannWhitney, ExactAndNormalAgreeNearTheSwitchOver) {
  // 20 vs 20 without ties uses the exact distribution; the approximation should be close.
  std::vector<double> a, b;
  for (int i = 0; i < 20; ++i) {
    a.push_back(i * 2.0);
    b.push_back(i * 2.0 + 9.5);
  }
  const MannWhitneyResult exact = mann_whitney_u(a, b);
  ASSERT_TRUE(exact.exact);
  a.push_back(100);  // 21 values: normal approximation
  b.push_back(101);
  const MannWhitneyResult approx = mann_whitney_u(a, b);
  ASSERT_FALSE(approx.exact);
  EXPECT_NEAR(exact.p_value, approx.p_value, 0.02);
}

}  // namespace
}  // namespace arbench
