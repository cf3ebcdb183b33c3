// The model checker's environment: every header a model needs, then Relacy; the shadow memory
// that stands for the words a peer can see; waits that park; the bypass guard.
//
// INCLUDE ORDER: this header includes every standard and arbench header any model uses, and
// <relacy/relacy.hpp> LAST. Relacy #defines new, delete, malloc, free, assert, errno and
// memory_order_* (relacy.hpp): a header parsed after it breaks. So model headers include only
// this one (first) and never an arbench header of their own; a new protocol's header is added
// to the list below. (relacy_std.hpp is never included: it re-declares std::atomic and clashes
// with libstdc++ 12.)
//
// NO HEAP inside a Relacy run: relacy.hpp replaces the global operator new/delete, and every
// free inside a run is a scheduler choice point (it multiplies a bounded search). All
// per-iteration state lives in fixed arrays inside the test object, the real buffers too.
//
// How addresses become Relacy objects: the protocol keeps computing raw pointers into real
// buffers (flag_ptr, staging_ptr, ll_ptr ...); the harness registers every word a peer can touch
// before the threads start (address -> shadow), and the policy (relacy_mem.hpp) acts on the
// shadow, never on the real bytes, which are mapped PROT_NONE (guarded_scratch).
#pragma once

#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <iterator>
#include <ostream>
#include <source_location>
#include <string>
#include <vector>

#include "arbench/algo/epoch.hpp"
#include "arbench/algo/faults.hpp"
#include "arbench/algo/fp8/fp8_protocols.hpp"
#include "arbench/algo/fused/fused_oneshot.hpp"
#include "arbench/algo/fused/fused_twoshot.hpp"
#include "arbench/algo/fused/norm_rows.hpp"
#include "arbench/algo/island/fused_island.hpp"
#include "arbench/algo/island/island_oneshot.hpp"
#include "arbench/algo/island/island_twoshot.hpp"
#include "arbench/algo/ll.hpp"
#include "arbench/algo/pack.hpp"
#include "arbench/algo/ring/ring.hpp"
#include "arbench/algo/symm/oneshot_pull.hpp"
#include "arbench/algo/symm/oneshot_push.hpp"
#include "arbench/algo/symm/twoshot.hpp"
#include "arbench/core/dtype.hpp"
#include "tests/mutation/mutant_table.hpp"

namespace arbench::algo {
// Relacy prints every value it records in a failure's history.
inline std::ostream& operator<<(std::ostream& o, const Pack& p) {
  return o << '{' << p.w[0] << ',' << p.w[1] << ',' << p.w[2] << ',' << p.w[3] << '}';
}
}  // namespace arbench::algo

#include <relacy/relacy.hpp>  // LAST (macros)

namespace arbench::model {

using algo::LlLine;
using algo::Pack;

inline constexpr int kMaxModelThreads = 16;

// Weak-memory-only mutants: faults that TSan on an x86 (TSO) machine cannot see, only a weak
// memory model can (docs/verification.md).
enum class Weak : int {
  none = 0,
  counter_stale,  // counter_load may return the counter's previous value (a stale, non-coherent read)
  ll_split,       // an LL half as two separate relaxed 4-byte words, data then flag
  ll_split_sc,    // the same split with sequentially consistent stores and loads: what a strong
                  // machine shows (on x86, TSO, these two stores and two loads keep program order)
  peer_as_local,  // load_peer served by load_data: a load over the fabric that the round-trip check
                  // (scripts/round_trips.py) would not count; load_data's owner check must fail it
};
constexpr bool splits_ll(Weak w) { return w == Weak::ll_split || w == Weak::ll_split_sc; }

// The real bytes of every rank's symmetric scratch are mapped PROT_NONE: the protocol only does
// pointer arithmetic on them and must access them through Mem::. A plain access behind the
// policy's back (`staging_ptr(..)[k]`) would read consistent real bytes that Relacy never sees,
// and every ordering mutant would survive; here it is a SIGSEGV with a message (exit 3, a harness
// error, never a kill). One mapping per rank index, made once, reused by every iteration.
struct GuardedScratch {
  void* base[kMaxModelThreads] = {};
  std::size_t size[kMaxModelThreads] = {};
};
inline GuardedScratch g_guarded;  // read by the signal handler
inline void* guarded_scratch(int rank, std::size_t bytes) {
  GuardedScratch& g = g_guarded;
  if (g.base[rank] != nullptr && g.size[rank] >= bytes) return g.base[rank];
  if (g.base[rank] != nullptr) munmap(g.base[rank], g.size[rank]);
  const std::size_t size = (bytes + 4095) & ~std::size_t{4095};
  void* p = mmap(nullptr, size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) {
    std::perror("arbench_model: mmap");
    std::exit(3);
  }
  g.base[rank] = p;
  g.size[rank] = size;
  return p;
}
inline void install_bypass_guard() {
  struct sigaction sa {};
  sa.sa_sigaction = [](int, siginfo_t* si, void*) {
    const auto* a = static_cast<const char*>(si->si_addr);
    bool guarded = false;
    for (int r = 0; r < kMaxModelThreads; ++r) {
      const auto* b = static_cast<const char*>(g_guarded.base[r]);
      guarded = guarded || (b != nullptr && a >= b && a < b + g_guarded.size[r]);
    }
    static const char bypass[] =
        "arbench_model: SIGSEGV: the protocol accessed symmetric memory directly instead of through "
        "Mem:: (load_data/store_data/...; the model maps the scratch PROT_NONE)\n";
    static const char other[] = "arbench_model: SIGSEGV outside the guarded scratch: a bug of the model harness\n";
    if (guarded) (void)!write(2, bypass, sizeof bypass - 1);
    else (void)!write(2, other, sizeof other - 1);
    _exit(3);
  };
  sa.sa_flags = SA_SIGINFO;
  sigaction(SIGSEGV, &sa, nullptr);
}

// Relacy's trace names the protocol line that made an access, not the policy's: every memory
// operation of the policy takes the caller's std::source_location as a defaulted argument.
using Loc = std::source_location;
inline rl::debug_info at_caller(const Loc& l) { return rl::debug_info(l.function_name(), l.file_name(), l.line()); }

// A protocol invariant the model checks (a failure is a USER ASSERT naming the protocol line).
inline void model_assert(bool ok, const char* what, const Loc& loc) {
  RL_ASSERT_IMPL(ok, rl::test_result_user_assert_failed, what, at_caller(loc));
}

// ---- shadows of the words a peer can see ---------------------------------------------------
// Polled words keep a plain copy of their newest value ("latest"), so a waiter can tell whether
// its poll saw the newest state (Waits below). Plain fields are safe: Relacy runs every thread
// as a fiber of one OS thread and switches only at its own operations.
struct FlagCell {  // barrier / ring flag: rl::atomic, release/acquire
  rl::atomic<std::uint32_t> a;
  std::uint32_t latest = 0;
};
struct WordCell {  // one 8-byte half of an LL line: relaxed, single-copy atomic
  rl::atomic<std::uint64_t> a;
  std::uint64_t latest = 0;
};
struct LlHalf {  // Weak::ll_split: the half as two independent 4-byte words
  rl::atomic<std::uint32_t> data, flag;
  std::uint32_t latest_data = 0, latest_flag = 0;
};
// rl::var<Pack>'s default constructor does `value_ = 0`, which a Pack cannot take: construct it
// from a value (an array of these is default-constructible).
struct PackVar {  // one 16-byte data pack: plain, race-checked
  rl::var<Pack> v{Pack{{0u, 0u, 0u, 0u}}};
};
struct ByteVar {  // one byte (an FP8 unit's scale): plain, race-checked
  rl::var<std::uint8_t> v{std::uint8_t{0}};
};
struct Counter {  // per-block epoch / per-channel ring transfer counter: plain
  rl::var<std::uint32_t> v;
  std::uint32_t prev = 0;  // Weak::counter_stale's stale answer
  bool has_prev = false;
};

// address -> shadow; a sorted fixed array (no heap), filled before the threads start. An address
// nobody registered is a harness error ("unmodelled access"), never silently plain memory.
class ShadowIndex {
 public:
  enum Kind { kFlag, kPack, kLlWord, kLlHalf, kCounter, kByte };
  void add(const void* addr, Kind k, void* obj) {
    if (n_ == kMax) {
      std::fprintf(stderr, "arbench_model: more than %d shadowed words: raise ShadowIndex::kMax\n", kMax);
      std::exit(3);
    }
    int i = n_++;
    while (i > 0 && e_[i - 1].addr > addr) {
      e_[i] = e_[i - 1];
      --i;
    }
    e_[i] = Entry{addr, k, obj};
  }
  void* find(const void* addr, Kind k, const Loc& loc) const {
    int lo = 0, hi = n_;
    while (lo < hi) {
      const int mid = (lo + hi) / 2;
      if (e_[mid].addr < addr) lo = mid + 1;
      else hi = mid;
    }
    if (lo < n_ && e_[lo].addr == addr && e_[lo].kind == k) return e_[lo].obj;
    std::fprintf(stderr, "arbench_model: unmodelled access at %p (kind %d) from %s:%u: the harness did not "
                 "register this word (tests/model/*_model.hpp)\n", addr, int(k), loc.file_name(), loc.line());
    std::exit(3);
  }
  // f(addr) for every registered word of kind k, in address order.
  template <class F>
  void each(Kind k, F f) const {
    for (int i = 0; i < n_; ++i)
      if (e_[i].kind == k) f(e_[i].addr);
  }

 private:
  static constexpr int kMax = 4096;
  struct Entry {
    const void* addr;
    Kind kind;
    void* obj;
  };
  Entry e_[kMax];
  int n_ = 0;
};

// Harness code (barriers, kernel boundaries, parking) runs without preemption points: it is not
// under test, and every preemption the scheduler spends inside it is one a context-bounded search
// cannot spend in the protocol. (Blocking inside still switches threads: Relacy's park saves and
// restores the disabled state.) Its mutexes still create the happens-before edges.
struct NoPreempt {
  rl::preemption_disabler d{rl::ctx()};
};

// Waits that park instead of spinning. A poll that saw the newest value of every word it read
// cannot see anything else until some thread stores again (Relacy keeps read-read coherence: a
// thread that read the newest value never reads an older one), so pause() parks the thread until
// the next store to a polled word instead of yielding. A poll that read a stale value (Relacy's
// weak-memory choice) yields: its next load may be newer. Parked threads are not runnable, so the
// schedulers do not branch over useless spins; a wait that can never end is Relacy's DEADLOCK
// (= the twin's timeout). Off in the missing-rank scenario, whose waits must expire instead.
struct Waits {
  static constexpr int kWatch = 32;  // words one poll may read (ll_wait_pack: 2 lines x 2 halves x peers)
  rl::mutex m;
  rl::condition_variable cv[kMaxModelThreads];
  bool enabled = true;
  struct Probe {
    bool open = false, all_current = true, parked = false, woken = false;
    int n = 0;
    const void* watch[kWatch];
  } probe[kMaxModelThreads];
  int threads = 0;

  void loaded(const void* addr, bool current) {  // every load of a polled word
    Probe& p = probe[rl::thread_index()];
    if (!p.open) {
      p.open = true;
      p.all_current = true;
      p.woken = false;
      p.n = 0;
    }
    p.all_current = p.all_current && current;
    if (p.n < kWatch) p.watch[p.n++] = addr;
    else p.all_current = false;  // too many to watch: never park on this poll
  }
  // Every store to a polled word: a poll that read it is out of date (also one not parked yet:
  // its pause() must not park), and a parked one wakes.
  void stored(const void* addr) {
    for (int t = 0; t < threads; ++t) {
      Probe& p = probe[t];
      if (p.woken || !(p.open || p.parked)) continue;
      for (int i = 0; i < p.n; ++i)
        if (p.watch[i] == addr) {
          p.woken = true;
          if (p.parked) {
            NoPreempt np;
            m.lock($);
            cv[t].notify_one($);
            m.unlock($);
          }
          break;
        }
    }
  }
  void pause(rl::debug_info_param info) {
    const int tid = static_cast<int>(rl::thread_index());
    Probe& p = probe[tid];
    const bool park = enabled && p.open && p.all_current && !p.woken;
    p.open = false;
    if (!park) {
      rl::yield(1, info);
      return;
    }
    NoPreempt np;
    m.lock(info);
    p.parked = true;
    while (!p.woken) cv[tid].wait(m, info);
    p.parked = false;
    m.unlock(info);
  }
};

// What the policy's static functions talk to: the current iteration's world (set by the test
// object's constructor). Never a static in anything a thread touches: iterations must be
// deterministic (Relacy replays a failing one to print its history).
struct EnvBase {
  ShadowIndex index;
  Waits waits;
  int stall_calls = 0;  // Fault::epoch_stall's count of ops
  std::uint64_t clock[kMaxModelThreads] = {};
  virtual bool sync_and(bool ok) = 0;  // __syncthreads_and of the calling thread's block
  virtual int thread_rank() const = 0;  // the rank the calling Relacy thread runs
  // The rank whose guarded scratch holds p (-1: none).
  static int owner(const void* p) {
    const auto* a = static_cast<const char*>(p);
    for (int r = 0; r < kMaxModelThreads; ++r) {
      const auto* b = static_cast<const char*>(g_guarded.base[r]);
      if (b != nullptr && a >= b && a < b + g_guarded.size[r]) return r;
    }
    return -1;
  }
  template <class T>
  T& at(const void* p, ShadowIndex::Kind k, const Loc& loc) { return *static_cast<T*>(index.find(p, k, loc)); }

  // Registration, before the threads start: the shadow of each word a peer can see, at its
  // initial value (flags and counters: the first epoch's fill; LL lines: ll_fill's halves).
  void add_flag(FlagCell& c, const void* at, std::uint32_t fill) {
    c.a($).store(c.latest = fill, rl::mo_relaxed);
    index.add(at, ShadowIndex::kFlag, &c);
  }
  void add_counter(Counter& c, const void* at, std::uint32_t fill) {
    c.v($).store(fill);
    index.add(at, ShadowIndex::kCounter, &c);
  }
  // `count` packs from `first`, on cells[n...]; n advances.
  void add_packs(PackVar* cells, std::size_t& n, const Pack* first, std::size_t count) {
    for (std::size_t k = 0; k < count; ++k) index.add(first + k, ShadowIndex::kPack, &cells[n++]);
  }
  // `count` bytes from `first`, on cells[n...]; n advances.
  void add_bytes(ByteVar* cells, std::size_t& n, const std::uint8_t* first, std::size_t count) {
    for (std::size_t k = 0; k < count; ++k) index.add(first + k, ShadowIndex::kByte, &cells[n++]);
  }
  // `lines` LL lines from `first`, each half a whole 8-byte word, on cells[n...]; n advances.
  void add_lines(WordCell* cells, std::size_t& n, const LlLine* first, std::size_t lines, std::uint32_t fill) {
    const LlLine init = algo::ll_fill(fill);
    for (std::size_t i = 0; i < lines; ++i)
      for (int h = 0; h < 2; ++h) {
        WordCell& c = cells[n++];
        c.a($).store(c.latest = init.h[h], rl::mo_relaxed);
        index.add(&first[i].h[h], ShadowIndex::kLlWord, &c);
      }
  }

 protected:
  ~EnvBase() = default;
};
inline EnvBase* g_env = nullptr;

}  // namespace arbench::model
