// The mutation score's mutants (tests/mutation/mutant_table.hpp) at their model points, part 1:
// the faults written in the memory policy and the block barrier. Each (mutant, target kernel)
// of the score has exactly one case here or in mutants_score_b.cpp; the driver fails a score
// mutant that has none. A point is the smallest configuration where the fault can show:
//   store/load relaxed   W2 B1 T1 ops2          the flag's ordering alone
//   block_sync skipped   T2 (ring: chunk 2, so both threads write one transfer; fused: a row of
//                        4 packs, so the norm's lane tree crosses threads)
//   block_all own flag   T2, rank 1 missing (one thread's wait expires, the other's succeeds)
//   LL line torn         W2 B1 T1 ops2
//   norm tree unsynced   T2, a row of 4 packs
#include "tests/model/fused_model.hpp"
#include "tests/model/model_case.hpp"
#include "tests/model/ring_model.hpp"
#include "tests/model/symm_model.hpp"

namespace arbench::model {
namespace {

using algo::Fault;
using K = TwinKernel;
template <Fault F>
using M = RelacyMem<F>;

// One fault on the symmetric, ring and fused kernels it targets, at points of one shape.
template <Fault F, int T>
void flag_points(std::vector<ModelCase>& out, const ModelConfig& symm, const ModelConfig& ring,
                 const ModelConfig& fused) {
  out.push_back(mutant_case<SymmTest<M<F>, K::oneshot_pull, 2, 1, T>>(symm, nullptr));
  out.push_back(mutant_case<SymmTest<M<F>, K::twoshot, 2, 1, T>>(symm, nullptr));
  out.push_back(mutant_case<RingTest<M<F>, 2, 1, T>>(ring, nullptr));
  out.push_back(mutant_case<FusedTest<M<F>, K::fused_oneshot, 2, 1, T>>(fused, nullptr));
  out.push_back(mutant_case<FusedTest<M<F>, K::fused_twoshot, 2, 1, T>>(fused, nullptr));
}

}  // namespace

void score_mutant_cases_a(std::vector<ModelCase>& out) {
  ModelConfig ops2;
  flag_points<Fault::store_relaxed, 1>(out, ops2, ops2, ops2);
  flag_points<Fault::load_relaxed, 1>(out, ops2, ops2, ops2);

  ModelConfig ring_chunk2;
  ring_chunk2.chunk_packs = 2;
  ModelConfig wide_row;
  wide_row.tokens = 1;
  wide_row.hidden = 27;
  using SyncSkip = M<Fault::block_sync_skipped>;
  flag_points<Fault::block_sync_skipped, 2>(out, ops2, ring_chunk2, wide_row);
  out.push_back(mutant_case<SymmTest<SyncSkip, K::oneshot_push, 2, 1, 2>>(ops2, nullptr));
  out.push_back(mutant_case<FusedTest<SyncSkip, K::add_rmsnorm, 2, 1, 2>>(wide_row, nullptr));

  ModelConfig missing;
  missing.scenario = Scenario::missing_rank;
  ModelConfig ring_missing = ring_chunk2;
  ring_missing.scenario = Scenario::missing_rank;
  flag_points<Fault::block_all_own, 2>(out, missing, ring_missing, missing);

  out.push_back(mutant_case<SymmTest<M<Fault::ll_torn>, K::oneshot_push, 2, 1, 1>>(ops2, nullptr));

  using Unsynced = M<Fault::norm_tree_unsynced>;
  out.push_back(mutant_case<FusedTest<Unsynced, K::add_rmsnorm, 2, 1, 2>>(wide_row, nullptr));
  out.push_back(mutant_case<FusedTest<Unsynced, K::fused_oneshot, 2, 1, 2>>(wide_row, nullptr));
  out.push_back(mutant_case<FusedTest<Unsynced, K::fused_twoshot, 2, 1, 2>>(wide_row, nullptr));
}

}  // namespace arbench::model
