// The SMs a variant's op takes (SmUse, arbench/variant.hpp), from its launch policy: what the GPU
// kernels launched, or on the host backend (no launch: the twins' CPU threads say nothing of SMs)
// what the same policy gives on the modelled device. Header-only: twins and kernels share it.
#pragma once

#include "arbench/fabric.hpp"
#include "arbench/variant.hpp"

namespace arbench {

// `launched`: the grid prepare() chose for this fabric; `policy_on(sms)`: the launch policy's grid
// on a device of `sms` SMs with one rank on it (the function the GPU launch calls with its own SMs).
template <class Policy>
SmUse grid_sm_use(const Fabric& f, int launched, const Policy& policy_on) {
  if (f.backend() == Backend::host) return {policy_on(kSmsModelDeviceSms), kSmsModelled};
  return {launched, kSmsGrid};
}

}  // namespace arbench
