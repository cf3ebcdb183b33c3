// HostMem: the memory policy of the host twins (see include/arbench/algo/mem_policy.hpp).
//
// C++ atomics stand in for the PTX ones: release/acquire on flags, relaxed 8-byte atomics for LL
// words (data and flag share the word, so the word itself is the synchronisation). Data packs use
// plain accesses, ordered by those flags exactly as in the kernel; ThreadSanitizer checks that.
// block_sync / block_all are the barrier of the calling thread's block in a block-faithful twin
// (HostBlock, set by HostGrid); in the sequential twin a block is one thread and they do
// nothing. pause() yields: the twins often run 8 ranks on 2 cores, and a spinning rank must let
// the rank it waits for run.
#pragma once

#include <atomic>
#include <cstdint>
#include <thread>

#include "arbench/algo/ll.hpp"
#include "arbench/core/steady_clock.hpp"
#include "kernels/host_block.hpp"

namespace arbench {

struct HostMem {
  static void store_release(std::uint32_t* p, std::uint32_t v) {
    std::atomic_ref<std::uint32_t>(*p).store(v, std::memory_order_release);
  }
  static std::uint32_t load_acquire(const std::uint32_t* p) {
    return std::atomic_ref<std::uint32_t>(*const_cast<std::uint32_t*>(p)).load(std::memory_order_acquire);
  }
  static void ll_store(algo::LlLine* dst, const algo::LlLine& l) {
    std::atomic_ref<std::uint64_t>(dst->h[0]).store(l.h[0], std::memory_order_relaxed);
    std::atomic_ref<std::uint64_t>(dst->h[1]).store(l.h[1], std::memory_order_relaxed);
  }
  static algo::LlLine ll_load(const algo::LlLine* src) {
    auto* s = const_cast<algo::LlLine*>(src);
    return algo::LlLine{{std::atomic_ref<std::uint64_t>(s->h[0]).load(std::memory_order_relaxed),
                         std::atomic_ref<std::uint64_t>(s->h[1]).load(std::memory_order_relaxed)}};
  }
  // Data packs of memory a peer can see and the epoch / transfer counters: plain accesses,
  // ordered by the flags (ThreadSanitizer checks that they are). ARB_HD (forced inline, like the
  // protocols) so TSan instruments the access where it happens: GCC's TSan misses a store of a
  // struct returned by an out-of-line call (arbench/core/hd.hpp).
  ARB_HD static algo::Pack load_data(const algo::Pack* p) { return *p; }
  ARB_HD static algo::Pack load_peer(const algo::Pack* p) { return *p; }
  ARB_HD static algo::Pack load_data_cg(const algo::Pack* p) { return *p; }
  ARB_HD static void store_data(algo::Pack* p, const algo::Pack& v) { *p = v; }
  ARB_HD static void store_byte(std::uint8_t* p, std::uint8_t v) { *p = v; }
  ARB_HD static std::uint32_t load_peer_byte(const std::uint8_t* p) { return *p; }
  ARB_HD static std::uint32_t counter_load(const std::uint32_t* p) { return *p; }
  ARB_HD static void counter_store(std::uint32_t* p, std::uint32_t v) { *p = v; }
  static std::uint64_t now_ns() { return steady_now_ns(); }
  static void pause() { std::this_thread::yield(); }
  static bool claim(std::uint32_t* word) {
    return std::atomic_ref<std::uint32_t>(*word).exchange(1u, std::memory_order_acq_rel) == 0u;
  }
  static void block_sync() {
    if (HostBlock* b = HostBlock::current()) b->sync_and(true);
  }
  static bool block_all(bool ok) {
    HostBlock* b = HostBlock::current();
    return b != nullptr ? b->sync_and(ok) : ok;
  }
};

}  // namespace arbench
