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
#include "tests/model/mutant_points.hpp"

namespace arbench::model {
namespace {

using algo::Fault;
using K = TwinKernel;
template <Fault F>
using M = RelacyMem<F>;

// One fault on the symmetric (the FP8 ones too), ring and fused kernels it targets, at points of
// one shape.
template <Fault F, int T>
void flag_points(std::vector<ModelCase>& out, const FamilyConfigs& cfg) {
  mutant_points<M<F>, 1, T, K::oneshot_pull, K::twoshot, K::ring, K::fused_oneshot, K::fused_twoshot, K::oneshot_fp8,
                K::twoshot_fp8>(out, cfg);
}

}  // namespace

void score_mutant_cases_a(std::vector<ModelCase>& out) {
  const Configs c;
  flag_points<Fault::store_relaxed, 1>(out, {c.ops2, c.ops2, c.ops2});
  flag_points<Fault::load_relaxed, 1>(out, {c.ops2, c.ops2, c.ops2});

  ModelConfig ring_chunk2 = c.ops2;
  ring_chunk2.chunk_packs = 2;
  flag_points<Fault::block_sync_skipped, 2>(out, {c.ops2, ring_chunk2, c.wide});
  mutant_points<M<Fault::block_sync_skipped>, 1, 2, K::oneshot_push, K::add_rmsnorm>(out, {c.ops2, {}, c.wide});

  ModelConfig ring_missing = ring_chunk2;
  ring_missing.scenario = Scenario::missing_rank;
  flag_points<Fault::block_all_own, 2>(out, {c.missing, ring_missing, c.missing});

  mutant_points<M<Fault::ll_torn>, 1, 1, K::oneshot_push>(out, {c.ops2, {}, {}});
  mutant_points<M<Fault::norm_tree_unsynced>, 1, 2, K::add_rmsnorm, K::fused_oneshot, K::fused_twoshot>(
      out, {{}, {}, c.wide});
}

}  // namespace arbench::model
