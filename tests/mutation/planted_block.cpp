// The mutants of the block barrier.
#include "tests/mutation/run_planted.hpp"

namespace arbench::testing {

template int run_planted<algo::Fault::block_sync_skipped>(TwinKernel, Scenario);
template int run_planted<algo::Fault::block_all_own>(TwinKernel, Scenario);
template int run_planted<algo::Fault::norm_tree_unsynced>(TwinKernel, Scenario);

}  // namespace arbench::testing
