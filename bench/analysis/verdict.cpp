// The faster/slower/same/noisy rule; see verdict.hpp for the definitions and why.
#include "analysis/verdict.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "analysis/mann_whitney.hpp"

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

}  // namespace arbench
