// DeviceMem: the memory policy of the CUDA kernels (see include/arbench/algo/mem_policy.hpp).
//
// Flags use st.release.sys / ld.acquire.sys: system scope because the peer is another GPU
// across PCIe (gpu scope only orders within one device). LL lines use 16-byte volatile vector
// accesses: each 8-byte half is stored and loaded whole (what the LL protocol relies on), and
// volatile keeps the poll from being served by a stale cached copy. Waits always poll the
// waiter's own memory; only stores cross the fabric. The only atomic (claim) is on the rank's
// own error record, never on peer memory.
// Members are __host__ __device__ so the ARB_HD protocol templates instantiate cleanly; the
// host side is never called (the twins use HostMem) and traps if it is.
#pragma once

#include <cstdint>
#include <cstdlib>

#include "arbench/algo/ll.hpp"
#include "arbench/core/hd.hpp"

namespace arbench {

struct DeviceMem {
  ARB_HD static void store_release(std::uint32_t* p, std::uint32_t v) {
#if defined(__CUDA_ARCH__)
    asm volatile("st.release.sys.global.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
#else
    (void)p, (void)v;
    std::abort();
#endif
  }
  ARB_HD static std::uint32_t load_acquire(const std::uint32_t* p) {
#if defined(__CUDA_ARCH__)
    std::uint32_t v;
    asm volatile("ld.acquire.sys.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
    return v;
#else
    (void)p;
    std::abort();
#endif
  }
  ARB_HD static void ll_store(algo::LlLine* dst, const algo::LlLine& l) {
#if defined(__CUDA_ARCH__)
    asm volatile("st.volatile.global.v2.u64 [%0], {%1, %2};" ::"l"(dst), "l"(l.h[0]), "l"(l.h[1])
                 : "memory");
#else
    (void)dst, (void)l;
    std::abort();
#endif
  }
  ARB_HD static algo::LlLine ll_load(const algo::LlLine* src) {
#if defined(__CUDA_ARCH__)
    algo::LlLine l;
    asm volatile("ld.volatile.global.v2.u64 {%0, %1}, [%2];"
                 : "=l"(l.h[0]), "=l"(l.h[1])
                 : "l"(src)
                 : "memory");
    return l;
#else
    (void)src;
    std::abort();
#endif
  }
  // Data packs of memory a peer can see (staging, ring slots, gather rows): plain 16-byte
  // accesses, ordered by the flags around them (ld.global.v4 / st.global.v4).
  // load_data's empty asm reads and redefines all four words, so the load stays one 16-byte
  // access even where the caller uses only some words of a partial pack (nvcc would otherwise
  // narrow it: fused-twoshot<fp32> on sm_120); it emits no instruction.
  ARB_HD static algo::Pack load_data(const algo::Pack* p) {
    algo::Pack v = *p;
#if defined(__CUDA_ARCH__)
    asm("" : "+r"(v.w[0]), "+r"(v.w[1]), "+r"(v.w[2]), "+r"(v.w[3]));
#endif
    return v;
  }
  // A data pack of another rank's memory (a peer GPU's, or host memory mapped into this GPU):
  // the same 16-byte load as load_data, a member of its own so that the PTX says which loads cross
  // PCIe (scripts/round_trips.py counts the waits on them by this member's line).
  ARB_HD static algo::Pack load_peer(const algo::Pack* p) {
    algo::Pack v = *p;
#if defined(__CUDA_ARCH__)
    asm("" : "+r"(v.w[0]), "+r"(v.w[1]), "+r"(v.w[2]), "+r"(v.w[3]));
#endif
    return v;
  }
  // One byte of own memory a peer reads (an FP8 unit's E8M0 scale, fp8/fp8_payload.hpp), and one
  // byte of another rank's memory: st.global.u8 / ld.global.u8 (load_peer_byte crosses PCIe as
  // load_peer does; a warp's 32 adjacent bytes are one 32-byte read).
  ARB_HD static void store_byte(std::uint8_t* p, std::uint8_t v) { *p = v; }
  ARB_HD static std::uint32_t load_peer_byte(const std::uint8_t* p) { return *p; }
  // A ring slot the peer rewrites between two of our reads of one address: bypass L1 (__ldcg,
  // ld.global.cg.v4), where a stale line would return the previous transfer.
  ARB_HD static algo::Pack load_data_cg(const algo::Pack* p) {
#if defined(__CUDA_ARCH__)
    const uint4 v = __ldcg(reinterpret_cast<const uint4*>(p));
    return algo::Pack{{v.x, v.y, v.z, v.w}};
#else
    return *p;
#endif
  }
  ARB_HD static void store_data(algo::Pack* p, const algo::Pack& v) { *p = v; }
  // The per-block epoch / per-channel ring transfer counter: own device memory, read at the
  // kernel's start and written at its end, ordered by kernel boundaries (plain ld/st.global.u32).
  ARB_HD static std::uint32_t counter_load(const std::uint32_t* p) { return *p; }
  ARB_HD static void counter_store(std::uint32_t* p, std::uint32_t v) { *p = v; }
  ARB_HD static std::uint64_t now_ns() {
#if defined(__CUDA_ARCH__)
    std::uint64_t t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
#else
    std::abort();
#endif
  }
  // Polls are on local memory and cheap; sleeping would only add latency.
  ARB_HD static void pause() {}
  ARB_HD static bool claim(std::uint32_t* word) {
#if defined(__CUDA_ARCH__)
    return atomicCAS(word, 0u, 1u) == 0u;
#else
    (void)word;
    std::abort();
#endif
  }
  ARB_HD static void block_sync() {
#if defined(__CUDA_ARCH__)
    __syncthreads();
#endif
  }
  ARB_HD static bool block_all(bool ok) {
#if defined(__CUDA_ARCH__)
    return __syncthreads_and(ok ? 1 : 0) != 0;
#else
    return ok;
#endif
  }
};

}  // namespace arbench
