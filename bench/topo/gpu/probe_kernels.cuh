// Device code of the link probes: the device helpers (inline, usable by any kernel) and the
// probe kernels, declared here and defined once in probe_kernels.cu (probe.cu and
// probe_loaded.cu launch them). Every spin wait is bounded with %globaltimer.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

namespace arbench::topo::probe {

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
__device__ __forceinline__ bool wait_flag(const unsigned* flag, unsigned want, unsigned long long timeout_ns) {
  const unsigned long long start = global_ns();
  while (load_acquire_sys(flag) != want)
    if (global_ns() - start > timeout_ns) return false;
  return true;
}

// Copies packs first, first + stride, ... < n: four loads in flight per thread before their
// stores (PCIe reads are latency-bound; more outstanding requests keep the link busy). Every load
// is __ldcg (ld.global.cg: L2 only, never L1): a pull's `src` is peer memory, which a repeated
// copy (fanout_copy_kernel's `reps`) would otherwise read back from its own L1 at 64 KiB or 1 MiB
// per flow, timing the cache instead of the link. A plain or __restrict__ const load compiles to
// ld.global or ld.global.nc, both L1-cacheable; scripts/ptx_memory_ops.py fails on them here.
__device__ __forceinline__ void copy_packs(uint4* __restrict__ dst, const uint4* __restrict__ src, std::size_t n,
                                           std::size_t first, std::size_t stride) {
  std::size_t i = first;
  for (; i + 3 * stride < n; i += 4 * stride) {
    const uint4 a = __ldcg(src + i), b = __ldcg(src + i + stride), c = __ldcg(src + i + 2 * stride),
                d = __ldcg(src + i + 3 * stride);
    dst[i] = a;
    dst[i + stride] = b;
    dst[i + 2 * stride] = c;
    dst[i + 3 * stride] = d;
  }
  for (; i < n; i += stride) dst[i] = __ldcg(src + i);
}

/// copy_kernel: SM-driven copy of `n` 16-byte packs, grid-stride (copy_packs). Push = launched
/// on the source GPU with `dst` in peer memory; pull = launched on the destination GPU with
/// `src` in peer memory. Requires 16-byte aligned buffers.
__global__ void copy_kernel(uint4* __restrict__ dst, const uint4* __restrict__ src, std::size_t n);

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
                                PingPongResult* result);

// Peers one fan-out kernel serves (a GPU with more peers gets no SM loaded-links pattern).
inline constexpr int kMaxFanout = 16;

struct FanoutJob {
  int peers = 0;
  int reps = 1;
  std::size_t packs = 0;  // per peer and repetition
  uint4* dst[kMaxFanout] = {};
  const uint4* src[kMaxFanout] = {};
};

/// fanout_copy_kernel: one GPU's share of the loaded-links SM patterns: copies `packs` 16-byte
/// packs for every peer at once, `reps` times. Block b serves peer b % peers (the blocks of one
/// peer grid-stride over its packs with copy_packs), so every link is busy for the whole kernel.
/// Push: dst[k] in peer k's memory; pull: src[k] there. Each block's thread 0 records
/// %globaltimer before its first pack and after its last one (after a system fence, so stores
/// are performed), into first_ns[peer] (atomicMin; the host sets it to ~0) and last_ns[peer]
/// (atomicMax; the host zeroes it): the link's time under load. Needs gridDim.x >= peers.
__global__ void fanout_copy_kernel(FanoutJob job, unsigned long long* first_ns, unsigned long long* last_ns);

/// gate_kernel: holds a stream until the host writes 1 into `go` (mapped, pinned host memory),
/// so every GPU's loaded-links work starts together once all of it is enqueued. Gives up after
/// timeout_ns and sets *timed_out = 1 (the episode is then reported as failed, never hung).
__global__ void gate_kernel(const unsigned* go, unsigned long long timeout_ns, unsigned* timed_out);

}  // namespace arbench::topo::probe
