// What `arbench run` records of the GPUs' state per case: NVML, when the library loads and the
// backend has GPUs, through a DeviceMonitor; otherwise nothing, and one line saying why.
#pragma once

#include <memory>
#include <string>

#include "arbench/fabric.hpp"
#include "measure/device_monitor.hpp"
#include "topo/nvml_loader.hpp"

namespace arbench {

class RunDeviceState {
 public:
  explicit RunDeviceState(Backend b);
  // The harness's observer, or nullptr when device state is not recorded.
  TimingObserver* observer() { return monitor_.get(); }
  // One banner line: how the state is sampled, or why it is not.
  std::string banner() const;
  // The footer's summary (empty when nothing was recorded).
  std::string footer() const { return monitor_ ? monitor_->summary() : std::string(); }
  // For the provenance: "nvml" or why the per-case device_state fields are absent.
  std::string provenance() const { return monitor_ ? std::string("nvml") : why_not_; }

 private:
  std::unique_ptr<topo::Nvml> nvml_;
  std::unique_ptr<DeviceMonitor> monitor_;
  std::string why_not_;
};

}  // namespace arbench
