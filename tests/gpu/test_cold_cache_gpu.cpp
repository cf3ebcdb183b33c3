// --cache cold and adaptive sampling on a GPU, end to end through run_sweep on single-gpu (3
// virtual ranks on GPU 0): CudaFabric::flush_caches allocates twice the L2 and writes it before
// every isolated sample; every case must still be correct (checks on, fresh inputs before the
// timed samples), be named /cold, and record why sampling stopped. Skips with a reason without a
// device.
#include <gtest/gtest.h>

#include <string>

#include "gpu_test_util.hpp"
#include "tests/app/sweep_json.hpp"

namespace arbench::testing {
namespace {

TEST(ColdCacheGpu, CustomKernelsStayCorrectWithFlushesAndAdaptiveSampling) {
  ARB_REQUIRE_GPUS(1);
  RunConfig cfg = allreduce_sweep("single-gpu", 3, {"oneshot-pull", "oneshot-push", "twoshot", "ring"});
  cfg.min_bytes = 1024;
  cfg.max_bytes = 1024 * 1024;
  cfg.step_factor = 32;
  cfg.cold_cache = true;
  cfg.min_samples = 5;
  cfg.max_samples = 200;
  cfg.max_time_s = 0.5;
  cfg.link_probe = false;
  nlohmann::json doc;
  ASSERT_NO_FATAL_FAILURE(sweep_to_json(cfg, "cold-gpu", doc));
  ASSERT_EQ(doc["arbench"]["cases"].size(), 4u * 3);
  for (const auto& c : doc["arbench"]["cases"]) {
    EXPECT_EQ(c["status"], "ok") << c.dump();
    EXPECT_TRUE(c["checked"].get<bool>()) << c["name"];
    EXPECT_EQ(c["cache"], "cold") << c["name"];
    EXPECT_NE(c["name"].get<std::string>().find("/cold"), std::string::npos) << c["name"];
    EXPECT_GE(c["samples_us"].size(), 5u) << c["name"];
    EXPECT_TRUE(c["sampling"]["stop"].is_string()) << c["name"];
  }
}

}  // namespace
}  // namespace arbench::testing
