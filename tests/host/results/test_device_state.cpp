// The device-state rule: throttling (reasons or violation time), clock changes, downtrained links
// (judged only right after the timed ops and, for the generation, only in a busy power state),
// other processes; the marker, run-to-run differences and the JSON round trip.
#include <gtest/gtest.h>

#include "arbench/core/errors.hpp"
#include "results/device_state.hpp"
#include "tests/host/results/gpu_snapshots.hpp"

namespace arbench {
namespace {

GpuSnapshot healthy() { return testing::healthy_gpu(); }

std::vector<GpuCaseState> one_gpu(GpuSnapshot before, GpuSnapshot after, int device = 3) {
  return {{device, "0000:41:00.0", before, after}};
}

std::vector<DeviceIssue> issues(const std::vector<DeviceFinding>& f) {
  std::vector<DeviceIssue> out;
  for (const auto& x : f) out.push_back(x.issue);
  return out;
}

// The findings on GPU 3, healthy before the case and `after` it.
std::vector<DeviceFinding> findings_after(const GpuSnapshot& after) {
  return assess_device_state(one_gpu(healthy(), after));
}

// Exactly one finding, `issue`, said as `detail`.
void expect_one_finding(const GpuSnapshot& after, DeviceIssue issue, const std::string& detail) {
  const auto f = findings_after(after);
  ASSERT_EQ(issues(f), std::vector<DeviceIssue>{issue});
  EXPECT_EQ(f[0].detail, detail);
}

TEST(DeviceState, HealthyIsNormal) {
  EXPECT_TRUE(assess_device_state(one_gpu(healthy(), healthy())).empty());
  EXPECT_TRUE(assess_device_state(one_gpu(GpuSnapshot{}, GpuSnapshot{})).empty());  // nothing known
}

TEST(DeviceState, ThrottlingFromReasonsOrViolationTime) {
  GpuSnapshot after = healthy();
  after.clock_event_reasons = kClockEventSwPowerCap | kClockEventGpuIdle;
  auto f = findings_after(after);
  ASSERT_EQ(issues(f), std::vector<DeviceIssue>{DeviceIssue::throttled});
  EXPECT_EQ(f[0].detail, "SW power cap");
  EXPECT_EQ(f[0].device, 3);

  after = healthy();
  *after.thermal_violation_ns += 25'000'000;  // 25 ms held down by temperature during the case
  expect_one_finding(after, DeviceIssue::throttled, "thermal limit held the clocks down for 25 ms");

  after = healthy();
  after.clock_event_reasons = kClockEventGpuIdle;  // idle is not throttling
  EXPECT_TRUE(findings_after(after).empty());
}

TEST(DeviceState, ClockChangeBeyondFivePercent) {
  GpuSnapshot after = healthy();
  after.sm_clock_mhz = 2500;  // -3.8%: boost bins move, not a finding
  EXPECT_TRUE(findings_after(after).empty());
  after.sm_clock_mhz = 1980;
  expect_one_finding(after, DeviceIssue::clocks_changed, "SM clock 2600 -> 1980 MHz");
}

TEST(DeviceState, DowntrainedLinkJudgedRightAfterTheTimedOps) {
  GpuSnapshot after = healthy();
  after.pcie_width = 8;
  expect_one_finding(after, DeviceIssue::link_downtrained, "link Gen5 x8, max Gen5 x16");
  EXPECT_EQ(device_marker({one_gpu(healthy(), after), findings_after(after)}), "GPU 3 link Gen5 x8, max Gen5 x16");

  after = healthy();
  after.pcie_gen = 4;  // busy (P0) at Gen4 on a Gen5 link: downtrained
  EXPECT_EQ(issues(findings_after(after)),
            std::vector<DeviceIssue>{DeviceIssue::link_downtrained});
}

TEST(DeviceState, IdleLinkIsNotDowntrained) {
  // A GPU idling before the timed samples (host-side check) legitimately drops to Gen1.
  GpuSnapshot before = healthy();
  before.pcie_gen = 1;
  before.pstate = 8;
  EXPECT_TRUE(assess_device_state(one_gpu(before, healthy())).empty());
  // Even after the case, a generation read in an idle power state is not judged...
  GpuSnapshot after = healthy();
  after.pcie_gen = 1;
  after.pstate = 8;
  EXPECT_TRUE(findings_after(after).empty());
  // ...but a narrow link is narrow whatever the power state.
  after.pcie_width = 4;
  EXPECT_EQ(issues(findings_after(after)),
            std::vector<DeviceIssue>{DeviceIssue::link_downtrained});
}

TEST(DeviceState, OtherProcesses) {
  GpuSnapshot after = healthy();
  after.other_processes = 2;
  expect_one_finding(after, DeviceIssue::other_processes, "2 other processes on the GPU");
}

TEST(DeviceState, DifferencesSayTonightAndBaseline) {
  DeviceState base{one_gpu(healthy(), healthy()), {}};
  GpuSnapshot after = healthy();
  after.pcie_width = 8;
  after.sm_clock_mhz = 1900;
  after.clock_event_reasons = kClockEventHwThermal;
  DeviceState next{one_gpu(healthy(), after), {}};
  next.findings = assess_device_state(next.gpus);
  const auto d = device_state_differences(base, next);
  ASSERT_GE(d.size(), 3u);
  EXPECT_EQ(d[0], "GPU 3 link Gen5 x8 tonight, Gen5 x16 in the baseline");
  EXPECT_EQ(d[1], "GPU 3 SM clock 1900 MHz tonight, 2600 MHz in the baseline");
  EXPECT_NE(d[2].find("GPU 3 throttled tonight (HW thermal slowdown), not in the baseline"), std::string::npos);
  EXPECT_TRUE(device_state_differences(base, base).empty());
}

TEST(DeviceState, JsonRoundTripRecomputesFindings) {
  GpuSnapshot after = healthy();
  after.pcie_width = 8;
  DeviceState s{one_gpu(healthy(), after), {}};
  s.findings = assess_device_state(s.gpus);
  const nlohmann::json j = device_state_to_json(s);
  EXPECT_TRUE(j["abnormal"].get<bool>());
  EXPECT_EQ(j["findings"][0]["issue"], "link_downtrained");
  EXPECT_EQ(j["gpus"][0]["after"]["pcie_width"], 8);
  const DeviceState back = device_state_from_json(j, "case");
  ASSERT_EQ(back.gpus.size(), 1u);
  EXPECT_EQ(back.gpus[0].after.pcie_width, 8);
  EXPECT_EQ(back.gpus[0].before.power_w, 310);
  EXPECT_EQ(issues(back.findings), std::vector<DeviceIssue>{DeviceIssue::link_downtrained});
  // Unknown fields stay absent, not zero.
  const nlohmann::json sparse = {{"gpus", {{{"device", 0}, {"before", nlohmann::json::object()},
                                            {"after", {{"sm_clock_mhz", 2000}}}}}}};
  EXPECT_FALSE(device_state_from_json(sparse, "c").gpus[0].after.pcie_width.has_value());
  nlohmann::json bad = j;
  bad["gpus"][0]["after"]["pcie_width"] = "x8";
  EXPECT_THROW(device_state_from_json(bad, "case"), UsageError);
}

}  // namespace
}  // namespace arbench
