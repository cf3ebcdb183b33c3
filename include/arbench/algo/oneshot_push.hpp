// oneshot-push protocol (kernel: kernels/oneshot_push.cu; twin: kernels/symm_twins.cpp).
//
// Block b of rank r, op epoch e, slot s = epoch_slot(e), packs P_b = block_range(packs, B, b):
//   1. for k in P_b: encode own input pack k as two LL lines stamped e and store them into every
//      peer p's LL region [s][from r] (posted writes, no flag, no barrier)
//   2. for k in P_b (same thread as step 1): for p in 0..N-1, own pack from the input, peers'
//      packs by spinning (bounded) on own LL region [s][from p] until both halves carry e;
//      reduce in rank order; store to own output
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

template <class Mem>
ARB_HD bool ll_wait_line(const LlLine* src, std::uint32_t e, const SymmArgs& a, const BlockCtx& c,
                         int peer, std::size_t line, LlLine& got) {
  const WaitSite site{a.rank, c.block, peer, WaitKind::ll_line, static_cast<std::uint32_t>(line)};
  return bounded_wait<Mem>(
      [&](std::uint32_t& seen) {
        got = Mem::ll_load(src);
        seen = ll_seen(got, e);
        return ll_valid(got, e);
      },
      e, a.timeout_ns, &a.state->error, site);
}

template <class Mem, DType D>
ARB_HD bool oneshot_push_block(const SymmArgs& a, const BlockCtx& c) {
  const std::uint32_t e = begin_epoch<Mem>(a, c);
  const int slot = epoch_slot(e);
  const Range mine = block_range(a.packs, c.blocks, c.block);
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

  bool ok = true;
  for (std::size_t k = mine.begin + t0; k < mine.end && ok; k += nt) {
    PackAccumulator<D> acc{};  // rank order 0..N-1, one rank at a time, in registers
    for (int p = 0; p < a.world && ok; ++p) {
      if (p == a.rank) {
        acc.add(load_pack<D>(a.in, k, a.n), p == 0);
        continue;
      }
      const LlLine* src = ll_ptr(rank_scratch(a, a.rank), slot, p, a.world, a.packs) + k * kLinesPerPack;
      LlLine l0{}, l1{};
      ok = ll_wait_line<Mem>(src, e, a, c, p, k * kLinesPerPack, l0) &&
           ll_wait_line<Mem>(src + 1, e, a, c, p, k * kLinesPerPack + 1, l1);
      acc.add(Pack{{ll_data(l0, 0), ll_data(l0, 1), ll_data(l1, 0), ll_data(l1, 1)}}, p == 0);
    }
    if (ok) store_pack<D>(a.out, k, a.n, acc.result());
  }
  end_epoch<Mem>(a, c, e);
  return Mem::block_all(ok);
}

}  // namespace arbench::algo
