// A Fabric for tests that need no threads or devices: each isolated sample comes from a
// synthetic timer the test chooses, the devices of its ranks are the test's, and it counts the
// cache flushes and time_isolated calls it sees; it can discard every n-th sample, as a start gate
// that timed out does. A virtual clock advances by every sample's
// duration, so sampling budgets can be tested without waiting.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "arbench/core/errors.hpp"
#include "arbench/fabric.hpp"

namespace arbench::testing {

class FakeFabric final : public Fabric {
 public:
  explicit FakeFabric(std::function<double()> sample_s, std::vector<int> devices = {0, 1})
      : sample_s_(std::move(sample_s)), devices_(std::move(devices)) {}

  Backend backend() const override { return Backend::cuda; }
  int world() const override { return int(devices_.size()); }
  std::string describe() const override { return "fake fabric"; }
  std::unique_ptr<RankBuffers> alloc(std::size_t, Placement) override {
    throw EnvironmentError("the fake fabric has no buffers");
  }
  void upload(int, void*, const void*, std::size_t) override {}
  void download(int, void*, const void*, std::size_t) override {}
  void run(const RankOp&) override {}
  IsolatedTimes time_isolated(const RankOp&, int samples) override {
    ++time_isolated_calls;
    IsolatedTimes out;
    for (int i = 0; i < samples; ++i) {
      if (discard_every > 0 && ++asked % discard_every == 0) {  // the start gate gave up on it
        ++out.discarded;
        continue;
      }
      out.samples.push_back(sample_s_());
      out.start_skew.push_back(0);
      clock_s += out.samples.back();
      ++samples_since_flush;
    }
    return out;
  }
  double time_pipelined(const RankOp&, int, int) override { return 0; }
  void flush_caches() override {
    ++flushes;
    max_samples_between_flushes = std::max(max_samples_between_flushes, samples_since_flush);
    samples_since_flush = 0;
  }
  int device_of(int rank) const override { return devices_.at(std::size_t(rank)); }

  double clock_s = 0;  // virtual time: the sum of every sample taken
  int flushes = 0, time_isolated_calls = 0, samples_since_flush = 0, max_samples_between_flushes = 0;
  int discard_every = 0;  // > 0: every n-th sample asked is discarded (IsolatedTimes::discarded)
  int asked = 0;

 private:
  std::function<double()> sample_s_;
  std::vector<int> devices_;
};

}  // namespace arbench::testing
