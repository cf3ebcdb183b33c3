// What the GPU variants of every family (symm/, ring/, fused/, island/ *_gpu.cu) add alike to
// their host-side adapter: they run on the cuda and single_gpu fabrics only, and size their grid
// from the SM count of the ranks' device. CUDA library only (it calls the runtime).
#pragma once

#include <cuda_runtime.h>

#include "arbench/core/cuda_check.hpp"
#include "arbench/fabric.hpp"
#include "arbench/variant.hpp"

namespace arbench {

// A family's adapter (SymmVariant, RingVariant, ...) that refuses the host fabric, whose ranks
// have no device to launch on (the host twins run there).
template <class Adapter>
class GpuOnly : public Adapter {
 public:
  using Adapter::Adapter;

  Support supports(const Case& c, const Fabric& f) const override {
    if (f.backend() == Backend::host) return Support::no("the GPU kernel needs a cuda or single-gpu fabric");
    return Adapter::supports(c, f);
  }
};

// SMs of rank 0's device, which the launch policies size every rank's grid from.
inline int device_sms(const Fabric& f) {
  int n = 0;
  ARB_CUDA_CHECK(cudaDeviceGetAttribute(&n, cudaDevAttrMultiProcessorCount, f.device_of(0)));
  return n;
}

}  // namespace arbench
