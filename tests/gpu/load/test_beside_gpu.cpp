// run --beside on a GPU (docs/method.md, "Beside a model kernel"): the GPU background load alone
// counts kernels of tens of microseconds at CUDA's lowest stream priority and stops within its
// bound; and end to end on single-gpu (2 virtual ranks on GPU 0), every case stays correct beside
// it and records its latency under the load, the load's rates and slowdown, and the SMs it takes
// (its grid: basis "grid"). Skips with a reason without a device.
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "tests/gpu/gpu_test_util.hpp"
#include "measure/gpu/beside_gpu.hpp"
#include "tests/app/sweep_json.hpp"

namespace arbench::testing {
namespace {

TEST(BesideGpu, LoadCountsShortKernelsAndStops) {
  ARB_REQUIRE_GPUS(1);
  for (BesideKind kind : {BesideKind::fma, BesideKind::memory, BesideKind::compute}) {
    auto load = make_gpu_beside_load({0}, kind, 10.0);
    EXPECT_GT(load->item_us(), 2.0) << beside_kind_name(kind);  // calibrated to tens of microseconds
    EXPECT_LT(load->item_us(), 500.0) << beside_kind_name(kind);
    EXPECT_EQ(load->timing(), "gpu");
    load->start();
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    const std::uint64_t n = load->done();
    load->stop();
    // 100 ms of items of at most 500 us each: far more than 20 when the GPU runs them.
    EXPECT_GT(n, 20u) << beside_kind_name(kind);
    EXPECT_GE(load->done(), n);
  }
}

TEST(BesideGpu, EveryCaseRecordsLatencyUnderLoadSlowdownAndSms) {
  ARB_REQUIRE_GPUS(1);
  RunConfig cfg = allreduce_sweep("single-gpu", 2, {"oneshot-pull", "twoshot", "ring"});
  cfg.min_bytes = 4096;
  cfg.max_bytes = 1 << 20;
  cfg.step_factor = 256;
  cfg.samples = 10;
  cfg.beside = "compute";
  cfg.link_probe = false;
  nlohmann::json doc;
  ASSERT_NO_FATAL_FAILURE(sweep_to_json(cfg, "beside-gpu", doc));
  ASSERT_EQ(doc["arbench"]["cases"].size(), 3u * 2);
  for (const auto& c : doc["arbench"]["cases"]) {
    EXPECT_EQ(c["status"], "ok") << c.dump();
    EXPECT_TRUE(c["sms"].is_number_integer()) << c["name"];
    EXPECT_EQ(c["sms_basis"], "grid") << c["name"];
    const auto& b = c["beside"];
    ASSERT_TRUE(b.is_object()) << c["name"];
    EXPECT_EQ(b["timing"], "gpu");
    EXPECT_EQ(b["samples_us"].size(), 10u) << c["name"];
    EXPECT_GT(b["median_us"].get<double>(), 0) << c["name"];
    EXPECT_GT(b["background_alone_per_s"].get<double>(), 0) << c["name"];
    EXPECT_TRUE(b["background_slowdown"].is_number()) << c["name"];
  }
}

}  // namespace
}  // namespace arbench::testing
