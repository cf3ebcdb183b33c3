// Fabric: N ranks and how they reach each other (docs/architecture.md).
//
// A fabric owns per-rank devices, streams, communicators and buffers. Kernels never see a
// Fabric: they get a PeerTable (plain pointers, by value). Kinds:
//   cuda        one rank per GPU, NCCL communicator, symmetric memory from NCCL's window API
//   single_gpu  N virtual ranks on one GPU (plain device allocations), for one-GPU machines
//   host        N CPU threads; runs the host twins; timings are CPU timings
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace arbench {

enum class Backend : std::uint8_t { cuda, single_gpu, host };

constexpr std::string_view backend_name(Backend b) {
  switch (b) {
    case Backend::cuda: return "cuda";
    case Backend::single_gpu: return "single-gpu";
    case Backend::host: return "host";
  }
  return "?";
}

inline constexpr int kMaxRanks = 8;

// What a kernel or twin needs to reach its peers. Passed by value; every pointer is valid in
// the address space of `rank` (its device, or the host for the host fabric).
struct PeerTable {
  void* ptr[kMaxRanks] = {};  // ptr[p]: rank p's buffer as `rank` addresses it (ptr[rank]: own)
  int rank = 0;
  int world = 1;
};

// One buffer per rank. Symmetric buffers are also addressable by every peer (same size and
// layout on every rank); local ones only by their owner.
class RankBuffers {
 public:
  virtual ~RankBuffers() = default;
  virtual std::size_t bytes() const = 0;
  virtual bool symmetric() const = 0;
  virtual void* local(int rank) const = 0;
  // `peer`'s buffer as `rank` addresses it; only for symmetric buffers.
  virtual void* peer(int rank, int peer) const = 0;
  PeerTable table(int rank, int world) const {
    PeerTable t;
    t.rank = rank;
    t.world = world;
    for (int p = 0; p < world; ++p) t.ptr[p] = symmetric() ? peer(rank, p) : nullptr;
    t.ptr[rank] = local(rank);
    return t;
  }
};

using Stream = void*;  // cudaStream_t on CUDA fabrics; nullptr on the host fabric
using RankFn = std::function<void(int rank, Stream stream)>;

enum class Placement : std::uint8_t { local, symmetric };

class Fabric {
 public:
  virtual ~Fabric() = default;
  virtual Backend backend() const = 0;
  virtual int world() const = 0;
  // One line for banners: "8 GPUs (NCCL 2.28.9)", "4 virtual ranks on GPU 0", "8 CPU threads".
  virtual std::string describe() const = 0;

  // Empty when symmetric buffers can be allocated; else the reason (shown as a skip).
  virtual std::string symmetric_unsupported_reason() const { return {}; }
  // Zero-filled buffers; throws EnvironmentError when `placement` is unsupported.
  virtual std::unique_ptr<RankBuffers> alloc(std::size_t bytes, Placement placement) = 0;
  virtual void upload(int rank, void* dst, const void* src, std::size_t bytes) = 0;
  virtual void download(int rank, void* dst, const void* src, std::size_t bytes) = 0;

  // Calls fn(rank, stream) for every rank and waits (bounded) for all to finish.
  virtual void run(const RankFn& fn) = 0;
  // `samples` gated samples of one op each; a sample is the maximum over ranks, in seconds.
  virtual std::vector<double> time_isolated(const RankFn& fn, int samples) = 0;
  // --cache cold: evict the caches the next op would find warm, outside any timed region
  // (GPU fabrics: write a buffer twice the L2 size on every device of the fabric; host: every
  // rank's thread writes its share of a buffer twice the last-level cache). Returns when done.
  virtual void flush_caches() {}
  // `ops` ops back to back (a CUDA graph on GPU fabrics), repeated `reps` times;
  // returns the median time per op in seconds.
  virtual double time_pipelined(const RankFn& fn, int ops, int reps) = 0;

  // Bound for any single wait, in seconds (spin-waits in kernels and twins, stream syncs).
  virtual double timeout_s() const { return 10.0; }
  // The NCCL communicator of `rank` (ncclComm_t), or nullptr when the fabric has none.
  virtual void* nccl_comm(int /*rank*/) const { return nullptr; }
  // CUDA device ordinal of `rank`, or -1 on the host fabric.
  virtual int device_of(int /*rank*/) const { return -1; }
  // How many ranks share one device (single_gpu: world). Kernels whose ranks wait on each
  // other must fit all sharing ranks' blocks on the device at once: divide the SMs by this.
  virtual int ranks_per_device() const { return 1; }
};

}  // namespace arbench
