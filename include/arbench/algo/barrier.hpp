// Per-block barrier across ranks over symmetric flags (no atomics on peer memory).
//
// Protocol for block b at epoch e, phase ph:
//   1. block_sync(): every thread's writes of this phase (staging copies, reduced packs) are done.
//   2. arrive: for each peer p, one thread stores e into p's flag[ph][b][me] with release at system
//      scope. Release is cumulative: what the block wrote before step 1 is visible to whoever
//      acquires the flag.
//   3. wait: for each peer p, one thread spins (bounded by the op's OpBound) until its own flag[ph][b][p] reaches e
//      (acquire), then block_all() combines the outcomes: false if any wait expired.
// A peer may already be at e+1 when we look (it saw all of our arrivals and moved on), hence
// epoch_reached() and not equality. Single writer per flag word, monotonic values.
// Phase marks (`m.rec` non-null): m.first after step 1 (staging done), m.first+1 after step 2
// (arrived), m.first+2 once every peer arrived.
#pragma once

#include "arbench/algo/faults.hpp"
#include "arbench/algo/mem_policy.hpp"
#include "arbench/algo/phase_record.hpp"
#include "arbench/algo/symm_layout.hpp"
#include "arbench/algo/wait.hpp"

namespace arbench::algo {

template <class Mem>
ARB_HD bool block_barrier(const SymmArgs& a, const BlockCtx& c, int phase, std::uint32_t epoch, OpBound& bound,
                          BarrierMarks m = {}) {
  Mem::block_sync();
  phase_mark<Mem>(m.rec, c, m.first);
  for (int p = c.thread; p < a.world; p += c.threads)
    if (p != a.rank) Mem::store_release(flag_ptr(rank_scratch(a, p), phase, c.block, a.rank), epoch);
  phase_mark<Mem>(m.rec, c, m.first + 1);
  bool ok = true;
  for (int p = c.thread; p < a.world; p += c.threads) {  // round-trips: once (a peer per thread)
    if (p == a.rank || !ok) continue;
    const WaitSite site{a.rank, c.block, p, WaitKind::barrier, static_cast<std::uint32_t>(phase)};
    ok = wait_flag<Mem>(flag_ptr(rank_scratch(a, a.rank), phase, c.block, p), epoch, bound, &a.state->error,
                        site);
  }
  const bool all = Mem::block_all(ok);
  if (all) phase_mark<Mem>(m.rec, c, m.first + 2);
  return all;
}

// Reads this block's epoch counter and returns the epoch of the op about to run.
template <class Mem>
ARB_HD std::uint32_t begin_epoch(const SymmArgs& a, const BlockCtx& c) {
  return next_epoch(Mem::counter_load(&a.state->epoch[c.block]));
}

// Records that this block completed `epoch` (also after a timeout: the case has failed anyway,
// and the next op must not reuse the epoch). The block_sync keeps thread 0's store after every
// thread's read in begin_epoch().
template <class Mem>
ARB_HD void end_epoch(const SymmArgs& a, const BlockCtx& c, std::uint32_t epoch) {
  Mem::block_sync();
  if (c.thread == 0 && !skip_counter_update<Mem>(a.rank, c.block)) Mem::counter_store(&a.state->epoch[c.block], epoch);
}

}  // namespace arbench::algo
