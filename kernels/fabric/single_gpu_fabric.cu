#include "kernels/fabric/single_gpu_fabric.hpp"

#include <vector>

#include "arbench/core/cuda_check.hpp"

namespace arbench {

SingleGpuFabric::SingleGpuFabric(int world, int device, double timeout_s)
    : CudaFabric(std::vector<int>(world, device), timeout_s), device_(device) {}

std::string SingleGpuFabric::describe() const {
  cudaDeviceProp p{};
  cudaGetDeviceProperties(&p, device_);
  return std::to_string(world()) + " virtual ranks on GPU " + std::to_string(device_) + " (" + p.name + ")";
}

std::unique_ptr<RankBuffers> SingleGpuFabric::alloc(std::size_t bytes, Placement placement) {
  return std::make_unique<DeviceBuffers>(std::vector<int>(world(), device_), bytes,
                                         placement == Placement::symmetric);
}

}  // namespace arbench
