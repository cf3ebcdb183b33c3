// ShmFabric: the host backend with one process per rank (`mpirun -np N arbench --backend host`).
// The same host twins as HostFabric, reaching their peers through one POSIX shared-memory
// segment (ShmSegment) instead of one address space: every buffer of every rank lives in the
// segment, and a PeerTable holds pointers into this process's mapping of it.
//
// The twins' memory policy (HostMem) synchronises with std::atomic_ref on 4- and 8-byte words.
// Lock-free atomics are address-free, so they order memory between processes mapping the same
// page exactly as between threads; shm_fabric.cpp asserts at compile time that they are
// lock-free (always, not just here).
//
// Each process drives its own rank (Fabric::drives). Ops are collective: run() and the timed
// regimes start together (World barrier) and end together (the processes agree on any error,
// so every process fails the op with the same message). A timed sample starts at a spin
// barrier in the segment, after the World barrier that opens the batch; a sample is the
// maximum over ranks (World max), the start skew the spread of the ranks' release times (one
// node: steady_clock is one clock for every process). The start line never releases a rank
// alone (a rank missing past its bound fails the batch, HangError), so nothing is discarded.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>

#include "arbench/fabric.hpp"
#include "arbench/world.hpp"
#include "kernels/fabric/host/cpu_cache_flush.hpp"
#include "kernels/fabric/host/shm_segment.hpp"

namespace arbench {

class ShmFabric final : public Fabric {
 public:
  // Collective. Throws EnvironmentError when the processes are on several nodes or shared
  // memory cannot be had.
  ShmFabric(World& world, double timeout_s = 10.0);

  Backend backend() const override { return Backend::host; }
  int world() const override { return world_.size(); }
  bool drives(int rank) const override { return rank == world_.rank(); }
  World& processes() const override { return world_; }
  std::string describe() const override;
  std::unique_ptr<RankBuffers> alloc(std::size_t bytes, Placement placement) override;
  void upload(int rank, void* dst, const void* src, std::size_t bytes) override;
  void download(int rank, void* dst, const void* src, std::size_t bytes) override;
  void run(const RankOp& op) override;
  IsolatedTimes time_isolated(const RankOp& op, int samples) override;
  double time_pipelined(const RankOp& op, int ops, int reps) override;
  // --cache cold: this process writes twice the last-level cache (its rank's share is all of it).
  void flush_caches() override { flush_.write_share(0, 1); }
  double timeout_s() const override { return timeout_s_; }

 private:
  friend class ShmBuffers;
  void release(std::size_t bytes);
  // `rounds` rounds of `round` on this process's rank, each starting at the segment's spin
  // barrier; returns each round's [start, end) in steady-clock seconds. Every round's barrier is
  // passed even after a failure (so no peer waits for this rank); the first error is rethrown.
  std::vector<std::pair<double, double>> keep_in_step(int rounds, const std::function<void()>& round);
  // Ends a collective op: every process learns the lowest rank's error and rethrows it.
  void agree(const std::string& failure, const char* what);
  void check_drives(int rank, const char* what) const;

  World& world_;
  double timeout_s_;
  ShmSegment segment_;
  std::size_t used_ = 0;  // bytes of buffers handed out after the control block
  int live_ = 0;          // buffers not yet released; the space is reused when none is left
  CpuCacheFlush flush_;
};

}  // namespace arbench
