// CudaFabric: what the GPU fabrics (nccl: one rank per GPU; single_gpu: N virtual ranks on one
// GPU) share: a stream per rank, the start gate, CUDA-event timing, CUDA-graph pipelining and
// bounded waits. One host thread drives every rank.
//
// Gate (docs/method.md): before each sample every rank's stream runs a spin
// kernel that waits on a host-mapped word; once all ranks' work is enqueued the host writes
// the word and all ranks start together. Per-rank events bracket the op; a sample is the
// maximum over ranks.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <vector>

#include "arbench/fabric.hpp"

namespace arbench {

class CudaFabric : public Fabric {
 public:
  ~CudaFabric() override;
  CudaFabric(const CudaFabric&) = delete;
  CudaFabric& operator=(const CudaFabric&) = delete;

  int world() const override { return int(devices_.size()); }
  int device_of(int rank) const override { return devices_.at(rank); }
  double timeout_s() const override { return timeout_s_; }
  void upload(int rank, void* dst, const void* src, std::size_t bytes) override;
  void download(int rank, void* dst, const void* src, std::size_t bytes) override;
  void run(const RankFn& fn) override;
  std::vector<double> time_isolated(const RankFn& fn, int samples) override;
  double time_pipelined(const RankFn& fn, int ops, int reps) override;
  void flush_caches() override;

  cudaStream_t stream(int rank) const { return streams_.at(rank); }

 protected:
  CudaFabric(std::vector<int> devices, double timeout_s);
  // Brackets around the per-rank launches of one op (the nccl fabric groups NCCL calls).
  virtual void begin_op_group() {}
  virtual void end_op_group() {}
  // fn on every rank, inside one op group.
  void launch_all(const RankFn& fn);
  // Waits for every rank's stream; throws CaseError naming the rank after timeout_s().
  void sync_all();

 private:
  void enqueue_gate(int rank, std::uint32_t token);
  void open_gate(std::uint32_t token);

  std::vector<int> devices_;
  std::vector<cudaStream_t> streams_;
  std::vector<cudaEvent_t> start_, stop_;
  double timeout_s_;
  volatile std::uint32_t* gate_ = nullptr;  // host-mapped: written by the host, read by gate kernels
  std::uint32_t* d_gate_ = nullptr;         // the same word as the GPUs address it
  std::uint32_t* gate_timeouts_ = nullptr;  // host-mapped: set by a gate kernel that gave up
  std::uint32_t* d_gate_timeouts_ = nullptr;
  std::uint32_t gate_token_ = 0;
  // --cache cold: per rank, a buffer twice its device's L2 (nullptr for a rank whose device
  // an earlier rank already flushes), allocated on the first flush.
  std::vector<void*> flush_bufs_;
  std::vector<std::size_t> flush_bytes_;
};

// Plain device buffers, one per rank on its device (single_gpu: all on one device).
// When symmetric, every rank addresses every peer's buffer directly (same device).
class DeviceBuffers final : public RankBuffers {
 public:
  DeviceBuffers(const std::vector<int>& devices, std::size_t bytes, bool symmetric);
  ~DeviceBuffers() override;
  std::size_t bytes() const override { return bytes_; }
  bool symmetric() const override { return symmetric_; }
  void* local(int rank) const override { return ptrs_.at(rank); }
  void* peer(int rank, int peer) const override;

 private:
  std::vector<int> devices_;
  std::size_t bytes_;
  bool symmetric_;
  std::vector<void*> ptrs_;
};

// Number of CUDA devices, or throws EnvironmentError (exit 3) explaining why there are none.
int cuda_device_count_or_throw();
// Number of CUDA devices; 0 when none or no driver (never throws).
int cuda_device_count();

}  // namespace arbench
