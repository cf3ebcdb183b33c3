// twoshot protocol (kernel: kernels/symm/twoshot.cu; twin: kernels/symm/symm_twins.cpp).
//
// Rank r owns O_r = owned_range(packs, N, r); block b handles the sub-range O_r,b of every owned
// range (owned_block_range). Block b of rank r, op epoch e, slot s = epoch_slot(e):
//   1. copy own input packs of O_p,b for every p into own staging[s]   (what peers will read)
//   2. barrier phase 0 with block b of every peer
//   3. reduce-scatter: for k in O_r,b read staging[s][k] of ranks 0..N-1, reduce in rank order,
//      store the sum into own staging[s][k] (nobody else reads our O_r in step 3) and own output
//   4. barrier phase 1 with block b of every peer
//   5. all-gather: for p != r, for k in O_p,b copy p's staging[s][k] (its sums) to own output
// No closing barrier: as in oneshot-pull, op e+2 rewrites slot s only after op e+1's phase-0
// barrier, which every peer reaches after its op-e reads. In-place is safe: step 1 reads all the
// input block b will ever need before any output write of block b.
// Why twoshot: each rank moves 2(N-1)/N of the message instead of (N-1) of it, so it wins once
// bandwidth matters; the price is a second flag round trip.
#pragma once

#include "arbench/algo/barrier.hpp"
#include "arbench/algo/partition.hpp"
#include "arbench/algo/reduce.hpp"
#include "arbench/algo/symm/payload.hpp"

namespace arbench::algo {

// Phase marks (arbench/core/phases.hpp), in the order a block reaches them.
inline constexpr PhaseMark kTwoshotMarks[] = {
    {"entry", PhaseBucket::entry},       {"staged", PhaseBucket::staging}, {"arrived", PhaseBucket::wait},
    {"peers", PhaseBucket::wait},        {"scattered", PhaseBucket::reduce}, {"gather_arrived", PhaseBucket::wait},
    {"gather_peers", PhaseBucket::wait}, {"gathered", PhaseBucket::reduce},  {"exit", PhaseBucket::exit}};

// Payload: what an item of staging holds (symm/payload.hpp); the exact one by default,
// twoshot-fp8's (fp8/fp8_payload.hpp) otherwise. The synchronisation does not depend on it.
template <class Mem, DType D, class Payload = PackPayload<D>>
ARB_HD bool twoshot_block(const SymmArgs& a, const BlockCtx& c) {
  phase_mark<Mem>(a.phases, c, 0);
  const std::uint32_t e = begin_epoch<Mem>(a, c);
  OpBound bound{a.timeout_ns};
  const int slot = op_slot<Mem>(e);
  const std::size_t t0 = static_cast<std::size_t>(c.thread);
  const std::size_t nt = static_cast<std::size_t>(c.threads);
  Pack* own = staging_ptr(rank_scratch(a, a.rank), slot, a.packs);
  const std::size_t items = Payload::items(a);

  for (int p = 0; p < a.world; ++p) {
    const Range r = block_share<Mem>(owned_range(items, a.world, p), c);
    for (std::size_t k = r.begin + t0; k < r.end; k += nt) Payload::template stage<Mem>(a, own, k);
  }

  bool ok = block_barrier<Mem>(a, c, 0, e, bound, BarrierMarks{a.phases, 1});
  if (ok) {
    const Range r = block_share<Mem>(owned_range(items, a.world, a.rank), c);
    for (std::size_t k = r.begin + t0; k < r.end; k += nt)  // round-trips: per unit
      Payload::template reduce_own<Mem>(a, slot, own, k);
    // The scatter's end is the second barrier's first mark (after its block_sync).
    ok = block_barrier<Mem>(a, c, 1, e, bound, BarrierMarks{a.phases, 4});
  }
  if (ok) {
    for (int p = 0; p < a.world; ++p) {  // round-trips: per peer (its shard)
      if (p == a.rank) continue;
      const Pack* src = staging_ptr(rank_scratch(a, p), slot, a.packs);
      const Range r = block_share<Mem>(owned_range(items, a.world, p), c);
      for (std::size_t k = r.begin + t0; k < r.end; k += nt)  // round-trips: per unit
        Payload::template gather<Mem>(a, src, k);
    }
    phase_mark<Mem>(a.phases, c, 7);
  }
  end_epoch<Mem>(a, c, e);
  phase_mark<Mem>(a.phases, c, 8);
  return ok;
}

}  // namespace arbench::algo
