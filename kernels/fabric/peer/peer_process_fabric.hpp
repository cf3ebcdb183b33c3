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

#include <string>

#include "arbench/core/peer_access.hpp"
#include "arbench/world.hpp"
#include "kernels/fabric/peer/peer_fabric.hpp"

namespace arbench {

class PeerProcessFabric final : public PeerArenaFabric {
 public:
  // Collective. `planted`: the test seam's broken pair (the peer check sees its data go elsewhere).
  PeerProcessFabric(World& processes, double timeout_s, BrokenPair planted = {});
  std::string describe() const override;
};

}  // namespace arbench
