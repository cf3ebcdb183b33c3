// PeerProcessFabric: the cuda backend on the `cuda` provider with one process per GPU (mpirun /
// srun, docs/multi-process.md), and no NCCL. Each process drives the GPU of its node-local rank
// (process_device.hpp); its arena chunks are exported as POSIX file descriptors, handed to the
// other processes over a Unix-domain socket and mapped there (cuda_peer_provider.hpp), so the
// custom kernels and the start gate's device barrier reach every peer's GPU memory as in one
// process. The functional peer check (peer_fabric.hpp) runs across the processes before anything
// trusts the mappings. One node only: across nodes (or on GPUs that differ) the custom kernels are skipped
// with the reason. Every step of the setup is agreed over the World: all processes get the same
// fabric, or the same error.
#pragma once

#include <memory>
#include <string>

#include "arbench/core/peer_access.hpp"
#include "arbench/world.hpp"
#include "kernels/fabric/cuda/cuda_fabric.hpp"
#include "kernels/fabric/peer/symm_arena.hpp"

namespace arbench {

class PeerProcessFabric final : public CudaFabric {
 public:
  // Collective. `planted`: the test seam's broken pair (the peer check sees its data go elsewhere).
  PeerProcessFabric(World& processes, double timeout_s, BrokenPair planted = {});
  ~PeerProcessFabric() override;
  Backend backend() const override { return Backend::cuda; }
  std::string describe() const override;
  std::string symmetric_unsupported_reason() const override { return symmetric_reason_; }
  const PeerAccess* peer_access() const override { return peer_access_.n > 0 ? &peer_access_ : nullptr; }
  // Collective for Placement::symmetric.
  std::unique_ptr<RankBuffers> alloc(std::size_t bytes, Placement placement) override;
  void reserve_symmetric(std::size_t bytes) override;
  const SymmArena* arena() const { return arena_.get(); }

 private:
  std::unique_ptr<SymmArena> arena_;
  std::string symmetric_reason_;
  PeerAccess peer_access_;
};

}  // namespace arbench
