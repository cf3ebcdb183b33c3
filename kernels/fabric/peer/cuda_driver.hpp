// CudaDriver: the PeerDriver of real GPUs, the CUDA driver's virtual memory API (cuMemCreate,
// cuMemAddressReserve, cuMemMap, cuMemSetAccess, cuMemExportToShareableHandle ...).
//
// arbench links the CUDA runtime statically and never libcuda: the driver's entry points are
// fetched once through the runtime (cudaGetDriverEntryPointByVersion, for the CUDA 12.0 ABI of
// each call), so the binary still starts on a machine without a GPU driver. Every call that the
// driver fails names itself, the GPU and the driver's error.
#pragma once

#include "kernels/fabric/peer/peer_driver.hpp"

namespace arbench {

// The process's driver; throws EnvironmentError (exit 3) when the CUDA driver lacks the virtual
// memory API (too old), saying what to install.
PeerDriver& cuda_driver();

}  // namespace arbench
