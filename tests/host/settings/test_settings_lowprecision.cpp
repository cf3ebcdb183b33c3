// TensorRT-LLM's LOWPRECISION line filled from a measurement of the FP8-on-the-wire variants
// (tests/fixtures/accuracy/pcie8-lowprecision.json, whose answers its script states): the size
// from which each low-precision variant beats every exact one, and its error there, beside the
// comparison with NCCL at 2 MiB and more.
#include <gtest/gtest.h>

#include "settings_fixture.hpp"

namespace arbench {
namespace {

std::string accuracy_fixture() { return std::string(ARBENCH_SOURCE_DIR) + "/tests/fixtures/accuracy/pcie8-lowprecision.json"; }

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

TEST(SettingsLowPrecision, TheLineSaysFromWhichSizeItWinsAndItsError) {
  const testing::FixtureSettings f = testing::settings_of(accuracy_fixture());
  const EngineSetting* at8 = f.setting(8, "trtllm.lowprecision");
  ASSERT_NE(at8, nullptr);
  EXPECT_NE(at8->status, SettingStatus::missing) << "low-precision cases were measured";
  EXPECT_TRUE(contains(at8->why, "twoshot-fp8 at 8 GPUs: faster than every exact variant from 1 MiB up")) << at8->why;
  EXPECT_TRUE(contains(at8->why, "error there: max abs 0.25, rms rel ")) << at8->why;
  EXPECT_TRUE(contains(at8->why, "oneshot-fp8 at 8 GPUs: not faster than the exact variants")) << at8->why;
  const EngineSetting* at4 = f.setting(4, "trtllm.lowprecision");
  EXPECT_TRUE(contains(at4->why, "twoshot-fp8 at 4 GPUs: faster than every exact variant from 2 MiB up")) << at4->why;
  const EngineSetting* at2 = f.setting(2, "trtllm.lowprecision");
  EXPECT_TRUE(contains(at2->why, "twoshot-fp8 at 2 GPUs: not faster")) << at2->why;
}

}  // namespace
}  // namespace arbench
