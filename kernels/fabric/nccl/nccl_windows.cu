#include "kernels/fabric/nccl/nccl_windows.hpp"

#include <algorithm>
#include <cstdio>
#include <exception>
#include <string>

#include "arbench/core/cuda_check.hpp"
#include "kernels/fabric/nccl/nccl_group.hpp"
#include "kernels/fabric/cuda/stream_wait.hpp"

namespace arbench {
namespace {

// Every peer's address of a symmetric window as `rank` sees it, with NCCL's own
// ncclGetLsaPointer (the fabric checked that the LSA team is the world: lsa_team.hpp).
__global__ void resolve_peer_pointers(ncclWindow_t win, int world, void** out) {
  const int p = int(threadIdx.x);
  if (p < world) out[p] = ncclGetLsaPointer(win, 0, p);
}

}  // namespace

NcclWindows::NcclWindows(const CudaFabric& owner, const NcclApi& api, const std::vector<ncclComm_t>& comms,
                         std::size_t bytes, Watchdog& dog)
    : owner_(owner), api_(api), dog_(dog), comms_(comms), bytes_(bytes) {
  const int local = int(comms.size()), first = owner.first_rank();
  const std::size_t alloc_bytes = std::max<std::size_t>(bytes, 16);
  ptrs_.assign(local, nullptr);
  wins_.assign(local, nullptr);
  peers_.assign(local, std::vector<void*>(std::size_t(owner.world()), nullptr));
  try {
    std::exception_ptr not_ready;
    try {
      for (int i = 0; i < local; ++i) {
        ARB_CUDA_CHECK(cudaSetDevice(owner.device_of(first + i)));
        ARB_NCCL_CHECK(api_, MemAlloc(&ptrs_[i], alloc_bytes));
        ARB_CUDA_CHECK(cudaMemsetAsync(ptrs_[i], 0, alloc_bytes, owner.stream(first + i)));
      }
    } catch (...) {
      not_ready = std::current_exception();
    }
    // Readiness, agreed before the collective registration (one process: its own error).
    World& w = owner.processes();
    const std::string agreed = first_failure(w, error_token(not_ready), "getting ready to register a symmetric window");
    if (!agreed.empty()) {
      if (!w.multi_process()) std::rethrow_exception(not_ready);
      throw_agreed(agreed);
    }
    const ncclResult_t registered = grouped_setup(
        local, ncclSuccess, [&] { return api_.GroupStart(); },
        [&](int i) {
          return api_.CommWindowRegister(comms_[i], ptrs_[i], alloc_bytes, &wins_[i], NCCL_WIN_COLL_SYMMETRIC);
        },
        [&] { abandon_group(api_); },
        [&] {
          return dog_.guard("registering a symmetric window (ncclCommWindowRegister, at ncclGroupEnd)",
                            nccl_setup_bound_s(owner_.timeout_s()), [&] { return api_.GroupEnd(); });
        });
    if (registered != ncclSuccess) {
      const char* last = api_.GetLastError(nullptr);
      throw NcclGroupError(std::string("ncclCommWindowRegister (grouped) failed: ") + api_.GetErrorString(registered) +
                           (last && *last ? std::string(" (") + last + ")" : std::string()) +
                           "; the communicators that registered keep the call queued, so they are replaced");
    }
    for (int i = 0; i < local; ++i) resolve_peers(first + i);
  } catch (...) {
    release();
    throw;
  }
}

void NcclWindows::resolve_peers(int rank) {
  const int world = owner_.world();
  const std::size_t i = index(rank);
  if (wins_[i] == nullptr)
    throw CaseError("ncclCommWindowRegister returned no window for rank " + std::to_string(rank));
  ARB_CUDA_CHECK(cudaSetDevice(owner_.device_of(rank)));
  const cudaStream_t s = owner_.stream(rank);
  void** d_out = nullptr;
  ARB_CUDA_CHECK(cudaMallocAsync(reinterpret_cast<void**>(&d_out), sizeof(void*) * world, s));
  resolve_peer_pointers<<<1, 32, 0, s>>>(wins_[i], world, d_out);
  ARB_CUDA_CHECK(cudaGetLastError());
  ARB_CUDA_CHECK(cudaMemcpyAsync(peers_[i].data(), d_out, sizeof(void*) * world, cudaMemcpyDeviceToHost, s));
  ARB_CUDA_CHECK(cudaFreeAsync(d_out, s));
  if (!wait_stream(s, deadline_in(owner_.timeout_s() * 2)))
    throw HangError("resolving the peer pointers of a symmetric window did not finish within the bound");
  for (int p = 0; p < world; ++p)
    if (peers_[i][std::size_t(p)] == nullptr)
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
  dog_.guard("deregistering a symmetric window (ncclCommWindowDeregister, at ncclGroupEnd)",
             nccl_setup_bound_s(owner_.timeout_s()), [&] { return api_.GroupEnd(); });
  for (std::size_t i = 0; i < ptrs_.size(); ++i) {
    cudaSetDevice(owner_.device_of(owner_.first_rank() + int(i)));
    if (ptrs_[i]) api_.MemFree(ptrs_[i]);
  }
}

NcclWindows::~NcclWindows() { release(); }

}  // namespace arbench
