// The GPU test binary, like `arbench run`, sets CUDA_MODULE_LOADING=EAGER before its first CUDA
// call (tests/gpu/gpu_env.cpp, kernels/fabric/cuda/module_loading.hpp): the driver must report
// eager loading, so no kernel's first launch loads code while a start gate spins. Skips without a
// GPU.
#include <cuda.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "gpu_test_util.hpp"

TEST(ModuleLoadingGpu, TheDriverLoadsEveryKernelEagerly) {
  ARB_REQUIRE_GPUS(1);
  const char* v = std::getenv("CUDA_MODULE_LOADING");
  ASSERT_NE(v, nullptr);
  EXPECT_EQ(std::string(v), "EAGER");
  ASSERT_EQ(cudaFree(nullptr), cudaSuccess);  // the context exists
  void* fn = nullptr;
  cudaDriverEntryPointQueryResult found{};
  ASSERT_EQ(cudaGetDriverEntryPointByVersion("cuModuleGetLoadingMode", &fn, 12000, cudaEnableDefault, &found),
            cudaSuccess);
  ASSERT_EQ(found, cudaDriverEntryPointSuccess);
  CUmoduleLoadingMode mode{};
  ASSERT_EQ(reinterpret_cast<CUresult (*)(CUmoduleLoadingMode*)>(fn)(&mode), CUDA_SUCCESS);
  EXPECT_EQ(mode, CU_MODULE_EAGER_LOADING);
}
