// DeviceMonitor: the per-case device state. Snapshots every GPU of the case (NVML, through
// topo::GpuStateSource) right before the first timed sample and right after the last, stores
// both in CaseResult::device and judges them (results/device_state.hpp). Counts the abnormal
// cases for the run's footer.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "measure/harness.hpp"
#include "topo/nvml_loader.hpp"

namespace arbench {

class DeviceMonitor final : public TimingObserver {
 public:
  // bus_ids[d]: PCI bus id of CUDA device d. `source` must outlive the monitor.
  DeviceMonitor(const topo::GpuStateSource& source, std::vector<std::string> bus_ids)
      : source_(source), bus_ids_(std::move(bus_ids)) {}

  void before_timing(const Fabric& f) override;
  void after_timing(CaseResult& r) override;

  // "device state: 3 of 120 cases abnormal: GPU 3 link Gen5 x8, max Gen5 x16 (2 cases); ..."
  // or "device state: normal in all 120 cases"; empty when no case was observed.
  std::string summary() const;

 private:
  std::vector<int> devices_of(const Fabric& f) const;

  const topo::GpuStateSource& source_;
  std::vector<std::string> bus_ids_;
  std::vector<GpuCaseState> pending_;  // before-snapshots of the case being timed
  int observed_ = 0, abnormal_ = 0;
  std::map<std::string, int> findings_;  // "GPU 3 throttled (...)" -> cases
};

}  // namespace arbench
