// Checking macro for CUDA runtime calls (only for .cu / CUDA-linked code).
// The message carries the call text, file:line and CUDA's own error string.
#pragma once

#include <cuda_runtime.h>

#include <string>

#include "arbench/core/errors.hpp"

namespace arbench::detail {

[[noreturn]] inline void throw_cuda(cudaError_t e, const char* call, const char* file, int line) {
  std::string msg = std::string(call) + " failed at " + file + ":" + std::to_string(line) + ": " +
                    cudaGetErrorName(e) + " (" + cudaGetErrorString(e) + ")";
  if (e == cudaErrorNoDevice || e == cudaErrorInsufficientDriver || e == cudaErrorInitializationError)
    throw EnvironmentError(msg + ". Is an NVIDIA driver installed and a GPU visible? "
                                 "Use --backend host to run without a GPU.");
  throw CaseError(msg);
}

}  // namespace arbench::detail

#define ARB_CUDA_CHECK(call)                                                        \
  do {                                                                              \
    cudaError_t arb_err_ = (call);                                                  \
    if (arb_err_ != cudaSuccess) ::arbench::detail::throw_cuda(arb_err_, #call, __FILE__, __LINE__); \
  } while (0)
