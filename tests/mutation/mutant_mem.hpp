// MutantMem<F>: the host twins' memory policy (HostMem) with one planted fault F
// (include/arbench/algo/faults.hpp). Faults of a memory operation are written here; the others
// are the protocol hooks that read MutantMem<F>::kFault. Test-only: production code never
// instantiates it, so the kernels and the production twins carry none of it.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <thread>

#include "arbench/algo/faults.hpp"
#include "kernels/mem_host.hpp"

namespace arbench::testing {

template <algo::Fault F>
struct MutantMem : HostMem {
  static constexpr algo::Fault kFault = F;

  static void store_release(std::uint32_t* p, std::uint32_t v) {
    if constexpr (F == algo::Fault::store_relaxed)
      std::atomic_ref<std::uint32_t>(*p).store(v, std::memory_order_relaxed);
    else
      HostMem::store_release(p, v);
  }

  static std::uint32_t load_acquire(const std::uint32_t* p) {
    if constexpr (F == algo::Fault::load_relaxed)
      return std::atomic_ref<std::uint32_t>(*const_cast<std::uint32_t*>(p)).load(std::memory_order_relaxed);
    else
      return HostMem::load_acquire(p);
  }

  // ll_torn: each 8-byte half as two 4-byte stores, its flag word (the high half, little endian)
  // first: hardware may make separate stores visible in any order, and this is the order that
  // lets a reader see the flag before the data. The pause holds the window open long enough for
  // a polling reader to fall into it.
  static void ll_store(algo::LlLine* dst, const algo::LlLine& l) {
    if constexpr (F == algo::Fault::ll_torn) {
      auto* w = reinterpret_cast<std::uint32_t*>(dst->h);
      for (int half = 0; half < 2; ++half) {
        std::atomic_ref<std::uint32_t>(w[2 * half + 1]).store(algo::ll_flag(l, half), std::memory_order_relaxed);
        std::this_thread::sleep_for(std::chrono::microseconds(200));
        std::atomic_ref<std::uint32_t>(w[2 * half]).store(algo::ll_data(l, half), std::memory_order_relaxed);
      }
    } else {
      HostMem::ll_store(dst, l);
    }
  }

  static void block_sync() {
    if constexpr (F != algo::Fault::block_sync_skipped) HostMem::block_sync();
  }

  static bool block_all(bool ok) {
    if constexpr (F == algo::Fault::block_all_own) {
      HostMem::block_sync();
      return ok;
    } else {
      return HostMem::block_all(ok);
    }
  }

  // epoch_stall: block 0 of rank 0 does not record its second op. (Each mutant runs in a
  // process of its own, so the count starts at zero.)
  static bool stall_counter(int rank, int block) {
    static std::atomic<int> ops{0};
    return rank == 0 && block == 0 && ops.fetch_add(1) == 1;
  }
};

}  // namespace arbench::testing
