// The functional peer-to-peer check on bare devices (peer_probe_cuda.hpp): what `arbench topo`
// shows, and what a fabric falls back to when its own symmetric memory cannot be set up.
#include <string>

#include "arbench/core/cuda_check.hpp"
#include "kernels/fabric/cuda/peer_probe/peer_probe_cuda.hpp"

namespace arbench {

namespace {

// cudaMalloc memory per device; with unified addressing a peer's pointer is the same address
// once peer access is enabled.
class PeerEnabledBuffers final : public RankBuffers {
 public:
  PeerEnabledBuffers(std::vector<void*> ptrs, std::size_t bytes) : ptrs_(std::move(ptrs)), bytes_(bytes) {}
  std::size_t bytes() const override { return bytes_; }
  bool symmetric() const override { return true; }
  void* local(int rank) const override { return ptrs_.at(std::size_t(rank)); }
  void* peer(int, int peer) const override { return ptrs_.at(std::size_t(peer)); }

 private:
  std::vector<void*> ptrs_;
  std::size_t bytes_;
};

}  // namespace

std::vector<std::vector<int>> reported_peer_access(const std::vector<int>& devices) {
  const std::size_t n = devices.size();
  std::vector<std::vector<int>> m(n, std::vector<int>(n, 0));
  for (std::size_t a = 0; a < n; ++a)
    for (std::size_t b = 0; b < n; ++b) {
      int ok = 0;
      if (a != b && cudaDeviceCanAccessPeer(&ok, devices[a], devices[b]) == cudaSuccess) m[a][b] = ok;
      (void)cudaGetLastError();
    }
  return m;
}

PeerAccess check_device_peer_access(const std::vector<int>& devices, const std::vector<std::vector<int>>& reported,
                                    double bound_s, BrokenPair planted, std::size_t bulk, std::string* fatal) {
  const int n = int(devices.size());
  const std::size_t bytes = peer_probe_bytes(n, bulk);
  std::vector<void*> mem(std::size_t(n), nullptr);
  std::vector<std::vector<int>> usable = reported;  // pairs whose peer access could be enabled
  std::vector<std::vector<std::string>> enable_error(std::size_t(n), std::vector<std::string>(static_cast<std::size_t>(n), std::string()));
  std::vector<std::vector<bool>> enabled(std::size_t(n), std::vector<bool>(std::size_t(n), false));
  bool leave_memory = false;  // a probe never finished: its kernel may still touch the memory
  auto release = [&] {
    for (int a = 0; a < n; ++a) {
      cudaSetDevice(devices[std::size_t(a)]);
      if (!leave_memory)
        for (int b = 0; b < n; ++b)
          if (enabled[std::size_t(a)][std::size_t(b)]) cudaDeviceDisablePeerAccess(devices[std::size_t(b)]);
      if (!leave_memory && mem[std::size_t(a)]) cudaFree(mem[std::size_t(a)]);
    }
    (void)cudaGetLastError();
  };
  PeerAccess m;
  try {
    for (int a = 0; a < n; ++a) {
      ARB_CUDA_CHECK(cudaSetDevice(devices[std::size_t(a)]));
      ARB_CUDA_CHECK(cudaMalloc(&mem[std::size_t(a)], bytes));
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
    PeerEnabledBuffers buf(mem, bytes);
    {
      CudaPeerProbe probe(devices, 0, buf, planted);
      PeerCheckOptions opt;
      opt.bulk_bytes = bulk;
      opt.fatal = fatal;
      m = check_peer_access(probe, n, [](int) { return true; }, usable, solo_world(), bound_s, 1,
                            "cudaMalloc memory, cudaDeviceEnablePeerAccess", "GPU", opt);
      leave_memory = !probe.idle();
    }
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

CheckedPeers check_bare_devices(const std::vector<int>& devices, BrokenPair planted) {
  CheckedPeers c;
  c.access = check_device_peer_access(devices, reported_peer_access(devices), kPeerCheckBound_s, planted,
                                      kPeerBulkBytes, &c.fatal);
  return c;
}

}  // namespace arbench
