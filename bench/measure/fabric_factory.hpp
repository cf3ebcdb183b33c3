// The fabric factory and GPU facts for the arbench executable (CUDA-linked side).
#pragma once

#include <string>
#include <vector>

#include "arbench/core/peer_access.hpp"
#include "measure/harness.hpp"
#include "results/provenance.hpp"

namespace arbench {

// Creates HostFabric, SingleGpuFabric (on GPU 0), or on the cuda backend PeerFabric (`provider`
// "cuda": arbench's own peer mappings, no NCCL) or NcclFabric ("nccl" or ""); in a World of
// several processes (one rank each), ShmFabric (host), PeerProcessFabric or NcclProcessFabric
// (cuda). Collective then. Provider "nccl@<label>": the NcclFabric (or NcclProcessFabric) of the
// library with that label, measured beside the default (kernels/fabric/nccl/nccl_libraries.hpp).
// `planted`: the test seam's broken peer-to-peer pair (ARBENCH_TEST_BROKEN_P2P), for the fabrics
// that check their peers (host, and cuda on either provider).
std::unique_ptr<Fabric> make_fabric(Backend b, int world, const FabricEnv& env, double timeout_s,
                                    World& processes = solo_world(), const std::string& provider = {},
                                    BrokenPair planted = {});

// The GPUs among 0..gpus-1 whose kernels a display watchdog limits (cudaDevAttrKernelExecTimeout).
std::vector<int> gpus_with_kernel_watchdog(int gpus);

// Adds GPU facts (names, CC, bus ids, clocks, driver, CUDA runtime, NCCL version) for `gpus`
// devices to `p`; leaves them empty on the host backend. With one process per GPU: every
// process's GPU, by rank (collective).
void add_gpu_provenance(Provenance& p, Backend b, int gpus, World& processes = solo_world());

}  // namespace arbench
