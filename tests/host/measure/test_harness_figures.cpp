// The figures the harness reports beside the latency (docs/method.md, "The start gate"), proven
// within a band around values a fake fabric makes known, not merely ">= 0": the harness floor
// (the median of an empty op's samples) and the start skew (the median, over the timed samples,
// of the last rank's release minus the first's). And --cache cold shown to flush: a counting
// fabric sees a flush directly before every timed sample and every recorded phase op, and hot
// never flushes.
#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <vector>

#include "arbench/core/steady_clock.hpp"
#include "measure/harness.hpp"
#include "measure/phase_recorder.hpp"
#include "tests/host/measure/forwarding_fabric.hpp"
#include "tests/host/measure/harness_test_util.hpp"

namespace arbench {
namespace {

using testing::ForwardingFabric;

Case ring_case(int world) { return Case{"ring", Family::allreduce, DType::bf16, world, 4096, 0, 0, false}; }

// Runs the ops for real (so the harness's checks pass) and reports known timings instead of the
// measured ones: sample k takes kOp x kSpread[k % 5] and its ranks are released kSkew x
// kSpread[(k + 2) % 5] apart. Any whole number of rounds of 5 has median kOp and kSkew, and the
// floor's 20 samples (the first 20 asked) are 4 rounds.
class KnownTimesFabric final : public ForwardingFabric {
 public:
  static constexpr double kOp = 250e-6, kSkew = 40e-6;
  static constexpr double kSpread[5] = {0.9, 1.1, 1.0, 0.95, 1.05};
  using ForwardingFabric::ForwardingFabric;
  IsolatedTimes time_isolated(const RankOp& op, int samples) override {
    IsolatedTimes t = inner().time_isolated(op, samples);
    for (std::size_t i = 0; i < t.samples.size(); ++i, ++k_) {
      t.samples[i] = kOp * kSpread[k_ % 5];
      t.start_skew[i] = kSkew * kSpread[(k_ + 2) % 5];
    }
    return t;
  }

 private:
  std::size_t k_ = 0;
};

// The band around a known value: the fake's figures are exact, so 1% only absorbs rounding; a
// floor 1000 times too small or a skew of 0 is far outside it.
void expect_within_band(double got, double known, const char* what) {
  EXPECT_GE(got, known * 0.99) << what;
  EXPECT_LE(got, known * 1.01) << what;
}

TEST(HarnessFigures, FloorAndStartSkewAreTheMediansOfWhatTheFabricMeasured) {
  const Registry reg = testing::host_registry();
  RunConfig cfg = testing::quick_config();
  cfg.samples = 10;  // two rounds of the fake's pattern
  FabricCache fabrics([](Backend, int world, const FabricEnv&) { return std::make_unique<KnownTimesFabric>(world); });
  Harness h(cfg, Backend::host, reg, fabrics);
  const CaseResult r = h.run(ring_case(4));
  ASSERT_TRUE(r.ok) << r.reason;
  expect_within_band(r.floor_us, KnownTimesFabric::kOp * 1e6, "floor_us");
  expect_within_band(r.start_skew_us, KnownTimesFabric::kSkew * 1e6, "start_skew_us");
  expect_within_band(r.latency_us.median, KnownTimesFabric::kOp * 1e6, "median latency");
  ASSERT_EQ(r.samples_us.size(), 10u);
}

// Every op costs each rank a spin of kSpin before its work, inside the timed region.
class SpinningFabric final : public ForwardingFabric {
 public:
  static constexpr double kSpin = 2e-3;
  using ForwardingFabric::ForwardingFabric;
  IsolatedTimes time_isolated(const RankOp& op, int samples) override {
    const RankOp slow([&op](int rank, Stream s) {
      spin_for_ns(std::uint64_t(kSpin * 1e9));
      op.launch(rank, s);
    }, op.after);
    return inner().time_isolated(slow, samples);
  }
};

// The same figures through the host fabric's own measurement: an empty op that spins kSpin on
// every rank. A sample is at least the spin (the clock only moves forward), so the floor is too;
// its upper end is the case's own latency (the same spin and more) times 4, far from the 1000x of
// a unit slip, whatever the machine's load. The release skew of real threads has no
// known value (a preempted thread reads its release late), but two threads never read the clock
// in the same nanosecond sample after sample: its median is above 0.
TEST(HarnessFigures, TheHostFabricsFloorOfAnOpOfKnownDuration) {
  const Registry reg = testing::host_registry();
  RunConfig cfg = testing::quick_config();
  cfg.samples = 10;
  FabricCache fabrics([](Backend, int world, const FabricEnv&) { return std::make_unique<SpinningFabric>(world); });
  Harness h(cfg, Backend::host, reg, fabrics);
  const CaseResult r = h.run(ring_case(2));
  ASSERT_TRUE(r.ok) << r.reason;
  EXPECT_GE(r.floor_us, SpinningFabric::kSpin * 1e6);
  // The upper end relative to what the same fabric measured for the case's op (which spins as
  // long and does more): at load 128 a 2 ms spin took over 20x its length, so no absolute bound.
  EXPECT_LE(r.floor_us, 4 * r.latency_us.median) << "the floor, an empty op, far above the case's op";
  EXPECT_GE(r.latency_us.median, r.floor_us * 0.25) << "the case's op spins as long as the floor's, and does more";
  EXPECT_GT(r.start_skew_us, 0.0);
}

// Counts the flushes, and for every time_isolated call whether a flush came directly before it
// (nothing run in between).
class FlushCountingFabric final : public ForwardingFabric {
 public:
  using ForwardingFabric::ForwardingFabric;
  void flush_caches() override {
    ++flushes;
    flushed_ = true;
    ForwardingFabric::flush_caches();
  }
  void run(const RankOp& op) override {
    flushed_ = false;
    ForwardingFabric::run(op);
  }
  double time_pipelined(const RankOp& op, int ops, int reps) override {
    flushed_ = false;
    return ForwardingFabric::time_pipelined(op, ops, reps);
  }
  IsolatedTimes time_isolated(const RankOp& op, int samples) override {
    (flushed_ ? flushed_samples : unflushed_samples) += samples;
    if (flushed_ && samples != 1) ++flushed_batches;  // a flush covers one sample only
    flushed_ = false;
    return ForwardingFabric::time_isolated(op, samples);
  }

  int flushes = 0, flushed_samples = 0, unflushed_samples = 0, flushed_batches = 0;

 private:
  bool flushed_ = false;
};

struct CacheRun {
  explicit CacheRun(bool cold, bool phases) {
    cfg = testing::quick_config();
    cfg.samples = 7;
    cfg.warmup = 2;
    cfg.cold_cache = cold;
    cfg.phases = phases;
  }
  CaseResult run() {
    Case c = ring_case(2);
    c.cold_cache = cfg.cold_cache;  // as the sweep makes them (bench/sweep/sweep.cpp)
    Harness h(cfg, Backend::host, reg, fabrics);
    return h.run(c);
  }
  RunConfig cfg;
  const Registry reg = testing::host_registry();
  FlushCountingFabric* fabric = nullptr;
  FabricCache fabrics{[this](Backend, int world, const FabricEnv&) {
    auto f = std::make_unique<FlushCountingFabric>(world);
    fabric = f.get();
    return f;
  }};
};

// docs/method.md: with --cache cold the caches are flushed before every timed sample, outside the
// timed region; warm-ups, the floor, the checks and the pipelined ops are not flushed.
TEST(HarnessFigures, ColdCacheFlushesBeforeEveryTimedSampleAndNothingElse) {
  CacheRun cold(true, false);
  const CaseResult r = cold.run();
  ASSERT_TRUE(r.ok) << r.reason;
  ASSERT_NE(cold.fabric, nullptr);
  EXPECT_EQ(cold.fabric->flushes, *cold.cfg.samples);
  EXPECT_EQ(cold.fabric->flushed_samples, *cold.cfg.samples) << "each timed sample right after a flush";
  EXPECT_EQ(cold.fabric->flushed_batches, 0);
  EXPECT_EQ(r.samples_us.size(), std::size_t(*cold.cfg.samples));
}

// The phase timeline's recorded ops are flushed too (phase_recorder.hpp), so it shows the op the
// timed samples measured.
TEST(HarnessFigures, ColdCacheFlushesBeforeEveryRecordedPhaseOp) {
  CacheRun cold(true, true);
  const CaseResult r = cold.run();
  ASSERT_TRUE(r.ok) << r.reason;
  ASSERT_TRUE(r.phases.has_value()) << "the ring records phase marks";
  EXPECT_EQ(cold.fabric->flushes, *cold.cfg.samples + kPhaseOps);
  EXPECT_EQ(cold.fabric->flushed_samples, cold.fabric->flushes);
}

TEST(HarnessFigures, HotCacheNeverFlushes) {
  CacheRun hot(false, true);
  const CaseResult r = hot.run();
  ASSERT_TRUE(r.ok) << r.reason;
  EXPECT_EQ(hot.fabric->flushes, 0);
  EXPECT_EQ(hot.fabric->flushed_samples, 0);
}

}  // namespace
}  // namespace arbench
