// NcclWindows: symmetric buffers of the nccl fabrics, from NCCL 2.28's own API: ncclMemAlloc +
// ncclCommWindowRegister(NCCL_WIN_COLL_SYMMETRIC), every peer's address from ncclGetLsaPointer.
// `comms`: one per rank this process drives (every rank, or its own with one process per GPU: the
// peers' addresses then reach the other processes' memory; one node, where the LSA team is the
// world).
// Zero-filled on the ranks' streams. Freed (windows deregistered, memory released) only once the
// fabric's streams are idle and its communicators were not aborted; otherwise left allocated.
#pragma once

#include <cstddef>
#include <vector>

#include "kernels/fabric/nccl/nccl_api.hpp"
#include "kernels/fabric/cuda/cuda_fabric.hpp"
#include "kernels/fabric/nccl/watchdog.hpp"

namespace arbench {

class NcclWindows final : public RankBuffers {
 public:
  // Throws CaseError when NCCL registers a window without peer pointers (a communicator whose
  // symmetric memory support is off).
  // With several processes every process allocates first, then they agree (bounded, over the
  // owner's World) that all are ready before any enters the collective registration: a process
  // that failed to allocate would otherwise leave the others inside NCCL. `dog` bounds the
  // registration and the deregistration (watchdog.hpp).
  NcclWindows(const CudaFabric& owner, const NcclApi& api, const std::vector<ncclComm_t>& comms, std::size_t bytes,
              Watchdog& dog);
  ~NcclWindows() override;
  std::size_t bytes() const override { return bytes_; }
  bool symmetric() const override { return true; }
  void* local(int rank) const override { return owner_.drives(rank) ? ptrs_.at(index(rank)) : nullptr; }
  void* peer(int rank, int peer) const override { return peers_.at(index(rank)).at(std::size_t(peer)); }

 private:
  std::size_t index(int rank) const { return std::size_t(rank - owner_.first_rank()); }
  void resolve_peers(int rank);
  void release();

  const CudaFabric& owner_;
  const NcclApi& api_;
  Watchdog& dog_;
  std::vector<ncclComm_t> comms_;
  std::size_t bytes_;
  std::vector<void*> ptrs_;
  std::vector<ncclWindow_t> wins_;
  std::vector<std::vector<void*>> peers_;
};

}  // namespace arbench
