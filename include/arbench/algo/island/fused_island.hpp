// fused-island-oneshot and fused-island-twoshot protocols (kernels: kernels/island/fused_island.cu,
// fused_island_twoshot.cu; twin: kernels/island/island_twins.cpp): island-oneshot
// (island_oneshot.hpp) or island-twoshot (island_twoshot.hpp) + residual add + RMSNorm
// (rmsnorm.hpp) in one kernel.
//
// fused-island-oneshot:
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
#include "arbench/algo/island/island_twoshot.hpp"
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
  const std::uint32_t e = begin_epoch<Mem>(s, c);
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
  for (std::size_t row = rows.begin; row < rows.end && ok; ++row)  // round-trips: per row
    for (std::size_t k = t0; k < rp && ok; k += nt) {  // round-trips: per unit
      const std::size_t at = row * rp + k;
      ok = wait_island<Mem>(s, c, slot, e, at, bound);
      if (!ok) break;
      if (first) phase_mark<Mem>(s.phases, c, 2);
      first = false;
      push_across<Mem>(s, dests, g, slot, e, at, island_partial<Mem, D>(s, slot, at, load_row_pack<D>(s.in, hidden, row, k)));
    }
  if (ok && first) phase_mark<Mem>(s.phases, c, 2);
  if (ok) phase_mark<Mem>(s.phases, c, 3);

  for (std::size_t row = rows.begin; row < rows.end && ok; ++row)  // round-trips: per row
    for (std::size_t k = t0; k < rp && ok; k += nt)  // round-trips: per unit
      ok = wait_across<Mem>(s, c, slot, e, row * rp + k, bound);
  ok = Mem::block_all(ok);
  if (ok) {
    phase_mark<Mem>(s.phases, c, 4);
    // s into residual_out first, by the thread that adds the residual to it (add_norm_row hands
    // thread t the same packs): the sums and the norm in two short passes rather than one long
    // one, which keeps the kernel within its registers.
    for (std::size_t row = rows.begin; row < rows.end; ++row)  // round-trips: per row
      for (std::size_t k = t0; k < rp; k += nt) {  // round-trips: per unit
        const std::size_t at = row * rp + k;
        const Pack part = island_partial<Mem, D>(s, slot, at, load_row_pack<D>(s.in, hidden, row, k));
        store_row_pack<D>(a.io.residual_out, hidden, row, k, sum_islands<Mem, D>(s, slot, at, part));
      }
    for (std::size_t row = rows.begin; row < rows.end; ++row)  // round-trips: per row
      add_norm_row<Mem, D>(a.io, row, c, lanes,
                           [&](std::size_t k) { return load_row_pack<D>(a.io.residual_out, hidden, row, k); });
    phase_mark<Mem>(s.phases, c, 5);
  }
  end_epoch<Mem>(s, c, e);
  phase_mark<Mem>(s.phases, c, 6);
  return ok;
}

// fused-island-twoshot: block b handles token rows R_b = block_share(tokens), that is the packs
// P_b = [first row * row_packs, end row * row_packs) of the row-padded message; on them:
//   1. own x rows R_b into own staging[s] (row-padded packs)
//   2-6. island-twoshot's steps on P_b (island_twoshot_steps): reduce-scatter in the island, the
//      1/k shards across, the islands' sums of the own shard into own staging[s]
//   7. copy the island peers' shards of P_b (their sums) into own staging[s] (every peer is past
//      its reads of them: the phase-1 barrier), block_sync, then for each row add_norm_row with
//      s from own staging[s]
// Every rank normalises every row of its blocks from the same sums: outputs bitwise identical.
// Slot reuse as island-twoshot; the copies of step 7 land outside the own shard, which peers
// read only before the phase-1 barrier (reduce-scatter) or never (their own shards).
inline constexpr PhaseMark kFusedIslandTwoshotMarks[] = {
    {"entry", PhaseBucket::entry},         {"staged", PhaseBucket::staging},      {"arrived", PhaseBucket::wait},
    {"peers", PhaseBucket::wait},          {"crossed", PhaseBucket::reduce},      {"cross_peers", PhaseBucket::wait},
    {"summed", PhaseBucket::reduce},       {"gather_arrived", PhaseBucket::wait}, {"gather_peers", PhaseBucket::wait},
    {"normed", PhaseBucket::reduce},       {"exit", PhaseBucket::exit}};

template <class Mem, DType D>
ARB_HD bool fused_island_twoshot_block(const FusedIslandArgs& a, const BlockCtx& c, float* lanes) {
  const IslandArgs& s = a.s;
  phase_mark<Mem>(s.phases, c, 0);
  const std::uint32_t e = begin_epoch<Mem>(s, c);
  OpBound bound{s.timeout_ns};
  const int slot = op_slot<Mem>(e);
  const int hidden = a.io.hidden;
  const std::size_t rp = row_packs(hidden, D);
  const Range rows = block_share<Mem>(Range{0, static_cast<std::size_t>(a.tokens)}, c);
  const Range block{rows.begin * rp, rows.end * rp};
  const std::size_t t0 = static_cast<std::size_t>(c.thread);
  const std::size_t nt = static_cast<std::size_t>(c.threads);
  Pack* stage = staging_ptr(pick_ptr(s.scratch, s.rank), slot, s.packs);

  for (std::size_t row = rows.begin; row < rows.end; ++row)
    for (std::size_t k = t0; k < rp; k += nt) Mem::store_data(stage + row * rp + k, load_row_pack<D>(s.in, hidden, row, k));
  const bool ok = island_twoshot_steps<Mem, D>(s, c, e, slot, block, bound, [](std::size_t, const Pack&) {});
  if (ok) {
    gather_island_shards<Mem>(s, c, slot, block, [&](std::size_t k, const Pack& sum) { Mem::store_data(stage + k, sum); });
    Mem::block_sync();  // the norm's threads read packs other threads copied
    for (std::size_t row = rows.begin; row < rows.end; ++row)  // round-trips: per row
      add_norm_row<Mem, D>(a.io, row, c, lanes, [&](std::size_t k) { return Mem::load_data(stage + row * rp + k); });
    phase_mark<Mem>(s.phases, c, 9);
  }
  end_epoch<Mem>(s, c, e);
  phase_mark<Mem>(s.phases, c, 10);
  return ok;
}

}  // namespace arbench::algo
