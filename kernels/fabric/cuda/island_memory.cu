#include "kernels/fabric/cuda/island_memory.hpp"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string>

#include "arbench/core/cuda_check.hpp"

namespace arbench {

bool devices_have_p2p(int a, int b) {
  if (a == b) return true;
  int ok = 0;
  if (cudaDeviceCanAccessPeer(&ok, a, b) != cudaSuccess) {
    (void)cudaGetLastError();
    return false;
  }
  return ok != 0;
}

// ---- IslandBuffers -------------------------------------------------------------------------

IslandBuffers::IslandBuffers(const CudaFabric& owner, std::size_t bytes)
    : owner_(owner), memory_(owner, bytes, false) {
  const int first = owner.first_rank(), n = owner.local_ranks();
  // Peer access is per pair of contexts and stays on once enabled: enabling it twice reports
  // cudaErrorPeerAccessAlreadyEnabled, which is no error here.
  for (int r = first; r < first + n; ++r)
    for (int p = first; p < first + n; ++p) {
      const int dr = owner.device_of(r), dp = owner.device_of(p);
      if (dr == dp || !owner.reaches(r, p)) continue;
      ARB_CUDA_CHECK(cudaSetDevice(dr));
      const cudaError_t e = cudaDeviceEnablePeerAccess(dp, 0);
      if (e == cudaErrorPeerAccessAlreadyEnabled)
        (void)cudaGetLastError();
      else
        ARB_CUDA_CHECK(e);
    }
}

void* IslandBuffers::peer(int rank, int peer) const {
  if (!owner_.drives(peer) || !owner_.reaches(rank, peer))
    throw CaseError("rank " + std::to_string(rank) + " cannot reach rank " + std::to_string(peer) +
                    "'s island memory (no P2P between their GPUs)");
  return local(peer);
}

// ---- HostMappedBuffers ---------------------------------------------------------------------

HostMappedBuffers::HostMappedBuffers(const CudaFabric& owner, std::size_t bytes) : owner_(owner), bytes_(bytes) {
  const std::size_t alloc_bytes = std::max<std::size_t>(bytes, 16);
  for (int r = 0; r < owner.world(); ++r) {
    void* p = nullptr;
    ARB_CUDA_CHECK(cudaHostAlloc(&p, alloc_bytes, cudaHostAllocPortable | cudaHostAllocMapped));
    std::memset(p, 0, alloc_bytes);
    void* d = nullptr;
    ARB_CUDA_CHECK(cudaHostGetDevicePointer(&d, p, 0));
    if (d != p) {  // unified addressing makes them equal on every 64-bit platform CUDA 13 runs on
      cudaFreeHost(p);
      throw EnvironmentError("pinned host memory has a different device address: unified addressing is off");
    }
    ptrs_.push_back(p);
  }
}

HostMappedBuffers::~HostMappedBuffers() {
  if (!owner_.quiesce()) {
    std::fprintf(stderr, "arbench: %zu host-mapped buffers of %zu bytes left allocated: a stream is still busy\n",
                 ptrs_.size(), bytes_);
    return;
  }
  for (void* p : ptrs_) cudaFreeHost(p);
}

}  // namespace arbench
