// GpuSnapshot: one GPU's state at one moment, as NVML reports it. bench/topo reads it (the NVML
// loader), bench/results stores and judges it (device_state), so it lives here, below both.
// A field is empty when NVML could not tell (not supported on the GPU, no permission).
#pragma once

#include <cstdint>
#include <optional>

namespace arbench {

struct GpuSnapshot {
  std::optional<unsigned> sm_clock_mhz, mem_clock_mhz;
  std::optional<std::uint64_t> clock_event_reasons;  // NVML's clocks-event (throttle) bitmask
  std::optional<unsigned> temperature_c;
  std::optional<double> power_w;
  std::optional<unsigned> pstate;  // performance state: 0 (P0, fastest) .. 15
  std::optional<int> pcie_gen, pcie_width;          // the link as it runs now
  std::optional<int> pcie_max_gen, pcie_max_width;  // the most this GPU and slot can train to
  std::optional<int> other_processes;  // compute processes on the GPU besides this one
  // Cumulative time NVML says power or thermal limits held the clocks down (ns, since boot).
  std::optional<std::uint64_t> power_violation_ns, thermal_violation_ns;
};

// NVML clocks-event reasons (nvmlClocksEventReason*): bits that mean the clocks were held
// down by power or temperature (idle, application clocks and display clocks do not count).
inline constexpr std::uint64_t kClockEventGpuIdle = 0x1;
inline constexpr std::uint64_t kClockEventSwPowerCap = 0x4;
inline constexpr std::uint64_t kClockEventHwSlowdown = 0x8;
inline constexpr std::uint64_t kClockEventSwThermal = 0x20;
inline constexpr std::uint64_t kClockEventHwThermal = 0x40;
inline constexpr std::uint64_t kClockEventHwPowerBrake = 0x80;
inline constexpr std::uint64_t kClockEventsThrottling =
    kClockEventSwPowerCap | kClockEventHwSlowdown | kClockEventSwThermal | kClockEventHwThermal |
    kClockEventHwPowerBrake;

}  // namespace arbench
