// The mutation score's mutants at their model points, part 2: the protocol decisions (the hooks
// of include/arbench/algo/faults.hpp). Points:
//   epoch not advanced         W2 B1 T1 ops3 (the stalled op is the second: a third must follow)
//   staging slot reused early  W2 B1 T1 ops2
//   partition off by one       B2 (fused: 3 rows, so both blocks own rows)
#include "tests/model/fused_model.hpp"
#include "tests/model/model_case.hpp"
#include "tests/model/ring_model.hpp"
#include "tests/model/symm_model.hpp"

namespace arbench::model {

void score_mutant_cases_b(std::vector<ModelCase>& out) {
  using algo::Fault;
  using K = TwinKernel;
  ModelConfig ops2, ops3;
  ops3.ops = 3;

  using Stall = RelacyMem<Fault::epoch_stall>;
  out.push_back(mutant_case<SymmTest<Stall, K::oneshot_pull, 2, 1, 1>>(ops3, nullptr));
  out.push_back(mutant_case<SymmTest<Stall, K::oneshot_push, 2, 1, 1>>(ops3, nullptr));
  out.push_back(mutant_case<SymmTest<Stall, K::twoshot, 2, 1, 1>>(ops3, nullptr));
  out.push_back(mutant_case<RingTest<Stall, 2, 1, 1>>(ops3, nullptr));
  out.push_back(mutant_case<FusedTest<Stall, K::fused_oneshot, 2, 1, 1>>(ops3, nullptr));
  out.push_back(mutant_case<FusedTest<Stall, K::fused_twoshot, 2, 1, 1>>(ops3, nullptr));

  using Early = RelacyMem<Fault::slot_early>;
  out.push_back(mutant_case<SymmTest<Early, K::oneshot_pull, 2, 1, 1>>(ops2, nullptr));
  out.push_back(mutant_case<SymmTest<Early, K::twoshot, 2, 1, 1>>(ops2, nullptr));
  out.push_back(mutant_case<FusedTest<Early, K::fused_oneshot, 2, 1, 1>>(ops2, nullptr));
  // Not a target of the score: fused-twoshot's second barrier already orders every peer's reads
  // of a slot before its next write, so the mutant is equivalent; the model confirms it.
  ModelCase equivalent = mutant_case<FusedTest<Early, K::fused_twoshot, 2, 1, 1>>(ops3, nullptr);
  equivalent.expect_pass = true;
  equivalent.note = "equivalent: the second barrier orders every read of a slot before its reuse";
  out.push_back(equivalent);

  using Edge = RelacyMem<Fault::partition_edge>;
  ModelConfig rows3;
  rows3.tokens = 3;
  out.push_back(mutant_case<SymmTest<Edge, K::oneshot_pull, 2, 2, 1>>(ops2, nullptr));
  out.push_back(mutant_case<SymmTest<Edge, K::oneshot_push, 2, 2, 1>>(ops2, nullptr));
  out.push_back(mutant_case<SymmTest<Edge, K::twoshot, 2, 2, 1>>(ops2, nullptr));
  out.push_back(mutant_case<FusedTest<Edge, K::add_rmsnorm, 2, 2, 1>>(rows3, nullptr));
  out.push_back(mutant_case<FusedTest<Edge, K::fused_oneshot, 2, 2, 1>>(rows3, nullptr));
  out.push_back(mutant_case<FusedTest<Edge, K::fused_twoshot, 2, 2, 1>>(rows3, nullptr));
}

}  // namespace arbench::model
