// run_planted<F>: one mutant's scenario in this process (the child), with MutantMem<F>. Its
// instantiations are spread over a few translation units (planted_*.cpp) so they compile in
// parallel.
#pragma once

#include <cstdio>
#include <string>

#include "arbench/core/errors.hpp"
#include "tests/host/kernels/twin_points.hpp"
#include "tests/mutation/mutant_mem.hpp"
#include "tests/mutation/mutants.hpp"

namespace arbench::testing {

template <algo::Fault F>
int run_planted(TwinKernel k, Scenario s) {
  using Mem = MutantMem<F>;
  const TwinPoint p = mutation_point(s);
  HostFabric fabric(p.world, mutation_timeout_s(s));
  try {
    if (s == Scenario::missing_rank) {
      const MissingRankOutcome o = run_missing_rank<Mem>(k, fabric, p, 1);
      if (!o.error_recorded) {
        std::fprintf(stderr, "no wait expired although rank 1 never launched\n");
        return kExitNoFailure;
      }
      if (o.ranks_that_wrote > 0) {
        std::fprintf(stderr, "%d ranks wrote output in an op whose waits expired\n", o.ranks_that_wrote);
        return kExitWrong;
      }
      return 0;
    }
    if (const std::size_t wrong = run_twin_point<Mem>(k, fabric, p, false); wrong != 0) {
      std::fprintf(stderr, "%zu elements wrong\n", wrong);
      return kExitWrong;
    }
    return 0;
  } catch (const CaseError& e) {
    std::fprintf(stderr, "error recorded: %s\n", e.what());
    return std::string(e.what()).find(" waited ") != std::string::npos ? kExitTimeout : kExitProtocolError;
  }
}

#define ARB_PLANTED(F) extern template int run_planted<algo::Fault::F>(TwinKernel, Scenario);
ARB_PLANTED(none)
ARB_PLANTED(store_relaxed)
ARB_PLANTED(load_relaxed)
ARB_PLANTED(block_sync_skipped)
ARB_PLANTED(block_all_own)
ARB_PLANTED(ll_torn)
ARB_PLANTED(epoch_stall)
ARB_PLANTED(slot_early)
ARB_PLANTED(partition_edge)
ARB_PLANTED(norm_tree_unsynced)
ARB_PLANTED(cross_wait_skipped)
ARB_PLANTED(cross_dest_dropped)
#undef ARB_PLANTED

}  // namespace arbench::testing
