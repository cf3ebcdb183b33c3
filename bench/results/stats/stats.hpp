// Sample statistics for latency reports: percentiles by linear interpolation between closest
// ranks (numpy's default, so numbers match what users compute from the raw samples).
#pragma once

#include <span>
#include <vector>

namespace arbench {

// q in [0, 1]; empty input → 0.
double percentile(std::vector<double> samples, double q);

struct Summary {
  double median = 0, p10 = 0, p90 = 0, p99 = 0, min = 0, max = 0;
  int count = 0;
};
Summary summarize(const std::vector<double>& samples);

// The median (mean of the two middle values for an even count); NaN when empty.
double median_of(std::span<const double> samples);

}  // namespace arbench
