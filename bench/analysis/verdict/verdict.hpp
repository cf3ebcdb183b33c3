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

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

#include "results/stats/stats.hpp"

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

// Run-level verdict: did the whole run move? Each case alone must move by the threshold, so a
// change that moves every case by 4% (under a 5% threshold), or by 30% while every case is too
// noisy to call, passes case by case. Across cases, the question is the geometric mean of the
// per-case median ratios and how sure we are of it: a percentile bootstrap over cases (the cases
// are the units resampled; a fixed seed makes the interval, and so the verdict, deterministic).
//   slower  the interval's lower bound is above 1 + threshold: the whole run moved, with confidence
//   faster  the interval's upper bound is below 1 - threshold
//   noisy   the geometric mean is beyond the bar, but the interval reaches back across it
//   same    otherwise
// Below min_cases there is no verdict (judged = false): a bootstrap of a handful of values has
// few distinct resamples and an interval too narrow to trust.
struct RunVerdictOptions {
  double alpha = 0.01;        // the interval is the two-sided (1 - alpha) interval
  double threshold = 0.025;   // the bar for the geometric mean ratio, 0.025 = 2.5%
  int min_cases = 10;
  int resamples = 10000;
  std::uint64_t seed = 0x6172'6265'6e63'6821;  // "arbench!": same cases, same interval
};

struct RunVerdict {
  bool judged = false;  // false: fewer than min_cases ratios
  Verdict verdict = Verdict::same;
  int cases = 0;
  double geomean_ratio = 1, ci_lower = 1, ci_upper = 1;
};

// The geometric mean of `ratios` (each finite and > 0), 1 when there are none: the drift of a
// whole run, computed here only (compare's table and JSON, and judge_run, use it).
double geometric_mean(std::span<const double> ratios);

// `ratios` are the per-case median ratios (new / base), each finite and > 0.
RunVerdict judge_run(std::span<const double> ratios, const RunVerdictOptions& opt);

// The run-level rule for known numbers (see above).
Verdict classify_run(double geomean, double ci_lower, double ci_upper, double threshold);

}  // namespace arbench
