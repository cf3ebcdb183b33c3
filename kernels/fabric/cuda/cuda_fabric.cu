#include "kernels/fabric/cuda/cuda_fabric.hpp"

#include <algorithm>
#include <cstdio>
#include <exception>
#include <optional>
#include <set>
#include <string>

#include "arbench/core/cuda_check.hpp"
#include "arbench/core/peer_access.hpp"
#include "kernels/fabric/cuda/clock_kernels.hpp"
#include "kernels/fabric/cuda/island_memory.hpp"
#include "kernels/fabric/cuda/op_phases.hpp"
#include "kernels/fabric/cuda/stream_wait.hpp"
#include "kernels/fabric/host/peer_check/peer_fallback.hpp"

namespace arbench {

int cuda_device_count() {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) {
    (void)cudaGetLastError();
    return 0;
  }
  return n;
}

int cuda_device_count_or_throw() {
  int n = 0;
  cudaError_t e = cudaGetDeviceCount(&n);
  if (e != cudaSuccess || n == 0) {
    std::string why = e != cudaSuccess ? std::string(cudaGetErrorName(e)) + ": " + cudaGetErrorString(e)
                                       : std::string("no CUDA device is visible");
    (void)cudaGetLastError();
    throw EnvironmentError("no usable CUDA device (" + why +
                           "). Install the NVIDIA driver and check CUDA_VISIBLE_DEVICES, or run "
                           "without a GPU: --backend host");
  }
  return n;
}

// ---- DeviceBuffers ------------------------------------------------------------------------

DeviceBuffers::DeviceBuffers(const CudaFabric& owner, std::size_t bytes, bool symmetric)
    : owner_(owner), bytes_(bytes), symmetric_(symmetric) {
  const std::size_t alloc_bytes = std::max<std::size_t>(bytes, 16);
  for (int r = owner.first_rank(); r < owner.first_rank() + owner.local_ranks(); ++r) {
    ARB_CUDA_CHECK(cudaSetDevice(owner.device_of(r)));
    void* p = nullptr;
    ARB_CUDA_CHECK(cudaMalloc(&p, alloc_bytes));
    ptrs_.push_back(p);
    ARB_CUDA_CHECK(cudaMemsetAsync(p, 0, alloc_bytes, owner.stream(r)));
  }
  if (!owner.quiesce()) throw HangError("zero-filling a new device buffer did not finish within the bound");
}

DeviceBuffers::~DeviceBuffers() {
  if (!owner_.quiesce()) {
    std::fprintf(stderr, "arbench: %zu device buffers of %zu bytes left allocated: a stream is still busy\n",
                 ptrs_.size(), bytes_);
    return;
  }
  for (std::size_t i = 0; i < ptrs_.size(); ++i) {
    cudaSetDevice(owner_.device_of(owner_.first_rank() + int(i)));
    cudaFree(ptrs_[i]);
  }
}

void* DeviceBuffers::peer(int rank, int peer) const {
  if (!symmetric_) throw CaseError("peer() asked of a local (non-symmetric) device buffer");
  if (!owner_.drives(peer) || owner_.device_of(rank) != owner_.device_of(peer))
    throw CaseError("plain device buffers are symmetric only between ranks of one process on one GPU");
  return local(peer);
}

// ---- CudaFabric ---------------------------------------------------------------------------

CudaFabric::CudaFabric(std::vector<int> devices, double timeout_s)
    : CudaFabric(std::move(devices), 0, solo_world(), timeout_s) {
  world_ = local_ranks();
}

CudaFabric::CudaFabric(int device, int rank, int world, World& processes, double timeout_s)
    : CudaFabric(std::vector<int>{device}, rank, processes, timeout_s) {
  world_ = world;
}

CudaFabric::CudaFabric(std::vector<int> devices, int first_rank, World& processes, double timeout_s)
    : first_rank_(first_rank), processes_(processes), devices_(std::move(devices)), timeout_s_(timeout_s) {
  for (int d : devices_) {
    ARB_CUDA_CHECK(cudaSetDevice(d));
    cudaStream_t s;
    cudaEvent_t a, b;
    // CUDA's greatest stream priority: a model's kernels beside the op (run --beside) run at its
    // lowest, as an engine runs its compute beside its communication. Alone it changes nothing.
    int least = 0, greatest = 0;
    ARB_CUDA_CHECK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
    ARB_CUDA_CHECK(cudaStreamCreateWithPriority(&s, cudaStreamNonBlocking, greatest));
    ARB_CUDA_CHECK(cudaEventCreate(&a));
    ARB_CUDA_CHECK(cudaEventCreate(&b));
    streams_.push_back(s);
    start_.push_back(a);
    stop_.push_back(b);
  }
}

CudaFabric::~CudaFabric() {
  // Bounded: after a hang whose kernels never ended, the streams, events and the gate's
  // host-mapped words stay allocated (a kernel may still read them) until the process exits.
  if (!quiesce()) {
    (void)gate_.release();
    return;
  }
  gate_.reset();
  for (std::size_t r = 0; r < streams_.size(); ++r) {
    cudaSetDevice(devices_[r]);
    cudaEventDestroy(start_[r]);
    cudaEventDestroy(stop_[r]);
    cudaStreamDestroy(streams_[r]);
  }
  for (std::size_t r = 0; r < flush_bufs_.size(); ++r)
    if (flush_bufs_[r]) {
      cudaSetDevice(devices_[r]);
      cudaFree(flush_bufs_[r]);
    }
}

void CudaFabric::build_gate(std::unique_ptr<RankBuffers> flags, std::string why_host_only) {
  gate_ = std::make_unique<StartGate>(devices_, streams_, first_rank_, world_, timeout_s_, std::move(flags),
                                      std::move(why_host_only), processes_);
}

void CudaFabric::release_gate() {
  if (quiesce())
    gate_.reset();
  else
    (void)gate_.release();  // a gate kernel may still run: leave its memory allocated
}

bool CudaFabric::quiesce() const {
  const auto deadline = deadline_in(timeout_s_ * 2);
  bool idle = true;
  for (std::size_t r = 0; r < streams_.size(); ++r) {
    if (cudaSetDevice(devices_[r]) != cudaSuccess) return false;
    try {
      idle = wait_stream(streams_[r], deadline) && idle;
    } catch (const CaseError&) {
      return false;  // a faulted context: nothing can be known to be idle
    }
  }
  return idle;
}

std::string CudaFabric::health() const {
  for (int d : std::set<int>(devices_.begin(), devices_.end())) {
    cudaError_t e = cudaSetDevice(d);
    (void)cudaGetLastError();  // clears an error that is not sticky
    std::size_t free_b = 0, total_b = 0;
    if (e == cudaSuccess) e = cudaMemGetInfo(&free_b, &total_b);
    if (e != cudaSuccess)
      return "GPU " + std::to_string(d) + " reports " + cudaGetErrorName(e) + " (" + cudaGetErrorString(e) +
             "): its CUDA context is unusable until the process exits";
  }
  return {};
}

void CudaFabric::sync_rank(int rank, const char* what) {
  const int i = local(rank);
  ARB_CUDA_CHECK(cudaSetDevice(devices_[i]));
  if (!wait_stream(streams_[i], deadline_in(timeout_s_ * 2)))
    throw HangError(std::string(what) + " on rank " + std::to_string(rank) + " (GPU " + std::to_string(devices_[i]) +
                    ") did not finish within " + std::to_string(timeout_s_ * 2) + " s");
}

std::string CudaFabric::island_memory_unsupported_reason() const {
  if (processes_.multi_process())
    return "the island variants need one process driving every GPU (their memory is allocated per GPU, "
           "outside NCCL); run them without mpirun";
  return {};
}

bool CudaFabric::reaches(int rank, int peer) const {
  if (rank == peer) return true;
  if (!drives(rank) || !drives(peer)) return false;
  if (devices_[local(rank)] == devices_[local(peer)]) return true;  // single_gpu: virtual ranks of one GPU
  // Only a pair the functional peer check moved data through (kernels/fabric/host/peer_check/peer_fallback.hpp):
  // never cudaDeviceCanAccessPeer alone (a pair ACS/IOMMU breaks reports P2P too).
  return peer_reaches(peer_access(), rank, peer);
}

std::unique_ptr<RankBuffers> CudaFabric::alloc(std::size_t bytes, Placement placement) {
  if (placement == Placement::local) return std::make_unique<DeviceBuffers>(*this, bytes, false);
  if (!symmetric_reason_.empty()) throw EnvironmentError("symmetric memory unavailable: " + symmetric_reason_);
  return alloc_symmetric(bytes);
}

std::unique_ptr<RankBuffers> CudaFabric::alloc_island(std::size_t bytes) {
  if (std::string why = island_memory_unsupported_reason(); !why.empty()) throw EnvironmentError(why);
  return std::make_unique<IslandBuffers>(*this, bytes);
}

std::unique_ptr<RankBuffers> CudaFabric::alloc_host_mapped(std::size_t bytes) {
  if (std::string why = island_memory_unsupported_reason(); !why.empty()) throw EnvironmentError(why);
  return std::make_unique<HostMappedBuffers>(*this, bytes);
}

// cudaMemcpyDefault: the destination or source may be pinned host memory (host-mapped buffers,
// unified addressing tells the driver where each pointer lives).
void CudaFabric::upload(int rank, void* dst, const void* src, std::size_t bytes) {
  if (!drives(rank)) throw CaseError("upload to rank " + std::to_string(rank) + ", which another process drives");
  ARB_CUDA_CHECK(cudaSetDevice(devices_[local(rank)]));
  ARB_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDefault, streams_[local(rank)]));
  sync_rank(rank, "an upload");  // the source is the caller's pageable memory
}

void CudaFabric::download(int rank, void* dst, const void* src, std::size_t bytes) {
  if (!drives(rank)) throw CaseError("download from rank " + std::to_string(rank) + ", which another process drives");
  ARB_CUDA_CHECK(cudaSetDevice(devices_[local(rank)]));
  ARB_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDefault, streams_[local(rank)]));
  sync_rank(rank, "a download");
}

void CudaFabric::hold(int rank, Stream stream, double seconds) {
  if (seconds > 0) launch_hold(static_cast<std::uint64_t>(seconds * 1e9), static_cast<cudaStream_t>(stream));
  (void)rank;  // the caller made the rank's device current (the op's launch)
}

double CudaFabric::phase_clock_resolution_ns() {
  if (timer_resolution_ns_ >= 0) return timer_resolution_ns_;
  const int r = first_rank_;
  auto out = alloc(sizeof(std::uint64_t), Placement::local);
  ARB_CUDA_CHECK(cudaSetDevice(devices_[local(r)]));
  launch_timer_resolution(static_cast<std::uint64_t*>(out->local(r)), streams_[local(r)]);
  std::uint64_t ns = 0;
  download(r, &ns, out->local(r), sizeof ns);
  return timer_resolution_ns_ = static_cast<double>(ns);
}

std::optional<std::int64_t> CudaFabric::phase_clock_offset_ns(int rank) const {
  if (!gate_ || processes().multi_process() || !drives(rank)) return std::nullopt;
  return gate_->clock_offset_ns(local(rank));
}

std::optional<ClockSync> CudaFabric::clock_sync() const {
  if (!gate_) return std::nullopt;
  return gate_->clock_sync();
}

void CudaFabric::launch_all(const RankOp& op) {
  enqueue_two_phase(
      op, first_rank_, local_ranks(),
      [this](int r) {
        ARB_CUDA_CHECK(cudaSetDevice(devices_[local(r)]));
        return static_cast<Stream>(streams_[local(r)]);
      },
      [this] { begin_op_group(); }, [this] { end_op_group(); }, [this] { abandon_op_group(); });
}

void CudaFabric::sync_all() {
  const auto deadline = deadline_in(timeout_s_ * 2);
  for (int i = 0; i < local_ranks(); ++i) {
    ARB_CUDA_CHECK(cudaSetDevice(devices_[i]));
    if (!wait_stream(streams_[i], deadline))
      throw HangError("rank " + std::to_string(first_rank_ + i) + " (GPU " + std::to_string(devices_[i]) +
                      ") did not finish within " + std::to_string(timeout_s_ * 2) +
                      " s (twice --timeout); a kernel is stuck (its peers never arrived?)");
  }
}

void CudaFabric::run(const RankOp& op) {
  // With several processes: every rank's inputs are in place before any op starts (a peer's
  // kernel may read them), and the processes end the op together, agreeing on its errors.
  processes_.barrier("starting an op");
  agree_on_errors(processes_, [&] {
    launch_all(op);
    for (int i = 0; i < local_ranks(); ++i) {
      ARB_CUDA_CHECK(cudaSetDevice(devices_[i]));
      ARB_CUDA_CHECK(cudaGetLastError());
    }
    sync_all();
  }, "ending an op");
}

void CudaFabric::flush_caches() {
  if (flush_bufs_.empty()) {
    flush_bufs_.assign(devices_.size(), nullptr);
    flush_bytes_.assign(devices_.size(), 0);
    for (std::size_t r = 0; r < devices_.size(); ++r) {
      if (std::find(devices_.begin(), devices_.begin() + std::ptrdiff_t(r), devices_[r]) !=
          devices_.begin() + std::ptrdiff_t(r))
        continue;  // single_gpu: one flush per device is enough
      int l2 = 0;
      ARB_CUDA_CHECK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, devices_[r]));
      flush_bytes_[r] = 2 * std::size_t(std::max(l2, 1 << 20));
      ARB_CUDA_CHECK(cudaSetDevice(devices_[r]));
      ARB_CUDA_CHECK(cudaMalloc(&flush_bufs_[r], flush_bytes_[r]));
    }
  }
  // A write of twice the L2 leaves none of the op's buffers in it (as nvbench's L2 flush).
  for (std::size_t r = 0; r < flush_bufs_.size(); ++r) {
    if (!flush_bufs_[r]) continue;
    ARB_CUDA_CHECK(cudaSetDevice(devices_[r]));
    ARB_CUDA_CHECK(cudaMemsetAsync(flush_bufs_[r], int(r & 0xff), flush_bytes_[r], streams_[r]));
  }
  sync_all();
}

}  // namespace arbench
