// The fabric factory and GPU facts for the arbench executable (CUDA-linked side).
#pragma once

#include <string>

#include "run/harness.hpp"
#include "results/provenance.hpp"

namespace arbench {

// Creates HostFabric, SingleGpuFabric (on GPU 0) or NcclFabric; in a World of several processes
// (one rank each), ShmFabric for the host backend. Collective then.
std::unique_ptr<Fabric> make_fabric(Backend b, int world, const FabricEnv& env, double timeout_s,
                                    World& processes = solo_world());

// Adds GPU facts (names, CC, bus ids, clocks, driver, CUDA runtime, NCCL version) for `gpus`
// devices to `p`; leaves them empty on the host backend.
void add_gpu_provenance(Provenance& p, Backend b, int gpus);

}  // namespace arbench
