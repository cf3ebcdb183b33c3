// fused-oneshot protocol (kernel: kernels/fused/fused_oneshot.cu; twin: kernels/fused/fused_twins.cpp).
//
// Block b of rank r handles token rows R_b = split_range(tokens, B, b) (block per row: the
// norm needs the whole row's sum of squares in one block). Op epoch e, slot s = epoch_slot(e):
//   1. copy own x rows R_b into own staging[s] (row-padded packs)      (local writes)
//   2. barrier phase 0 with block b of every peer                      (barrier.hpp)
//   3. for each row in R_b: pull pack k of the row from ranks 0..N-1's staging[s], reduce in
//      rank order (s, rounded to D), then residual add + RMSNorm (rmsnorm.hpp) into own outputs
// Every rank computes every row from the same operands in the same order: outputs are bitwise
// identical on all ranks. No closing barrier: as oneshot-pull, op e+2 rewrites slot s only after
// op e+1's barrier, which every peer reaches after its op-e reads.
// Why: one flag round trip and one kernel for all three steps; each rank reads (N-1) x the
// message, so it wins while the message is small (decode), like oneshot-pull.
#pragma once

#include "arbench/algo/barrier.hpp"
#include "arbench/algo/fused/fused_layout.hpp"
#include "arbench/algo/partition.hpp"
#include "arbench/algo/reduce.hpp"

namespace arbench::algo {

// Step 3's source of s for row `row`: pack k of every rank's staging, reduced in rank order.
template <class Mem, DType D>
ARB_HD Pack pull_row_sum(const SymmArgs& s, int slot, std::size_t at) {
  Pack v[kLayoutMaxRanks] = {};
  ARB_UNROLL
  for (int p = 0; p < kLayoutMaxRanks; ++p)
    if (p < s.world) v[p] = Mem::load_peer(staging_ptr(s.scratch[p], slot, s.packs) + at);
  return reduce_packs<D>(v, s.world);
}

// Step 1 for rows [rows.begin, rows.end): own x into own staging.
template <class Mem, DType D>
ARB_HD void stage_rows(const SymmArgs& s, Pack* own, int hidden, Range rows, const BlockCtx& c) {
  const std::size_t rp = row_packs(hidden, D);
  for (std::size_t row = rows.begin; row < rows.end; ++row)
    for (std::size_t k = static_cast<std::size_t>(c.thread); k < rp; k += static_cast<std::size_t>(c.threads)) {
      const Pack x = load_row_pack<D>(s.in, hidden, row, k);  // value first, as `own[..] = ..` did: same PTX
      Mem::store_data(own + row * rp + k, x);
    }
}

// Phase marks (arbench/core/phases.hpp). Reduce and norm interleave row by row: `normed` is the
// end of both (the norm starts at `peers`).
inline constexpr PhaseMark kFusedOneshotMarks[] = {{"entry", PhaseBucket::entry}, {"staged", PhaseBucket::staging},
                                                   {"arrived", PhaseBucket::wait}, {"peers", PhaseBucket::wait},
                                                   {"normed", PhaseBucket::reduce}, {"exit", PhaseBucket::exit}};

template <class Mem, DType D>
ARB_HD bool fused_oneshot_block(const FusedArgs& a, const BlockCtx& c, float* lanes) {
  const SymmArgs& s = a.s;
  phase_mark<Mem>(s.phases, c, 0);
  const std::uint32_t e = begin_epoch<Mem>(s, c);
  OpBound bound{s.timeout_ns};
  const int slot = op_slot<Mem>(e);
  const std::size_t rp = row_packs(a.io.hidden, D);
  const Range rows = block_share<Mem>(Range{0, static_cast<std::size_t>(a.tokens)}, c);

  stage_rows<Mem, D>(s, staging_ptr(rank_scratch(s, s.rank), slot, s.packs), a.io.hidden, rows, c);
  const bool ok = block_barrier<Mem>(s, c, 0, e, bound, BarrierMarks{s.phases, 1});
  if (ok) {
    for (std::size_t row = rows.begin; row < rows.end; ++row)  // round-trips: per row
      add_norm_row<Mem, D>(a.io, row, c, lanes,
                           [&](std::size_t k) { return pull_row_sum<Mem, D>(s, slot, row * rp + k); });
    phase_mark<Mem>(s.phases, c, 4);
  }
  end_epoch<Mem>(s, c, e);
  phase_mark<Mem>(s.phases, c, 5);
  return ok;
}

}  // namespace arbench::algo
