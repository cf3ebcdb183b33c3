// The fabric factory and GPU facts for the arbench executable (CUDA-linked side).
#pragma once

#include <string>
#include <vector>

#include "run/harness.hpp"
#include "results/provenance.hpp"

namespace arbench {

// Creates HostFabric, SingleGpuFabric (on GPU 0) or NcclFabric.
std::unique_ptr<Fabric> make_fabric(Backend b, int world, const FabricEnv& env, double timeout_s);

// The GPUs among 0..gpus-1 whose kernels a display watchdog limits (cudaDevAttrKernelExecTimeout).
std::vector<int> gpus_with_kernel_watchdog(int gpus);

// Adds GPU facts (names, CC, bus ids, clocks, driver, CUDA runtime, NCCL version) for `gpus`
// devices to `p`; leaves them empty on the host backend.
void add_gpu_provenance(Provenance& p, Backend b, int gpus);

}  // namespace arbench
