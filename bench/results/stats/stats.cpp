#include "results/stats/stats.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace arbench {

double percentile(std::vector<double> s, double q) {
  if (s.empty()) return 0.0;
  std::sort(s.begin(), s.end());
  q = std::clamp(q, 0.0, 1.0);
  const double pos = q * double(s.size() - 1);
  const auto lo = static_cast<std::size_t>(std::floor(pos));
  const auto hi = std::min(lo + 1, s.size() - 1);
  return s[lo] + (s[hi] - s[lo]) * (pos - double(lo));
}

Summary summarize(const std::vector<double>& s) {
  Summary r;
  r.count = int(s.size());
  if (s.empty()) return r;
  r.median = percentile(s, 0.5);
  r.p10 = percentile(s, 0.10);
  r.p90 = percentile(s, 0.90);
  r.p99 = percentile(s, 0.99);
  r.min = *std::min_element(s.begin(), s.end());
  r.max = *std::max_element(s.begin(), s.end());
  return r;
}

double median_of(std::span<const double> samples) {
  if (samples.empty()) return std::numeric_limits<double>::quiet_NaN();
  std::vector<double> s(samples.begin(), samples.end());
  const std::size_t mid = s.size() / 2;
  std::nth_element(s.begin(), s.begin() + std::ptrdiff_t(mid), s.end());
  if (s.size() % 2 == 1) return s[mid];
  const double upper = s[mid];
  const double lower = *std::max_element(s.begin(), s.begin() + std::ptrdiff_t(mid));
  return (lower + upper) / 2;
}

}  // namespace arbench
