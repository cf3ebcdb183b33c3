// Optional NVML, loaded at run time with dlopen("libnvidia-ml.so.1"): never a link-time
// dependency, so arbench runs where NVML is absent (containers without the driver's user
// libraries). Gives the driver version and PCIe link state when sysfs cannot, and each GPU's
// state (clocks, throttling, temperature, power, link, other processes) for the per-case
// device state (bench/measure/device_monitor).
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "arbench/core/gpu_snapshot.hpp"
#include "topo/topology.hpp"

namespace arbench::topo {

// What the per-case device monitor asks of NVML; Nvml implements it, tests use a fake.
class GpuStateSource {
 public:
  virtual ~GpuStateSource() = default;
  // The GPU at `bus_id` now; nullopt when NVML does not know that GPU.
  virtual std::optional<GpuSnapshot> snapshot(const std::string& bus_id) const = 0;
};

class Nvml final : public GpuStateSource {
 public:
  // nullptr, with the reason in *why, when the library or nvmlInit is unavailable.
  static std::unique_ptr<Nvml> load(std::string* why = nullptr);
  ~Nvml();
  Nvml(const Nvml&) = delete;
  Nvml& operator=(const Nvml&) = delete;

  std::optional<std::string> driver_version() const;
  // Current and maximum generation and width of the GPU's PCIe link; unknown fields empty.
  std::optional<PcieLink> pcie_link(const std::string& bus_id) const;
  // Whether the two GPUs reach each other over NVLink (nvmlDeviceGetP2PStatus); nullopt: unknown.
  std::optional<bool> nvlink_p2p(const std::string& bus_a, const std::string& bus_b) const;
  // nvmlDeviceGetP2PStatus of a towards b at `caps_index` (0 read, 1 write, 2 NVLink): the
  // nvmlGpuP2PStatus_t code (0 OK, 1..6 why not); nullopt when NVML cannot say.
  std::optional<int> p2p_status(const std::string& bus_a, const std::string& bus_b, int caps_index) const;
  // `arbench doctor`: persistence mode, BAR1 size and memory size; nullopt when NVML cannot say.
  std::optional<bool> persistence_mode(const std::string& bus_id) const;
  std::optional<unsigned long long> bar1_bytes(const std::string& bus_id) const;
  std::optional<unsigned long long> memory_bytes(const std::string& bus_id) const;
  std::optional<GpuSnapshot> snapshot(const std::string& bus_id) const override;

 private:
  Nvml() = default;
  struct Api;
  void* lib_ = nullptr;
  std::unique_ptr<Api> api_;
};

}  // namespace arbench::topo
