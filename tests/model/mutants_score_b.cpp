// The mutation score's mutants at their model points, part 2: the protocol decisions (the hooks
// of include/arbench/algo/faults.hpp). Points:
//   epoch not advanced         W2 B1 T1 ops3 (the stalled op is the second: a third must follow)
//   staging slot reused early  W2 B1 T1 ops2
//   partition off by one       B2 (fused: 3 rows, so both blocks own rows)
#include "tests/model/mutant_points.hpp"

namespace arbench::model {

void score_mutant_cases_b(std::vector<ModelCase>& out) {
  using algo::Fault;
  using K = TwinKernel;
  const Configs c;

  mutant_points<RelacyMem<Fault::epoch_stall>, 1, 1, K::oneshot_pull, K::oneshot_push, K::twoshot, K::ring,
                K::fused_oneshot, K::fused_twoshot, K::oneshot_fp8, K::twoshot_fp8>(out, {c.ops3, c.ops3, c.ops3});

  using Early = RelacyMem<Fault::slot_early>;
  mutant_points<Early, 1, 1, K::oneshot_pull, K::twoshot, K::fused_oneshot, K::oneshot_fp8, K::twoshot_fp8>(
      out, {c.ops2, {}, c.ops2});
  // Not a target of the score: fused-twoshot's second barrier already orders every peer's reads
  // of a slot before its next write, so the mutant is equivalent; the model confirms it.
  ModelCase equivalent = mutant_case<FusedTest<Early, K::fused_twoshot, 2, 1, 1>>(c.ops3, nullptr);
  equivalent.expect_pass = true;
  equivalent.note = "equivalent: the second barrier orders every read of a slot before its reuse";
  out.push_back(equivalent);

  mutant_points<RelacyMem<Fault::partition_edge>, 2, 1, K::oneshot_pull, K::oneshot_push, K::twoshot, K::add_rmsnorm,
                K::fused_oneshot, K::fused_twoshot, K::oneshot_fp8, K::twoshot_fp8>(out, {c.ops2, {}, c.rows3});
}

}  // namespace arbench::model
