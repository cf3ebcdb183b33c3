// NcclWindows: symmetric buffers of the nccl fabric, from NCCL 2.28's own API: ncclMemAlloc +
// ncclCommWindowRegister(NCCL_WIN_COLL_SYMMETRIC), every peer's address from ncclGetLsaPointer.
// Zero-filled on the ranks' streams. Freed (windows deregistered, memory released) only once the
// fabric's streams are idle and its communicators were not aborted; otherwise left allocated.
#pragma once

#include <cstddef>
#include <vector>

#include "kernels/fabric/nccl_api.hpp"
#include "kernels/fabric/cuda_fabric.hpp"

namespace arbench {

class NcclWindows final : public RankBuffers {
 public:
  // Throws CaseError when NCCL registers a window without peer pointers (a communicator whose
  // symmetric memory support is off).
  NcclWindows(const CudaFabric& owner, const NcclApi& api, const std::vector<ncclComm_t>& comms, std::size_t bytes);
  ~NcclWindows() override;
  std::size_t bytes() const override { return bytes_; }
  bool symmetric() const override { return true; }
  void* local(int rank) const override { return ptrs_.at(rank); }
  void* peer(int rank, int peer) const override { return peers_.at(rank).at(peer); }

 private:
  void resolve_peers(int rank);
  void release();

  const CudaFabric& owner_;
  const NcclApi& api_;
  std::vector<ncclComm_t> comms_;
  std::size_t bytes_;
  std::vector<void*> ptrs_;
  std::vector<ncclWindow_t> wins_;
  std::vector<std::vector<void*>> peers_;
};

}  // namespace arbench
