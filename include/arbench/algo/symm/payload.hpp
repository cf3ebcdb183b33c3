// Payloads of the staging protocols (oneshot_pull.hpp, twoshot.hpp): what one work item of a
// rank's staging slot holds and how it is written, reduced and gathered. The protocols own the
// schedule and the synchronisation (epochs, slots, barriers, which block and thread handles which
// item); a payload only moves data, through Mem::load_peer / Mem::store_data, between the flags
// the protocol places. So a new wire format (fp8/fp8_payload.hpp) reuses the protocol unchanged.
//
// A payload P<D> provides, as ARB_HD statics:
//   items(a)                         work items of the message
//   stage<Mem>(a, own, k)            write item k of the own input into own staging `own`
//   reduce<Mem>(a, slot, k)          one-shot: item k of every rank's staging, reduced in rank
//                                    order 0..N-1, to the own output
//   reduce_own<Mem>(a, slot, own, k) two-shot scatter: the same, also left in own staging for the
//                                    all-gather (the output must equal what gather() makes of it)
//   gather<Mem>(a, src, k)           two-shot gather: item k of the owner's staging `src` to output
// PackPayload<D> is the exact payload of oneshot-pull and twoshot: an item is one 16-byte pack of
// the input dtype.
#pragma once

#include "arbench/algo/pack.hpp"
#include "arbench/algo/reduce.hpp"
#include "arbench/algo/symm_layout.hpp"

namespace arbench::algo {

template <DType D>
struct PackPayload {
  ARB_HD static std::size_t items(const SymmArgs& a) { return a.packs; }

  template <class Mem>
  ARB_HD static void stage(const SymmArgs& a, Pack* own, std::size_t k) {
    const Pack x = load_pack<D>(a.in, k, a.n);  // the value first, as `own[k] = ..` sequenced it: same PTX
    Mem::store_data(own + k, x);
  }

  template <class Mem>
  ARB_HD static Pack sum_of_ranks(const SymmArgs& a, int slot, std::size_t k) {
    Pack v[kLayoutMaxRanks] = {};
    ARB_UNROLL
    for (int p = 0; p < kLayoutMaxRanks; ++p)
      if (p < a.world) v[p] = Mem::load_peer(staging_ptr(a.scratch[p], slot, a.packs) + k);
    return reduce_packs<D>(v, a.world);
  }

  template <class Mem>
  ARB_HD static void reduce(const SymmArgs& a, int slot, std::size_t k) {
    store_pack<D>(a.out, k, a.n, sum_of_ranks<Mem>(a, slot, k));
  }

  template <class Mem>
  ARB_HD static void reduce_own(const SymmArgs& a, int slot, Pack* own, std::size_t k) {
    const Pack sum = sum_of_ranks<Mem>(a, slot, k);
    Mem::store_data(own + k, sum);
    store_pack<D>(a.out, k, a.n, sum);
  }

  template <class Mem>
  ARB_HD static void gather(const SymmArgs& a, const Pack* src, std::size_t k) {
    store_pack<D>(a.out, k, a.n, Mem::load_peer(src + k));
  }
};

}  // namespace arbench::algo
