// oneshot-push protocol (kernel: kernels/symm/oneshot_push.cu; twin: kernels/symm/symm_twins.cpp).
//
// Block b of rank r, op epoch e, slot s = epoch_slot(e), packs P_b = block_range(packs, B, b):
//   1. for k in P_b: encode own input pack k as two LL lines stamped e and store them into every
//      peer p's LL region [s][from r] (posted writes, no flag, no barrier)
//   2. for k in P_b (same thread as step 1): poll own LL region [s][from p] for every peer p at
//      once (bounded) until all lines of pack k carry e; reduce ranks 0..N-1 in order (own pack
//      from the input); store to own output
// Slot reuse: sender p writes slot s again at op e+2, only after its block b finished op e+1,
// which needed our op-e+1 lines, which we push only after our op e finished (kernel boundary;
// the twin runs ops in order). The LL region is never touched by any other protocol.
// Why push: PCIe writes are posted (fire and forget), there is no flag round trip at all, and a
// reader polls its own local memory; the cost is 2x bytes on the wire (8 data bytes per 16).
#pragma once

#include "arbench/algo/barrier.hpp"
#include "arbench/algo/ll.hpp"
#include "arbench/algo/partition.hpp"
#include "arbench/algo/reduce.hpp"

namespace arbench::algo {

// Polls pack k's LL lines from every peer until all of them carry epoch e. The loads of one
// poll are independent (issued back to back), so a pass costs one memory latency rather than
// 2(N-1) dependent ones; lines already seen valid are not reloaded. On expiry the record names
// the first peer still missing.
template <class Mem>
ARB_HD bool ll_wait_pack(const SymmArgs& a, const BlockCtx& c, int slot, std::uint32_t e,
                         std::size_t k, LlLine (&got)[kLayoutMaxRanks][kLinesPerPack], OpBound& bound) {
  const LlLine* from0 = ll_ptr(rank_scratch(a, a.rank), slot, 0, a.world, a.packs);
  const std::size_t region = a.packs * kLinesPerPack;  // lines per sender
  bool ready[kLayoutMaxRanks] = {};
  WaitSite site{a.rank, c.block, 0, WaitKind::ll_line, 0};
  return bounded_wait<Mem>(
      [&](std::uint32_t& seen) {
        bool all = true;
        ARB_UNROLL
        for (int p = 0; p < kLayoutMaxRanks; ++p) {
          if (p >= a.world || p == a.rank || ready[p]) continue;
          const LlLine* src = from0 + static_cast<std::size_t>(p) * region + k * kLinesPerPack;
          got[p][0] = Mem::ll_load(src);
          got[p][1] = Mem::ll_load(src + 1);
          const bool first_ok = ll_valid(got[p][0], e);
          ready[p] = first_ok && ll_valid(got[p][1], e);
          if (!ready[p] && all) {  // the first laggard is what a timeout reports
            all = false;
            site.peer = p;
            site.index = static_cast<std::uint32_t>(k * kLinesPerPack + (first_ok ? 1u : 0u));
            seen = first_ok ? ll_seen(got[p][1], e) : ll_seen(got[p][0], e);
          }
        }
        return all;
      },
      e, bound, &a.state->error, site);
}

// Phase marks (arbench/core/phases.hpp). Waiting and reducing interleave pack by pack: `peers` is
// when thread 0's first pack had arrived from every peer (every peer had started pushing).
inline constexpr PhaseMark kOneshotPushMarks[] = {{"entry", PhaseBucket::entry}, {"pushed", PhaseBucket::staging},
                                                  {"peers", PhaseBucket::wait},  {"reduced", PhaseBucket::reduce},
                                                  {"exit", PhaseBucket::exit}};

template <class Mem, DType D>
ARB_HD bool oneshot_push_block(const SymmArgs& a, const BlockCtx& c) {
  phase_mark<Mem>(a.phases, c, 0);
  const std::uint32_t e = begin_epoch<Mem>(a, c);
  const int slot = epoch_slot(e);
  const Range mine = block_share<Mem>(Range{0, a.packs}, c);
  const std::size_t t0 = static_cast<std::size_t>(c.thread);
  const std::size_t nt = static_cast<std::size_t>(c.threads);

  for (std::size_t k = mine.begin + t0; k < mine.end; k += nt) {
    const Pack x = load_pack<D>(a.in, k, a.n);
    const LlLine l0 = ll_encode(x.w[0], x.w[1], e);
    const LlLine l1 = ll_encode(x.w[2], x.w[3], e);
    for (int p = 0; p < a.world; ++p) {
      if (p == a.rank) continue;
      LlLine* dst = ll_ptr(rank_scratch(a, p), slot, a.rank, a.world, a.packs) + k * kLinesPerPack;
      Mem::ll_store(dst, l0);
      Mem::ll_store(dst + 1, l1);
    }
  }

  phase_mark<Mem>(a.phases, c, 1);

  bool ok = true;
  bool first = true;
  OpBound bound{a.timeout_ns};
  for (std::size_t k = mine.begin + t0; k < mine.end && ok; k += nt) {  // round-trips: per unit
    LlLine got[kLayoutMaxRanks][kLinesPerPack] = {};
    ok = ll_wait_pack<Mem>(a, c, slot, e, k, got, bound);
    if (!ok) break;
    if (first) phase_mark<Mem>(a.phases, c, 2);
    first = false;
    const Pack own = load_pack<D>(a.in, k, a.n);
    PackAccumulator<D> acc{};  // rank order 0..N-1
    ARB_UNROLL
    for (int p = 0; p < kLayoutMaxRanks; ++p) {
      if (p >= a.world) continue;
      const Pack x = p == a.rank ? own
                                 : Pack{{ll_data(got[p][0], 0), ll_data(got[p][0], 1),
                                         ll_data(got[p][1], 0), ll_data(got[p][1], 1)}};
      acc.add(x, p == 0);
    }
    store_pack<D>(a.out, k, a.n, acc.result());
  }
  if (ok && first) phase_mark<Mem>(a.phases, c, 2);  // thread 0 had no pack to wait for
  if (ok) phase_mark<Mem>(a.phases, c, 3);
  end_epoch<Mem>(a, c, e);
  const bool all = Mem::block_all(ok);
  phase_mark<Mem>(a.phases, c, 4);
  return all;
}

}  // namespace arbench::algo
