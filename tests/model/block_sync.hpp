// Block barriers and kernel boundaries of the modelled grid, from Relacy's mutex and condition
// variable: a waiting thread is parked (not runnable) instead of spinning, so the schedulers
// branch far less, and the happens-before edges are exactly those of the GPU:
//   sync_and(ok)      __syncthreads_and over the calling thread's block (acquire/release: what a
//                     thread wrote before it is visible to every thread of the block after it,
//                     the cumulativity the protocols rely on when one thread releases a flag)
//   kernel_begin/end  stream order between two launches of a rank: every thread of every block
//                     of the rank returned from launch L before any starts launch L+1
// A thread that returned from a launch leaves its block (as HostBlock::leave): a barrier that
// waits only for it opens. Ranks are independent (back to back: a rank may be a launch ahead).
// Relacy thread ids: tid = (rank * Blocks + block) * Threads + thread.
#pragma once

#include "tests/model/model_env.hpp"

namespace arbench::model {

template <int Ranks, int Blocks, int Threads>
class BlockSync {
 public:
  static constexpr int kN = Ranks * Blocks * Threads;
  static_assert(kN <= kMaxModelThreads, "raise kMaxModelThreads (and Waits' arrays)");
  static constexpr int kMaxLaunches = 8;  // ops x kernels per op

  void kernel_begin(int tid, int launch) {
    cur_[tid] = launch;
    if constexpr (Blocks * Threads == 1) return;  // program order is the boundary
    if (launch == 0) return;
    Rk& k = rk_[tid / (Blocks * Threads)];
    NoPreempt np;
    k.m.lock($);
    while (k.left[launch - 1] < Blocks * Threads) k.cv.wait(k.m, $);
    k.m.unlock($);
  }
  void kernel_end(int tid, int launch) {
    if constexpr (Blocks * Threads == 1) return;
    NoPreempt np;
    if constexpr (Threads > 1) {  // leave the block: a barrier waiting only for us opens
      Blk& b = blk_[tid / Threads];
      b.m.lock($);
      --b.members[launch];
      if (b.arrived > 0 && b.arrived == b.members[launch]) release(b);
      b.m.unlock($);
    }
    Rk& k = rk_[tid / (Blocks * Threads)];
    k.m.lock($);
    if (++k.left[launch] == Blocks * Threads) k.cv.notify_all($);
    k.m.unlock($);
  }
  bool sync_and(bool ok) {
    if constexpr (Threads == 1) return ok;  // one thread: __syncthreads orders nothing more
    const int tid = static_cast<int>(rl::thread_index());
    Blk& b = blk_[tid / Threads];
    NoPreempt np;
    b.m.lock($);
    b.all_ok = b.all_ok && ok;
    if (++b.arrived == b.members[cur_[tid]]) {
      release(b);
    } else {
      const unsigned gen = b.gen;
      while (b.gen == gen) b.cv.wait(b.m, $);
    }
    const bool r = b.result;
    b.m.unlock($);
    return r;
  }

 private:
  struct Blk {
    rl::mutex m;
    rl::condition_variable cv;
    int members[kMaxLaunches] = {Threads, Threads, Threads, Threads, Threads, Threads, Threads, Threads};
    int arrived = 0;
    bool all_ok = true, result = true;
    unsigned gen = 0;
  };
  struct Rk {
    rl::mutex m;
    rl::condition_variable cv;
    int left[kMaxLaunches] = {};
  };
  void release(Blk& b) {
    b.result = b.all_ok;
    b.all_ok = true;
    b.arrived = 0;
    ++b.gen;
    b.cv.notify_all($);
  }
  Blk blk_[Ranks * Blocks];
  Rk rk_[Ranks];
  int cur_[kN] = {};  // plain: guarded by the mutexes, or touched by its own thread only
};

}  // namespace arbench::model
