// Per-case device state around the timed samples; see device_monitor.hpp.
#include "measure/device_monitor.hpp"

#include <algorithm>

namespace arbench {

std::vector<int> DeviceMonitor::devices_of(const Fabric& f) const {
  std::vector<int> devs;
  for (int r = 0; r < f.world(); ++r) {
    if (!f.drives(r)) continue;  // a multi-process run: another process's GPU
    const int d = f.device_of(r);
    if (d >= 0 && std::find(devs.begin(), devs.end(), d) == devs.end()) devs.push_back(d);
  }
  return devs;
}

void DeviceMonitor::before_timing(const Fabric& f) {
  pending_.clear();
  for (int d : devices_of(f)) {
    GpuCaseState g;
    g.device = d;
    g.bus_id = d < int(bus_ids_.size()) ? bus_ids_[std::size_t(d)] : std::string();
    if (auto s = source_.snapshot(g.bus_id)) g.before = *s;
    pending_.push_back(std::move(g));
  }
}

void DeviceMonitor::after_timing(CaseResult& r) {
  if (pending_.empty()) return;
  DeviceState state;
  for (GpuCaseState& g : pending_) {
    if (auto s = source_.snapshot(g.bus_id)) g.after = *s;
    state.gpus.push_back(std::move(g));
  }
  pending_.clear();
  state.findings = assess_device_state(state.gpus);
  ++observed_;
  if (state.abnormal()) {
    ++abnormal_;
    for (const DeviceFinding& fd : state.findings)
      ++findings_["GPU " + std::to_string(fd.device) + " " + std::string(device_issue_name(fd.issue))];
  }
  r.device = std::move(state);
}

std::string DeviceMonitor::summary() const {
  if (observed_ == 0) return {};
  if (abnormal_ == 0) return "device state: normal in all " + std::to_string(observed_) + " cases";
  std::string s = "device state: " + std::to_string(abnormal_) + " of " + std::to_string(observed_) +
                  " cases abnormal (marked in the table):";
  for (const auto& [what, n] : findings_) s += "\n  " + what + " in " + std::to_string(n) + " case(s)";
  return s;
}

}  // namespace arbench
