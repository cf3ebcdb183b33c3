// HostFabric: N ranks emulated by N persistent CPU threads. Runs the host twins of the
// custom kernels (C++ acquire/release atomics stand in for the PTX ones), so whole sweeps
// work without a GPU. Timings are CPU timings and every output says so.
#pragma once

#include <barrier>
#include <functional>
#include <vector>

#include "arbench/core/peer_access.hpp"
#include "arbench/fabric.hpp"
#include "kernels/fabric/host/cpu_cache_flush.hpp"
#include "kernels/thread_team.hpp"

namespace arbench {

class HostFabric final : public Fabric {
 public:
  // The functional peer check (peer_check.hpp) runs at construction: a broken pair turns
  // symmetric memory off, with the reason, so every twin that needs it is skipped. `broken`: a
  // planted broken pair (the test seam): peer(a, b) and peer(b, a) point at a sink instead of
  // the peer's memory, so writes land there and loads read it, as through a redirected mapping.
  explicit HostFabric(int world, double timeout_s = 10.0, BrokenPair broken = {});
  ~HostFabric() override;
  HostFabric(const HostFabric&) = delete;
  HostFabric& operator=(const HostFabric&) = delete;

  Backend backend() const override { return Backend::host; }
  int world() const override { return world_; }
  std::string describe() const override;
  std::unique_ptr<RankBuffers> alloc(std::size_t bytes, Placement placement) override;
  void upload(int rank, void* dst, const void* src, std::size_t bytes) override;
  void download(int rank, void* dst, const void* src, std::size_t bytes) override;
  void run(const RankOp& op) override;
  IsolatedTimes time_isolated(const RankOp& op, int samples) override;
  double time_pipelined(const RankOp& op, int ops, int reps) override;
  // --cache cold: every rank's thread writes its share of twice the last-level cache.
  void flush_caches() override;
  double timeout_s() const override { return timeout_s_; }
  std::string symmetric_unsupported_reason() const override { return broken_peer_reason(peer_access_); }
  const PeerAccess* peer_access() const override { return &peer_access_; }

 private:
  // Runs job(rank) on every rank's thread and waits (bounded) for all; rethrows the first exception.
  void run_on_workers(const std::function<void(int)>& job);
  // On a worker: `rounds` rounds, all ranks released together at the start of each.
  void keep_in_step(int rounds, const std::function<void(int)>& round);

  int world_;
  double timeout_s_;
  BrokenPair broken_;
  PeerAccess peer_access_;
  std::barrier<> start_line_;  // lines the ranks up before each timed sample
  CpuCacheFlush flush_;        // --cache cold
  ThreadTeam ranks_;           // one thread per rank, last: made after everything it uses
};

}  // namespace arbench
