// The NCCL device-API gate (kernels/fabric/nccl/nccl_version.hpp) and the single-gpu fabric's
// CUDA_DEVICE_MAX_CONNECTIONS (kernels/fabric/cuda/single_gpu_env.hpp): host logic, no NCCL or GPU.
#include <gtest/gtest.h>

#include "kernels/fabric/nccl/nccl_version.hpp"
#include "kernels/fabric/cuda/single_gpu_env.hpp"

namespace arbench {
namespace {

TEST(NcclVersion, VersionCodesReadAsText) {
  EXPECT_EQ(nccl_version_text(22809), "2.28.9");
  EXPECT_EQ(nccl_version_text(22903), "2.29.3");
  EXPECT_EQ(nccl_version_text(2708), "2.7.8");  // NCCL < 2.9 coded X*1000 + Y*100 + Z
}

TEST(NcclVersion, DeviceApiNeedsTheHeadersMajorMinor) {
  EXPECT_EQ(nccl_device_api_mismatch(22809, 22809), "");
  EXPECT_EQ(nccl_device_api_mismatch(22809, 22803), "") << "a patch release keeps the device ABI";
  const std::string why = nccl_device_api_mismatch(22809, 22903);
  EXPECT_NE(why.find("2.28.9 headers"), std::string::npos) << why;
  EXPECT_NE(why.find("libnccl 2.29.3"), std::string::npos) << why;
  EXPECT_NE(why.find("Rebuild arbench against NCCL 2.29 headers"), std::string::npos) << why;
  EXPECT_NE(nccl_device_api_mismatch(22809, 22700), "");
  EXPECT_NE(nccl_device_api_mismatch(22809, 32809), "");
}

TEST(SingleGpuEnv, RaisesMaxConnectionsUnlessAlreadyEnough) {
  EXPECT_EQ(max_connections_to_set(nullptr, 8), std::to_string(kSingleGpuConnections));
  EXPECT_EQ(max_connections_to_set("", 8), std::to_string(kSingleGpuConnections));
  EXPECT_EQ(max_connections_to_set("4", 8), std::to_string(kSingleGpuConnections)) << "4 queues for 8 ranks";
  EXPECT_EQ(max_connections_to_set("abc", 2), std::to_string(kSingleGpuConnections));
  EXPECT_EQ(max_connections_to_set("8", 8), std::nullopt);
  EXPECT_EQ(max_connections_to_set("32", 8), std::nullopt);
}

TEST(SingleGpuEnv, PrepareSetsTheVariableInThisProcess) {
  unsetenv(kMaxConnectionsVar);
  prepare_single_gpu_env(8);
  ASSERT_NE(std::getenv(kMaxConnectionsVar), nullptr);
  EXPECT_EQ(std::string(std::getenv(kMaxConnectionsVar)), std::to_string(kSingleGpuConnections));
  setenv(kMaxConnectionsVar, "16", 1);
  prepare_single_gpu_env(8);  // enough already: left as the user set it
  EXPECT_EQ(std::string(std::getenv(kMaxConnectionsVar)), "16");
  unsetenv(kMaxConnectionsVar);
}

}  // namespace
}  // namespace arbench
