#include "tests/mutation/mutants.hpp"

#include "tests/mutation/run_planted.hpp"

namespace arbench::testing {

using algo::Fault;

TwinPoint mutation_point(Scenario s) {
  TwinPoint p;  // 4 ranks, 4 threads, 2 blocks, long sizes with tails, bf16
  p.ops = s == Scenario::missing_rank ? 1 : 3;
  p.island_first = 1;   // island kernels: islands of 1 and 3 ranks,
  p.cross_host = true;  // crossing through host memory
  return p;
}

double mutation_timeout_s(Scenario s) { return s == Scenario::missing_rank ? 0.5 : 3.0; }

int run_mutant(algo::Fault f, TwinKernel k, Scenario s) {
  switch (f) {
    case Fault::none: return run_planted<Fault::none>(k, s);
    case Fault::store_relaxed: return run_planted<Fault::store_relaxed>(k, s);
    case Fault::load_relaxed: return run_planted<Fault::load_relaxed>(k, s);
    case Fault::block_sync_skipped: return run_planted<Fault::block_sync_skipped>(k, s);
    case Fault::block_all_own: return run_planted<Fault::block_all_own>(k, s);
    case Fault::ll_torn: return run_planted<Fault::ll_torn>(k, s);
    case Fault::epoch_stall: return run_planted<Fault::epoch_stall>(k, s);
    case Fault::slot_early: return run_planted<Fault::slot_early>(k, s);
    case Fault::partition_edge: return run_planted<Fault::partition_edge>(k, s);
    case Fault::norm_tree_unsynced: return run_planted<Fault::norm_tree_unsynced>(k, s);
    case Fault::cross_wait_skipped: return run_planted<Fault::cross_wait_skipped>(k, s);
    case Fault::cross_dest_dropped: return run_planted<Fault::cross_dest_dropped>(k, s);
    // FP8 payload faults: value faults, not protocol ones; their named tests are
    // tests/host/kernels/test_twin_fp8.cpp (Fp8PlantedFaults.*).
    case Fault::fp8_scale_doubled:
    case Fault::fp8_scale_dropped:
    case Fault::fp8_amax_ignored: return kExitNoFailure;
  }
  return kExitNoFailure;
}

}  // namespace arbench::testing
