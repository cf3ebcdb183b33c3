// The ranks in PCI bus order (domain:bus:device.function) of their GPUs: neighbours in bus order
// tend to share a switch, so more ring hops stay below one switch. Ties (single_gpu: one device)
// keep rank order. The ring variants' order (`ring`, `ce-ring`) when no topology order is known.
// CUDA library only (it calls the runtime).
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "arbench/core/cuda_check.hpp"
#include "arbench/fabric.hpp"

namespace arbench {

inline std::vector<int> pci_bus_order(const Fabric& f) {
  std::vector<std::pair<std::string, int>> bus;
  for (int r = 0; r < f.world(); ++r) {
    char id[32] = {};
    ARB_CUDA_CHECK(cudaDeviceGetPCIBusId(id, sizeof id, f.device_of(r)));
    bus.emplace_back(id, r);
  }
  std::stable_sort(bus.begin(), bus.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
  std::vector<int> order;
  for (const auto& b : bus) order.push_back(b.second);
  return order;
}

}  // namespace arbench
