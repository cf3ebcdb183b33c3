// Planted faults: the switches of the mutation score (tests/mutation/), which proves that the
// twin tests catch a broken protocol.
//
// A memory policy may name one fault as `static constexpr Fault kFault`. The production
// policies (DeviceMem, HostMem) name none, so planted<Mem>(f) is a constant `false` there and
// every hook below folds away: the kernels compile exactly as if the hooks were not there.
// Faults of a memory operation itself (a relaxed release, a torn LL line, a skipped
// __syncthreads) are written in the test's mutant policy; the ones a policy cannot express
// (which slot, which pack, which barrier of the norm) are the hooks here and in the protocol
// helpers that consult them: op_slot (epoch.hpp), block_share (partition.hpp), sum_lanes
// (rmsnorm.hpp), skip_counter_update below (barrier.hpp, ring.hpp), and the island protocols'
// cross_destinations (island/island_map.hpp) and cross_wait (island/island_sync.hpp), and the
// FP8 payload's fp8_quantize_block (fp8/fp8_payload.hpp).
#pragma once

#include "arbench/core/hd.hpp"

namespace arbench::algo {

enum class Fault : int {
  none = 0,
  store_relaxed,       // policy: store_release is a relaxed store
  load_relaxed,        // policy: load_acquire is a relaxed load
  block_sync_skipped,  // policy: block_sync does nothing (with more than one thread per block)
  block_all_own,       // policy: block_all syncs but returns only the caller's flag
  ll_torn,             // policy: an LL line is written as four 4-byte stores, flag words first
  epoch_stall,         // hook: one block of one rank does not record one op's epoch
  slot_early,          // hook: every op uses slot 0, so op e+1 reuses op e's slot one epoch early
  partition_edge,      // hook: every block but the last also takes its neighbour's first item
  norm_tree_unsynced,  // hook: the RMSNorm lane tree runs without its barrier between strides
  cross_wait_skipped,  // hook: the island protocols read the other islands' partials without waiting
  cross_dest_dropped,  // hook: a sender serves only the partner at its own position (equal islands assumed)
  fp8_scale_doubled,   // hook: an FP8 block travels with twice the scale it was quantized with
  fp8_scale_dropped,   // hook: an FP8 block travels without its scale (the receiver reads 1)
  fp8_amax_ignored,    // hook: FP8 quantization scales by the block's first element, not its amax
};

// The fault `Mem` plants (Fault::none for policies without kFault).
template <class Mem>
ARB_HD_CONSTEXPR Fault planted_fault() {
  if constexpr (requires { Mem::kFault; })
    return Mem::kFault;
  else
    return Fault::none;
}

template <class Mem>
ARB_HD_CONSTEXPR bool planted(Fault f) {
  return planted_fault<Mem>() == f;
}

// epoch_stall: true when this op of (rank, block) must leave its epoch (or ring transfer
// counter) where it was; the mutant policy decides which op (Mem::stall_counter).
template <class Mem>
ARB_HD bool skip_counter_update(int rank, int block) {
  if constexpr (planted<Mem>(Fault::epoch_stall))
    return Mem::stall_counter(rank, block);
  else
    return (void)rank, (void)block, false;
}

}  // namespace arbench::algo
