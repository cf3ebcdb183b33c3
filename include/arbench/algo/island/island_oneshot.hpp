// island-oneshot protocol (kernel: kernels/island/island_oneshot.cu; twin: kernels/island/island_twins.cpp).
//
// Ranks are cut into islands (island_map.hpp). Block b of rank r (island g), op epoch e, slot
// s = op_slot(e), packs P_b = block_share(packs), thread-strided; no barrier anywhere:
//   1. for k in P_b: encode own input pack k as two LL lines stamped e and store them into
//      every island peer's island scratch [s][from r]                       (local P2P writes)
//   2. for k in P_b: poll own scratch until every island peer's lines of pack k carry e; reduce
//      the island in rank order (own pack from the input): island g's partial, rounded to the
//      dtype (what travels); store it as LL lines into the mailbox [s][island g] of every rank
//      cross_destinations names (one per other island when islands are equal)  (the crossing)
//   3. for k in P_b: poll own mailbox until every other island's partial of pack k carries e;
//      re-read the island peers' lines (valid since step 2) for the own partial; sum the
//      islands' partials in island order 0..m-1, rounded once; store to own output
// Waits keep only which sources are there; the data is read once all are (a line keeps its data
// and epoch until its slot's next use), which keeps the kernel within its registers.
// Every rank of island g computes g's partial from the same operands in the same order, so all
// ranks add bitwise identical partials in the same order: outputs are identical everywhere.
// The crossing moves the whole partial: one step fewer than moving 1/k of it (island-twoshot),
// at the price of k times the bytes on the cross-island link (docs/variants.md says when which wins).
// Slot reuse: island peer p writes scratch slot s again at op e+2 only after finishing op e+1,
// which needed our op-e+1 lines, pushed after our op e ended. A sender writes our mailbox slot
// s at op e+2 after its op e+1, which needed our island's op-e+1 partial from some rank of our
// island, which needed our op-e+1 lines, pushed after our op e ended. Block b waits only for
// block b of its peers (every rank cuts the packs alike).
// In place: a thread reads input pack k (steps 1-3) before it writes output pack k (step 3).
#pragma once

#include "arbench/algo/island/island_sync.hpp"
#include "arbench/algo/partition.hpp"
#include "arbench/algo/reduce.hpp"

namespace arbench::algo {

// Phase marks (arbench/core/phases.hpp): `island` when thread 0's first pack had arrived from
// every island peer, `crossed` when its partials were all sent, `peers` when its first pack's
// partials had arrived from every other island.
inline constexpr PhaseMark kIslandOneshotMarks[] = {
    {"entry", PhaseBucket::entry}, {"pushed", PhaseBucket::staging}, {"island", PhaseBucket::wait},
    {"crossed", PhaseBucket::reduce}, {"peers", PhaseBucket::wait}, {"reduced", PhaseBucket::reduce},
    {"exit", PhaseBucket::exit}};

// Island g's partial of pack k: the island's ranks in rank order, own pack `own`, the peers'
// from their (valid) LL lines in own island scratch.
template <class Mem, DType D>
ARB_HD Pack island_partial(const IslandArgs& a, int slot, std::size_t k, const Pack& own) {
  PackAccumulator<D> acc{};
  const unsigned members = island_members(a.map, island_of(a.map, a.rank));
  void* scratch = pick_ptr(a.scratch, a.rank);
  bool first = true;
  ARB_UNROLL
  for (int p = 0; p < kLayoutMaxRanks; ++p) {
    if (((members >> p) & 1u) == 0u) continue;
    // (Not `p == rank ? own : ...` on two lvalues: a select of addresses would put them in
    // local memory in the kernel.)
    Pack x = own;
    if (p != a.rank) x = ll_read_pack<Mem>(intra_line(scratch, slot, p, a.world, a.packs, k));
    acc.add(x, first);
    first = false;
  }
  return acc.result();
}

// The islands' partials of pack k in island order, rounded once: the own island's is `own`,
// the others' from their (valid) LL lines in the own mailbox.
template <class Mem, DType D>
ARB_HD Pack sum_islands(const IslandArgs& a, int slot, std::size_t k, const Pack& own) {
  PackAccumulator<D> acc{};
  const int mine = island_of(a.map, a.rank);
  void* mailbox = pick_ptr(a.mailbox, a.rank);
  ARB_UNROLL
  for (int h = 0; h < kMaxIslands; ++h) {
    if (h >= a.map.islands) continue;
    Pack x = own;
    if (h != mine) x = ll_read_pack<Mem>(ll_region_line(mailbox, slot, h, a.map.islands, a.packs, k));
    acc.add(x, h == 0);
  }
  return acc.result();
}

// Step 1 for one pack: x as LL lines into every island peer's scratch at `k`.
template <class Mem>
ARB_HD void push_to_island(const IslandArgs& a, unsigned peers, int slot, std::uint32_t e, std::size_t k, const Pack& x) {
  const LlLine l0 = ll_encode(x.w[0], x.w[1], e);
  const LlLine l1 = ll_encode(x.w[2], x.w[3], e);
  ARB_UNROLL
  for (int p = 0; p < kLayoutMaxRanks; ++p) {
    if (((peers >> p) & 1u) == 0u) continue;
    LlLine* dst = intra_line(a.scratch[p], slot, a.rank, a.world, a.packs, k);
    Mem::ll_store(dst, l0);
    Mem::ll_store(dst + 1, l1);
  }
}

// Step 2's crossing for one pack: island `g`'s partial as LL lines into the mailbox of every
// rank in `dests`, at `k`.
template <class Mem>
ARB_HD void push_across(const IslandArgs& a, unsigned dests, int g, int slot, std::uint32_t e, std::size_t k,
                        const Pack& part) {
  const LlLine l0 = ll_encode(part.w[0], part.w[1], e);
  const LlLine l1 = ll_encode(part.w[2], part.w[3], e);
  ARB_UNROLL
  for (int d = 0; d < kLayoutMaxRanks; ++d) {
    if (((dests >> d) & 1u) == 0u) continue;
    LlLine* dst = ll_region_line(a.mailbox[d], slot, g, a.map.islands, a.packs, k);
    Mem::ll_store(dst, l0);
    Mem::ll_store(dst + 1, l1);
  }
}

// Waits for the island peers' lines of pack k; false when the wait expired.
template <class Mem>
ARB_HD bool wait_island(const IslandArgs& a, const BlockCtx& c, int slot, std::uint32_t e, std::size_t k,
                        OpBound& bound) {
  void* scratch = pick_ptr(a.scratch, a.rank);
  return ll_wait_lines<Mem>(
      a, c, island_peers(a.map, a.rank), e, k,
      [&](int p) { return intra_line(scratch, slot, p, a.world, a.packs, k); }, [](int p) { return p; }, bound);
}

// Waits for the other islands' partials of pack k in the own mailbox; false when it expired.
template <class Mem>
ARB_HD bool wait_across(const IslandArgs& a, const BlockCtx& c, int slot, std::uint32_t e, std::size_t k,
                        OpBound& bound) {
  void* mailbox = pick_ptr(a.mailbox, a.rank);
  return cross_wait<Mem>(
      a, c, other_islands(a.map, a.rank), e, k,
      [&](int h) { return ll_region_line(mailbox, slot, h, a.map.islands, a.packs, k); },
      [&](int h) { return static_cast<int>((a.sources >> (4 * h)) & 0xfu); }, bound);
}

template <class Mem, DType D>
ARB_HD bool island_oneshot_block(const IslandArgs& a, const BlockCtx& c) {
  phase_mark<Mem>(a.phases, c, 0);
  const std::uint32_t e = begin_epoch<Mem>(a, c);
  const int slot = op_slot<Mem>(e);
  const Range mine = block_share<Mem>(Range{0, a.packs}, c);
  const std::size_t t0 = static_cast<std::size_t>(c.thread);
  const std::size_t nt = static_cast<std::size_t>(c.threads);
  const int g = island_of(a.map, a.rank);
  const unsigned dests = cross_destinations<Mem>(a.map, a.rank);

  for (std::size_t k = mine.begin + t0; k < mine.end; k += nt)
    push_to_island<Mem>(a, island_peers(a.map, a.rank), slot, e, k, load_pack<D>(a.in, k, a.n));
  phase_mark<Mem>(a.phases, c, 1);

  OpBound bound{a.timeout_ns};
  bool ok = true, first = true;
  for (std::size_t k = mine.begin + t0; k < mine.end && ok; k += nt) {  // round-trips: per unit
    ok = wait_island<Mem>(a, c, slot, e, k, bound);
    if (!ok) break;
    if (first) phase_mark<Mem>(a.phases, c, 2);
    first = false;
    push_across<Mem>(a, dests, g, slot, e, k, island_partial<Mem, D>(a, slot, k, load_pack<D>(a.in, k, a.n)));
  }
  if (ok && first) phase_mark<Mem>(a.phases, c, 2);  // thread 0 had no pack to wait for
  if (ok) phase_mark<Mem>(a.phases, c, 3);

  first = true;
  for (std::size_t k = mine.begin + t0; k < mine.end && ok; k += nt) {  // round-trips: per unit
    ok = wait_across<Mem>(a, c, slot, e, k, bound);
    if (!ok) break;
    if (first) phase_mark<Mem>(a.phases, c, 4);
    first = false;
    const Pack part = island_partial<Mem, D>(a, slot, k, load_pack<D>(a.in, k, a.n));
    store_pack<D>(a.out, k, a.n, sum_islands<Mem, D>(a, slot, k, part));
  }
  if (ok && first) phase_mark<Mem>(a.phases, c, 4);
  if (ok) phase_mark<Mem>(a.phases, c, 5);
  end_epoch<Mem>(a, c, e);
  const bool all = Mem::block_all(ok);
  phase_mark<Mem>(a.phases, c, 6);
  return all;
}

}  // namespace arbench::algo
