// The mutation score's mutants on island-oneshot and island-twoshot at their model points (each
// (mutant, island kernel) of tests/mutation/mutant_table.cpp has exactly one case here). Points:
//   store/load relaxed, slot reused early, LL line torn   W4 B1 T1 ops2, islands 2 + 2
//   block_sync skipped                                    W4 B1 T2 ops2, 2 + 2
//   block_all own flag                                    W4 B1 T2, rank 1 missing, 2 + 2
//   epoch not advanced                                    W4 B1 T1 ops3, 2 + 2 (the stalled op is the second)
//   partition off by one                                  W4 B2 T1 ops2, 2 + 2
//   cross-island wait skipped                             W4 B1 T1 ops2, 2 + 2
//   cross partner at own position only                    W3 B1 T1 ops2, 2 + 1 (unequal: rank 2 serves
//                                                         ranks 0 and 1, the fault drops rank 1)
//   stale epoch counter (model-only)                      W4 B1 T1 ops3, 2 + 2
// The fused island forms: mutants_fused_island.cpp.
#include "tests/model/island/island_model.hpp"
#include "tests/model/model_case.hpp"

namespace arbench::model {
namespace {

using algo::Fault;
using K = TwinKernel;
template <Fault F, K Kern, int W, int B, int T>
using I = IslandTest<RelacyMem<F>, Kern, W, B, T>;

template <Fault F, int W, int B, int T>
void both(std::vector<ModelCase>& out, const ModelConfig& cfg) {
  out.push_back(mutant_case<I<F, K::island_oneshot, W, B, T>>(cfg, nullptr));
  out.push_back(mutant_case<I<F, K::island_twoshot, W, B, T>>(cfg, nullptr));
}

}  // namespace

void island_mutant_cases(std::vector<ModelCase>& out) {
  ModelConfig base, ops3, missing;
  ops3.ops = 3;
  missing.scenario = Scenario::missing_rank;
  const ModelConfig ops2 = island_config(base, 4, 2);
  const ModelConfig ops3_2_2 = island_config(ops3, 4, 2);

  out.push_back(mutant_case<I<Fault::store_relaxed, K::island_twoshot, 4, 1, 1>>(ops2, nullptr));
  out.push_back(mutant_case<I<Fault::load_relaxed, K::island_twoshot, 4, 1, 1>>(ops2, nullptr));
  both<Fault::block_sync_skipped, 4, 1, 2>(out, ops2);
  const ModelConfig missing_2_2 = island_config(missing, 4, 2);
  out.push_back(mutant_case<I<Fault::block_all_own, K::island_twoshot, 4, 1, 2>>(missing_2_2, nullptr));
  out.push_back(mutant_case<I<Fault::ll_torn, K::island_oneshot, 4, 1, 1>>(ops2, nullptr));
  both<Fault::epoch_stall, 4, 1, 1>(out, ops3_2_2);
  out.push_back(mutant_case<I<Fault::slot_early, K::island_twoshot, 4, 1, 1>>(ops2, nullptr));
  both<Fault::partition_edge, 4, 2, 1>(out, ops2);
  both<Fault::cross_wait_skipped, 4, 1, 1>(out, ops2);
  both<Fault::cross_dest_dropped, 3, 1, 1>(out, island_config(base, 3, 2));

  // Model-only (mutants_weak.cpp): the epoch counter read stale. (The LL flag split is run on
  // oneshot-push only: this world shadows LL halves as whole 8-byte words.)
  using Stale = RelacyMem<Fault::none, Weak::counter_stale>;
  out.push_back(mutant_case<IslandTest<Stale, K::island_oneshot, 4, 1, 1>>(ops3_2_2, "stale epoch counter"));
  out.push_back(mutant_case<IslandTest<Stale, K::island_twoshot, 4, 1, 1>>(ops3_2_2, "stale epoch counter"));
}

}  // namespace arbench::model
