// RelacyMem<F, W>: the memory policy (include/arbench/algo/mem_policy.hpp) that runs the protocol
// templates under the Relacy model checker, with planted fault F (the mutation score's,
// include/arbench/algo/faults.hpp) and weak-memory-only fault W.
//
// The mapping of the GPU's memory model onto C++'s (the scoped C++ model maps soundly onto
// PTX's: Lustig et al., ASPLOS 2019; scopes are not modelled, everything is system scope):
//   store_release / load_acquire   st.release.sys / ld.acquire.sys  ->  rl::atomic release / acquire
//   ll_store / ll_load             st/ld.volatile.v2.u64 (volatile = relaxed.sys, each 8-byte half
//                                  single-copy atomic, the halves independent)  ->  two relaxed
//                                  rl::atomic<uint64_t>
//   load_data(_cg) / load_peer /   plain ld/st.global.v4  ->  rl::var<Pack>: a load not ordered
//   store_data
//                                  after the store by happens-before is a DATA RACE (so stale data
//                                  shows up as a race, never as a wrong value)
//   counter_load / counter_store   plain ld/st.global.u32  ->  rl::var<uint32_t>
//   block_sync / block_all         __syncthreads(_and)  ->  a barrier over the block's Relacy threads
// Besides Relacy's own checks the policy asserts two invariants the protocols state: a flag word
// has one writer and moves forward (barrier.hpp, ring.hpp), and an LL half is never stored twice
// with one epoch (one writer per line per op: oneshot_push.hpp).
#pragma once

#include "tests/model/model_env.hpp"

namespace arbench::model {

template <algo::Fault F = algo::Fault::none, Weak W = Weak::none>
struct RelacyMem {
  static constexpr algo::Fault kFault = F;
  static constexpr Weak kWeak = W;
  using K = ShadowIndex;
  static constexpr rl::memory_order kSplitOrder = W == Weak::ll_split_sc ? rl::mo_seq_cst : rl::mo_relaxed;

  static void store_release(std::uint32_t* p, std::uint32_t v, Loc loc = Loc::current()) {
    FlagCell& c = g_env->at<FlagCell>(p, K::kFlag, loc);
    model_assert(v != c.latest && algo::epoch_reached(v, c.latest),
                 "a flag was stored twice with one value or moved backwards (one writer per flag word, "
                 "monotonic values)", loc);
    c.a(at_caller(loc)).store(v, F == algo::Fault::store_relaxed ? rl::mo_relaxed : rl::mo_release);
    c.latest = v;
    g_env->waits.stored(&c);
  }
  static std::uint32_t load_acquire(const std::uint32_t* p, Loc loc = Loc::current()) {
    FlagCell& c = g_env->at<FlagCell>(p, K::kFlag, loc);
    const std::uint32_t v = c.a(at_caller(loc)).load(F == algo::Fault::load_relaxed ? rl::mo_relaxed : rl::mo_acquire);
    g_env->waits.loaded(&c, v == c.latest);
    return v;
  }
  static void ll_store(LlLine* dst, const LlLine& l, Loc loc = Loc::current()) {
    const rl::debug_info dbg = at_caller(loc);
    for (int h = 0; h < 2; ++h) {
      if constexpr (splits_ll(W)) {  // data word, then flag word: separate stores
        auto& s = g_env->at<LlHalf>(&dst->h[h], K::kLlHalf, loc);
        s.data(dbg).store(s.latest_data = algo::ll_data(l, h), kSplitOrder);
        g_env->waits.stored(&s);
        s.flag(dbg).store(s.latest_flag = algo::ll_flag(l, h), kSplitOrder);
        g_env->waits.stored(&s);
      } else {
        auto& w = g_env->at<WordCell>(&dst->h[h], K::kLlWord, loc);
        model_assert(static_cast<std::uint32_t>(w.latest >> 32) != algo::ll_flag(l, h),
                     "an LL line was stored twice for one epoch (one writer per line per op)", loc);
        if constexpr (F == algo::Fault::ll_torn) {
          // The torn line's intermediate state, visible to a reader: the new flag with the word's
          // old data (the flag's 4-byte store landed first), then the whole new word.
          w.a(dbg).store(w.latest = (l.h[h] & ~0xffffffffull) | (w.latest & 0xffffffffull), rl::mo_relaxed);
          g_env->waits.stored(&w);
        }
        w.a(dbg).store(w.latest = l.h[h], rl::mo_relaxed);
        g_env->waits.stored(&w);
      }
    }
  }
  static LlLine ll_load(const LlLine* src, Loc loc = Loc::current()) {
    const rl::debug_info dbg = at_caller(loc);
    LlLine l{};
    for (int h = 0; h < 2; ++h) {
      if constexpr (splits_ll(W)) {  // flag word, then data word
        auto& s = g_env->at<LlHalf>(&src->h[h], K::kLlHalf, loc);
        const std::uint32_t f = s.flag(dbg).load(kSplitOrder);
        const std::uint32_t d = s.data(dbg).load(kSplitOrder);
        g_env->waits.loaded(&s, f == s.latest_flag && d == s.latest_data);
        l.h[h] = (std::uint64_t{f} << 32) | d;
      } else {
        auto& w = g_env->at<WordCell>(&src->h[h], K::kLlWord, loc);
        l.h[h] = w.a(dbg).load(rl::mo_relaxed);
        g_env->waits.loaded(&w, l.h[h] == w.latest);
      }
    }
    return l;
  }
  // load_data reads the calling rank's own memory only: a load of another rank's goes through
  // load_peer, which the round-trip check counts (mem_policy.hpp); the model holds the protocols
  // to that.
  static Pack load_data(const Pack* p, Loc loc = Loc::current()) {
    const int owner = g_env->owner(p), me = g_env->thread_rank();
    model_assert(owner == me, "load_data read another rank's memory: a load over the fabric must be load_peer", loc);
    return g_env->at<PackVar>(p, K::kPack, loc).v(at_caller(loc)).load();
  }
  static Pack load_peer(const Pack* p, Loc loc = Loc::current()) {
    if constexpr (W == Weak::peer_as_local) return load_data(p, loc);
    return g_env->at<PackVar>(p, K::kPack, loc).v(at_caller(loc)).load();
  }
  static Pack load_data_cg(const Pack* p, Loc loc = Loc::current()) { return load_data(p, loc); }
  static void store_data(Pack* p, const Pack& v, Loc loc = Loc::current()) {
    g_env->at<PackVar>(p, K::kPack, loc).v(at_caller(loc)).store(v);
  }
  static void store_byte(std::uint8_t* p, std::uint8_t v, Loc loc = Loc::current()) {
    g_env->at<ByteVar>(p, K::kByte, loc).v(at_caller(loc)).store(v);
  }
  static std::uint32_t load_peer_byte(const std::uint8_t* p, Loc loc = Loc::current()) {
    return g_env->at<ByteVar>(p, K::kByte, loc).v(at_caller(loc)).load();
  }
  static std::uint32_t counter_load(const std::uint32_t* p, Loc loc = Loc::current()) {
    Counter& c = g_env->at<Counter>(p, K::kCounter, loc);
    const std::uint32_t v = c.v(at_caller(loc)).load();
    if constexpr (W == Weak::counter_stale)
      if (c.has_prev && rl::rand(2) == 1) return c.prev;  // Relacy explores both answers
    return v;
  }
  static void counter_store(std::uint32_t* p, std::uint32_t v, Loc loc = Loc::current()) {
    Counter& c = g_env->at<Counter>(p, K::kCounter, loc);
    c.prev = c.v(at_caller(loc)).load();  // own last store: the counter has one writer
    c.has_prev = true;
    c.v(at_caller(loc)).store(v);
  }
  // A logical clock: every call is one tick, so a wait's timeout_ns counts polls.
  static std::uint64_t now_ns() { return ++g_env->clock[rl::thread_index()]; }
  static void pause(Loc loc = Loc::current()) { g_env->waits.pause(at_caller(loc)); }
  // Local memory only (the error record); a fiber runs uninterrupted between Relacy operations,
  // so a plain test-and-set is atomic here.
  static bool claim(std::uint32_t* word) {
    if (*word != 0u) return false;
    *word = 1u;
    return true;
  }
  static void block_sync() {
    if constexpr (F != algo::Fault::block_sync_skipped) g_env->sync_and(true);
  }
  static bool block_all(bool ok) {
    if constexpr (F == algo::Fault::block_all_own) {
      g_env->sync_and(true);
      return ok;
    } else {
      return g_env->sync_and(ok);
    }
  }
  // Fault::epoch_stall: block 0 of rank 0 does not record its second op (as MutantMem).
  static bool stall_counter(int rank, int block) { return rank == 0 && block == 0 && g_env->stall_calls++ == 1; }
};

}  // namespace arbench::model
