// The FP8 kernels' model-only mutants: planted faults that show the FP8 worlds' own checks can
// fail (the score's protocol mutants on them: mutants_score_a.cpp, mutants_score_b.cpp).
//   fp8 scale doubled     the payload's planted fault (faults.hpp: a block travels with twice its
//                         scale): the FP8 world's oracle is bitwise, so a wrong value is caught
//   sync words vs exact B1 the exact world built with 1 block against the FP8 world's 2: the
//                         sync-word comparison (sync_words.hpp) must tell their words apart
#include "tests/model/fp8/sync_words.hpp"

namespace arbench::model {

void fp8_mutant_cases(std::vector<ModelCase>& out) {
  using K = TwinKernel;
  using Doubled = RelacyMem<algo::Fault::fp8_scale_doubled>;
  const Configs c;
  out.push_back(mutant_case<SymmTest<Doubled, K::oneshot_fp8, 2, 1, 1>>(c.ops2, "fp8 scale doubled (payload)"));
  out.push_back(mutant_case<SymmTest<Doubled, K::twoshot_fp8, 2, 1, 1>>(c.ops2, "fp8 scale doubled (payload)"));

  ModelCase planted = random_case<SameSyncWords<K::oneshot_fp8, 2, 2, 1, 1>>(c.ops2, 1);
  planted.mutant = "sync words vs exact B1";
  planted.expect_pass = false;
  planted.baseline = same_sync_case<K::oneshot_fp8, 2, 2, 1>(c.ops2).run;
  planted.baseline_cfg = c.ops2;
  out.push_back(planted);
}

}  // namespace arbench::model
