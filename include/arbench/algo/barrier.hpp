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

// The barrier among the ranks `is_peer(p)` names (never the caller itself), for any protocol's
// arguments whose `scratch` holds every such rank's flags: block_barrier below (every other rank)
// and island_barrier (island/island_sync.hpp: the caller's island) are this one.
template <class Mem, class Args, class IsPeer>
ARB_HD bool barrier_among(const Args& a, const BlockCtx& c, IsPeer is_peer, int phase, std::uint32_t epoch,
                          OpBound& bound, BarrierMarks m) {
  Mem::block_sync();
  phase_mark<Mem>(m.rec, c, m.first);
  for (int p = c.thread; p < a.world; p += c.threads)
    if (is_peer(p)) Mem::store_release(flag_ptr(pick_ptr(a.scratch, p), phase, c.block, a.rank), epoch);
  phase_mark<Mem>(m.rec, c, m.first + 1);
  bool ok = true;
  for (int p = c.thread; p < a.world; p += c.threads) {  // round-trips: once (a peer per thread)
    if (!is_peer(p) || !ok) continue;
    const WaitSite site{a.rank, c.block, p, WaitKind::barrier, static_cast<std::uint32_t>(phase)};
    ok = wait_flag<Mem>(flag_ptr(pick_ptr(a.scratch, a.rank), phase, c.block, p), epoch, bound, &a.state->error,
                        site);
  }
  const bool all = Mem::block_all(ok);
  if (all) phase_mark<Mem>(m.rec, c, m.first + 2);
  return all;
}

template <class Mem>
ARB_HD bool block_barrier(const SymmArgs& a, const BlockCtx& c, int phase, std::uint32_t epoch, OpBound& bound,
                          BarrierMarks m = {}) {
  return barrier_among<Mem>(a, c, [&](int p) { return p != a.rank; }, phase, epoch, bound, m);
}


}  // namespace arbench::algo
