// Device state wiring for `arbench run`; see run_device_state.hpp.
#include "run/run_device_state.hpp"

#include "topo/gpu/cuda_gpus.hpp"

namespace arbench {

RunDeviceState::RunDeviceState(Backend b) {
  if (b == Backend::host) {
    why_not_ = "not recorded on the host backend (no GPU)";
    return;
  }
  std::string why;
  nvml_ = topo::Nvml::load(&why);
  if (!nvml_) {
    why_not_ = "not recorded: " + why;
    return;
  }
  std::vector<std::string> bus_ids;
  for (const topo::CudaGpu& g : topo::list_cuda_gpus()) bus_ids.push_back(g.bus_id);
  monitor_ = std::make_unique<DeviceMonitor>(*nvml_, std::move(bus_ids));
}

std::string RunDeviceState::banner() const {
  if (!monitor_) return "device state: " + why_not_;
  return "device state: NVML clocks, throttling, temperature, power, PCIe link and other processes of every "
         "GPU of a case, before and after its timed samples";
}

}  // namespace arbench
