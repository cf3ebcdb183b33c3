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

namespace {

// The GPU's PCI address, for its NUMA node in sysfs.
std::string bus_id_of(int device) {
  char id[32] = {};
  ARB_CUDA_CHECK(cudaDeviceGetPCIBusId(id, static_cast<int>(sizeof id), device));
  return id;
}

}  // namespace

HostMappedBuffers::HostMappedBuffers(const CudaFabric& owner, std::size_t bytes) : owner_(owner), bytes_(bytes) {
  try {
    place_all();
  } catch (...) {
    for (auto& p : ptrs_) cudaHostUnregister(p->data());
    throw;
  }
}

void HostMappedBuffers::place_all() {
  std::string nodes, wanted, note;
  for (int r = 0; r < owner_.world(); ++r) {
    const NumaTarget target = gpu_numa_node("/", bus_id_of(owner_.device_of(r)));
    auto pages = std::make_unique<NumaPages>(bytes_, target);
    ARB_CUDA_CHECK(cudaHostRegister(pages->data(), pages->bytes(), cudaHostRegisterPortable | cudaHostRegisterMapped));
    ptrs_.push_back(std::move(pages));
    const NumaPages& mine = *ptrs_.back();
    void* d = nullptr;
    ARB_CUDA_CHECK(cudaHostGetDevicePointer(&d, mine.data(), 0));
    if (d != mine.data())  // unified addressing makes them equal on every 64-bit platform CUDA 13 runs on
      throw EnvironmentError("pinned host memory has a different device address: unified addressing is off");
    const std::string at = nodes_word(page_nodes(mine.data(), mine.bytes()));
    const std::string want = target.node >= 0 ? std::to_string(target.node) : "?";
    nodes += (r ? "," : "") + at;
    wanted += (r ? "," : "") + want;
    std::string why = mine.note();
    if (why.empty() && at != want) why = "on node " + at + ", not " + want + " (that node had no free memory, or move_pages was refused)";
    if (!why.empty()) note += (note.empty() ? "rank " : "; rank ") + std::to_string(r) + ": " + why;
  }
  placement_ = {{"mailbox_numa_nodes", nodes}, {"mailbox_numa_wanted", wanted}};
  if (!note.empty()) placement_.emplace_back("mailbox_numa_note", note);
}

HostMappedBuffers::~HostMappedBuffers() {
  if (!owner_.quiesce()) {
    std::fprintf(stderr, "arbench: %zu host-mapped buffers of %zu bytes left allocated: a stream is still busy\n",
                 ptrs_.size(), bytes_);
    for (auto& p : ptrs_) (void)p.release();  // never unmap memory a GPU may still write
    return;
  }
  for (auto& p : ptrs_) cudaHostUnregister(p->data());
}

}  // namespace arbench
