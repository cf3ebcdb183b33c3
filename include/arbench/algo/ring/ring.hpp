// Native ring protocol: flow control of one channel (kernel: kernels/ring/ring.cu; twin:
// kernels/ring/ring_twin.cpp). The schedule (which segment at which step) is ring_schedule.hpp; the
// memory is ring_layout.hpp.
//
// Block `ch` of every rank runs channel ch. Its transfers are numbered by a per-channel counter
// seq that continues across ops (RingState::seq, in device memory, so graph replays continue it);
// every rank runs the same number of transfers per op, so sender and receiver agree on every
// seq. Transfer q goes into receive slot ring_slot(q) of the next rank. One step with outgoing
// transfer q (the step consumes transfer q-1, except the first step of a round):
//   1. credit: wait (bounded) until own credit[ch] reached q - kSlots, i.e. the next rank has
//      consumed the previous occupant of the slot we are about to overwrite
//   2. data:   wait (bounded) until own flag[ch][slot(q-1)] reached q-1 (acquire)
//   3. make the packs of q (ring_schedule.hpp: own input, received partial + own input, or the
//      received final sum), store them into the next rank's slot(q) (posted writes) and, for
//      final sums, into own output
//   4. block_sync; one thread: release next's flag[ch][slot(q)] = q; check that own
//      flag[ch][slot(q-1)] still reads q-1 (else the sender overwrote the slot while we read
//      it: recorded as an error, never silently wrong); release prev's credit[ch] = q-1
// After a round's last step the last received transfer is drained (wait, store to output,
// credit). Why it cannot deadlock: producing q needs the previous rank's q-1 and the next
// rank's consumption of q - kSlots <= q-2, both of which every rank reaches before anyone needs
// q, by induction over q (hence kSlots >= 2; RingPolicy asserts it).
// Why credits: without them a fast sender laps a slow receiver (a sender can run up to N-1
// transfers ahead around the ring) and overwrites slots not yet read; the credit test shows it.
// Memory order: release is cumulative after block_sync, so the flag publishes every thread's
// slot writes; the credit is released after every thread's slot reads (block_sync), so the
// sender's next writes to that slot cannot race them. No atomics on peer memory.
#pragma once

#include "arbench/algo/faults.hpp"
#include "arbench/algo/mem_policy.hpp"
#include "arbench/algo/phase_record.hpp"
#include "arbench/algo/reduce.hpp"
#include "arbench/algo/ring/ring_layout.hpp"
#include "arbench/algo/wait.hpp"

namespace arbench::algo {

// Phase marks (arbench/core/phases.hpp; names: ring_phase_marks in kernels/ring/ring_variant.hpp):
// 0 entry; for step s of the round, 1+2s once its data arrived (wait) and 2+2s once it was sent
// (reduce); the drain's two at 1+2S and 2+2S (S = ring_steps); exit at 3+2S. A later round
// overwrites an earlier one's, so the record shows the op's last round.
ARB_HD_CONSTEXPR int ring_exit_mark(int world) { return 3 + 2 * ring_steps(world); }

// A slot pack written by a peer: Mem::load_data_cg, which on the GPU bypasses L1 (the slot is
// rewritten by the peer between two of our reads of the same address, and a stale L1 line would
// return the old transfer).
template <class Mem>
ARB_HD Pack ring_load_slot(const Pack* p) {
  return Mem::load_data_cg(p);
}

template <class Mem>
ARB_HD bool ring_wait(const std::uint32_t* word, std::uint32_t want, const RingArgs& a, const BlockCtx& c,
                      int peer, WaitKind kind, OpBound& bound) {
  const WaitSite site{a.rank, c.block, peer, kind, want};
  return wait_flag<Mem>(word, want, bound, &a.state->error, site);
}

// Test hook: the slow rank dawdles after the data of transfer q arrived in its slot (a slow
// receiver), until a later transfer overwrites that slot (its sender lapped it: only possible
// when the credit wait is skipped) or test_consume_delay_ns passed. Waiting for the event, not
// a fixed time, makes the credit test's overwrite certain however the threads are scheduled.
// Zero in production.
template <class Mem>
ARB_HD void ring_test_delay(const RingArgs& a, const std::uint32_t* slot_flag, std::uint32_t q) {
  if (a.test_consume_delay_ns == 0 || a.rank != a.test_slow_rank) return;
  const std::uint64_t t0 = Mem::now_ns();
  while (Mem::now_ns() - t0 < a.test_consume_delay_ns && Mem::load_acquire(slot_flag) == q) Mem::pause();
}

// Thread 0 after the block's reads of transfer `q` (received in own slot): the slot must still
// hold q (nobody overwrote it while we read), then hand it back to the previous rank.
template <class Mem>
ARB_HD bool ring_release_slot(const RingArgs& a, const BlockCtx& c, std::uint32_t q) {
  const int ch = c.block;
  const std::uint32_t seen = Mem::load_acquire(ring_flag_ptr(a.own, ch, ring_slot(q, RingPolicy::kSlots)));
  if (seen != q) {
    record_timeout<Mem>(&a.state->error, WaitSite{a.rank, ch, a.prev_rank, kRingOverwrite, q}, q, seen);
    return false;
  }
  Mem::store_release(ring_credit_ptr(a.prev, ch), q);
  return true;
}

// One step of round `round`: consumes transfer q-1 (unless step 0) and produces transfer q.
template <class Mem, DType D>
ARB_HD bool ring_step(const RingArgs& a, const BlockCtx& c, std::size_t round, int step, std::uint32_t q,
                      OpBound& bound) {
  const int ch = c.block;
  const int world = a.g.world;
  bool ok = true;
  if (c.thread == 0) {
    if (a.test_skip_credit_wait == 0)
      ok = ring_wait<Mem>(ring_credit_ptr(a.own, ch), q - RingPolicy::kSlots, a, c, a.next_rank, kRingCreditWait,
                          bound);
    const std::uint32_t* in_flag = ring_flag_ptr(a.own, ch, ring_slot(q - 1u, RingPolicy::kSlots));
    if (ok && step > 0) ok = ring_wait<Mem>(in_flag, q - 1u, a, c, a.prev_rank, kRingDataWait, bound);
    if (ok && step > 0) ring_test_delay<Mem>(a, in_flag, q - 1u);
  }
  if (!Mem::block_all(ok)) return false;
  phase_mark<Mem>(a.phases, c, 1 + 2 * step);

  const RingStepKind kind = ring_step_kind(step, world);
  const Range seg = ring_segment(a.g, ch, round, ring_send_segment(a.pos, step, world));
  const Pack* src = ring_slot_ptr(a.own, a.g, ch, ring_slot(q - 1u, RingPolicy::kSlots));
  Pack* dst = ring_slot_ptr(a.next, a.g, ch, ring_slot(q, RingPolicy::kSlots));
  for (std::size_t i = static_cast<std::size_t>(c.thread); i < seg.size(); i += static_cast<std::size_t>(c.threads)) {
    const std::size_t k = seg.begin + i;
    Pack v;
    if (kind == RingStepKind::first) {
      v = load_pack<D>(a.in, k, a.n);
    } else if (kind == RingStepKind::forward) {
      v = ring_load_slot<Mem>(src + i);
    } else {
      PackAccumulator<D> acc;  // float(partial) + float(own), rounded once (ring_schedule.hpp)
      acc.add(ring_load_slot<Mem>(src + i), true);
      acc.add(load_pack<D>(a.in, k, a.n), false);
      v = acc.result();
    }
    if (kind == RingStepKind::final || kind == RingStepKind::forward) store_pack<D>(a.out, k, a.n, v);
    Mem::store_data(dst + i, v);
  }

  Mem::block_sync();
  if (c.thread == 0) {
    Mem::store_release(ring_flag_ptr(a.next, ch, ring_slot(q, RingPolicy::kSlots)), q);
    if (step > 0) ok = ring_release_slot<Mem>(a, c, q - 1u);
  }
  const bool all = Mem::block_all(ok);
  phase_mark<Mem>(a.phases, c, 2 + 2 * step);
  return all;
}

// After a round's last step: transfer q (the last final sum received) goes to own output.
template <class Mem, DType D>
ARB_HD bool ring_drain(const RingArgs& a, const BlockCtx& c, std::size_t round, std::uint32_t q, OpBound& bound) {
  const int ch = c.block;
  const int world = a.g.world;
  bool ok = true;
  if (c.thread == 0) {
    const std::uint32_t* in_flag = ring_flag_ptr(a.own, ch, ring_slot(q, RingPolicy::kSlots));
    ok = ring_wait<Mem>(in_flag, q, a, c, a.prev_rank, kRingDataWait, bound);
    if (ok) ring_test_delay<Mem>(a, in_flag, q);
  }
  if (!Mem::block_all(ok)) return false;
  phase_mark<Mem>(a.phases, c, 1 + 2 * ring_steps(world));
  const Range seg = ring_segment(a.g, ch, round, ring_recv_segment(a.pos, ring_steps(world) - 1, world));
  const Pack* src = ring_slot_ptr(a.own, a.g, ch, ring_slot(q, RingPolicy::kSlots));
  for (std::size_t i = static_cast<std::size_t>(c.thread); i < seg.size(); i += static_cast<std::size_t>(c.threads))
    store_pack<D>(a.out, seg.begin + i, a.n, ring_load_slot<Mem>(src + i));
  Mem::block_sync();
  if (c.thread == 0) ok = ring_release_slot<Mem>(a, c, q);
  const bool all = Mem::block_all(ok);
  phase_mark<Mem>(a.phases, c, 2 + 2 * ring_steps(world));
  return all;
}

// One op of channel c.block on rank a.rank. Returns false after a recorded error (timeout or
// overwrite); the counter still advances by the op's transfers so the next op's numbering stays
// in step with the peers' (the case has failed anyway).
template <class Mem, DType D>
ARB_HD bool ring_channel(const RingArgs& a, const BlockCtx& c) {
  const int ch = c.block;
  phase_mark<Mem>(a.phases, c, 0);
  if (a.g.world == 1) {  // nothing to exchange: the sum of one rank is its input
    const Range r = ring_channel_range(a.g, ch);
    for (std::size_t k = r.begin + static_cast<std::size_t>(c.thread); k < r.end; k += static_cast<std::size_t>(c.threads))
      store_pack<D>(a.out, k, a.n, load_pack<D>(a.in, k, a.n));
    phase_mark<Mem>(a.phases, c, ring_exit_mark(1));  // one rank: no steps, no drain
    return true;
  }
  const std::uint32_t base = Mem::counter_load(&a.state->seq[ch]);
  const std::size_t rounds = ring_rounds(a.g, ch);
  const int steps = ring_steps(a.g.world);
  std::uint32_t q = base;
  bool ok = true;
  OpBound bound{a.timeout_ns};  // one budget for all the op's transfers
  for (std::size_t r = 0; r < rounds && ok; ++r) {  // round-trips: per round
    for (int s = 0; s < steps && ok; ++s) ok = ring_step<Mem, D>(a, c, r, s, ++q, bound);  // round-trips: per step
    if (ok) ok = ring_drain<Mem, D>(a, c, r, q, bound);
  }
  Mem::block_sync();  // every thread read the counter above before thread 0 moves it on
  if (c.thread == 0 && !skip_counter_update<Mem>(a.rank, ch))
    Mem::counter_store(&a.state->seq[ch], base + static_cast<std::uint32_t>(ring_transfers(a.g, ch)));
  phase_mark<Mem>(a.phases, c, ring_exit_mark(a.g.world));
  return ok;
}

}  // namespace arbench::algo
