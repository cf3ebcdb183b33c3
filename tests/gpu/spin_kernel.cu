#include <cuda_runtime.h>

#include "tests/gpu/spin_kernel.hpp"

namespace arbench::testing {
namespace {

__device__ std::uint64_t global_ns() {
  std::uint64_t t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

// Purpose: occupy the stream for a known time. One thread; no memory traffic.
__global__ void spin_kernel(std::uint64_t ns) {
  const std::uint64_t start = global_ns();
  while (global_ns() - start < ns) {
  }
}

}  // namespace

void launch_spin(void* stream, std::uint64_t ns) {
  spin_kernel<<<1, 1, 0, static_cast<cudaStream_t>(stream)>>>(ns);
}

}  // namespace arbench::testing
