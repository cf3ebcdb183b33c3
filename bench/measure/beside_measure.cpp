#include "measure/beside_measure.hpp"

#include <chrono>
#include <thread>

#include "results/stats/stats.hpp"

namespace arbench {
namespace {

using Clock = std::chrono::steady_clock;

constexpr std::uint64_t kAloneItems = 8;  // items the alone rate counts at least, where it can
constexpr double kAloneWindows = 20;      // windows the alone count may take at most

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

// Stops the load on a path out of measure_beside by an exception (a failed sample); stop() is
// idempotent, and its own error gives way to the one already leaving.
struct StopOnExit {
  BesideLoad& load;
  ~StopOnExit() {
    try {
      load.stop();
    } catch (...) {  // the exception already leaving wins
    }
  }
};

}  // namespace

BesideFigures measure_beside(Fabric& f, const RankOp& op, BesideLoad& load, const BesidePlan& plan, BesideKind kind) {
  BesideFigures out;
  out.load = beside_kind_name(kind);
  out.timing = load.timing();
  out.item_us = load.item_us();
  load.start();
  StopOnExit guard{load};
  std::this_thread::sleep_for(std::chrono::duration<double>(plan.settle_s));

  // 1. Alone: at least the window, and on until the load has finished a few items (on a busy
  // machine a low-priority load may finish none in one window, and a rate of 0 says nothing), at
  // most kAloneWindows windows.
  const std::uint64_t a0 = load.done();
  const Clock::time_point t0 = Clock::now();
  std::this_thread::sleep_for(std::chrono::duration<double>(plan.window_s));
  while (load.done() - a0 < kAloneItems && seconds_since(t0) < kAloneWindows * plan.window_s)
    std::this_thread::sleep_for(std::chrono::duration<double>(plan.window_s / 10));
  const double alone_s = seconds_since(t0);
  out.alone_per_s = double(load.done() - a0) / alone_s;

  // 2. The case's latency under the load.
  const TakenSamples t = take_samples(f, op, plan.samples);
  for (double s : t.seconds) out.samples_us.push_back(s * 1e6);
  out.latency_us = summarize(out.samples_us);

  // 3. The load's work while the case's ops run back to back.
  const std::uint64_t w0 = load.done();
  const Clock::time_point t1 = Clock::now();
  for (int i = 0; i < plan.max_pipelined_samples && (i == 0 || seconds_since(t1) < plan.window_s); ++i)
    (void)f.time_pipelined(op, plan.pipelined_ops, 1);
  const double with_s = seconds_since(t1);
  out.with_case_per_s = double(load.done() - w0) / with_s;
  load.stop();  // 4. (here, so a load's own error is thrown; the guard covers the other ways out)
  return out;
}

}  // namespace arbench
