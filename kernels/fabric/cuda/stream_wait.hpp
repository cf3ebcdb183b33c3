// Bounded waits on CUDA streams: arbench never calls cudaStreamSynchronize or
// cudaDeviceSynchronize, which wait for ever on a kernel whose peer never arrives.
#pragma once

#include <cuda_runtime.h>

#include <chrono>
#include <thread>

#include "arbench/core/cuda_check.hpp"

namespace arbench {

using SteadyClock = std::chrono::steady_clock;

inline SteadyClock::time_point deadline_in(double seconds) {
  return SteadyClock::now() + std::chrono::duration_cast<SteadyClock::duration>(std::chrono::duration<double>(seconds));
}

// Waits until `s` (on the current device) is idle: true when it is, false at the deadline.
// A CUDA error (a kernel fault) is thrown as a CaseError.
inline bool wait_stream(cudaStream_t s, SteadyClock::time_point deadline) {
  for (;;) {
    const cudaError_t e = cudaStreamQuery(s);
    if (e == cudaSuccess) return true;
    if (e != cudaErrorNotReady) ARB_CUDA_CHECK(e);
    if (SteadyClock::now() > deadline) return false;
    std::this_thread::yield();
  }
}

}  // namespace arbench
