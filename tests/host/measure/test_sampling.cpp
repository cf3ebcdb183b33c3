// Fixed and adaptive sampling with a synthetic noisy timer (FakeFabric): fixed --samples N is
// exact; adaptive stops early on quiet data with the noise it recorded under the target, at
// --max-samples on noisy data, at --max-time on a virtual clock, not before --min-samples or
// --min-time; --cache cold flushes before every single sample.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "measure/sampling.hpp"
#include "tests/host/measure/fake_fabric.hpp"

namespace arbench {
namespace {

using testing::FakeFabric;

// Samples around `center_s`, log-normally spread by `sigma` (0.001: quiet GPU; 0.5: very noisy).
std::function<double()> timer(double center_s, double sigma, unsigned seed) {
  auto gen = std::make_shared<std::mt19937>(seed);
  auto dist = std::make_shared<std::normal_distribution<double>>(0.0, sigma);
  return [=] { return center_s * std::exp((*dist)(*gen)); };
}

SamplingPlan adaptive(double max_noise, int min_samples = 10, int max_samples = 500) {
  SamplingPlan p;
  p.adaptive = true;
  p.max_noise = max_noise;
  p.min_samples = min_samples;
  p.max_samples = max_samples;
  p.max_time_s = 1e9;
  return p;
}

TakenSamples take(FakeFabric& f, const SamplingPlan& p) {
  return take_samples(f, [](int, Stream) {}, p, [&f] { return f.clock_s; });
}

TEST(Sampling, FixedTakesExactlyN) {
  for (int n : {1, 7, 50}) {
    FakeFabric f(timer(20e-6, 0.5, 1));
    SamplingPlan p;
    p.samples = n;
    const TakenSamples t = take(f, p);
    EXPECT_EQ(int(t.seconds.size()), n);
    EXPECT_EQ(t.reason, StopReason::fixed);
    EXPECT_EQ(f.time_isolated_calls, 1);  // one batch: the fabric's own loop, as before
  }
}

// A discarded sample (the start gate timed out) is not replaced: it counts against --samples and
// --max-samples, as each cost up to --timeout, and is reported as discarded.
TEST(Sampling, DiscardedSamplesCountAgainstTheBudget) {
  FakeFabric fixed(timer(20e-6, 0.5, 1));
  fixed.discard_every = 5;
  SamplingPlan p;
  p.samples = 10;
  TakenSamples t = take(fixed, p);
  EXPECT_EQ(t.seconds.size(), 8u);
  EXPECT_EQ(t.discarded, 2);
  EXPECT_EQ(t.start_skew.size(), 8u);
  EXPECT_EQ(fixed.time_isolated_calls, 1);

  FakeFabric noisy(timer(20e-6, 0.5, 3));
  noisy.discard_every = 4;
  t = take(noisy, adaptive(0.001, 10, 40));
  EXPECT_EQ(t.reason, StopReason::max_samples);
  EXPECT_EQ(int(t.seconds.size()) + t.discarded, 40);
  EXPECT_EQ(t.discarded, 10);

  FakeFabric lost(timer(20e-6, 0.5, 4));  // every sample discarded: ends, nothing kept
  lost.discard_every = 1;
  t = take(lost, p);
  EXPECT_TRUE(t.seconds.empty());
  EXPECT_EQ(t.discarded, 10);
}

TEST(Sampling, QuietDataStopsEarlyWithTheRecordedNoise) {
  FakeFabric f(timer(20e-6, 0.001, 2));
  const TakenSamples t = take(f, adaptive(0.01));
  EXPECT_EQ(t.reason, StopReason::noise);
  EXPECT_EQ(t.seconds.size(), 10u);  // the first check after --min-samples already passes
  const MedianInterval ci = median_interval(t.seconds);
  ASSERT_TRUE(ci.known);
  EXPECT_LE(ci.noise, 0.01);
  std::printf("quiet data: %zu samples, noise %.3f%% (target 1%%)\n", t.seconds.size(), ci.noise * 100);
}

TEST(Sampling, ModeratelyNoisyDataStopsOnceTheTargetIsMet) {
  // sigma 5%: ten samples are not enough for a 2% interval, a few hundred are.
  FakeFabric f(timer(20e-6, 0.05, 3));
  const TakenSamples t = take(f, adaptive(0.02));
  EXPECT_EQ(t.reason, StopReason::noise);
  EXPECT_GT(t.seconds.size(), 10u);
  EXPECT_LT(t.seconds.size(), 500u);
  const double noise = median_interval(t.seconds).noise;
  EXPECT_LE(noise, 0.02);
  // It stopped at the first check that met the target: at the check before (batches grow by
  // a quarter after --min-samples) the noise was still above it.
  std::size_t before = 10;
  while (before + std::max<std::size_t>(1, before / 4) < t.seconds.size()) before += std::max<std::size_t>(1, before / 4);
  ASSERT_EQ(before + std::max<std::size_t>(1, before / 4), t.seconds.size());
  EXPECT_GT(median_interval(std::vector<double>(t.seconds.begin(), t.seconds.begin() + std::ptrdiff_t(before))).noise,
            0.02);
  std::printf("moderate noise: %zu samples, noise %.3f%% (target 2%%)\n", t.seconds.size(), noise * 100);
}

TEST(Sampling, NoisyDataRunsToTheSampleBudget) {
  FakeFabric f(timer(20e-6, 0.5, 4));
  const TakenSamples t = take(f, adaptive(0.01, 10, 300));
  EXPECT_EQ(t.reason, StopReason::max_samples);
  EXPECT_EQ(t.seconds.size(), 300u);
  const double noise = median_interval(t.seconds).noise;
  EXPECT_GT(noise, 0.01);
  std::printf("noisy data: %zu samples, noise %.1f%% (target 1%%, budget 300)\n", t.seconds.size(), noise * 100);
}

TEST(Sampling, TimeBudgetStopsOnTheVirtualClock) {
  FakeFabric f(timer(10e-3, 0.5, 5));  // 10 ms samples
  SamplingPlan p = adaptive(0.001, 10, 100000);
  p.max_time_s = 1.0;
  const TakenSamples t = take(f, p);
  EXPECT_EQ(t.reason, StopReason::max_time);
  EXPECT_GE(t.elapsed_s, 1.0);
  EXPECT_LT(t.elapsed_s, 1.5);  // batches are planned not to overrun the budget by much
}

TEST(Sampling, MinSamplesHoldsPastTheTimeBudget) {
  FakeFabric f(timer(1.0, 0.5, 6));  // 1 s samples, 0.5 s budget
  SamplingPlan p = adaptive(0.01, 12, 1000);
  p.max_time_s = 0.5;
  const TakenSamples t = take(f, p);
  EXPECT_EQ(t.seconds.size(), 12u);
  EXPECT_EQ(t.reason, StopReason::max_time);
}

TEST(Sampling, MinTimeKeepsSamplingQuietData) {
  FakeFabric f(timer(1e-3, 0.001, 7));
  SamplingPlan p = adaptive(0.01);
  p.min_time_s = 0.2;  // 200 samples of 1 ms
  const TakenSamples t = take(f, p);
  EXPECT_EQ(t.reason, StopReason::noise);
  double sum = 0;
  for (double s : t.seconds) sum += s;
  EXPECT_GE(sum, 0.2);
  EXPECT_LT(t.seconds.size(), 300u);
}

TEST(Sampling, ColdCacheFlushesBeforeEverySample) {
  FakeFabric f(timer(20e-6, 0.01, 8));
  SamplingPlan p;
  p.samples = 9;
  p.cold_cache = true;
  const TakenSamples t = take(f, p);
  EXPECT_EQ(t.seconds.size(), 9u);
  EXPECT_EQ(f.flushes, 9);
  EXPECT_EQ(f.time_isolated_calls, 9);
  EXPECT_LE(f.max_samples_between_flushes, 1);
  FakeFabric hot(timer(20e-6, 0.01, 8));
  p.cold_cache = false;
  take(hot, p);
  EXPECT_EQ(hot.flushes, 0);
}

TEST(Sampling, StopRuleAlone) {
  SampleStopRule rule(adaptive(0.05, 6, 20));
  EXPECT_EQ(rule.next_batch(), 6);
  rule.add(std::vector<double>{1, 1, 1, 1, 1, 1}, 0.1);
  EXPECT_TRUE(rule.done());
  EXPECT_EQ(rule.reason(), StopReason::noise);
  EXPECT_EQ(rule.next_batch(), 0);
  EXPECT_EQ(stop_reason_name(StopReason::max_samples), "max_samples");
}

}  // namespace
}  // namespace arbench
