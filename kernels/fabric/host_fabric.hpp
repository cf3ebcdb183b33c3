// HostFabric: N ranks emulated by N persistent CPU threads. Runs the host twins of the
// custom kernels (C++ acquire/release atomics stand in for the PTX ones), so whole sweeps
// work without a GPU. Timings are CPU timings and every output says so.
#pragma once

#include <barrier>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#include "arbench/fabric.hpp"

namespace arbench {

class HostFabric final : public Fabric {
 public:
  explicit HostFabric(int world, double timeout_s = 10.0);
  ~HostFabric() override;
  HostFabric(const HostFabric&) = delete;
  HostFabric& operator=(const HostFabric&) = delete;

  Backend backend() const override { return Backend::host; }
  int world() const override { return world_; }
  std::string describe() const override;
  std::unique_ptr<RankBuffers> alloc(std::size_t bytes, Placement placement) override;
  void upload(int rank, void* dst, const void* src, std::size_t bytes) override;
  void download(int rank, void* dst, const void* src, std::size_t bytes) override;
  void run(const RankFn& fn) override;
  std::vector<double> time_isolated(const RankFn& fn, int samples) override;
  double time_pipelined(const RankFn& fn, int ops, int reps) override;
  void flush_caches() override;
  double timeout_s() const override { return timeout_s_; }

 private:
  // Runs job(rank) on every worker and waits for all; rethrows the first exception.
  void run_on_workers(const std::function<void(int)>& job);
  void worker_main(int rank);
  // On a worker: `rounds` rounds, all ranks released together at the start of each.
  void keep_in_step(int rounds, const std::function<void(int)>& round);

  int world_;
  double timeout_s_;
  std::vector<std::thread> workers_;
  std::barrier<> start_line_;  // lines the ranks up before each timed sample
  std::mutex mu_;
  std::condition_variable cv_;
  const std::function<void(int)>* job_ = nullptr;
  std::uint64_t generation_ = 0;
  int done_ = 0;
  bool stopping_ = false;
  std::exception_ptr first_error_;
  std::vector<unsigned char> flush_buffer_;  // --cache cold: twice the last-level cache
};

}  // namespace arbench
