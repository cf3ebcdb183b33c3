// A case measured beside a background load (run --beside, docs/method.md "Beside a model kernel"):
//  - measure_beside's arithmetic against a load whose rate is known: it finishes items at R per
//    second alone and R/2 while the fabric runs the case's pipelined ops, so the slowdown must
//    come out 0.5 (a count over the wrong window, or the wrong ratio, misses it), and the latency
//    under load is the samples taken while it runs; the load is stopped on every path out;
//  - the host load for real: its threads finish items of tens of microseconds and stop;
//  - the harness end to end on the host backend: every case of the host variants records both
//    figures, checked like the other phases.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <stdexcept>
#include <thread>

#include "arbench/core/errors.hpp"
#include "measure/beside_measure.hpp"
#include "measure/harness.hpp"
#include "tests/host/measure/forwarding_fabric.hpp"
#include "tests/host/measure/harness_test_util.hpp"

namespace arbench {
namespace {

using Clock = std::chrono::steady_clock;

// Items accrue with time: kRate per second, half that while `slowed` is set; done() integrates.
class KnownRateLoad final : public BesideLoad {
 public:
  static constexpr double kRate = 100000;
  explicit KnownRateLoad(const std::atomic<bool>& slowed, double rate = kRate) : slowed_(slowed), rate_(rate) {}
  void start() override {
    running_ = true;
    last_ = Clock::now();
    worker_ = std::thread([this] {
      while (running_.load()) {
        std::this_thread::sleep_for(std::chrono::microseconds(200));
        tick();
      }
    });
  }
  std::uint64_t done() const override { return std::uint64_t(items_.load()); }
  void stop() override {
    running_ = false;
    if (worker_.joinable()) worker_.join();
    ++stops;
  }
  std::string timing() const override { return "cpu"; }
  double item_us() const override { return 10; }
  int stops = 0;

 private:
  void tick() {
    const Clock::time_point now = Clock::now();
    const double s = std::chrono::duration<double>(now - last_).count();
    last_ = now;
    items_.store(items_.load() + s * (slowed_.load() ? rate_ / 2 : rate_));
  }
  const std::atomic<bool>& slowed_;
  const double rate_;
  std::atomic<bool> running_{false};
  std::atomic<double> items_{0};
  Clock::time_point last_;
  std::thread worker_;
};

// A host fabric that raises `slowed` while it runs pipelined ops, and can fail its samples.
class FlaggingFabric final : public testing::ForwardingFabric {
 public:
  using ForwardingFabric::ForwardingFabric;
  double time_pipelined(const RankOp& op, int ops, int reps) override {
    slowed = true;
    const double t = ForwardingFabric::time_pipelined(op, ops, reps);
    std::this_thread::sleep_for(std::chrono::milliseconds(2));  // the case busy: the load slowed
    slowed = false;
    return t;
  }
  IsolatedTimes time_isolated(const RankOp& op, int samples) override {
    if (fail_samples) throw CaseError("planted: the samples failed");
    return ForwardingFabric::time_isolated(op, samples);
  }
  std::atomic<bool> slowed{false};
  bool fail_samples = false;
};

BesidePlan quick_plan() {
  BesidePlan p;
  p.samples = sampling_plan(testing::quick_config());
  p.pipelined_ops = 2;
  p.window_s = 0.2;
  p.settle_s = 0.005;
  return p;
}

TEST(BesideMeasure, SlowdownIsOneMinusTheRatioOfTheRatesOverTheirWindows) {
  FlaggingFabric f(2);
  KnownRateLoad load(f.slowed);
  const RankOp op([](int, Stream) {});
  const BesideFigures b = measure_beside(f, op, load, quick_plan(), BesideKind::compute);
  EXPECT_GE(load.stops, 1);  // stop() is idempotent: the guard may call it again
  EXPECT_EQ(b.load, "compute");
  EXPECT_EQ(b.timing, "cpu");
  EXPECT_EQ(b.samples_us.size(), 3u);  // quick_config's samples, taken with the load running
  EXPECT_NEAR(b.alone_per_s, KnownRateLoad::kRate, 0.15 * KnownRateLoad::kRate);  // the count moves in ticks
  // The pipelined ops keep the load slowed for most of the window (the fabric's own time between
  // them runs it at full rate): the slowdown lies between 0.3 and 0.5, never near 0.
  EXPECT_GT(b.slowdown(), 0.3) << b.with_case_per_s << " / " << b.alone_per_s;
  EXPECT_LE(b.slowdown(), 0.52) << b.with_case_per_s << " / " << b.alone_per_s;
}

// A load that finishes less than one item per window (a low-priority load on a busy machine): the
// alone count runs on until it has a few items, so its rate is measured, not 0 (one window, as
// before, counted 0 items here and gave no slowdown at all).
TEST(BesideMeasure, TheAloneRateWaitsForItemsOnASlowLoad) {
  FlaggingFabric f(2);
  KnownRateLoad load(f.slowed, 10);  // 10 items per second
  BesidePlan plan = quick_plan();
  plan.window_s = 0.05;  // 0.5 items per window
  const BesideFigures b = measure_beside(f, RankOp([](int, Stream) {}), load, plan, BesideKind::memory);
  EXPECT_GT(b.alone_per_s, 10 * 0.5) << "the alone window counted too few items";
  EXPECT_LT(b.alone_per_s, 10 * 1.5);
}

TEST(BesideMeasure, TheLoadStopsWhenTheSamplesFail) {
  FlaggingFabric f(2);
  f.fail_samples = true;
  KnownRateLoad load(f.slowed);
  EXPECT_THROW(measure_beside(f, RankOp([](int, Stream) {}), load, quick_plan(), BesideKind::fma), CaseError);
  EXPECT_EQ(load.stops, 1);
}

TEST(BesideMeasure, HostLoadFinishesShortItemsAndStops) {
  FlaggingFabric f(2);
  for (BesideKind kind : {BesideKind::fma, BesideKind::memory, BesideKind::compute}) {
    const auto load = make_host_beside_load(f, kind);
    EXPECT_GT(load->item_us(), 0.5) << beside_kind_name(kind);  // calibrated to tens of microseconds
    EXPECT_LT(load->item_us(), 5000.0) << beside_kind_name(kind);
    load->start();
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    const std::uint64_t n = load->done();
    load->stop();
    EXPECT_GT(n, 0u) << beside_kind_name(kind);
    EXPECT_EQ(load->timing(), "cpu");
  }
}

TEST(BesideMeasure, HarnessRecordsBothFiguresForEveryCase) {
  const Registry reg = testing::host_registry();
  RunConfig cfg = testing::quick_config();
  cfg.beside = "memory";
  FabricCache fabrics = testing::host_fabric_cache();
  Harness h(cfg, Backend::host, reg, fabrics);
  h.set_beside_load([](Fabric& f, BesideKind k) { return make_host_beside_load(f, k); });
  for (const char* v : {"oneshot-pull", "ring", "twoshot"}) {
    const CaseResult r = h.run(Case{v, Family::allreduce, DType::bf16, 2, 4096, 0, 0, false});
    ASSERT_TRUE(r.ok) << v << ": " << r.reason;
    ASSERT_TRUE(r.beside) << v;
    EXPECT_EQ(r.beside->load, "memory");
    EXPECT_EQ(r.beside->samples_us.size(), 3u) << v;
    EXPECT_GT(r.beside->latency_us.median, 0) << v;
    EXPECT_GT(r.beside->alone_per_s, 0) << v;
    EXPECT_GE(r.beside->with_case_per_s, 0) << v;
  }
  // No factory: the case says so instead of running without its load.
  Harness bare(cfg, Backend::host, reg, fabrics);
  const CaseResult r = bare.run(Case{"ring", Family::allreduce, DType::bf16, 2, 4096, 0, 0, false});
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.reason.find("--beside memory"), std::string::npos) << r.reason;
}

}  // namespace
}  // namespace arbench
