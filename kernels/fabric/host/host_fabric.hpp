// HostFabric: N ranks emulated by N persistent CPU threads. Runs the host twins of the
// custom kernels (C++ acquire/release atomics stand in for the PTX ones), so whole sweeps
// work without a GPU. Timings are CPU timings and every output says so.
#pragma once

#include <barrier>
#include <functional>
#include <vector>

#include "arbench/core/peer_access.hpp"
#include <memory>
#include <string>

#include "arbench/fabric.hpp"
#include "kernels/fabric/host/cpu_cache_flush.hpp"
#include "kernels/fabric/host/cross_link.hpp"
#include "kernels/thread_team.hpp"

namespace arbench {

// For tests: the host fabric as a box whose ranks sit in islands (docs/variants.md, "Island
// variants"). Production runs use the defaults: one island, every pair reachable, no delay.
struct HostFabricOptions {
  std::vector<int> island_of;     // island label per rank; empty: one island
  bool cross_island_p2p = true;   // false: ranks of different islands cannot reach each other's
                                  // memory (no symmetric memory; island memory within islands only)
  CrossLinkModel link;            // injected cross-island delay (cross_link.hpp); off by default
  BrokenPair broken;              // a planted broken peer-to-peer pair (the peer check's test seam)
};

inline HostFabricOptions with_broken(BrokenPair broken) {
  HostFabricOptions o;
  o.broken = broken;
  return o;
}

class HostFabric final : public Fabric {
 public:
  // The functional peer check (peer_check.hpp) runs at construction: a broken pair turns
  // symmetric memory off, with the reason, so every twin that needs it is skipped.
  // `opt.broken`: a planted broken pair (the test seam): peer(a, b) and peer(b, a) point at a
  // sink instead of the peer's memory, so writes land there and loads read it, as through a
  // redirected mapping.
  explicit HostFabric(int world, double timeout_s = 10.0, HostFabricOptions opt = {});
  HostFabric(int world, double timeout_s, BrokenPair broken) : HostFabric(world, timeout_s, with_broken(broken)) {}
  ~HostFabric() override;
  HostFabric(const HostFabric&) = delete;
  HostFabric& operator=(const HostFabric&) = delete;

  Backend backend() const override { return Backend::host; }
  int world() const override { return world_; }
  std::string describe() const override;
  std::unique_ptr<RankBuffers> alloc(std::size_t bytes, Placement placement) override;
  std::string symmetric_unsupported_reason() const override;
  const PeerAccess* peer_access() const override { return &peer_access_; }
  std::string island_memory_unsupported_reason() const override { return {}; }
  bool reaches(int rank, int peer) const override;
  std::unique_ptr<RankBuffers> alloc_island(std::size_t bytes) override;
  std::unique_ptr<RankBuffers> alloc_host_mapped(std::size_t bytes) override;
  // The injected cross-island link (null when off).
  const CrossLink* link() const { return link_.get(); }
  void upload(int rank, void* dst, const void* src, std::size_t bytes) override;
  void download(int rank, void* dst, const void* src, std::size_t bytes) override;
  void run(const RankOp& op) override;
  IsolatedTimes time_isolated(const RankOp& op, int samples) override;
  double time_pipelined(const RankOp& op, int ops, int reps) override;
  // --cache cold: every rank's thread writes its share of twice the last-level cache.
  void flush_caches() override;
  double timeout_s() const override { return timeout_s_; }

 private:
  // Runs job(rank) on every rank's thread and waits (bounded) for all; rethrows the first exception.
  void run_on_workers(const std::function<void(int)>& job);
  // On a worker: `rounds` rounds, all ranks released together at the start of each.
  void keep_in_step(int rounds, const std::function<void(int)>& round);

  bool same_island(int a, int b) const;

  int world_;
  double timeout_s_;
  HostFabricOptions opt_;
  PeerAccess peer_access_;
  std::unique_ptr<CrossLink> link_;  // before the rank threads, which use it
  std::barrier<> start_line_;  // lines the ranks up before each timed sample
  CpuCacheFlush flush_;        // --cache cold
  ThreadTeam ranks_;           // one thread per rank, last: made after everything it uses
};

}  // namespace arbench
