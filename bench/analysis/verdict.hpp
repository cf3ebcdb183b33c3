// Verdict: is NEW faster, slower, the same as BASE, or too noisy to tell?
// Two gates, both required for a change to count (why: with thousands of samples a U-test calls
// a 0.3% shift "significant", and with a handful of samples a 20% jump may be luck):
//   significant  Mann-Whitney p < alpha (default 0.01)
//   material     |median_new / median_base - 1| >= threshold (default 0.05)
// faster / slower  significant and material (slower is a regression)
// same             not material: the medians moved less than the threshold, whatever p says
// noisy            material but not significant: the medians moved by at least the threshold,
//                  yet the samples overlap too much (or are too few) to call it real
// failed           NEW has no valid measurement for a case that BASE measured (the case failed
//                  its correctness check or timed out); counted as a regression
#pragma once

#include <optional>
#include <span>
#include <string_view>

#include "results/stats.hpp"

namespace arbench {

enum class Verdict { failed, slower, noisy, same, faster };

std::string_view verdict_name(Verdict v);
std::optional<Verdict> parse_verdict(std::string_view s);
constexpr bool is_regression(Verdict v) { return v == Verdict::failed || v == Verdict::slower; }

struct VerdictOptions {
  double alpha = 0.01;
  double threshold = 0.05;  // relative change of the median, 0.05 = 5%
};

struct SampleComparison {
  double base_median = 0;
  double new_median = 0;
  double ratio = 1;    // new / base; > 1 means NEW takes longer
  double p_value = 1;  // two-sided Mann-Whitney U
  Verdict verdict = Verdict::same;
};

// Compares two sets of latency samples (lower is better). Both must be non-empty.
SampleComparison compare_samples(std::span<const double> base, std::span<const double> next,
                                 const VerdictOptions& opt);

// The verdict for known numbers; separate so the rule itself is easy to test and document.
Verdict classify(double ratio, double p_value, const VerdictOptions& opt);

}  // namespace arbench
