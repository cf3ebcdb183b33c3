// The mutation score's mutants on fused-island-oneshot and fused-island-twoshot at their model
// points (each (mutant, fused island kernel) of tests/mutation/mutant_table.cpp has exactly one
// case here), islands 2 + 2 unless said. Points:
//   store/load relaxed, slot reused early, cross-island wait skipped   W4 B1 T1 ops2, 2 rows of 9
//   block_sync skipped, norm tree unsynced   W4 B1 T2 ops2, 1 row of 27 (4 packs: the lane tree
//                                            crosses threads)
//   block_all own flag                       W4 B1 T2, rank 1 missing
//   epoch not advanced                       W4 B1 T1 ops3 (the stalled op is the second)
//   partition off by one                     W4 B2 T1 ops2, 3 rows (both blocks own rows)
//   cross partner at own position only       W3 B1 T1 ops2, 2 + 1 (rank 2 serves ranks 0 and 1)
//   stale epoch counter (model-only)         W4 B1 T1 ops3
#include "tests/model/island/fused_island_model.hpp"
#include "tests/model/model_case.hpp"

namespace arbench::model {
namespace {

using algo::Fault;
using K = TwinKernel;
template <Fault F, K Kern, int W, int B, int T>
using FI = FusedIslandTest<RelacyMem<F>, Kern, W, B, T>;

template <Fault F, int W, int B, int T>
void both(std::vector<ModelCase>& out, const ModelConfig& cfg) {
  out.push_back(mutant_case<FI<F, K::fused_island, W, B, T>>(cfg, nullptr));
  out.push_back(mutant_case<FI<F, K::fused_island_twoshot, W, B, T>>(cfg, nullptr));
}

}  // namespace

void fused_island_mutant_cases(std::vector<ModelCase>& out) {
  ModelConfig base, ops3, missing, wide, rows3;
  ops3.ops = 3;
  missing.scenario = Scenario::missing_rank;
  wide.tokens = 1;
  wide.hidden = 27;
  rows3.tokens = 3;
  const ModelConfig ops2 = island_config(base, 4, 2);
  const ModelConfig ops3_2_2 = island_config(ops3, 4, 2);
  const ModelConfig wide_2_2 = island_config(wide, 4, 2);
  constexpr K TS = K::fused_island_twoshot;

  out.push_back(mutant_case<FI<Fault::store_relaxed, TS, 4, 1, 1>>(ops2, nullptr));
  out.push_back(mutant_case<FI<Fault::load_relaxed, TS, 4, 1, 1>>(ops2, nullptr));
  both<Fault::block_sync_skipped, 4, 1, 2>(out, wide_2_2);
  out.push_back(mutant_case<FI<Fault::block_all_own, TS, 4, 1, 2>>(island_config(missing, 4, 2), nullptr));
  both<Fault::epoch_stall, 4, 1, 1>(out, ops3_2_2);
  out.push_back(mutant_case<FI<Fault::slot_early, TS, 4, 1, 1>>(ops2, nullptr));
  both<Fault::partition_edge, 4, 2, 1>(out, island_config(rows3, 4, 2));
  both<Fault::norm_tree_unsynced, 4, 1, 2>(out, wide_2_2);
  both<Fault::cross_wait_skipped, 4, 1, 1>(out, ops2);
  both<Fault::cross_dest_dropped, 3, 1, 1>(out, island_config(base, 3, 2));

  using Stale = RelacyMem<Fault::none, Weak::counter_stale>;
  out.push_back(mutant_case<FusedIslandTest<Stale, K::fused_island, 4, 1, 1>>(ops3_2_2, "stale epoch counter"));
  out.push_back(mutant_case<FusedIslandTest<Stale, TS, 4, 1, 1>>(ops3_2_2, "stale epoch counter"));
}

}  // namespace arbench::model
