// CUDA's view of the GPUs for `arbench topo`: device properties and P2P attributes.
#include <cuda_runtime.h>

#include <cstdlib>
#include <sstream>

#include "arbench/core/cuda_check.hpp"
#include "arbench/core/errors.hpp"
#include "topo/topology.hpp"
#include "topo/gpu/cuda_gpus.hpp"

namespace arbench::topo {

std::vector<CudaGpu> list_cuda_gpus() {
  int count = 0;
  cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess || count == 0) {
    std::string why = e != cudaSuccess ? std::string(cudaGetErrorName(e)) + ": " + cudaGetErrorString(e)
                                       : std::string("the driver reports 0 devices");
    // Say which of the usual causes it is: no driver at all reads as "insufficient driver".
    std::string hint = e == cudaErrorInsufficientDriver
                           ? "the NVIDIA driver is missing or older than this CUDA runtime (CUDA 13 needs driver 580 "
                             "or newer); check nvidia-smi"
                           : "no NVIDIA GPU is visible; check nvidia-smi";
    if (const char* vis = std::getenv("CUDA_VISIBLE_DEVICES")) hint += " and CUDA_VISIBLE_DEVICES=" + std::string(vis);
    throw EnvironmentError("no CUDA device is usable (cudaGetDeviceCount: " + why + "): " + hint +
                           ". Measuring links needs a GPU. To see a PCIe tree without one, pass --sysfs-root / "
                           "(this machine) or --sysfs-root DIR (a saved or fixture sysfs tree).");
  }
  std::vector<CudaGpu> gpus;
  for (int d = 0; d < count; ++d) {
    cudaDeviceProp p{};
    ARB_CUDA_CHECK(cudaGetDeviceProperties(&p, d));
    char bus[32] = {};
    ARB_CUDA_CHECK(cudaDeviceGetPCIBusId(bus, sizeof bus, d));
    CudaGpu g;
    g.ordinal = d;
    g.name = p.name;
    g.cc_major = p.major;
    g.cc_minor = p.minor;
    g.bus_id = normalize_bus_id(bus).value_or(bus);
    g.memory_bytes = p.totalGlobalMem;
    g.sm_count = p.multiProcessorCount;
    gpus.push_back(g);
  }
  return gpus;
}

P2pMatrix query_p2p(int n) {
  const auto size = static_cast<std::size_t>(n);
  P2pMatrix m{std::vector<std::vector<int>>(size, std::vector<int>(size, 0)), {}, {}};
  m.native_atomics = m.access;
  m.performance_rank = m.access;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      if (i == j) continue;
      ARB_CUDA_CHECK(cudaDeviceCanAccessPeer(&m.access[i][j], i, j));
      ARB_CUDA_CHECK(cudaDeviceGetP2PAttribute(&m.native_atomics[i][j], cudaDevP2PAttrNativeAtomicSupported, i, j));
      ARB_CUDA_CHECK(cudaDeviceGetP2PAttribute(&m.performance_rank[i][j], cudaDevP2PAttrPerformanceRank, i, j));
    }
  return m;
}

std::string render_p2p(const P2pMatrix& p2p, const std::vector<std::string>& labels) {
  std::size_t w = 6;
  for (const auto& l : labels) w = std::max(w, l.size() + 1);
  auto pad = [w](const std::string& s) { return s + std::string(w > s.size() ? w - s.size() : 1, ' '); };
  auto table = [&](const char* title, const std::vector<std::vector<int>>& m, bool yes_no) {
    std::ostringstream os;
    os << title << "\n" << pad("");
    for (const auto& l : labels) os << pad(l);
    os << "\n";
    for (std::size_t i = 0; i < m.size(); ++i) {
      os << pad(labels[i]);
      for (std::size_t j = 0; j < m.size(); ++j)
        os << pad(i == j ? "X" : yes_no ? (m[i][j] ? "yes" : "no") : std::to_string(m[i][j]));
      os << "\n";
    }
    return os.str();
  };
  return table("CUDA P2P access (cudaDeviceCanAccessPeer, row reaches column):", p2p.access, true) + "\n" +
         table("CUDA P2P native atomics (cudaDevP2PAttrNativeAtomicSupported):", p2p.native_atomics, true) + "\n" +
         table("CUDA P2P performance rank (cudaDevP2PAttrPerformanceRank, lower is better):", p2p.performance_rank,
               false);
}

nlohmann::json p2p_to_json(const P2pMatrix& p2p) {
  return {{"access", p2p.access},
          {"native_atomics", p2p.native_atomics},
          {"performance_rank", p2p.performance_rank},
          {"method", "cudaDeviceCanAccessPeer and cudaDeviceGetP2PAttribute; [i][j]: device i reaching j"}};
}

}  // namespace arbench::topo
