// Mutants only a weak memory model shows (TSan on x86, a TSO machine, cannot), and the ring's
// credit wait, which matters only once a sender can lap its receiver.
//   stale epoch counter  counter_load may return the counter's previous value. The kernel
//                        boundary is a happens-before edge, so a genuinely relaxed load after it
//                        is never stale in the C++ model (coherence): the mutant stands for a
//                        counter read served by a stale or non-coherent cache. W2 B1 T1 ops3.
//   LL flag split        each LL half as two separate relaxed 4-byte stores, data then flag: a
//                        reader may see the new flag with the old data. W2 B1 T1 ops2. Run also
//                        with seq_cst stores and loads, where it must survive (the strong-machine
//                        view: what TSan on x86 would see).
//   credit wait skipped  the ring sends without waiting for the slot's credit: killed at 6 ranks,
//                        equivalent below (a sender runs at most N - 1 <= kSlots transfers ahead).
//   peer load as local   every load_peer made through load_data, as a protocol that reads a peer's
//                        staging with load_data would: correct, but invisible to the round-trip
//                        check (docs/round-trips.md). load_data's owner check kills it. W2 B1 T1.
#include "tests/model/mutant_points.hpp"

namespace arbench::model {

void weak_mutant_cases(std::vector<ModelCase>& out) {
  using K = TwinKernel;
  const Configs c;
  mutant_points<RelacyMem<algo::Fault::none, Weak::counter_stale>, 1, 1, K::oneshot_pull, K::oneshot_push, K::twoshot,
                K::ring, K::add_rmsnorm, K::fused_oneshot, K::fused_twoshot, K::oneshot_fp8, K::twoshot_fp8>(
      out, {c.ops3, c.ops3, c.ops3}, "stale epoch counter");

  using Split = RelacyMem<algo::Fault::none, Weak::ll_split>;
  out.push_back(mutant_case<SymmTest<Split, K::oneshot_push, 2, 1, 1>>(c.ops2, "LL flag split from its data"));
  // The same split under sequential consistency survives: only a weak model shows the fault, as
  // a TSO machine (x86: TSan's twins) keeps the data store before the flag store and the flag
  // load before the data load.
  using SplitSc = RelacyMem<algo::Fault::none, Weak::ll_split_sc>;
  ModelCase strong = mutant_case<SymmTest<SplitSc, K::oneshot_push, 2, 1, 1>>(c.ops2, "LL flag split from its data");
  strong.point += " seq_cst";
  strong.expect_pass = true;
  strong.note = "survives with seq_cst stores and loads: only a weak memory model shows it";
  out.push_back(strong);

  ModelConfig skip = c.ops2;
  skip.skip_credit_wait = true;
  using Plain = RelacyMem<>;
  ModelCase w6 = mutant_case<RingTest<Plain, 6, 1, 1>>(skip, "credit wait skipped");
  w6.baseline_cfg.skip_credit_wait = false;
  out.push_back(w6);
  ModelCase w3 = mutant_case<RingTest<Plain, 3, 1, 1>>(skip, "credit wait skipped");
  w3.baseline_cfg.skip_credit_wait = false;
  w3.expect_pass = true;
  w3.note = "equivalent below 6 ranks: a sender runs at most N - 1 <= kSlots transfers ahead";
  out.push_back(w3);

  using PeerLocal = RelacyMem<algo::Fault::none, Weak::peer_as_local>;
  out.push_back(mutant_case<SymmTest<PeerLocal, K::oneshot_pull, 2, 1, 1>>(c.ops2, "peer load made as a local one"));
  out.push_back(mutant_case<SymmTest<PeerLocal, K::oneshot_fp8, 2, 1, 1>>(c.ops2, "peer load made as a local one"));
}

}  // namespace arbench::model
