// A Fabric that forwards everything to a real one (a HostFabric by default), so a test overrides
// only what it watches or plants: count the cache flushes and the bytes allocated, or replace the
// timings by known ones, while the ops still run and the harness's correctness checks still pass.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "arbench/fabric.hpp"
#include "kernels/fabric/host/host_fabric.hpp"

namespace arbench::testing {

class ForwardingFabric : public Fabric {
 public:
  explicit ForwardingFabric(std::unique_ptr<Fabric> inner) : inner_(std::move(inner)) {}
  explicit ForwardingFabric(int world, double timeout_s = 10.0)
      : ForwardingFabric(std::make_unique<HostFabric>(world, timeout_s)) {}

  Backend backend() const override { return inner_->backend(); }
  int world() const override { return inner_->world(); }
  bool drives(int rank) const override { return inner_->drives(rank); }
  World& processes() const override { return inner_->processes(); }
  std::string describe() const override { return inner_->describe(); }
  std::string symmetric_unsupported_reason() const override { return inner_->symmetric_unsupported_reason(); }
  const PeerAccess* peer_access() const override { return inner_->peer_access(); }
  std::string island_memory_unsupported_reason() const override {
    return inner_->island_memory_unsupported_reason();
  }
  bool reaches(int rank, int peer) const override { return inner_->reaches(rank, peer); }
  std::unique_ptr<RankBuffers> alloc_island(std::size_t bytes) override { return inner_->alloc_island(bytes); }
  std::unique_ptr<RankBuffers> alloc_host_mapped(std::size_t bytes) override {
    return inner_->alloc_host_mapped(bytes);
  }
  std::unique_ptr<RankBuffers> alloc(std::size_t bytes, Placement p) override { return inner_->alloc(bytes, p); }
  void upload(int rank, void* dst, const void* src, std::size_t bytes) override {
    inner_->upload(rank, dst, src, bytes);
  }
  void download(int rank, void* dst, const void* src, std::size_t bytes) override {
    inner_->download(rank, dst, src, bytes);
  }
  void run(const RankOp& op) override { inner_->run(op); }
  IsolatedTimes time_isolated(const RankOp& op, int samples) override { return inner_->time_isolated(op, samples); }
  void flush_caches() override { inner_->flush_caches(); }
  double time_pipelined(const RankOp& op, int ops, int reps) override {
    return inner_->time_pipelined(op, ops, reps);
  }
  void hold(int rank, Stream s, double seconds) override { inner_->hold(rank, s, seconds); }
  std::string phase_clock() const override { return inner_->phase_clock(); }
  double phase_clock_resolution_ns() override { return inner_->phase_clock_resolution_ns(); }
  std::optional<std::int64_t> phase_clock_offset_ns(int rank) const override {
    return inner_->phase_clock_offset_ns(rank);
  }
  std::optional<ClockSync> clock_sync() const override { return inner_->clock_sync(); }
  double timeout_s() const override { return inner_->timeout_s(); }
  void* nccl_comm(int rank) const override { return inner_->nccl_comm(rank); }
  int device_of(int rank) const override { return inner_->device_of(rank); }
  int ranks_per_device() const override { return inner_->ranks_per_device(); }
  void abort() override { inner_->abort(); }
  std::string health() const override { return inner_->health(); }
  std::string unusable_reason() const override { return inner_->unusable_reason(); }

 protected:
  Fabric& inner() { return *inner_; }

 private:
  std::unique_ptr<Fabric> inner_;
};

}  // namespace arbench::testing
