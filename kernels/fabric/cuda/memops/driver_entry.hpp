// A CUDA driver entry point fetched through the runtime (cudaGetDriverEntryPointByVersion, the
// CUDA 12.0 ABI of each call), so that arbench never links libcuda and still starts on a machine
// without a GPU driver. Shared by the cuda provider's VMM calls (kernels/fabric/peer/cuda_driver.cu)
// and the stream memory operations (stream_memops.cu).
#pragma once

#include <cuda_runtime.h>

#include <string>

namespace arbench {

// The CUDA ABI the entry points are asked for: every call used has kept its 12.0 form.
inline constexpr unsigned int kDriverAbi = 12000;

// Sets `fn` to `symbol`'s entry point; "" when found, else "<symbol> (<why>)".
template <class F>
std::string driver_entry(const char* symbol, F*& fn) {
  void* p = nullptr;
  cudaDriverEntryPointQueryResult status = cudaDriverEntryPointSymbolNotFound;
  const cudaError_t e = cudaGetDriverEntryPointByVersion(symbol, &p, kDriverAbi, cudaEnableDefault, &status);
  if (e != cudaSuccess || status != cudaDriverEntryPointSuccess || p == nullptr) {
    (void)cudaGetLastError();
    return std::string(symbol) + " (" + (e != cudaSuccess ? cudaGetErrorName(e) : "not in this driver") + ")";
  }
  fn = reinterpret_cast<F*>(p);
  return {};
}

}  // namespace arbench
