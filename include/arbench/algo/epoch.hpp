// Epochs: the monotonic 32-bit op counter every symmetric-memory protocol stamps its flags with.
//
// Purpose: a flag written at op `e` must never be mistaken for one written at another op, also
// after 2^32 ops (the counter wraps) and across CUDA-graph replays (the counter lives in device
// or twin memory, never in a kernel argument).
// Rules (docs/variants.md, "Correctness rules the kernels follow"):
//   - Each rank keeps one counter per block: "the last epoch this block completed". An op reads
//     it, runs epoch e = next_epoch(last) and stores e back at its end. Blocks are independent
//     (no grid-wide sync), so per-block counters need no cross-block coordination.
//   - Barrier-style flags are compared with epoch_reached(): a peer may already be one op ahead.
//   - In-band (LL) flags are compared for equality: a slot holds epoch e, e-2 (its previous use,
//     see epoch_slot) or its initial fill, never anything newer than e.
//   - Flag memory starts at flag_fill(start) = start - 1, "just before" the first epoch. With the
//     production start (kEpochStart = 1) that is 0, so zero-filled allocations need no fill.
#pragma once

#include <cstdint>

#include "arbench/algo/faults.hpp"
#include "arbench/algo/mem_policy.hpp"
#include "arbench/core/hd.hpp"

namespace arbench::algo {

// The epoch of the first op. Tests start near the wrap-around instead.
inline constexpr std::uint32_t kEpochStart = 1;

// Scratch regions double-buffered by epoch: op e uses slot epoch_slot(e).
inline constexpr int kEpochSlots = 2;

ARB_HD_CONSTEXPR std::uint32_t next_epoch(std::uint32_t last) { return last + 1u; }  // wraps mod 2^32

// Wrap-safe "seen is e or later": true while seen is within 2^31 ahead of want.
ARB_HD_CONSTEXPR bool epoch_reached(std::uint32_t seen, std::uint32_t want) {
  return static_cast<std::int32_t>(seen - want) >= 0;
}

// Double-buffered scratch: op e may overwrite what op e-2 wrote, never what op e-1 wrote, because
// a rank starts op e+1 only after every peer has finished reading its op-e data (each protocol
// documents the step that guarantees it).
ARB_HD_CONSTEXPR int epoch_slot(std::uint32_t epoch) { return static_cast<int>(epoch & 1u); }

// The staging slot op `epoch` uses: epoch_slot(epoch). (The slot_early fault of the mutation
// score single-buffers it, so op e+1 overwrites what peers may still read of op e.)
template <class Mem>
ARB_HD_CONSTEXPR int op_slot(std::uint32_t epoch) {
  return planted<Mem>(Fault::slot_early) ? 0 : epoch_slot(epoch);
}

// Initial value of every flag and of every per-block counter ("last completed epoch").
ARB_HD_CONSTEXPR std::uint32_t flag_fill(std::uint32_t start) { return start - 1u; }

// Reads this block's epoch counter and returns the epoch of the op about to run. `a` is any
// protocol's arguments (SymmArgs, IslandArgs): its rank and its RankState (`state->epoch`). The
// counter goes through Mem::counter_load/counter_store (mem_policy.hpp), so the model checker
// sees it (tests/model/).
template <class Mem, class Args>
ARB_HD std::uint32_t begin_epoch(const Args& a, const BlockCtx& c) {
  return next_epoch(Mem::counter_load(&a.state->epoch[c.block]));
}

// Records that this block completed `epoch` (also after a timeout: the case has failed anyway,
// and the next op must not reuse the epoch). The block_sync keeps thread 0's store after every
// thread's read in begin_epoch().
template <class Mem, class Args>
ARB_HD void end_epoch(const Args& a, const BlockCtx& c, std::uint32_t epoch) {
  Mem::block_sync();
  if (c.thread == 0 && !skip_counter_update<Mem>(a.rank, c.block)) Mem::counter_store(&a.state->epoch[c.block], epoch);
}

}  // namespace arbench::algo
