// CudaFabric: what the GPU fabrics (nccl: one rank per GPU; single_gpu: N virtual ranks on one
// GPU) share: a stream per rank, the start gate (start_gate.hpp), CUDA-event timing, CUDA-graph
// pipelining and bounded waits. One host thread drives every rank of the process: every rank of
// the run, or, with one process per GPU (nccl_process_fabric), its own. Such a fabric spans a
// World of processes: a timed sample's gate opens once every process has enqueued its op (a World
// collective that also shares any error), and a sample is the maximum over every process's ranks.
//
// Every copy and fill runs on the rank's own stream (cudaStreamNonBlocking: the legacy default
// stream would not order it before the rank's next op) and is waited for, bounded, before it
// returns. Nothing here waits without a bound: a stream still busy after the bound is a hang
// (HangError); a destructor that cannot see its streams go idle leaves their memory allocated
// rather than free it under a running kernel.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <exception>
#include <memory>
#include <string>
#include <vector>

#include "arbench/core/peer_access.hpp"
#include "arbench/fabric.hpp"
#include "arbench/world.hpp"
#include "kernels/fabric/cuda/start_gate.hpp"

namespace arbench {

class CudaFabric : public Fabric {
 public:
  ~CudaFabric() override;
  CudaFabric(const CudaFabric&) = delete;
  CudaFabric& operator=(const CudaFabric&) = delete;

  int world() const override { return world_; }
  bool drives(int rank) const override { return rank >= first_rank_ && rank < first_rank_ + local_ranks(); }
  World& processes() const override { return processes_; }
  // A rank of another process: this process's GPU (launch policies read its SM count; the
  // process fabric refuses the custom kernels when the processes' GPUs differ).
  int device_of(int rank) const override { return devices_.at(drives(rank) ? local(rank) : 0); }
  double timeout_s() const override { return timeout_s_; }
  void upload(int rank, void* dst, const void* src, std::size_t bytes) override;
  void download(int rank, void* dst, const void* src, std::size_t bytes) override;
  void run(const RankOp& op) override;
  IsolatedTimes time_isolated(const RankOp& op, int samples) override;
  double time_pipelined(const RankOp& op, int ops, int reps) override;
  void abort() override { aborted_ = true; }
  // --skew: a %globaltimer spin kernel on the rank's stream; phase marks use %globaltimer too.
  void hold(int rank, Stream stream, double seconds) override;
  std::string phase_clock() const override { return "globaltimer"; }
  double phase_clock_resolution_ns() override;
  // The start gate's measured offsets between the GPUs' clocks (one process; the phase marks of
  // other processes' ranks are not compared).
  std::optional<std::int64_t> phase_clock_offset_ns(int rank) const override;
  // The start gate's offsets: how they were measured, their error bound, their drift.
  std::optional<ClockSync> clock_sync() const override;
  std::string health() const override;
  // Island memory (island_memory.hpp): one process driving every rank, P2P from the CUDA driver.
  std::string island_memory_unsupported_reason() const override;
  bool reaches(int rank, int peer) const override;
  std::unique_ptr<RankBuffers> alloc_island(std::size_t bytes) override;
  std::unique_ptr<RankBuffers> alloc_host_mapped(std::size_t bytes) override;
  // Symmetric memory as the derived fabric makes it (symmetric_reason_, peer_access_): what it
  // says, and plain device buffers for Placement::local, alloc_symmetric() for symmetric ones.
  std::string symmetric_unsupported_reason() const override { return symmetric_reason_; }
  const PeerAccess* peer_access() const override { return peer_access_.n > 0 ? &peer_access_ : nullptr; }
  std::unique_ptr<RankBuffers> alloc(std::size_t bytes, Placement placement) override;
  // --cache cold: writes twice the L2 size on every device this process drives.
  void flush_caches() override;

  cudaStream_t stream(int rank) const { return streams_.at(local(rank)); }
  // The ranks this process drives: first_rank() .. first_rank() + local_ranks() - 1.
  int first_rank() const { return first_rank_; }
  int local_ranks() const { return int(devices_.size()); }
  // Waits (bounded by 2 x timeout_s()) until every rank's stream is idle; false when one is
  // still busy. Buffers call it before freeing memory a kernel may still touch.
  bool quiesce() const;
  bool aborted() const { return aborted_; }
  std::string gate_description() const { return gate_ ? gate_->describe() : "not built yet"; }

 protected:
  // One process: rank r on devices[r].
  CudaFabric(std::vector<int> devices, double timeout_s);
  // One of several processes: rank `rank` of `world` on `device` (collectives over `processes`).
  CudaFabric(int device, int rank, int world, World& processes, double timeout_s);
  // Builds the start gate: with the device barrier when `flags` (StartGate::kGateFlagWords
  // words per rank, writable by every rank) is given, else host word only, for `why`. Derived
  // fabrics call it once their own allocator works.
  void build_gate(std::unique_ptr<RankBuffers> flags, std::string why_host_only);
  // Drops the gate (its flags may belong to the derived fabric's communicators).
  void release_gate();
  // Symmetric memory of the derived fabric's kind (NCCL windows, a slice of the peer arena,
  // plain buffers on one GPU); alloc() calls it only while symmetric_reason_ is empty.
  virtual std::unique_ptr<RankBuffers> alloc_symmetric(std::size_t bytes) = 0;
  // Brackets around the per-rank launches of one op (the nccl fabric groups NCCL calls).
  virtual void begin_op_group() {}
  virtual void end_op_group() {}
  // Ends the group of an op whose launch threw (op_phases.hpp): none of its calls may run.
  virtual void abandon_op_group() {}
  // Both phases of `op` on every rank (op_phases.hpp).
  void launch_all(const RankOp& op);
  // Waits for every rank's stream; throws HangError naming the rank after 2 x timeout_s().
  void sync_all();

  // Set while the derived fabric is built: why its symmetric memory cannot be used ("" when it
  // can; the custom kernels are skipped with it), and what the functional peer check found
  // (kernels/fabric/host/peer_check/peer_check.hpp; n == 0 when it did not run).
  std::string symmetric_reason_;
  PeerAccess peer_access_;

 private:
  CudaFabric(std::vector<int> devices, int first_rank, World& processes, double timeout_s);
  int local(int rank) const { return rank - first_rank_; }  // index into the per-rank vectors
  void sync_rank(int rank, const char* what);
  double max_over_ranks_s() const;
  // Every process has enqueued its sample (and says whether that worked); then the gate opens.
  void open_gate_together(std::uint32_t token, std::exception_ptr enqueue_error);

  int first_rank_ = 0;
  int world_ = 0;
  World& processes_;
  std::vector<int> devices_;  // per local rank
  std::vector<cudaStream_t> streams_;
  double timer_resolution_ns_ = -1;  // measured on first use (phase_clock_resolution_ns)
  std::vector<cudaEvent_t> start_, stop_;
  double timeout_s_;
  std::unique_ptr<StartGate> gate_;
  bool aborted_ = false;
  // --cache cold: per local rank, a buffer twice its device's L2 (nullptr for a rank whose
  // device an earlier rank already flushes), allocated on the first flush.
  std::vector<void*> flush_bufs_;
  std::vector<std::size_t> flush_bytes_;
};

// Plain device buffers, one per rank the process drives, on its device (single_gpu: all on one
// device), zeroed on the rank's stream. When symmetric, every rank addresses every peer's buffer
// directly (same device). Freed only once the owner's streams are idle (else left allocated).
// local(rank) of a rank another process drives is null.
class DeviceBuffers final : public RankBuffers {
 public:
  DeviceBuffers(const CudaFabric& owner, std::size_t bytes, bool symmetric);
  ~DeviceBuffers() override;
  std::size_t bytes() const override { return bytes_; }
  bool symmetric() const override { return symmetric_; }
  void* local(int rank) const override {
    return owner_.drives(rank) ? ptrs_.at(std::size_t(rank - owner_.first_rank())) : nullptr;
  }
  void* peer(int rank, int peer) const override;

 private:
  const CudaFabric& owner_;
  std::size_t bytes_;
  bool symmetric_;
  std::vector<void*> ptrs_;
};

// Number of CUDA devices, or throws EnvironmentError (exit 3) explaining why there are none.
int cuda_device_count_or_throw();
// Number of CUDA devices; 0 when none or no driver (never throws).
int cuda_device_count();

}  // namespace arbench
