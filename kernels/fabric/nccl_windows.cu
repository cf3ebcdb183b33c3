#include "kernels/fabric/nccl_windows.hpp"

#include <algorithm>
#include <cstdio>
#include <string>

#include "arbench/core/cuda_check.hpp"
#include "kernels/fabric/nccl_group.hpp"
#include "kernels/fabric/stream_wait.hpp"

namespace arbench {
namespace {

// Every peer's address of a symmetric window as `rank` sees it, with NCCL's own
// ncclGetLsaPointer (on a single node the LSA team is the world, so LSA rank = world rank).
__global__ void resolve_peer_pointers(ncclWindow_t win, int world, void** out) {
  const int p = int(threadIdx.x);
  if (p < world) out[p] = ncclGetLsaPointer(win, 0, p);
}

}  // namespace

NcclWindows::NcclWindows(const CudaFabric& owner, const NcclApi& api, const std::vector<ncclComm_t>& comms,
                         std::size_t bytes)
    : owner_(owner), api_(api), comms_(comms), bytes_(bytes) {
  const int world = int(comms.size());
  const std::size_t alloc_bytes = std::max<std::size_t>(bytes, 16);
  ptrs_.assign(world, nullptr);
  wins_.assign(world, nullptr);
  peers_.assign(world, std::vector<void*>(world, nullptr));
  try {
    for (int r = 0; r < world; ++r) {
      ARB_CUDA_CHECK(cudaSetDevice(owner.device_of(r)));
      ARB_NCCL_CHECK(api_, MemAlloc(&ptrs_[r], alloc_bytes));
      ARB_CUDA_CHECK(cudaMemsetAsync(ptrs_[r], 0, alloc_bytes, owner.stream(r)));
    }
    const ncclResult_t registered = grouped_setup(
        world, ncclSuccess, [&] { return api_.GroupStart(); },
        [&](int r) {
          return api_.CommWindowRegister(comms_[r], ptrs_[r], alloc_bytes, &wins_[r], NCCL_WIN_COLL_SYMMETRIC);
        },
        [&] { abandon_group(api_); }, [&] { return api_.GroupEnd(); });
    if (registered != ncclSuccess) throw_nccl(api_, registered, "ncclCommWindowRegister (grouped)", __FILE__, __LINE__);
    for (int r = 0; r < world; ++r) resolve_peers(r);
  } catch (...) {
    release();
    throw;
  }
}

void NcclWindows::resolve_peers(int rank) {
  const int world = int(comms_.size());
  if (wins_[rank] == nullptr)
    throw CaseError("ncclCommWindowRegister returned no window for rank " + std::to_string(rank));
  ARB_CUDA_CHECK(cudaSetDevice(owner_.device_of(rank)));
  const cudaStream_t s = owner_.stream(rank);
  void** d_out = nullptr;
  ARB_CUDA_CHECK(cudaMallocAsync(reinterpret_cast<void**>(&d_out), sizeof(void*) * world, s));
  resolve_peer_pointers<<<1, 32, 0, s>>>(wins_[rank], world, d_out);
  ARB_CUDA_CHECK(cudaGetLastError());
  ARB_CUDA_CHECK(cudaMemcpyAsync(peers_[rank].data(), d_out, sizeof(void*) * world, cudaMemcpyDeviceToHost, s));
  ARB_CUDA_CHECK(cudaFreeAsync(d_out, s));
  if (!wait_stream(s, deadline_in(owner_.timeout_s() * 2)))
    throw HangError("resolving the peer pointers of a symmetric window did not finish within the bound");
  for (int p = 0; p < world; ++p)
    if (peers_[rank][p] == nullptr)
      throw CaseError("ncclGetLsaPointer gave rank " + std::to_string(rank) + " no address for rank " +
                      std::to_string(p) + "'s window: the communicator registered it without symmetric memory "
                      "support (no P2P between these GPUs, or NCCL_WIN_ENABLE=0)");
}

void NcclWindows::release() {
  if (owner_.aborted() || !owner_.quiesce()) {
    std::fprintf(stderr, "arbench: %zu symmetric windows of %zu bytes left registered: %s\n", ptrs_.size(), bytes_,
                 owner_.aborted() ? "their communicators were aborted" : "a stream is still busy");
    return;
  }
  api_.GroupStart();
  for (std::size_t r = 0; r < comms_.size(); ++r)
    if (wins_[r]) api_.CommWindowDeregister(comms_[r], wins_[r]);
  api_.GroupEnd();
  for (std::size_t r = 0; r < ptrs_.size(); ++r) {
    cudaSetDevice(owner_.device_of(int(r)));
    if (ptrs_[r]) api_.MemFree(ptrs_[r]);
  }
}

NcclWindows::~NcclWindows() { release(); }

}  // namespace arbench
