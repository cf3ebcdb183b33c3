// GPU snapshots for the device-state tests: a healthy, busy GPU (P0, Gen5 x16 at its maximum,
// 2600/14001 MHz, no throttling, no other process) that each test then breaks one way.
#pragma once

#include "arbench/core/gpu_snapshot.hpp"

namespace arbench::testing {

inline GpuSnapshot healthy_gpu() {
  GpuSnapshot s;
  s.sm_clock_mhz = 2600;
  s.mem_clock_mhz = 14001;
  s.clock_event_reasons = 0;
  s.temperature_c = 55;
  s.power_w = 310;
  s.pstate = 0;
  s.pcie_gen = 5;
  s.pcie_width = 16;
  s.pcie_max_gen = 5;
  s.pcie_max_width = 16;
  s.other_processes = 0;
  s.power_violation_ns = 1000;
  s.thermal_violation_ns = 0;
  return s;
}

}  // namespace arbench::testing
