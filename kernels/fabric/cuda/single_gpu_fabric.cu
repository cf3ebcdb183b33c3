#include "kernels/fabric/cuda/single_gpu_fabric.hpp"

#include <cstdio>
#include <vector>

#include "arbench/core/cuda_check.hpp"
#include "kernels/fabric/cuda/single_gpu_env.hpp"

namespace arbench {

SingleGpuFabric::SingleGpuFabric(int world, int device, double timeout_s)
    : CudaFabric(std::vector<int>(world, device), timeout_s), device_(device) {
  if (max_connections_to_set(std::getenv(kMaxConnectionsVar), world))
    std::fprintf(stderr,
                 "arbench: %s is below %d: %d virtual ranks may share hardware queues and time out; set it "
                 "(e.g. to %d) before the process's first CUDA call\n",
                 kMaxConnectionsVar, world, world, kSingleGpuConnections);
  // One GPU: every rank writes every other rank's arrival words directly.
  build_gate(alloc(StartGate::kGateFlagWords * sizeof(std::uint32_t), Placement::symmetric), {});
}

SingleGpuFabric::~SingleGpuFabric() { release_gate(); }

std::string SingleGpuFabric::describe() const {
  cudaDeviceProp p{};
  cudaGetDeviceProperties(&p, device_);
  return std::to_string(world()) + " virtual ranks on GPU " + std::to_string(device_) + " (" + p.name +
         "); start gate: " + gate_description();
}

std::unique_ptr<RankBuffers> SingleGpuFabric::alloc_symmetric(std::size_t bytes) {
  return std::make_unique<DeviceBuffers>(*this, bytes, true);
}

}  // namespace arbench
