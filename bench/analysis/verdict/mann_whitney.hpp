// Mann-Whitney U test (Wilcoxon rank-sum), two-sided, for comparing two sets of latency samples.
// Why this test: latency samples are skewed and heavy-tailed (preemption, clock changes), so a
// t-test's normality assumption does not hold; a rank test only asks whether one set tends to
// be larger than the other, and a few outliers cannot dominate it.
#pragma once

#include <cstddef>
#include <span>

namespace arbench {

struct MannWhitneyResult {
  double u_a = 0;      // U of the first sample: pairs (a_i, b_j) with a_i > b_j, ties count 1/2
  double u_b = 0;      // U of the second sample; u_a + u_b = n_a * n_b
  double z = 0;        // normal-approximation z (continuity-corrected); 0 when exact was used
  double p_value = 1;  // two-sided; 1 when either sample is empty or every value is tied
  bool exact = false;  // p from the exact permutation distribution (small samples, no ties)
  bool has_ties = false;
};

// Sizes up to this (both samples) without ties use the exact distribution of U; larger ones,
// or any ties, use the normal approximation with tie and continuity corrections.
inline constexpr std::size_t kMannWhitneyExactMax = 20;

MannWhitneyResult mann_whitney_u(std::span<const double> a, std::span<const double> b);

}  // namespace arbench
