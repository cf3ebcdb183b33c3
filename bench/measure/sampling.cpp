// Fixed and adaptive sampling; see sampling.hpp.
#include "measure/sampling.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <iomanip>
#include <sstream>

#include "arbench/world.hpp"

namespace arbench {

std::string_view stop_reason_name(StopReason r) {
  switch (r) {
    case StopReason::fixed: return "fixed";
    case StopReason::noise: return "noise";
    case StopReason::max_samples: return "max_samples";
    case StopReason::max_time: return "max_time";
  }
  return "?";
}

int SampleStopRule::next_batch() const {
  if (done_) return 0;
  const int n = int(samples_.size());
  if (!plan_.adaptive) return plan_.samples - attempts_;
  if (n < plan_.min_samples) return std::min(plan_.min_samples - n, plan_.max_samples - attempts_);
  // Grow by a quarter: the interval narrows like 1/sqrt(n), so re-checking after every sample
  // wastes time on the statistic, and doubling overshoots the target by up to 2x.
  int batch = std::max(1, n / 4);
  batch = std::min(batch, plan_.max_samples - attempts_);
  if (n > 0 && elapsed_s_ > 0) {  // do not plan far past the time budget
    const double per_sample = elapsed_s_ / n;
    const double fits = (plan_.max_time_s - elapsed_s_) / per_sample;  // in double: may be huge
    if (fits < batch) batch = std::max(1, int(fits));
  }
  return batch;
}

void SampleStopRule::add(std::span<const double> batch_s, double elapsed_s, int discarded) {
  for (double s : batch_s) {
    samples_.push_back(s);
    sum_s_ += s;
  }
  attempts_ += int(batch_s.size()) + discarded;
  elapsed_s_ = elapsed_s;
  const int n = int(samples_.size());
  if (!plan_.adaptive) {
    done_ = attempts_ >= plan_.samples;
    reason_ = StopReason::fixed;
    return;
  }
  // The minimum holds even past the time budget, but not past --max-samples attempts.
  if (n < plan_.min_samples && attempts_ < plan_.max_samples) return;
  if (sum_s_ >= plan_.min_time_s) {
    const MedianInterval ci = interval();
    if (ci.known && ci.noise <= plan_.max_noise) {
      done_ = true;
      reason_ = StopReason::noise;
      return;
    }
  }
  if (attempts_ >= plan_.max_samples) {
    done_ = true;
    reason_ = StopReason::max_samples;
  } else if (elapsed_s_ >= plan_.max_time_s) {
    done_ = true;
    reason_ = StopReason::max_time;
  }
}

SamplingPlan sampling_plan(const RunConfig& cfg) {
  SamplingPlan p;
  p.adaptive = adaptive_sampling(cfg);
  p.samples = cfg.samples.value_or(10);
  p.min_samples = cfg.min_samples.value_or(p.min_samples);
  p.max_samples = cfg.max_samples.value_or(p.max_samples);
  p.max_noise = cfg.max_noise_pct.value_or(p.max_noise * 100) / 100;
  p.min_time_s = cfg.min_time_s.value_or(p.min_time_s);
  p.max_time_s = cfg.max_time_s.value_or(p.max_time_s);
  p.cold_cache = cfg.cold_cache;
  return p;
}

std::string sampling_text(const RunConfig& cfg) {
  if (!adaptive_sampling(cfg)) return std::to_string(*cfg.samples) + " isolated samples";
  std::ostringstream s;
  s << "isolated samples until the median's 95% CI is within " << *cfg.max_noise_pct << "% ("
    << *cfg.min_samples << ".." << *cfg.max_samples << " samples, " << *cfg.min_time_s << ".." << *cfg.max_time_s
    << " s)";
  return s.str();
}

// Footer line for adaptive sampling: how many cases reached the noise target.
std::string sampling_footer(const RunConfig& cfg, const std::vector<CaseResult>& results) {
  if (!adaptive_sampling(cfg)) return {};
  int reached = 0, measured = 0;
  const CaseResult* noisiest = nullptr;
  for (const auto& r : results) {
    if (!r.ok) continue;
    ++measured;
    reached += r.sampling_stop == "noise" ? 1 : 0;
    if (r.sampling_stop != "noise" && (!noisiest || r.median_ci_us.noise > noisiest->median_ci_us.noise)) noisiest = &r;
  }
  std::ostringstream s;
  s << "sampling: " << reached << " of " << measured << " cases reached --max-noise " << *cfg.max_noise_pct << "%";
  if (noisiest)
    s << "; the others stopped at the budget (noisiest: " << noisiest->c.name() << ", "
      << std::setprecision(3) << noisiest->median_ci_us.noise * 100 << "% after " << noisiest->samples_us.size()
      << " samples)";
  return s.str();
}

double steady_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

TakenSamples take_samples(Fabric& f, const RankOp& op, const SamplingPlan& plan, const SamplingClock& now) {
  SampleStopRule rule(plan);
  TakenSamples out;
  auto keep = [&](const IsolatedTimes& t, std::vector<double>& batch) {
    batch.insert(batch.end(), t.samples.begin(), t.samples.end());
    out.start_skew.insert(out.start_skew.end(), t.start_skew.begin(), t.start_skew.end());
    out.discarded += t.discarded;
  };
  const double start = now();
  auto elapsed = [&] {
    std::vector<double> e{now() - start};
    f.processes().max(e, "agreeing on the sampling time");  // one process: a no-op
    return e.front();
  };
  for (int batch = rule.next_batch(); batch > 0; batch = rule.next_batch()) {
    std::vector<double> got;
    const int discarded_before = out.discarded;
    if (plan.cold_cache) {
      // One sample per call, each after a flush: the flush stays outside the timed region.
      for (int i = 0; i < batch; ++i) {
        f.flush_caches();
        keep(f.time_isolated(op, 1), got);
      }
    } else {
      keep(f.time_isolated(op, batch), got);
    }
    const int discarded = out.discarded - discarded_before;
    if (got.empty() && discarded == 0) break;  // a fabric that returned nothing would be asked forever
    rule.add(got, elapsed(), discarded);
  }
  out.seconds = rule.samples();
  out.reason = rule.reason();
  out.elapsed_s = now() - start;
  return out;
}

}  // namespace arbench
