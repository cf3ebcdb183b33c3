// SingleGpuFabric: N virtual ranks on one GPU, each with its own stream, plain device
// allocations as "symmetric" memory. Lets every custom kernel run and be checked on a one-GPU
// machine (e.g. the H200 used for device checks). NCCL variants are unsupported here: NCCL
// forbids two ranks on one GPU.
// The N ranks' kernels wait on each other, so their N streams must run concurrently: each needs
// its own hardware queue, which CUDA_DEVICE_MAX_CONNECTIONS must allow when the process's CUDA
// context is created (single_gpu_env.hpp sets it before the first CUDA call).
#pragma once

#include <memory>
#include <string>

#include "kernels/fabric/cuda/cuda_fabric.hpp"

namespace arbench {

class SingleGpuFabric final : public CudaFabric {
 public:
  SingleGpuFabric(int world, int device, double timeout_s);
  ~SingleGpuFabric() override;
  Backend backend() const override { return Backend::single_gpu; }
  std::string describe() const override;
  int ranks_per_device() const override { return world(); }

 protected:
  // One GPU: every rank addresses every other rank's plain device buffer directly.
  std::unique_ptr<RankBuffers> alloc_symmetric(std::size_t bytes) override;

 private:
  int device_;
};

}  // namespace arbench
