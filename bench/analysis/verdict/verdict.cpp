// The faster/slower/same/noisy rule; see verdict.hpp for the definitions and why.
#include "analysis/verdict/verdict.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "analysis/verdict/mann_whitney.hpp"

namespace arbench {

std::string_view verdict_name(Verdict v) {
  switch (v) {
    case Verdict::failed: return "failed";
    case Verdict::slower: return "slower";
    case Verdict::noisy: return "noisy";
    case Verdict::same: return "same";
    case Verdict::faster: return "faster";
  }
  return "?";
}

std::optional<Verdict> parse_verdict(std::string_view s) {
  for (Verdict v : {Verdict::failed, Verdict::slower, Verdict::noisy, Verdict::same,
                    Verdict::faster})
    if (verdict_name(v) == s) return v;
  return std::nullopt;
}

Verdict classify(double ratio, double p_value, const VerdictOptions& opt) {
  const double change = ratio - 1;
  // A tiny epsilon keeps "exactly 5% slower" material despite rounding in the ratio.
  const bool material = std::abs(change) >= opt.threshold - 1e-12;
  if (!material) return Verdict::same;
  if (!(p_value < opt.alpha)) return Verdict::noisy;
  return change > 0 ? Verdict::slower : Verdict::faster;
}

SampleComparison compare_samples(std::span<const double> base, std::span<const double> next,
                                 const VerdictOptions& opt) {
  SampleComparison c;
  c.base_median = median_of(base);
  c.new_median = median_of(next);
  if (base.empty() || next.empty()) {
    c.ratio = std::numeric_limits<double>::quiet_NaN();
    c.verdict = Verdict::failed;
    return c;
  }
  c.ratio = c.base_median > 0 ? c.new_median / c.base_median
                              : (c.new_median > 0 ? std::numeric_limits<double>::infinity() : 1);
  c.p_value = mann_whitney_u(base, next).p_value;
  c.verdict = classify(c.ratio, c.p_value, opt);
  return c;
}

Verdict classify_run(double geomean, double ci_lower, double ci_upper, double threshold) {
  const double eps = 1e-12;  // as classify: "exactly at the bar" counts
  if (ci_lower >= 1 + threshold - eps) return Verdict::slower;
  if (ci_upper <= 1 - threshold + eps) return Verdict::faster;
  if (std::abs(geomean - 1) >= threshold - eps) return Verdict::noisy;
  return Verdict::same;
}

double geometric_mean(std::span<const double> ratios) {
  if (ratios.empty()) return 1;
  double sum = 0;
  for (double x : ratios) sum += std::log(x);
  return std::exp(sum / double(ratios.size()));
}

RunVerdict judge_run(std::span<const double> ratios, const RunVerdictOptions& opt) {
  RunVerdict r;
  r.cases = int(ratios.size());
  if (ratios.empty()) return r;
  std::vector<double> logs;
  for (double x : ratios) logs.push_back(std::log(x));
  const std::size_t n = logs.size();
  r.geomean_ratio = r.ci_lower = r.ci_upper = geometric_mean(ratios);
  if (r.cases < opt.min_cases) return r;
  r.judged = true;
  // Percentile bootstrap of the mean log ratio. mt19937_64's sequence is fixed by the standard
  // and `% n` (not a distribution, whose algorithm is the library's) keeps the draws, and so the
  // interval, the same on every platform; its bias is below n / 2^64.
  std::mt19937_64 gen(opt.seed);
  std::vector<double> means(std::size_t(std::max(opt.resamples, 1)));
  for (double& m : means) {
    double s = 0;
    for (std::size_t i = 0; i < n; ++i) s += logs[gen() % n];
    m = s / double(n);
  }
  std::sort(means.begin(), means.end());
  const double tail = opt.alpha / 2 * double(means.size());
  const auto lo = std::size_t(std::floor(tail));
  const auto hi = std::min(means.size() - 1, means.size() - 1 - std::size_t(std::floor(tail)));
  r.ci_lower = std::exp(means[lo]);
  r.ci_upper = std::exp(means[hi]);
  r.verdict = classify_run(r.geomean_ratio, r.ci_lower, r.ci_upper, opt.threshold);
  return r;
}

}  // namespace arbench
