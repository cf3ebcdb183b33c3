// Device code of the link probes (included by probe.cu only): an SM copy kernel and a
// flag ping-pong kernel with bounded waits.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

namespace arbench::topo::probe {

/// copy_kernel: SM-driven copy of `n` 16-byte packs, grid-stride, four loads in flight per
/// thread before their stores (PCIe reads are latency-bound; more outstanding requests keep
/// the link busy). Push = launched on the source GPU with `dst` in peer memory; pull = launched
/// on the destination GPU with `src` in peer memory. Requires 16-byte aligned buffers.
__global__ void copy_kernel(uint4* __restrict__ dst, const uint4* __restrict__ src, std::size_t n) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  for (; i + 3 * stride < n; i += 4 * stride) {
    uint4 a = src[i], b = src[i + stride], c = src[i + 2 * stride], d = src[i + 3 * stride];
    dst[i] = a;
    dst[i + stride] = b;
    dst[i + 2 * stride] = c;
    dst[i + 3 * stride] = d;
  }
  for (; i < n; i += stride) dst[i] = src[i];
}

__device__ __forceinline__ unsigned long long global_ns() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

__device__ __forceinline__ void store_release_sys(unsigned* p, unsigned v) {
  asm volatile("st.release.sys.global.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}

__device__ __forceinline__ unsigned load_acquire_sys(const unsigned* p) {
  unsigned v;
  asm volatile("ld.acquire.sys.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}

// Spins until *flag == want; false after timeout_ns (a lost peer must not hang the GPU).
__device__ bool wait_flag(const unsigned* flag, unsigned want, unsigned long long timeout_ns) {
  const unsigned long long start = global_ns();
  while (load_acquire_sys(flag) != want)
    if (global_ns() - start > timeout_ns) return false;
  return true;
}

struct PingPongResult {
  unsigned failed_round;  // 0 = all rounds done
  unsigned long long elapsed_ns;
};

/// pingpong_kernel: one thread per GPU. The initiator writes round k into the peer's flag and
/// waits for the peer to echo k into its own flag; the responder waits, then echoes. Flags
/// are single-writer words (st.release.sys / ld.acquire.sys, no peer atomics: PCIe peers may
/// lack them); values 1..rounds+1 only grow, and the host zeroes them before each pair.
/// Round 1 is an untimed handshake with a longer bound that covers the launch skew between
/// the two GPUs. One-way latency = elapsed / rounds / 2.
__global__ void pingpong_kernel(unsigned* my_flag, unsigned* peer_flag, unsigned rounds, int initiator,
                                unsigned long long first_timeout_ns, unsigned long long timeout_ns,
                                PingPongResult* result) {
  unsigned long long start = 0;
  for (unsigned k = 1; k <= rounds + 1; ++k) {
    if (k == 2) start = global_ns();
    const unsigned long long bound = k == 1 ? first_timeout_ns : timeout_ns;
    if (initiator) store_release_sys(peer_flag, k);
    if (!wait_flag(my_flag, k, bound)) {
      result->failed_round = k;
      return;
    }
    if (!initiator) store_release_sys(peer_flag, k);
  }
  result->elapsed_ns = global_ns() - start;
}

}  // namespace arbench::topo::probe
