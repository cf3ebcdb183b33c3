// The host backend's background load: a CPU thread per rank, at nice 19 (the lowest scheduling
// priority: the ranks' threads win every contended core, as the case's stream wins a GPU over the
// background's lower-priority stream), running items one after another:
//   FMA-bound     four independent multiply-add chains in registers
//   memory-bound  a sum over the next window of a buffer larger than the last-level cache
// Each item's size is calibrated once, alone, to kBesideItemTargetUs. CPU timing.
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <thread>
#include <vector>

#include "arbench/core/errors.hpp"
#include "measure/beside/beside_load.hpp"

namespace arbench {
namespace {

using Clock = std::chrono::steady_clock;

constexpr std::size_t kMemoryBufferBytes = std::size_t(64) << 20;  // larger than the usual LLC

// An FMA-bound item: `iters` rounds of four independent chains (a compiler cannot fold them: the
// result is published).
float fma_item(std::uint64_t iters, float seed) {
  float a = seed, b = seed + 1, c = seed + 2, d = seed + 3;
  for (std::uint64_t i = 0; i < iters; ++i) {
    a = a * 0.999999f + 0.5f;
    b = b * 0.999998f + 0.25f;
    c = c * 0.999997f + 0.125f;
    d = d * 0.999996f + 0.0625f;
  }
  return a + b + c + d;
}

// A memory-bound item: the sum of `words` 8-byte words of `buf` from `at` (wrapping).
std::uint64_t memory_item(const std::vector<std::uint64_t>& buf, std::size_t at, std::size_t words) {
  std::uint64_t s = 0;
  const std::size_t n = buf.size();
  for (std::size_t i = 0; i < words; ++i) s += buf[(at + i) % n];
  return s;
}

class HostBesideLoad final : public BesideLoad {
 public:
  HostBesideLoad(int threads, BesideKind kind) : kind_(kind), threads_(threads), buf_(kMemoryBufferBytes / 8) {
    for (std::size_t i = 0; i < buf_.size(); ++i) buf_[i] = i * 0x9E3779B97F4A7C15ull;
    calibrate();
  }
  ~HostBesideLoad() override { stop(); }

  void start() override {
    stop_.store(false);
    counts_ = std::vector<std::atomic<std::uint64_t>>(std::size_t(threads_));
    for (int t = 0; t < threads_; ++t) workers_.emplace_back([this, t] { work(t); });
  }

  std::uint64_t done() const override {
    std::uint64_t n = 0;
    for (const auto& c : counts_) n += c.load(std::memory_order_relaxed);
    return n;
  }

  void stop() override {
    stop_.store(true);
    for (auto& w : workers_) w.join();  // each item is tens of microseconds: joins promptly
    workers_.clear();
  }

  std::string timing() const override { return "cpu"; }
  double item_us() const override { return item_us_; }

 private:
  bool fma_turn(std::uint64_t i) const {
    return kind_ == BesideKind::fma || (kind_ == BesideKind::compute && i % 2 == 0);
  }

  void run_item(std::uint64_t i, std::size_t& at) {
    if (fma_turn(i)) {
      sink_.fetch_add(std::uint64_t(fma_item(fma_iters_, float(i % 7))), std::memory_order_relaxed);
    } else {
      sink_.fetch_add(memory_item(buf_, at, memory_words_), std::memory_order_relaxed);
      at = (at + memory_words_) % buf_.size();
    }
  }

  void work(int t) {
    // This thread only (Linux: a thread's nice value is its own); raising nice needs no privilege.
    (void)setpriority(PRIO_PROCESS, static_cast<id_t>(::syscall(SYS_gettid)), 19);
    std::size_t at = buf_.size() / std::size_t(threads_) * std::size_t(t);
    auto& count = counts_[std::size_t(t)];
    for (std::uint64_t i = std::uint64_t(t); !stop_.load(std::memory_order_relaxed); ++i) {
      run_item(i, at);
      count.fetch_add(1, std::memory_order_relaxed);
    }
  }

  // Sizes each kind's item to kBesideItemTargetUs from a timed trial alone (the best of three).
  void calibrate() {
    auto best_us = [](auto&& item) {
      double best = 1e30;
      for (int k = 0; k < 3; ++k) {
        const auto t0 = Clock::now();
        item();
        best = std::min(best, std::chrono::duration<double, std::micro>(Clock::now() - t0).count());
      }
      return std::max(best, 1e-3);
    };
    constexpr std::uint64_t kTrialIters = 20000;
    constexpr std::size_t kTrialWords = 16384;
    const double fma_us = best_us([&] { sink_ += std::uint64_t(fma_item(kTrialIters, 1.0f)); });
    const double mem_us = best_us([&] { sink_ += memory_item(buf_, 0, kTrialWords); });
    fma_iters_ = std::max<std::uint64_t>(1, std::uint64_t(double(kTrialIters) * kBesideItemTargetUs / fma_us));
    memory_words_ = std::clamp<std::size_t>(std::size_t(double(kTrialWords) * kBesideItemTargetUs / mem_us), 1, buf_.size());
    const double fma_item_us = best_us([&] { sink_ += std::uint64_t(fma_item(fma_iters_, 1.0f)); });
    const double mem_item_us = best_us([&] { sink_ += memory_item(buf_, 0, memory_words_); });
    item_us_ = kind_ == BesideKind::fma ? fma_item_us : kind_ == BesideKind::memory ? mem_item_us : (fma_item_us + mem_item_us) / 2;
  }

  const BesideKind kind_;
  const int threads_;
  std::vector<std::uint64_t> buf_;
  std::uint64_t fma_iters_ = 1;
  std::size_t memory_words_ = 1;
  double item_us_ = 0;
  std::atomic<bool> stop_{false};
  std::atomic<std::uint64_t> sink_{0};  // the items' results: published, so never optimised away
  std::vector<std::atomic<std::uint64_t>> counts_;
  std::vector<std::thread> workers_;
};

}  // namespace

std::unique_ptr<BesideLoad> make_host_beside_load(const Fabric& f, BesideKind kind) {
  int threads = 0;
  for (int r = 0; r < f.world(); ++r) threads += f.drives(r) ? 1 : 0;
  return std::make_unique<HostBesideLoad>(std::max(threads, 1), kind);
}

}  // namespace arbench
