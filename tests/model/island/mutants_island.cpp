// The mutation score's mutants on the island family at their model points (each (mutant, island
// kernel) of tests/mutation/mutant_table.cpp has exactly one case here), islands 2 + 2 unless
// said. Points:
//   store/load relaxed, slot reused early, LL line torn,   W4 B1 T1 ops2
//   cross-island wait skipped
//   block_sync skipped                                     W4 B1 T2 ops2 (fused: 1 row of 27, 4
//                                                          packs: the lane tree crosses threads)
//   norm tree unsynced (fused forms)                       W4 B1 T2 ops2, 1 row of 27
//   block_all own flag                                     W4 B1 T2, rank 1 missing
//   epoch not advanced                                     W4 B1 T1 ops3 (the stalled op is the second)
//   partition off by one                                   W4 B2 T1 ops2 (fused: 3 rows, so both
//                                                          blocks own rows)
//   cross partner at own position only                     W3 B1 T1 ops2, 2 + 1 (unequal: rank 2 serves
//                                                          ranks 0 and 1, the fault drops rank 1)
//   stale epoch counter (model-only)                       W4 B1 T1 ops3
// (The LL flag split is run on oneshot-push only: this world shadows LL halves as whole 8-byte
// words.)
#include "tests/model/island/island_model.hpp"
#include "tests/model/model_case.hpp"

namespace arbench::model {
namespace {

using algo::Fault;
using K = TwinKernel;
template <Fault F, K Kern, int W, int B, int T>
using I = IslandTest<RelacyMem<F>, Kern, W, B, T>;

template <Fault F, K OneShot, K TwoShot, int W, int B, int T>
void both(std::vector<ModelCase>& out, const ModelConfig& cfg) {
  out.push_back(mutant_case<I<F, OneShot, W, B, T>>(cfg, nullptr));
  out.push_back(mutant_case<I<F, TwoShot, W, B, T>>(cfg, nullptr));
}

// One form pair's mutants: island-oneshot and island-twoshot, or the fused forms. t2, b2: the
// configurations of the T2 and B2 points (the fused forms: rows that reach the second thread or
// block).
template <K OneShot, K TwoShot>
void family_mutants(std::vector<ModelCase>& out, const ModelConfig& t2, const ModelConfig& b2) {
  constexpr bool kFused = OneShot == K::fused_island;
  const Configs c;
  const ModelConfig ops2 = island_config(c.ops2, 4, 2), ops3 = island_config(c.ops3, 4, 2);
  const ModelConfig t2_2_2 = island_config(t2, 4, 2);

  out.push_back(mutant_case<I<Fault::store_relaxed, TwoShot, 4, 1, 1>>(ops2, nullptr));
  out.push_back(mutant_case<I<Fault::load_relaxed, TwoShot, 4, 1, 1>>(ops2, nullptr));
  both<Fault::block_sync_skipped, OneShot, TwoShot, 4, 1, 2>(out, t2_2_2);
  out.push_back(mutant_case<I<Fault::block_all_own, TwoShot, 4, 1, 2>>(island_config(c.missing, 4, 2), nullptr));
  if constexpr (!kFused) out.push_back(mutant_case<I<Fault::ll_torn, OneShot, 4, 1, 1>>(ops2, nullptr));
  both<Fault::epoch_stall, OneShot, TwoShot, 4, 1, 1>(out, ops3);
  out.push_back(mutant_case<I<Fault::slot_early, TwoShot, 4, 1, 1>>(ops2, nullptr));
  both<Fault::partition_edge, OneShot, TwoShot, 4, 2, 1>(out, island_config(b2, 4, 2));
  if constexpr (kFused) both<Fault::norm_tree_unsynced, OneShot, TwoShot, 4, 1, 2>(out, t2_2_2);
  both<Fault::cross_wait_skipped, OneShot, TwoShot, 4, 1, 1>(out, ops2);
  both<Fault::cross_dest_dropped, OneShot, TwoShot, 3, 1, 1>(out, island_config(c.ops2, 3, 2));

  // Model-only (mutants_weak.cpp): the epoch counter read stale.
  using Stale = RelacyMem<Fault::none, Weak::counter_stale>;
  out.push_back(mutant_case<IslandTest<Stale, OneShot, 4, 1, 1>>(ops3, "stale epoch counter"));
  out.push_back(mutant_case<IslandTest<Stale, TwoShot, 4, 1, 1>>(ops3, "stale epoch counter"));
}

}  // namespace

void island_mutant_cases(std::vector<ModelCase>& out) {
  const Configs c;
  family_mutants<K::island_oneshot, K::island_twoshot>(out, c.ops2, c.ops2);
}

void fused_island_mutant_cases(std::vector<ModelCase>& out) {
  const Configs c;
  family_mutants<K::fused_island, K::fused_island_twoshot>(out, c.wide, c.rows3);
}

}  // namespace arbench::model
