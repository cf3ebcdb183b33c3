// fused-twoshot protocol (kernel: kernels/fused/fused_twoshot.cu; twin: kernels/fused/fused_twins.cpp).
//
// Rank r owns token rows O_r = owned_range(tokens, N, r) (split_range: balanced, so with
// tokens < N some ranks own none, and tokens need not be a multiple of N); block b handles the
// sub-range O_p,b = owned_block_range(tokens, N, p, B, b) of every owner p. Op epoch e, slot s:
//   1. copy own x rows O_p,b, for every p, into own staging[s]          (what owners will read)
//   2. barrier phase 0 with block b of every peer
//   3. reduce-scatter + norm: for each row in O_r,b pull its packs from ranks 0..N-1's
//      staging[s], reduce in rank order, residual add + RMSNorm into own outputs, and mirror
//      r and y into own gather[s] (row-padded packs)
//   4. barrier phase 1 with block b of every peer
//   5. all-gather: for p != r, copy p's gather[s] rows O_p,b (r and y) into own outputs
// Outputs are bitwise identical on all ranks: each row is computed once, by its owner, and
// copied. Slot reuse: op e+2 writes staging[s] after op e+1's phase-0 barrier and gather[s]
// after op e+2's phase-0 barrier; every peer arrives there only after its op-e reads.
// Why: each rank pulls its 1/N of the rows from every peer and normalises only those (the norm
// work is split too), then pulls the others' r and y: 3(N-1)/N of the message per rank instead
// of (N-1) x it; it wins over fused-oneshot once that saving outweighs the second round trip.
#pragma once

#include "arbench/algo/fused/fused_oneshot.hpp"

namespace arbench::algo {

// Phase marks (arbench/core/phases.hpp): `normed` ends the owned rows' reduce + norm.
inline constexpr PhaseMark kFusedTwoshotMarks[] = {
    {"entry", PhaseBucket::entry},       {"staged", PhaseBucket::staging}, {"arrived", PhaseBucket::wait},
    {"peers", PhaseBucket::wait},        {"normed", PhaseBucket::reduce},  {"gather_arrived", PhaseBucket::wait},
    {"gather_peers", PhaseBucket::wait}, {"gathered", PhaseBucket::reduce}, {"exit", PhaseBucket::exit}};

template <class Mem, DType D>
ARB_HD bool fused_twoshot_block(const FusedArgs& a, const BlockCtx& c, float* lanes) {
  const SymmArgs& s = a.s;
  phase_mark<Mem>(s.phases, c, 0);
  const std::uint32_t e = begin_epoch<Mem>(s, c);
  OpBound bound{s.timeout_ns};
  const int slot = op_slot<Mem>(e);
  const int hidden = a.io.hidden;
  const std::size_t rp = row_packs(hidden, D);
  const std::size_t tokens = static_cast<std::size_t>(a.tokens);
  const std::size_t t0 = static_cast<std::size_t>(c.thread);
  const std::size_t nt = static_cast<std::size_t>(c.threads);
  void* own = rank_scratch(s, s.rank);

  for (int p = 0; p < s.world; ++p)
    stage_rows<Mem, D>(s, staging_ptr(own, slot, s.packs), hidden, block_share<Mem>(owned_range(tokens, s.world, p), c), c);
  bool ok = block_barrier<Mem>(s, c, 0, e, bound, BarrierMarks{s.phases, 1});
  if (ok) {
    NormIo io = a.io;
    io.mirror_r = gather_ptr(own, slot, 0, s.packs);
    io.mirror_y = gather_ptr(own, slot, 1, s.packs);
    const Range mine = block_share<Mem>(owned_range(tokens, s.world, s.rank), c);
    for (std::size_t row = mine.begin; row < mine.end; ++row)  // round-trips: per row
      add_norm_row<Mem, D>(io, row, c, lanes, [&](std::size_t k) { return pull_row_sum<Mem, D>(s, slot, row * rp + k); });
    ok = block_barrier<Mem>(s, c, 1, e, bound, BarrierMarks{s.phases, 4});
  }
  if (ok) {
    for (int p = 0; p < s.world; ++p) {  // round-trips: per peer (its rows)
      if (p == s.rank) continue;
      void* peer = rank_scratch(s, p);
      const Pack* r_src = gather_ptr(peer, slot, 0, s.packs);
      const Pack* y_src = gather_ptr(peer, slot, 1, s.packs);
      const Range rows = block_share<Mem>(owned_range(tokens, s.world, p), c);
      for (std::size_t row = rows.begin; row < rows.end; ++row)  // round-trips: per row
        for (std::size_t k = t0; k < rp; k += nt) {  // round-trips: per unit (pack k of a peer's row)
          // Both loads before either store: one wave (a store first would order the second load after it).
          const Pack r = Mem::load_peer(r_src + row * rp + k);
          const Pack y = Mem::load_peer(y_src + row * rp + k);
          store_row_pack<D>(a.io.residual_out, hidden, row, k, r);
          store_row_pack<D>(a.io.norm_out, hidden, row, k, y);
        }
    }
    phase_mark<Mem>(s.phases, c, 7);
  }
  end_epoch<Mem>(s, c, e);
  phase_mark<Mem>(s.phases, c, 8);
  return ok;
}

}  // namespace arbench::algo
