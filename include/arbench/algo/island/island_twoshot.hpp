// island-twoshot protocol (kernel: kernels/island/island_twoshot.cu; twin: kernels/island/island_twins.cpp).
//
// Ranks are cut into islands (island_map.hpp) of k_g ranks. Block b of every rank handles the
// packs P_b = block_share(packs); within P_b, the rank at position j of island g owns the shard
// S = split_within(P_b, k_g, j). Block b of rank r, op epoch e, slot s = op_slot(e):
//   1. copy own input packs P_b into own staging[s]                       (what island peers read)
//   2. island barrier phase 0 (island_sync.hpp): every island peer's staging[s] is readable
//   3. reduce-scatter in the island: for k in S read staging[s][k] of the island's ranks, reduce
//      in rank order (island g's partial, rounded to the dtype), store it into own staging[s][k]
//      (no island peer reads S), and into the mailbox [s][island g][k] of every rank of another
//      island whose shard holds k; then one release flag per such rank: the 1/k crossing, one
//      partner per rank when islands are equal (rank j of A <-> rank j of B), a few when not
//   4. wait for the flag of every rank of another island whose shard meets S (acquire)
//   5. for k in S: the islands' partials in island order (own from staging, the others from own
//      mailbox), rounded once: into own staging[s][k] and own output
//   6. island barrier phase 1
//   7. all-gather in the island: for every island peer p, its shard of P_b from p's staging[s]
// Outputs are bitwise identical on all ranks: each pack is summed once, by its owner in every
// island, from the same partials in the same order, and copied within the island.
// Slot reuse: staging[s] is rewritten at op e+2 after op e+1's phase-0 barrier, which every
// island peer reaches after its op-e reads. A sender writes our mailbox slot s at op e+2 after
// its op e+1 step 4, which waited for a rank of our island past op e+1's phase-0 barrier, which
// we reach after our op-e reads. Cross flags carry epochs (epoch_reached), single writer each.
// In place: step 1 reads all input block b needs before any output write of block b.
// Why: each rank moves (k-1)/k of the message within its island twice and 1/k of it across,
// so the cross-island link carries the message once per direction instead of k times (island-
// oneshot) or k_A * k_B / N times (twoshot); the price is two more intra-island round trips.
#pragma once

#include "arbench/algo/island/island_sync.hpp"
#include "arbench/algo/partition.hpp"
#include "arbench/algo/reduce.hpp"

namespace arbench::algo {

inline constexpr PhaseMark kIslandTwoshotMarks[] = {
    {"entry", PhaseBucket::entry},         {"staged", PhaseBucket::staging},      {"arrived", PhaseBucket::wait},
    {"peers", PhaseBucket::wait},          {"crossed", PhaseBucket::reduce},      {"cross_peers", PhaseBucket::wait},
    {"summed", PhaseBucket::reduce},       {"gather_arrived", PhaseBucket::wait}, {"gather_peers", PhaseBucket::wait},
    {"gathered", PhaseBucket::reduce},     {"exit", PhaseBucket::exit}};

// The shard of P_b that `rank` owns in its island.
ARB_HD Range island_shard(Range block, const IslandMap& m, int rank) {
  return split_within(block, island_size(m, island_of(m, rank)), island_index(m, rank));
}

ARB_HD bool ranges_meet(Range a, Range b) { return a.begin < b.end && b.begin < a.end && !a.empty() && !b.empty(); }

// Step 4: the flags of the ranks of other islands whose shard meets `mine`. With the
// cross_wait_skipped fault of the mutation score the data is read without waiting.
template <class Mem>
ARB_HD bool wait_cross_flags(const IslandArgs& a, const BlockCtx& c, Range block, Range mine, std::uint32_t e,
                             OpBound& bound) {
  if constexpr (planted<Mem>(Fault::cross_wait_skipped)) return true;
  void* mailbox = pick_ptr(a.mailbox, a.rank);
  const unsigned island = island_members(a.map, island_of(a.map, a.rank));
  bool ok = true;
  for (int s = c.thread; s < a.world; s += c.threads) {  // round-trips: once (a rank per thread)
    if (((island >> s) & 1u) != 0u || !ok || !ranges_meet(mine, island_shard(block, a.map, s))) continue;
    const WaitSite site{a.rank, c.block, s, WaitKind::cross_flag, 0};
    ok = wait_flag<Mem>(cross_flag(mailbox, c.block, s), e, bound, &a.state->error, site);
  }
  return ok;
}

// Steps 2-6 on the packs `block` (P_b), once own staging[s] holds this rank's input for all of
// P_b (step 1; the caller stages it, then calls this). `summed(k, sum)` is called for each pack
// k of the own shard with its sum (already in own staging[s][k]). Afterwards every island peer's
// staging[s] holds the sums of its shard (step 7 reads them). False when a wait expired.
template <class Mem, DType D, class Summed>
ARB_HD bool island_twoshot_steps(const IslandArgs& a, const BlockCtx& c, std::uint32_t e, int slot, Range block,
                                 OpBound& bound, Summed&& summed) {
  const Range mine = island_shard(block, a.map, a.rank);
  const std::size_t t0 = static_cast<std::size_t>(c.thread);
  const std::size_t nt = static_cast<std::size_t>(c.threads);
  const int g = island_of(a.map, a.rank);
  const unsigned island = island_members(a.map, g);
  Pack* stage = staging_ptr(pick_ptr(a.scratch, a.rank), slot, a.packs);
  void* mailbox = pick_ptr(a.mailbox, a.rank);

  bool ok = island_barrier<Mem>(a, c, 0, e, bound, BarrierMarks{a.phases, 1});
  if (ok) {
    for (std::size_t k = mine.begin + t0; k < mine.end; k += nt) {  // round-trips: per unit
      // Every island rank's pack loaded before the first is added: one wave, not one per rank.
      Pack v[kLayoutMaxRanks] = {};
      ARB_UNROLL
      for (int p = 0; p < kLayoutMaxRanks; ++p)
        if (((island >> p) & 1u) != 0u) v[p] = Mem::load_peer(staging_ptr(a.scratch[p], slot, a.packs) + k);
      PackAccumulator<D> acc{};
      bool first = true;
      ARB_UNROLL
      for (int p = 0; p < kLayoutMaxRanks; ++p) {
        if (((island >> p) & 1u) == 0u) continue;
        acc.add(v[p], first);
        first = false;
      }
      Mem::store_data(stage + k, acc.result());
    }
    // The crossing: each destination's part of S, read back by the thread that wrote it.
    ARB_UNROLL
    for (int d = 0; d < kLayoutMaxRanks; ++d) {
      if (d >= a.world || ((island >> d) & 1u) != 0u || !cross_dest_kept<Mem>(a.map, a.rank, d)) continue;
      const Range theirs = island_shard(block, a.map, d);
      Pack* dst = cross_data(a.mailbox[d], slot, g, a.map.islands, a.packs);
      for (std::size_t k = mine.begin + t0; k < mine.end; k += nt)
        if (k >= theirs.begin && k < theirs.end) Mem::store_data(dst + k, Mem::load_data(stage + k));
    }
    Mem::block_sync();  // every thread's partials are in place before one thread releases them
    for (int d = c.thread; d < a.world; d += c.threads)
      if (((island >> d) & 1u) == 0u && ranges_meet(mine, island_shard(block, a.map, d)) &&
          cross_dest_kept<Mem>(a.map, a.rank, d))
        Mem::store_release(cross_flag(pick_ptr(a.mailbox, d), c.block, a.rank), e);
    phase_mark<Mem>(a.phases, c, 4);
    ok = Mem::block_all(wait_cross_flags<Mem>(a, c, block, mine, e, bound));
    if (ok) phase_mark<Mem>(a.phases, c, 5);
  }
  if (ok) {
    for (std::size_t k = mine.begin + t0; k < mine.end; k += nt) {  // round-trips: per unit
      // Every island's partial loaded before the first is added: one wave, not one per island.
      Pack part[kMaxIslands] = {};
      ARB_UNROLL
      for (int h = 0; h < kMaxIslands; ++h)
        if (h < a.map.islands)
          part[h] = h == g ? Mem::load_data(stage + k)
                           : Mem::load_peer(cross_data(mailbox, slot, h, a.map.islands, a.packs) + k);
      PackAccumulator<D> acc{};
      ARB_UNROLL
      for (int h = 0; h < kMaxIslands; ++h)
        if (h < a.map.islands) acc.add(part[h], h == 0);
      const Pack sum = acc.result();
      Mem::store_data(stage + k, sum);
      summed(k, sum);
    }
    ok = island_barrier<Mem>(a, c, 1, e, bound, BarrierMarks{a.phases, 6});
  }
  return ok;
}

// Step 7 on the packs `block`: every island peer p's shard of them (its island sums) from p's
// staging[slot], each pack handed to `gathered(k, pack)`.
template <class Mem, class Gathered>
ARB_HD void gather_island_shards(const IslandArgs& a, const BlockCtx& c, int slot, Range block, Gathered&& gathered) {
  const std::size_t t0 = static_cast<std::size_t>(c.thread);
  const std::size_t nt = static_cast<std::size_t>(c.threads);
  const unsigned island = island_members(a.map, island_of(a.map, a.rank));
  ARB_UNROLL
  for (int p = 0; p < kLayoutMaxRanks; ++p) {
    if (p == a.rank || ((island >> p) & 1u) == 0u) continue;
    const Range theirs = island_shard(block, a.map, p);
    const Pack* src = staging_ptr(a.scratch[p], slot, a.packs);
    for (std::size_t k = theirs.begin + t0; k < theirs.end; k += nt)  // round-trips: per unit
      gathered(k, Mem::load_peer(src + k));
  }
}

template <class Mem, DType D>
ARB_HD bool island_twoshot_block(const IslandArgs& a, const BlockCtx& c) {
  phase_mark<Mem>(a.phases, c, 0);
  const std::uint32_t e = begin_epoch<Mem>(a, c);
  OpBound bound{a.timeout_ns};
  const int slot = op_slot<Mem>(e);
  const Range block = block_share<Mem>(Range{0, a.packs}, c);
  const std::size_t t0 = static_cast<std::size_t>(c.thread);
  const std::size_t nt = static_cast<std::size_t>(c.threads);
  Pack* stage = staging_ptr(pick_ptr(a.scratch, a.rank), slot, a.packs);

  for (std::size_t k = block.begin + t0; k < block.end; k += nt) Mem::store_data(stage + k, load_pack<D>(a.in, k, a.n));
  const auto to_out = [&](std::size_t k, const Pack& sum) { store_pack<D>(a.out, k, a.n, sum); };
  const bool ok = island_twoshot_steps<Mem, D>(a, c, e, slot, block, bound, to_out);
  if (ok) {
    gather_island_shards<Mem>(a, c, slot, block, to_out);
    phase_mark<Mem>(a.phases, c, 9);
  }
  end_epoch<Mem>(a, c, e);
  phase_mark<Mem>(a.phases, c, 10);
  return ok;
}

}  // namespace arbench::algo
