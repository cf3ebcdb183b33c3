// Device state per case: every GPU of the case sampled right before its first timed sample and
// right after its last (NVML), and the rule that calls the state abnormal. The rule
// (docs/method.md, "Device state"):
//   throttled         NVML's power or thermal violation time grew during the case, or a
//                     snapshot shows a power/thermal clocks-event reason (SW power cap, HW
//                     slowdown, SW/HW thermal slowdown, power brake)
//   clocks_changed    the SM or memory clock moved by more than 5% between the two snapshots
//   link_downtrained  right after the timed ops the link runs narrower than its maximum width,
//                     or (in P0-P2, i.e. busy) slower than its maximum generation. An idle GPU
//                     legitimately trains its link down to save power, so the snapshot taken
//                     before timing (the GPU may have idled during the host-side check) is
//                     never judged, nor a generation sampled in an idle performance state
//   other_processes   another process had a compute context on the GPU
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "arbench/core/gpu_snapshot.hpp"

namespace arbench {

struct GpuCaseState {
  int device = -1;  // CUDA ordinal
  std::string bus_id;
  GpuSnapshot before, after;
};

enum class DeviceIssue { throttled, clocks_changed, link_downtrained, other_processes };
std::string_view device_issue_name(DeviceIssue issue);

struct DeviceFinding {
  DeviceIssue issue;
  int device = -1;
  std::string detail;  // e.g. "link Gen5 x8, max Gen5 x16"
};

struct DeviceState {
  std::vector<GpuCaseState> gpus;
  std::vector<DeviceFinding> findings;  // assess_device_state(gpus)
  bool abnormal() const { return !findings.empty(); }
};

inline constexpr double kClockChangeTolerance = 0.05;

std::vector<DeviceFinding> assess_device_state(const std::vector<GpuCaseState>& gpus);

// One line for the console and reports: "GPU 1 throttled (SW power cap); GPU 3 link Gen5 x8,
// max Gen5 x16". Empty when normal.
std::string device_marker(const DeviceState& s);

// What differs between two runs' states of the same case, as sentences for compare:
// "GPU 3 link Gen5 x8 tonight, Gen5 x16 in the baseline".
std::vector<std::string> device_state_differences(const DeviceState& base, const DeviceState& next);

nlohmann::json device_state_to_json(const DeviceState& s);
// Reads what device_state_to_json wrote (findings are recomputed by today's rule); throws
// UsageError naming `where` and the field when a value has the wrong type.
DeviceState device_state_from_json(const nlohmann::json& j, const std::string& where);

}  // namespace arbench
