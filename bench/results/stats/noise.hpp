// How well a run pinned its median down: the distribution-free 95% confidence interval of the
// median from order statistics, and its relative width, which arbench calls the case's noise.
//
// Method (no assumption on the latency distribution, which is skewed and has outliers): sort
// the n samples; the number of samples below the true median is Binomial(n, 1/2), so
// [x_(k), x_(n+1-k)] (1-based order statistics) covers the median with probability
// 1 - 2 P(B <= k-1). k is the largest rank whose coverage is still >= the confidence. Fewer than
// 6 samples cannot give 95% (even [min, max] covers only 1 - 2/2^n), so the interval is unknown.
// noise = (upper - lower) / median: "the median is known to within this fraction".
#pragma once

#include <span>

namespace arbench {

struct MedianInterval {
  bool known = false;  // false: too few samples for the confidence asked
  double lower = 0, upper = 0, median = 0;
  double confidence = 0;  // achieved coverage, >= the one asked (the binomial is discrete)
  double noise = 0;       // (upper - lower) / median; only meaningful when known
};

// 1-based rank k of the lower bound for n samples at `confidence`; 0 when none reaches it.
int median_interval_rank(int n, double confidence);

MedianInterval median_interval(std::span<const double> samples, double confidence = 0.95);

}  // namespace arbench
