// fused-island-oneshot protocol (kernel: kernels/island/fused_island.cu; twin: kernels/island/island_twins.cpp):
// island-oneshot (island_oneshot.hpp) + residual add + RMSNorm (rmsnorm.hpp) in one kernel.
//
// Block b of rank r handles token rows R_b = block_share(tokens) (block per row: the norm needs
// the row's whole sum of squares in one block); pack k of row t is LL index t * row_packs + k
// (rows padded to whole packs). Op epoch e, slot s = op_slot(e), every thread striding over the
// packs of each row:
//   1. own x pack as LL lines into every island peer's scratch           (island-oneshot step 1)
//   2. wait for the island peers' lines, island partial, across to the cross destinations (step 2)
//   3. wait for every other island's partial of every pack of R_b in own mailbox; then
//      block_all: a block whose wait expired stops before writing anything
//   4. for each pack of R_b: s = the islands' partials in island order, rounded once (read from
//      the LL lines, all valid now), into own residual_out; then for each row add_norm_row
//      (residual add + RMSNorm) with s read back by the thread that wrote it
// Outputs are bitwise identical on all ranks (each row from the same partials in the same order).
// s differs from fused-oneshot's rank-order sum only in rounding (each island's partial is
// rounded to the dtype once): exact on the oracle's integers, within the family's ULP bound.
// Slot reuse and in-place safety as island-oneshot (the family has no in-place form).
// Why: decode shapes (a few rows) are where islands matter; one kernel, no barrier.
#pragma once

#include "arbench/algo/fused/fused_layout.hpp"
#include "arbench/algo/island/island_oneshot.hpp"
#include "arbench/algo/rmsnorm.hpp"

namespace arbench::algo {

// s: the island part (s.in = own x, s.packs = tokens * row_packs, s.n = tokens * hidden, s.out
// unused); io: own residual/weight/outputs.
struct FusedIslandArgs {
  IslandArgs s;
  NormIo io;
  int tokens = 0;
};

inline constexpr PhaseMark kFusedIslandMarks[] = {
    {"entry", PhaseBucket::entry}, {"pushed", PhaseBucket::staging}, {"island", PhaseBucket::wait},
    {"crossed", PhaseBucket::reduce}, {"peers", PhaseBucket::wait}, {"normed", PhaseBucket::reduce},
    {"exit", PhaseBucket::exit}};

template <class Mem, DType D>
ARB_HD bool fused_island_block(const FusedIslandArgs& a, const BlockCtx& c, float* lanes) {
  const IslandArgs& s = a.s;
  phase_mark<Mem>(s.phases, c, 0);
  const std::uint32_t e = island_begin_epoch<Mem>(s, c);
  const int slot = op_slot<Mem>(e);
  const int hidden = a.io.hidden;
  const std::size_t rp = row_packs(hidden, D);
  const Range rows = block_share<Mem>(Range{0, static_cast<std::size_t>(a.tokens)}, c);
  const std::size_t t0 = static_cast<std::size_t>(c.thread);
  const std::size_t nt = static_cast<std::size_t>(c.threads);
  const int g = island_of(s.map, s.rank);
  const unsigned dests = cross_destinations<Mem>(s.map, s.rank);

  for (std::size_t row = rows.begin; row < rows.end; ++row)
    for (std::size_t k = t0; k < rp; k += nt)
      push_to_island<Mem>(s, island_peers(s.map, s.rank), slot, e, row * rp + k, load_row_pack<D>(s.in, hidden, row, k));
  phase_mark<Mem>(s.phases, c, 1);

  OpBound bound{s.timeout_ns};
  bool ok = true, first = true;
  for (std::size_t row = rows.begin; row < rows.end && ok; ++row)
    for (std::size_t k = t0; k < rp && ok; k += nt) {
      const std::size_t at = row * rp + k;
      ok = wait_island<Mem>(s, c, slot, e, at, bound);
      if (!ok) break;
      if (first) phase_mark<Mem>(s.phases, c, 2);
      first = false;
      push_across<Mem>(s, dests, g, slot, e, at, island_partial<Mem, D>(s, slot, at, load_row_pack<D>(s.in, hidden, row, k)));
    }
  if (ok && first) phase_mark<Mem>(s.phases, c, 2);
  if (ok) phase_mark<Mem>(s.phases, c, 3);

  for (std::size_t row = rows.begin; row < rows.end && ok; ++row)
    for (std::size_t k = t0; k < rp && ok; k += nt) ok = wait_across<Mem>(s, c, slot, e, row * rp + k, bound);
  ok = Mem::block_all(ok);
  if (ok) {
    phase_mark<Mem>(s.phases, c, 4);
    // s into residual_out first, by the thread that adds the residual to it (add_norm_row hands
    // thread t the same packs): the sums and the norm in two short passes rather than one long
    // one, which keeps the kernel within its registers.
    for (std::size_t row = rows.begin; row < rows.end; ++row)
      for (std::size_t k = t0; k < rp; k += nt) {
        const std::size_t at = row * rp + k;
        const Pack part = island_partial<Mem, D>(s, slot, at, load_row_pack<D>(s.in, hidden, row, k));
        store_row_pack<D>(a.io.residual_out, hidden, row, k, sum_islands<Mem, D>(s, slot, at, part));
      }
    for (std::size_t row = rows.begin; row < rows.end; ++row)
      add_norm_row<Mem, D>(a.io, row, c, lanes,
                           [&](std::size_t k) { return load_row_pack<D>(a.io.residual_out, hidden, row, k); });
    phase_mark<Mem>(s.phases, c, 5);
  }
  island_end_epoch<Mem>(s, c, e);
  phase_mark<Mem>(s.phases, c, 6);
  return ok;
}

}  // namespace arbench::algo
