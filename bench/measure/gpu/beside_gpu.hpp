// The background load of run --beside on the GPU backends, and the run's load factory (CUDA-linked:
// the run command's wiring). On each GPU of the fabric's ranks: a stream at CUDA's lowest priority
// (the fabric's rank streams have its greatest) that a feeder thread keeps a few kernels deep in
// the load's short kernels (beside_kernels.cuh), counting the ones that finished.
#pragma once

#include <memory>

#include "arbench/fabric.hpp"
#include "measure/beside/beside_load.hpp"

namespace arbench {

// GPU fabrics: the GPU load on the devices of `f`'s driven ranks; the host fabric: CPU threads.
std::unique_ptr<BesideLoad> make_beside_load(Fabric& f, BesideKind kind);

// The GPU load alone (the GPU test drives it on one device).
std::unique_ptr<BesideLoad> make_gpu_beside_load(const std::vector<int>& devices, BesideKind kind, double bound_s);

}  // namespace arbench
