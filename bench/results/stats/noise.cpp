// The order-statistic confidence interval of the median; see noise.hpp.
#include "results/stats/noise.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "results/stats/stats.hpp"

namespace arbench {
namespace {

// P(B = j) for B ~ Binomial(n, 1/2), in log space so that large n does not underflow.
double half_binomial_pmf(int n, int j) {
  return std::exp(std::lgamma(n + 1.0) - std::lgamma(j + 1.0) - std::lgamma(n - j + 1.0) - n * std::log(2.0));
}

}  // namespace

int median_interval_rank(int n, double confidence) {
  double below = 0;  // P(B <= j)
  int k = 0;
  for (int j = 0; 2 * j < n; ++j) {
    below += half_binomial_pmf(n, j);
    // [x_(j+1), x_(n-j)] misses the median with probability 2 P(B <= j).
    if (1 - 2 * below < confidence - 1e-12) break;
    k = j + 1;
  }
  return k;
}

MedianInterval median_interval(std::span<const double> samples, double confidence) {
  MedianInterval r;
  const int n = int(samples.size());
  if (n == 0) return r;
  std::vector<double> s(samples.begin(), samples.end());
  std::sort(s.begin(), s.end());
  r.median = median_of(s);
  const int k = median_interval_rank(n, confidence);
  if (k == 0) return r;
  double below = 0;
  for (int j = 0; j < k; ++j) below += half_binomial_pmf(n, j);
  r.known = true;
  r.lower = s[std::size_t(k - 1)];
  r.upper = s[std::size_t(n - k)];
  r.confidence = 1 - 2 * below;
  r.noise = r.median > 0 ? (r.upper - r.lower) / r.median
                         : (r.upper > r.lower ? std::numeric_limits<double>::infinity() : 0.0);
  return r;
}

}  // namespace arbench
