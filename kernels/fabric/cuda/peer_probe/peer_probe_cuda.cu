// The functional peer-to-peer check's GPU side (peer_probe_cuda.hpp).
#include "kernels/fabric/cuda/peer_probe/peer_probe_cuda.hpp"

#include <algorithm>
#include <cstring>
#include <string>

#include "arbench/core/cuda_check.hpp"
#include "kernels/fabric/cuda/stream_wait.hpp"
#include "kernels/mem_device.cuh"

namespace arbench {
namespace {

// What one rank's probe kernel found of one peer (device memory, copied back).
struct PeerProbeOut {
  std::uint64_t written = 0;   // 1: the read-back through the mapping showed the pattern
  std::uint64_t write_ns = 0;  // store until the read-back showed it
  std::uint64_t read = 0;      // the last value loaded from the peer's read word
  std::uint64_t read_ns = 0;   // the loads' time, all of them
};

struct PeerProbeArgs {
  std::uint64_t* peer[kMaxRanks] = {};  // peer i's probe memory, as this rank maps it
  std::uint64_t write[kMaxRanks] = {};  // the pattern for peer i
  int count = 0;                        // peers to probe
  int rank = 0;
  std::uint64_t bound_ns = 0;
  PeerProbeOut* out = nullptr;
};

constexpr int kReadLoads = 16;

__device__ __forceinline__ void store_sys(std::uint64_t* p, std::uint64_t v) {
  asm volatile("st.release.sys.global.u64 [%0], %1;" ::"l"(p), "l"(v) : "memory");
}
__device__ __forceinline__ std::uint64_t load_sys(const std::uint64_t* p) {
  std::uint64_t v;
  asm volatile("ld.acquire.sys.global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
  return v;
}

// Purpose: one rank's side of the functional peer check (kernels/fabric/host/peer_check.hpp,
// step 2). For each peer: store the pattern into the peer's slot `rank` through the mapping, load
// it back through the mapping until it shows (write: store + read-back, bounded by bound_ns), then
// load the peer's read word kReadLoads times (acquire loads: one at a time; read: their average).
// Requirements: one thread; peer[i] mapped to peer i's probe memory (or, planted broken, not).
// Bounded: every spin gives up at bound_ns; the loads are a fixed number (a load through a broken
// mapping may take a PCIe completion timeout, and the host's wait bounds that).
__global__ void peer_probe_kernel(const PeerProbeArgs a) {
#pragma unroll
  for (int i = 0; i < kMaxRanks; ++i) {  // compile-time indices keep the arguments in parameter space
    if (i >= a.count) continue;
    std::uint64_t* slot = a.peer[i] + a.rank;
    PeerProbeOut o;
    const std::uint64_t t0 = DeviceMem::now_ns();
    store_sys(slot, a.write[i]);
    for (;;) {
      const std::uint64_t now = DeviceMem::now_ns();
      if (load_sys(slot) == a.write[i]) {
        o.written = 1;
        o.write_ns = DeviceMem::now_ns() - t0;
        break;
      }
      if (now - t0 > a.bound_ns) break;
    }
    const std::uint64_t* word = a.peer[i] + kMaxRanks;
    const std::uint64_t r0 = DeviceMem::now_ns();
    std::uint64_t v = 0;
    for (int k = 0; k < kReadLoads; ++k) v = load_sys(word);
    o.read_ns = DeviceMem::now_ns() - r0;
    o.read = v;
    a.out[i] = o;
  }
}

}  // namespace

CudaPeerProbe::CudaPeerProbe(std::vector<int> devices, std::vector<cudaStream_t> streams, int first_rank,
                             const RankBuffers& buf, BrokenPair planted)
    : devices_(std::move(devices)), streams_(std::move(streams)), first_rank_(first_rank), buf_(buf),
      planted_(planted) {}

void CudaPeerProbe::prepare(int rank, std::uint64_t read_word) {
  std::uint64_t words[kPeerProbeWords] = {};
  words[kMaxRanks] = read_word;
  const std::size_t i = index(rank);
  ARB_CUDA_CHECK(cudaSetDevice(devices_[i]));
  ARB_CUDA_CHECK(cudaMemcpyAsync(buf_.local(rank), words, sizeof words, cudaMemcpyHostToDevice, streams_[i]));
  if (!wait_stream(streams_[i], deadline_in(10.0)))
    throw HangError("preparing the peer check's memory on GPU " + std::to_string(devices_[i]) + " did not finish");
}

std::vector<PeerSeen> CudaPeerProbe::probe(int rank, const std::vector<int>& peers,
                                           const std::vector<std::uint64_t>& write, double bound_s) {
  std::vector<PeerSeen> seen(peers.size());
  const std::size_t i = index(rank);
  PeerProbeArgs a;
  a.count = int(std::min<std::size_t>(peers.size(), kMaxRanks));
  a.rank = rank;
  a.bound_ns = static_cast<std::uint64_t>(bound_s * 1e9);
  for (int k = 0; k < a.count; ++k) {
    const int p = peers[std::size_t(k)];
    // The planted pair writes into the writer's own memory: its data never reaches the peer.
    a.peer[k] = static_cast<std::uint64_t*>(planted_.covers(rank, p) ? buf_.local(rank) : buf_.peer(rank, p));
    a.write[k] = write[std::size_t(k)];
  }
  PeerProbeOut host[kMaxRanks];
  std::string failure;
  try {
    ARB_CUDA_CHECK(cudaSetDevice(devices_[i]));
    const cudaStream_t s = streams_[i];
    ARB_CUDA_CHECK(cudaMallocAsync(reinterpret_cast<void**>(&a.out), sizeof host, s));
    ARB_CUDA_CHECK(cudaMemsetAsync(a.out, 0, sizeof host, s));
    peer_probe_kernel<<<1, 1, 0, s>>>(a);
    ARB_CUDA_CHECK(cudaGetLastError());
    ARB_CUDA_CHECK(cudaMemcpyAsync(host, a.out, sizeof host, cudaMemcpyDeviceToHost, s));
    ARB_CUDA_CHECK(cudaFreeAsync(a.out, s));
    // Every spin is bounded on the GPU; a load through a broken mapping may still wait for a PCIe
    // completion timeout, so the host waits a little longer, then gives up on this rank's peers.
    if (!wait_stream(s, deadline_in(a.count * bound_s * 2 + 5.0)))
      failure = "the probe kernel on GPU " + std::to_string(devices_[i]) +
                " did not finish: a load through the peer mapping never completed";
  } catch (const CaseError& e) {
    failure = std::string("the probe faulted (") + e.what() + ")";
  }
  for (int k = 0; k < a.count; ++k) {
    PeerSeen& s = seen[std::size_t(k)];
    s.failure = failure;
    if (!failure.empty()) continue;
    s.written = host[k].written != 0;
    s.write_ns = s.written ? double(host[k].write_ns) : -1;
    s.read = host[k].read;
    s.read_ns = double(host[k].read_ns) / kReadLoads;
  }
  return seen;
}

std::vector<std::uint64_t> CudaPeerProbe::slots(int rank) {
  std::vector<std::uint64_t> out(kMaxRanks);
  const std::size_t i = index(rank);
  ARB_CUDA_CHECK(cudaSetDevice(devices_[i]));
  ARB_CUDA_CHECK(cudaMemcpyAsync(out.data(), buf_.local(rank), kMaxRanks * sizeof(std::uint64_t),
                                 cudaMemcpyDeviceToHost, streams_[i]));
  if (!wait_stream(streams_[i], deadline_in(10.0)))
    throw HangError("reading the peer check's memory on GPU " + std::to_string(devices_[i]) + " did not finish");
  return out;
}

// ---- the check on bare devices (arbench topo) -----------------------------------------------

namespace {

// cudaMalloc memory per device; with unified addressing a peer's pointer is the same address
// once peer access is enabled.
class PeerEnabledBuffers final : public RankBuffers {
 public:
  explicit PeerEnabledBuffers(std::vector<void*> ptrs) : ptrs_(std::move(ptrs)) {}
  std::size_t bytes() const override { return kPeerProbeBytes; }
  bool symmetric() const override { return true; }
  void* local(int rank) const override { return ptrs_.at(std::size_t(rank)); }
  void* peer(int, int peer) const override { return ptrs_.at(std::size_t(peer)); }

 private:
  std::vector<void*> ptrs_;
};

}  // namespace

PeerAccess check_device_peer_access(const std::vector<int>& devices, const std::vector<std::vector<int>>& reported,
                                    double bound_s, BrokenPair planted) {
  const int n = int(devices.size());
  std::vector<cudaStream_t> streams(std::size_t(n), nullptr);
  std::vector<void*> mem(std::size_t(n), nullptr);
  std::vector<std::vector<int>> usable = reported;  // pairs whose peer access could be enabled
  std::vector<std::vector<std::string>> enable_error(std::size_t(n), std::vector<std::string>(static_cast<std::size_t>(n), std::string()));
  std::vector<std::vector<bool>> enabled(std::size_t(n), std::vector<bool>(std::size_t(n), false));
  auto release = [&] {
    for (int a = 0; a < n; ++a) {
      cudaSetDevice(devices[std::size_t(a)]);
      for (int b = 0; b < n; ++b)
        if (enabled[std::size_t(a)][std::size_t(b)]) cudaDeviceDisablePeerAccess(devices[std::size_t(b)]);
      bool idle = streams[std::size_t(a)] == nullptr || wait_stream(streams[std::size_t(a)], deadline_in(5.0));
      if (idle && mem[std::size_t(a)]) cudaFree(mem[std::size_t(a)]);  // else a kernel may still touch it
      if (idle && streams[std::size_t(a)]) cudaStreamDestroy(streams[std::size_t(a)]);
    }
    (void)cudaGetLastError();
  };
  PeerAccess m;
  try {
    for (int a = 0; a < n; ++a) {
      ARB_CUDA_CHECK(cudaSetDevice(devices[std::size_t(a)]));
      ARB_CUDA_CHECK(cudaStreamCreateWithFlags(&streams[std::size_t(a)], cudaStreamNonBlocking));
      ARB_CUDA_CHECK(cudaMalloc(&mem[std::size_t(a)], kPeerProbeBytes));
      for (int b = 0; b < n; ++b) {
        if (a == b || !reported[std::size_t(a)][std::size_t(b)]) continue;
        const cudaError_t e = cudaDeviceEnablePeerAccess(devices[std::size_t(b)], 0);
        if (e == cudaSuccess || e == cudaErrorPeerAccessAlreadyEnabled) {
          enabled[std::size_t(a)][std::size_t(b)] = e == cudaSuccess;
        } else {
          usable[std::size_t(a)][std::size_t(b)] = 0;
          enable_error[std::size_t(a)][std::size_t(b)] = std::string("cudaDeviceEnablePeerAccess: ") + cudaGetErrorName(e);
        }
        (void)cudaGetLastError();
      }
    }
    PeerEnabledBuffers buf(mem);
    CudaPeerProbe probe(devices, streams, 0, buf, planted);
    m = check_peer_access(probe, n, [](int) { return true; }, usable, solo_world(), bound_s, 1,
                          "cudaMalloc memory, cudaDeviceEnablePeerAccess");
    for (int a = 0; a < n; ++a)  // reported, but access could not even be enabled: broken, not "no P2P"
      for (int b = 0; b < n; ++b)
        if (!enable_error[std::size_t(a)][std::size_t(b)].empty()) {
          m.at(a, b).path = PeerPath::broken;
          m.at(a, b).detail = enable_error[std::size_t(a)][std::size_t(b)];
        }
  } catch (...) {
    release();
    throw;
  }
  release();
  return m;
}

}  // namespace arbench
