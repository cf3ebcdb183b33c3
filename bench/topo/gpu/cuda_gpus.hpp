// What CUDA says about the GPUs: name, compute capability, PCI bus id, and the pairwise P2P
// attributes (access, native atomics, performance rank). CUDA-linked (bench/).
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace arbench::topo {

struct CudaGpu {
  int ordinal = 0;
  std::string name;
  int cc_major = 0, cc_minor = 0;
  std::string bus_id;  // normalized, "0000:41:00.0"
  std::size_t memory_bytes = 0;
  int sm_count = 0;
};

// Every visible CUDA device. Throws EnvironmentError (exit 3) saying what is missing and what
// to do when there is no driver or no device.
std::vector<CudaGpu> list_cuda_gpus();

// Pairwise P2P attributes; [i][j] for device i reaching device j; the diagonal is 0.
struct P2pMatrix {
  std::vector<std::vector<int>> access;          // cudaDeviceCanAccessPeer
  std::vector<std::vector<int>> native_atomics;  // cudaDevP2PAttrNativeAtomicSupported
  std::vector<std::vector<int>> performance_rank;  // cudaDevP2PAttrPerformanceRank (lower = better)
};

P2pMatrix query_p2p(int device_count);

std::string render_p2p(const P2pMatrix& p2p, const std::vector<std::string>& labels);
nlohmann::json p2p_to_json(const P2pMatrix& p2p);

}  // namespace arbench::topo
