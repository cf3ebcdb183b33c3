// Which GPU each process of a multi-process cuda run drives (kernels/fabric/cuda/process/process_gpu.hpp).
#include <gtest/gtest.h>

#include "arbench/core/errors.hpp"
#include "kernels/fabric/cuda/process/process_gpu.hpp"

using namespace arbench;

TEST(ProcessGpu, NodeLocalRankOrTheOnlyVisibleGpu) {
  EXPECT_EQ(choose_process_gpu(3, 8, 8, "a"), 3);
  EXPECT_EQ(choose_process_gpu(5, 8, 1, "a"), 0);  // CUDA_VISIBLE_DEVICES set per task
  try {
    choose_process_gpu(4, 6, 4, "boxA");
    FAIL() << "no throw";
  } catch (const EnvironmentError& e) {
    EXPECT_NE(std::string(e.what()).find("boxA runs 6 processes of this run but shows 4 GPUs"), std::string::npos)
        << e.what();
  }
  EXPECT_THROW(choose_process_gpu(0, 3, 2, "a"), EnvironmentError);  // the node is refused on every process
}

TEST(ProcessGpu, TwoProcessesOnOneGpuAreNamed) {
  EXPECT_EQ(shared_gpu_problem({"a", "a", "b", "b"}, {"01:00.0", "02:00.0", "01:00.0", "02:00.0"}), "");
  const std::string why = shared_gpu_problem({"a", "a", "a"}, {"01:00.0", "02:00.0", "01:00.0"});
  EXPECT_NE(why.find("processes 0 and 2 on a would share GPU 01:00.0"), std::string::npos) << why;
}
