// DeviceMonitor with a fake NVML behind topo::GpuStateSource: snapshots every GPU of the case
// before and after the timed samples, and a throttling GPU, a clock change and a downtrained
// link end up in CaseResult::device, in the run footer's summary and in the JSON.
#include <gtest/gtest.h>

#include <deque>
#include <map>

#include "results/report.hpp"
#include "measure/device_monitor.hpp"
#include "tests/host/results/gpu_snapshots.hpp"
#include "tests/host/measure/fake_fabric.hpp"

namespace arbench {
namespace {

// NVML stand-in: per bus id, the snapshots to hand out, in order (the last one repeats).
class FakeNvml final : public topo::GpuStateSource {
 public:
  std::optional<GpuSnapshot> snapshot(const std::string& bus_id) const override {
    ++calls;
    auto it = script.find(bus_id);
    if (it == script.end() || it->second.empty()) return std::nullopt;
    GpuSnapshot s = it->second.front();
    if (it->second.size() > 1) it->second.pop_front();
    return s;
  }
  mutable std::map<std::string, std::deque<GpuSnapshot>> script;
  mutable int calls = 0;
};

GpuSnapshot busy_gen5() { return testing::healthy_gpu(); }

const std::vector<std::string> kBusIds = {"0000:01:00.0", "0000:02:00.0", "0000:03:00.0", "0000:04:00.0"};

CaseResult time_one_case(DeviceMonitor& m, testing::FakeFabric& f) {
  CaseResult r;
  m.before_timing(f);
  f.time_isolated([](int, Stream) {}, 5);
  m.after_timing(r);
  return r;
}

TEST(DeviceMonitor, HealthyGpusRecordedAndNormal) {
  FakeNvml nvml;
  for (const auto& b : kBusIds) nvml.script[b] = {busy_gen5()};
  DeviceMonitor m(nvml, kBusIds);
  testing::FakeFabric f([] { return 1e-5; }, {2, 3});
  const CaseResult r = time_one_case(m, f);
  ASSERT_TRUE(r.device.has_value());
  ASSERT_EQ(r.device->gpus.size(), 2u);
  EXPECT_EQ(r.device->gpus[0].device, 2);
  EXPECT_EQ(r.device->gpus[1].bus_id, "0000:04:00.0");
  EXPECT_EQ(r.device->gpus[0].before.sm_clock_mhz, 2600);
  EXPECT_FALSE(r.device->abnormal());
  EXPECT_EQ(nvml.calls, 4);  // two GPUs, before and after
  EXPECT_EQ(m.summary(), "device state: normal in all 1 cases");
}

TEST(DeviceMonitor, ThrottlingClockChangeAndDowntrainedLink) {
  FakeNvml nvml;
  GpuSnapshot throttled = busy_gen5();
  throttled.clock_event_reasons = kClockEventSwPowerCap;
  *throttled.power_violation_ns += 40'000'000;
  GpuSnapshot slow_clock = busy_gen5();
  slow_clock.sm_clock_mhz = 1800;
  GpuSnapshot narrow = busy_gen5();
  narrow.pcie_width = 8;
  nvml.script[kBusIds[0]] = {busy_gen5(), throttled};   // GPU 0 throttles during the case
  nvml.script[kBusIds[1]] = {busy_gen5(), slow_clock};  // GPU 1 drops its SM clock
  nvml.script[kBusIds[2]] = {busy_gen5(), narrow};      // GPU 2 runs on x8
  nvml.script[kBusIds[3]] = {busy_gen5()};
  DeviceMonitor m(nvml, kBusIds);
  testing::FakeFabric f([] { return 1e-5; }, {0, 1, 2, 3});
  CaseResult r = time_one_case(m, f);
  ASSERT_TRUE(r.device.has_value());
  ASSERT_TRUE(r.device->abnormal());
  ASSERT_EQ(r.device->findings.size(), 3u);
  EXPECT_EQ(r.device->findings[0].issue, DeviceIssue::throttled);
  EXPECT_EQ(r.device->findings[0].device, 0);
  EXPECT_EQ(r.device->findings[1].issue, DeviceIssue::clocks_changed);
  EXPECT_EQ(r.device->findings[1].device, 1);
  EXPECT_EQ(r.device->findings[2].issue, DeviceIssue::link_downtrained);
  EXPECT_EQ(r.device->findings[2].device, 2);
  const std::string marker = device_marker(*r.device);
  EXPECT_NE(marker.find("GPU 0 throttled (power limit held the clocks down for 40 ms, SW power cap)"),
            std::string::npos) << marker;
  EXPECT_NE(marker.find("GPU 1 SM clock 2600 -> 1800 MHz"), std::string::npos) << marker;
  EXPECT_NE(marker.find("GPU 2 link Gen5 x8, max Gen5 x16"), std::string::npos) << marker;

  const std::string summary = m.summary();
  EXPECT_NE(summary.find("1 of 1 cases abnormal"), std::string::npos) << summary;
  EXPECT_NE(summary.find("GPU 2 link_downtrained in 1 case(s)"), std::string::npos) << summary;

  // Stored per case in the JSON, with both snapshots.
  r.c = Case{"nccl", Family::allreduce, DType::bf16, 4, 1024, 0, 0, false};
  const nlohmann::json j = case_to_json(r);
  ASSERT_TRUE(j.contains("device_state"));
  EXPECT_TRUE(j["device_state"]["abnormal"].get<bool>());
  EXPECT_EQ(j["device_state"]["gpus"][2]["after"]["pcie_width"], 8);
  EXPECT_EQ(j["device_state"]["gpus"][2]["before"]["pcie_width"], 16);
}

TEST(DeviceMonitor, SharedDeviceIsSnapshotOnceAndUnknownGpuLeavesFieldsEmpty) {
  FakeNvml nvml;  // knows no GPU at all
  DeviceMonitor m(nvml, kBusIds);
  testing::FakeFabric f([] { return 1e-5; }, {0, 0, 0, 0});  // single_gpu: four ranks on GPU 0
  const CaseResult r = time_one_case(m, f);
  ASSERT_TRUE(r.device.has_value());
  ASSERT_EQ(r.device->gpus.size(), 1u);
  EXPECT_FALSE(r.device->gpus[0].after.sm_clock_mhz.has_value());
  EXPECT_FALSE(r.device->abnormal());
}

TEST(DeviceMonitor, WithoutJsonFieldsWhenNotRecorded) {
  CaseResult r;
  r.c = Case{"ring", Family::allreduce, DType::bf16, 2, 1024, 0, 0, false};
  EXPECT_FALSE(case_to_json(r).contains("device_state"));  // host backend, no NVML: absent
}

}  // namespace
}  // namespace arbench
