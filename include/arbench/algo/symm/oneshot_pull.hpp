// oneshot-pull protocol (kernel: kernels/symm/oneshot_pull.cu; twin: kernels/symm/symm_twins.cpp).
//
// Block b of rank r, op epoch e, slot s = epoch_slot(e), packs P_b = block_range(packs, B, b):
//   1. copy own input packs P_b into own staging[s]          (local writes)
//   2. barrier phase 0 with block b of every peer            (staging[s] P_b is now readable)
//   3. for k in P_b: read staging[s][k] of ranks 0..N-1 over the fabric (pull), reduce in rank
//      order, store to own output
// No closing barrier: staging is double-buffered by epoch, and op e+2 (the next writer of slot
// s) starts only after op e+1's barrier, which every peer reaches after finishing its op-e reads.
// Why pull: one flag round trip, then only reads; good when reads from N-1 peers are served in
// parallel. Reads over PCIe are non-posted (request + completion), so it is latency-bound.
#pragma once

#include "arbench/algo/barrier.hpp"
#include "arbench/algo/partition.hpp"
#include "arbench/algo/reduce.hpp"
#include "arbench/algo/symm/payload.hpp"

namespace arbench::algo {

// Phase marks (arbench/core/phases.hpp), in the order a block reaches them.
inline constexpr PhaseMark kOneshotPullMarks[] = {{"entry", PhaseBucket::entry},  {"staged", PhaseBucket::staging},
                                                  {"arrived", PhaseBucket::wait},  {"peers", PhaseBucket::wait},
                                                  {"reduced", PhaseBucket::reduce}, {"exit", PhaseBucket::exit}};

// Payload: what an item of staging holds (symm/payload.hpp); the exact one by default,
// oneshot-fp8's (fp8/fp8_payload.hpp) otherwise. The synchronisation does not depend on it.
template <class Mem, DType D, class Payload = PackPayload<D>>
ARB_HD bool oneshot_pull_block(const SymmArgs& a, const BlockCtx& c) {
  phase_mark<Mem>(a.phases, c, 0);
  const std::uint32_t e = begin_epoch<Mem>(a, c);
  OpBound bound{a.timeout_ns};
  const int slot = op_slot<Mem>(e);
  const Range mine = block_share<Mem>(Range{0, Payload::items(a)}, c);
  const std::size_t t0 = static_cast<std::size_t>(c.thread);
  const std::size_t nt = static_cast<std::size_t>(c.threads);

  Pack* own = staging_ptr(rank_scratch(a, a.rank), slot, a.packs);
  for (std::size_t k = mine.begin + t0; k < mine.end; k += nt) Payload::template stage<Mem>(a, own, k);

  const bool ok = block_barrier<Mem>(a, c, 0, e, bound, BarrierMarks{a.phases, 1});
  if (ok) {
    for (std::size_t k = mine.begin + t0; k < mine.end; k += nt)  // round-trips: per unit
      Payload::template reduce<Mem>(a, slot, k);
    phase_mark<Mem>(a.phases, c, 4);
  }
  end_epoch<Mem>(a, c, e);
  phase_mark<Mem>(a.phases, c, 5);
  return ok;
}

}  // namespace arbench::algo
