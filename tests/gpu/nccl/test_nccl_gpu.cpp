// The nccl variant on every GPU present (and each NCCL configuration), through the harness.
#include <gtest/gtest.h>

#include <vector>

#include "tests/gpu/gpu_cases.hpp"
#include "tests/gpu/gpu_test_util.hpp"
#include "kernels/fabric/nccl/nccl_api.hpp"

using namespace arbench;

namespace {

CaseResult run_nccl(const std::string& variant, int world, DType t, std::size_t bytes) {
  return arbench::testing::plan_and_run(Backend::cuda, Case{variant, Family::allreduce, t, world, bytes, 0, 0, false},
                                        10.0);
}

}  // namespace

TEST(NcclGpu, AllReduceIsExactOnEveryGpuCount) {
  ARB_REQUIRE_GPUS_AND_NCCL(1);
  int n = 0;
  cudaGetDeviceCount(&n);
  std::vector<int> worlds;
  for (int w = 1; w <= n; w *= 2) worlds.push_back(w);
  if (worlds.back() != n) worlds.push_back(n);
  for (int world : worlds)
    for (DType t : kAllDTypes)
      for (std::size_t bytes : {std::size_t(1024), std::size_t(1000 * 4), std::size_t(4 << 20)}) {
        CaseResult r = run_nccl("nccl", world, t, bytes);
        EXPECT_TRUE(r.ok) << r.c.name() << ": " << r.reason;
        EXPECT_EQ(r.wrong_elements, 0u);
        EXPECT_GT(r.latency_us.median, 0.0);
        EXPECT_GT(r.pipelined_us, 0.0);
      }
}
