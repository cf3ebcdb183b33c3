#include "kernels/fabric/cuda/clock_kernels.hpp"

#include "arbench/core/cuda_check.hpp"
#include "kernels/mem_device.cuh"

namespace arbench {
namespace {

// Purpose: hold the stream `ns` nanoseconds. Requirements: one thread. Bounded by `ns` itself.
__global__ void hold_kernel(std::uint64_t ns) {
  const std::uint64_t t0 = DeviceMem::now_ns();
  while (DeviceMem::now_ns() - t0 < ns) {
  }
}

// Purpose: record when the stream reached this point. Requirements: one thread.
__global__ void phase_marker_kernel(std::uint64_t* rec, int mark) { rec[mark] = DeviceMem::now_ns(); }

// Purpose: the timer's step. %globaltimer advances in steps coarser than a read on some GPUs (the
// PTX manual leaves its update interval to the implementation), so the smallest non-zero
// difference over many back-to-back reads is what two marks can tell apart. Bounded: a fixed
// number of reads.
__global__ void timer_resolution_kernel(std::uint64_t* out) {
  std::uint64_t best = ~0ull;
  std::uint64_t prev = DeviceMem::now_ns();
  for (int i = 0; i < 100000; ++i) {
    const std::uint64_t now = DeviceMem::now_ns();
    if (now > prev && now - prev < best) best = now - prev;
    prev = now;
  }
  *out = best == ~0ull ? 0 : best;
}

}  // namespace

void launch_hold(std::uint64_t ns, cudaStream_t stream) {
  hold_kernel<<<1, 1, 0, stream>>>(ns);
  ARB_CUDA_CHECK(cudaGetLastError());
}

void launch_phase_marker(std::uint64_t* rec, int mark, cudaStream_t stream) {
  phase_marker_kernel<<<1, 1, 0, stream>>>(rec, mark);
  ARB_CUDA_CHECK(cudaGetLastError());
}

void launch_timer_resolution(std::uint64_t* out, cudaStream_t stream) {
  timer_resolution_kernel<<<1, 1, 0, stream>>>(out);
  ARB_CUDA_CHECK(cudaGetLastError());
}

}  // namespace arbench
