// Synchronisation of the island protocols: the barrier among one island's ranks, and the bounded
// waits for LL lines (from island peers, or other islands' partials in the mailbox). Their epochs
// are every protocol's (begin_epoch/end_epoch, epoch.hpp).
//
// island_barrier is block_barrier (barrier.hpp) over the ranks of the caller's island only: the
// other islands never touch this island's flags. Phase marks as block_barrier's.
// ll_wait_lines polls pack k's LL lines from several sources at once (the loads of one poll are
// independent, so a pass costs one memory latency) until every line carries epoch e; lines
// already valid are not reloaded. On expiry the record names the first source still missing.
#pragma once

#include "arbench/algo/barrier.hpp"
#include "arbench/algo/epoch.hpp"
#include "arbench/algo/faults.hpp"
#include "arbench/algo/island/island_layout.hpp"
#include "arbench/algo/mem_policy.hpp"
#include "arbench/algo/phase_record.hpp"
#include "arbench/algo/wait.hpp"

namespace arbench::algo {

template <class Mem>
ARB_HD bool island_barrier(const IslandArgs& a, const BlockCtx& c, int phase, std::uint32_t epoch, OpBound& bound,
                           BarrierMarks m = {}) {
  const unsigned peers = island_peers(a.map, a.rank);
  return barrier_among<Mem>(a, c, [peers](int p) { return ((peers >> p) & 1u) != 0u; }, phase, epoch, bound, m);
}

ARB_HD Pack ll_pack(const LlLine& l0, const LlLine& l1) {
  return Pack{{ll_data(l0, 0), ll_data(l0, 1), ll_data(l1, 0), ll_data(l1, 1)}};
}

// The data of pack k's two LL lines at `src` (both already seen valid: a line keeps its data and
// epoch until the slot's next use, two ops later).
template <class Mem>
ARB_HD Pack ll_read_pack(const LlLine* src) {
  const LlLine l0 = Mem::ll_load(src);
  return ll_pack(l0, Mem::ll_load(src + 1));
}

// Polls pack k's lines from every source i in `from` (line_of(i): its first line) until all
// carry e; the data is read afterwards (ll_read_pack), in the order the reduction needs it.
// Keeping only a bitmask here, not every source's data, keeps the kernels within their
// registers. peer_of(i) names the rank a timeout blames.
template <class Mem, class LineOf, class PeerOf>
ARB_HD bool ll_wait_lines(const IslandArgs& a, const BlockCtx& c, unsigned from, std::uint32_t e, std::size_t k,
                          LineOf&& line_of, PeerOf&& peer_of, OpBound& bound) {
  unsigned ready = 0;
  WaitSite site{a.rank, c.block, 0, WaitKind::ll_line, 0};
  return bounded_wait<Mem>(
      [&](std::uint32_t& seen) {
        bool all = true;
        ARB_UNROLL
        for (int i = 0; i < kLayoutMaxRanks; ++i) {
          if (((from >> i) & 1u) == 0u || ((ready >> i) & 1u) != 0u) continue;
          const LlLine* src = line_of(i);
          const LlLine l0 = Mem::ll_load(src);
          const LlLine l1 = Mem::ll_load(src + 1);
          const bool first_ok = ll_valid(l0, e);
          if (first_ok && ll_valid(l1, e)) {
            ready |= 1u << i;
          } else if (all) {  // the first laggard is what a timeout reports
            all = false;
            site.peer = peer_of(i);
            site.index = static_cast<std::uint32_t>(k * kLinesPerPack + (first_ok ? 1u : 0u));
            seen = first_ok ? ll_seen(l1, e) : ll_seen(l0, e);
          }
        }
        return all;
      },
      e, bound, &a.state->error, site);
}

// The wait for the other islands' partials of pack k in the own mailbox (LL). The
// cross_wait_skipped fault of the mutation score skips it: the partials are then read as they
// are (as if the intra-island step had ordered them), which a correct run must catch.
template <class Mem, class LineOf, class PeerOf>
ARB_HD bool cross_wait(const IslandArgs& a, const BlockCtx& c, unsigned islands, std::uint32_t e, std::size_t k,
                       LineOf&& line_of, PeerOf&& peer_of, OpBound& bound) {
  if constexpr (planted<Mem>(Fault::cross_wait_skipped))
    return (void)a, (void)c, (void)islands, (void)e, (void)k, (void)line_of, (void)peer_of, (void)bound, true;
  else
    return ll_wait_lines<Mem>(a, c, islands, e, k, line_of, peer_of, bound);
}

// The other islands' bits among 0..islands-1.
ARB_HD unsigned other_islands(const IslandMap& m, int rank) {
  return ((1u << m.islands) - 1u) & ~(1u << island_of(m, rank));
}

}  // namespace arbench::algo
