// How many isolated samples a case takes: a fixed count (--samples N, exact), or adaptively as
// nvbench does (--max-noise and friends): keep taking samples in batches until the 95%
// confidence interval of the median is narrower than the target (results/stats/noise.hpp), or the
// budget (--max-samples, --max-time) is spent. SampleStopRule is the rule alone, pure and
// host-tested; take_samples drives a Fabric with it, batch by batch, flushing caches before
// every sample for --cache cold.
#pragma once

#include <functional>
#include <string>
#include <span>
#include <string_view>
#include <vector>

#include "arbench/fabric.hpp"
#include "results/stats/noise.hpp"
#include "results/results.hpp"
#include "sweep/run_config.hpp"

namespace arbench {

struct SamplingPlan {
  bool adaptive = false;
  int samples = 10;  // fixed mode: exactly this many
  // adaptive mode
  int min_samples = 10, max_samples = 1000;
  double max_noise = 0.01;  // target relative width of the median's 95% CI (0.01 = 1%)
  double min_time_s = 0;    // keep sampling until the samples add up to at least this
  double max_time_s = 5;    // wall-clock budget of the sampling, per case
  bool cold_cache = false;  // flush caches before every sample (outside the timed region)
};

// The plan a resolved RunConfig asks for (run_config.hpp: resolve_defaults).
SamplingPlan sampling_plan(const RunConfig& cfg);
// For the run's banner: "50 isolated samples" or the adaptive target and budget.
std::string sampling_text(const RunConfig& cfg);
// For the run's footer (adaptive only, else empty): how many cases reached --max-noise, and the
// noisiest of those that stopped at the budget.
std::string sampling_footer(const RunConfig& cfg, const std::vector<CaseResult>& results);

enum class StopReason { fixed, noise, max_samples, max_time };
std::string_view stop_reason_name(StopReason r);

class SampleStopRule {
 public:
  explicit SampleStopRule(const SamplingPlan& plan) : plan_(plan) {}
  // Samples to take next; 0 once the rule says stop.
  int next_batch() const;
  // A batch of kept samples (seconds), how many of the batch the start gate discarded, and the
  // wall time spent sampling so far. A discarded sample counts against --samples and
  // --max-samples (it is not replaced: each cost up to --timeout) but not in the statistics.
  void add(std::span<const double> batch_s, double elapsed_s, int discarded = 0);
  bool done() const { return done_; }
  StopReason reason() const { return reason_; }
  const std::vector<double>& samples() const { return samples_; }
  MedianInterval interval() const { return median_interval(samples_); }

 private:
  SamplingPlan plan_;
  std::vector<double> samples_;
  int attempts_ = 0;  // samples asked of the fabric: kept and discarded
  double sum_s_ = 0, elapsed_s_ = 0;
  bool done_ = false;
  StopReason reason_ = StopReason::fixed;
};

struct TakenSamples {
  std::vector<double> seconds;     // kept samples (Fabric::time_isolated's IsolatedTimes::samples)
  std::vector<double> start_skew;  // per kept sample: last rank released minus first, seconds
  int discarded = 0;               // samples the start gate discarded (not counted towards the plan)
  StopReason reason = StopReason::fixed;
  double elapsed_s = 0;  // wall time spent sampling (cache flushes included)
};

// Seconds on a monotonic clock; tests pass a virtual one.
using SamplingClock = std::function<double()>;
double steady_seconds();

// In a multi-process run every process takes the same samples (the fabric's maximum over ranks)
// and the processes agree on the elapsed time (the slowest one's), so they stop together.
TakenSamples take_samples(Fabric& f, const RankOp& op, const SamplingPlan& plan,
                          const SamplingClock& now = steady_seconds);

}  // namespace arbench
